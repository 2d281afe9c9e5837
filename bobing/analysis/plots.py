"""Pictures of a simulation: how long games last, and how fair the seats are.

Matplotlib is imported only when a picture is drawn, and only through its object API with
the Agg (PNG) and SVG canvases, so no global backend is ever switched. Labels are in the
requested language when a CJK font is installed; otherwise a PNG is labelled in English (so no
glyph is ever missing) while an SVG keeps the requested language: it keeps text as text and
names browser CJK fonts, so the viewer's fonts draw it (the web app's "规则与概率" page).
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from bobing.analysis.simulate import SimulationResult
from bobing.engine.errors import InputError
from bobing.i18n import normalize_lang, t

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_CJK_FONTS = (
    "Noto Sans CJK SC",
    "Noto Sans CJK TC",
    "Source Han Sans SC",
    "Source Han Sans CN",
    "WenQuanYi Zen Hei",
    "WenQuanYi Micro Hei",
    "Microsoft YaHei",
    "PingFang SC",
    "Heiti SC",
    "SimHei",
)
_BROWSER_CJK = {
    "zh-Hans": (
        "PingFang SC",
        "Hiragino Sans GB",
        "Noto Sans CJK SC",
        "Noto Sans SC",
        "Microsoft YaHei",
    ),
    "zh-Hant": (
        "PingFang TC",
        "Hiragino Sans CNS",
        "Noto Sans CJK TC",
        "Noto Sans TC",
        "Microsoft JhengHei",
    ),
}
"""Fonts named in an SVG for the browser to draw Chinese with (SVG keeps text as text, so the
viewer's fonts draw it even when the server has no CJK font)."""
FORMATS = ("png", "svg")

_RED = "#c8102e"
_GOLD = "#d4a017"
_GREY = "#6b6b6b"


@lru_cache(maxsize=1)
def cjk_font() -> str | None:
    """The first installed font that has Chinese glyphs, or None."""
    from matplotlib import font_manager

    installed = {font.name for font in font_manager.fontManager.ttflist}
    return next((name for name in _CJK_FONTS if name in installed), None)


def _label_lang(lang: str | None) -> str:
    language = normalize_lang(lang)
    if language.startswith("zh") and cjk_font() is None:
        return "en"
    return language


def _style(lang: str, *, text: bool = False) -> dict[Any, Any]:
    families = ["DejaVu Sans"]
    font = cjk_font()
    if font is not None:
        families = [font, *families] if lang.startswith("zh") else [*families, font]
    elif text:
        families += _BROWSER_CJK.get(lang, ())
    return {
        "font.family": "sans-serif",
        "font.sans-serif": families,
        "svg.fonttype": "none",
        "svg.hashsalt": "bobing",  # stable ids: the same result gives the same SVG
        "axes.unicode_minus": False,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }


def _length_axes(ax: Axes, result: SimulationResult, lang: str) -> None:
    throws = result.throws
    counts = throws.counts.astype(np.float64)
    width = result.players  # about one round per bar
    edges = np.arange(0, len(counts) + width, width)
    sums = np.add.reduceat(counts, edges[:-1]) if len(counts) else np.zeros(0)
    shares = sums / counts.sum()
    ax.bar(edges[:-1], shares * 100, width=width, align="edge", color=_RED, alpha=0.75)
    marks = [
        (throws.quantile(0.5), "p50", "-"),
        (throws.quantile(0.9), "p90", "--"),
        (throws.quantile(0.99), "p99", ":"),
    ]
    ymax = float(shares.max() * 100) if len(shares) else 1.0
    # A legend, not labels beside the lines: the mean and the median are often a few throws
    # apart, and labels there overlapped each other and the lines.
    mean_label = f"{t('analysis.plot.mean', lang)} {throws.mean:.0f}"
    ax.axvline(throws.mean, color="black", linewidth=1.2, label=mean_label)
    for value, name, style in marks:
        ax.axvline(value, color=_GREY, linestyle=style, linewidth=1, label=f"{name} {value:.0f}")
    if result.exact is not None:
        ax.axvline(result.exact.throws_mean, color=_GOLD, linestyle="--", linewidth=1.2)
    ax.legend(loc="upper right", fontsize=8, frameon=False, handlelength=1.6)
    ax.set_xlim(0, max(throws.quantile(0.999) * 1.05, throws.mean * 2))
    ax.set_ylim(0, ymax * 1.12)
    ax.set_xlabel(t("analysis.plot.throws_axis", lang))
    ax.set_ylabel(t("analysis.plot.share_axis", lang, width=width))
    title = t(
        "analysis.plot.length_title",
        lang,
        games=f"{result.games:,}",
        players=result.players,
        mean=f"{throws.mean:.1f}",
    )
    if result.exact is not None:
        title += "\n" + t("analysis.plot.exact", lang, mean=f"{result.exact.throws_mean:.2f}")
    ax.set_title(title, fontsize=10)


def _seat_axes(ax: Axes, result: SimulationResult, lang: str) -> None:
    seats = result.seats
    x = np.arange(1, len(seats) + 1)
    cakes = [seat.cakes_mean for seat in seats]
    rate = [seat.zhuangyuan_rate * 100 for seat in seats]
    ax.bar(x, cakes, color=_RED, alpha=0.75, label=t("analysis.plot.cakes", lang))
    fair = sum(cakes) / len(cakes)
    ax.axhline(fair, color=_GREY, linestyle="--", linewidth=1)
    ax.set_xticks(x)
    ax.set_xlabel(t("analysis.plot.seat_axis", lang))
    ax.set_ylabel(t("analysis.plot.cakes", lang))
    low, high = min(cakes), max(cakes)
    pad = max((high - low) * 0.6, fair * 0.02)
    ax.set_ylim(max(0.0, low - pad), high + pad)
    twin = ax.twinx()
    twin.plot(x, rate, color=_GOLD, marker="o", linewidth=1.5, label=t("analysis.plot.zy", lang))
    twin.set_ylabel(t("analysis.plot.zy", lang))
    twin.set_ylim(0, max(rate) * 1.3 if max(rate) > 0 else 1)
    twin.spines["right"].set_visible(True)
    ax.set_title(t("analysis.plot.seats_title", lang), fontsize=10)


def figure(
    result: SimulationResult,
    lang: str | None = None,
    *,
    parts: str = "both",
    compact: bool = False,
    text: bool = False,
) -> Figure:
    """A matplotlib Figure: ``parts`` = ``both``, ``length`` or ``seats``.

    ``compact`` draws a single part narrower, so its text stays legible when a phone
    scales the picture to the width of its screen.
    """
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    language = normalize_lang(lang) if text else _label_lang(lang)
    with rc_context(_style(language, text=text)), _glyphs_drawn_by_the_viewer(text):
        if parts == "both":
            fig = Figure(figsize=(11, 4.2), layout="constrained")
            left, right = fig.subplots(1, 2, width_ratios=(3, 2))
            _length_axes(left, result, language)
            _seat_axes(right, result, language)
        else:
            fig = Figure(figsize=(4.6, 3.6) if compact else (7, 4.2), layout="constrained")
            ax = fig.subplots()
            (_length_axes if parts == "length" else _seat_axes)(ax, result, language)
        FigureCanvasAgg(fig)
        fig.set_layout_engine("constrained")
    return fig


def _render(fig: Figure, fmt: str, lang: str, *, text: bool = False) -> bytes:
    from matplotlib import rc_context

    buffer = io.BytesIO()
    with rc_context(_style(lang, text=text)), _glyphs_drawn_by_the_viewer(text):
        fig.savefig(buffer, format=fmt, dpi=120, metadata=_metadata(fmt))
    return buffer.getvalue()


@contextmanager
def _glyphs_drawn_by_the_viewer(text: bool) -> Iterator[None]:
    """SVG text is drawn by the viewer's fonts: a glyph the server's fonts lack is no loss."""
    with warnings.catch_warnings():
        if text:
            warnings.filterwarnings("ignore", "Glyph .* missing from font", UserWarning)
        yield


def _metadata(fmt: str) -> dict[str, Any]:
    # No creation date: the same result gives the same bytes.
    return {"Date": None} if fmt == "svg" else {}


def length_svg(result: SimulationResult, lang: str | None = None, *, compact: bool = False) -> str:
    """The game-length distribution as SVG text (``compact``: sized for a phone)."""
    language = normalize_lang(lang)
    fig = figure(result, language, parts="length", compact=compact, text=True)
    return _render(fig, "svg", language, text=True).decode("utf-8")


def seats_svg(result: SimulationResult, lang: str | None = None, *, compact: bool = False) -> str:
    """Expected cakes and the chance of the 状元 per seat, as SVG (``compact``: for a phone)."""
    language = normalize_lang(lang)
    fig = figure(result, language, parts="seats", compact=compact, text=True)
    return _render(fig, "svg", language, text=True).decode("utf-8")


def write_plot(result: SimulationResult, path: str | Path, lang: str | None = None) -> Path:
    """Write both pictures side by side to ``path`` (``.png`` or ``.svg``)."""
    target = Path(path)
    fmt = target.suffix.lower().lstrip(".")
    if fmt not in FORMATS:
        raise InputError(
            f"cannot write a plot to {str(path)!r}: the file name must end in .png or .svg",
            value=str(path),
        )
    language = _label_lang(lang)
    data = _render(figure(result, language), fmt, language)
    try:
        target.write_bytes(data)
    except OSError as exc:
        raise InputError(f"cannot write {str(path)!r}: {exc.strerror}") from None
    return target


__all__ = ["FORMATS", "cjk_font", "figure", "length_svg", "seats_svg", "write_plot"]
