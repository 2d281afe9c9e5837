"""Pictures: SVG text for the web page, PNG/SVG files, and labels without a CJK font."""

from __future__ import annotations

from pathlib import Path

import pytest

from bobing.analysis import plots
from bobing.analysis.simulate import SimulationResult, simulate
from bobing.engine.errors import InputError
from bobing.engine.rules import load_rules


@pytest.fixture(scope="module")
def result() -> SimulationResult:
    return simulate(load_rules("traditional"), 6, 3000, seed=1, exact=True)


def test_length_svg_is_text_with_labels(result: SimulationResult) -> None:
    svg = plots.length_svg(result, "en")
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg
    assert "throws per game" in svg  # svg.fonttype none: labels stay text
    assert plots.length_svg(result, "en") == svg  # no timestamps: same input, same bytes


def test_seats_svg(result: SimulationResult) -> None:
    assert "Seat fairness" in plots.seats_svg(result, "en")


def test_svg_keeps_chinese_labels_with_or_without_a_server_font(result: SimulationResult) -> None:
    # SVG text stays text: the browser's fonts draw it, so the server's fonts do not matter
    svg = plots.length_svg(result, "zh-Hans")
    assert "每局掷数" in svg
    assert "Noto Sans CJK SC" in svg or plots.cjk_font() is not None
    assert "throws per game" not in svg


def test_svg_names_browser_fonts_when_the_server_has_no_cjk_font(
    result: SimulationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    svg = plots.length_svg(result, "zh-Hant")
    assert "每局擲數" in svg
    assert "PingFang TC" in svg and "Noto Sans CJK TC" in svg


def test_png_labels_in_english_without_a_cjk_font(
    result: SimulationResult, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    fig = plots.figure(result, "zh-Hant", parts="length")
    assert fig.axes[0].get_xlabel() == "throws per game"


def test_write_plot(result: SimulationResult, tmp_path: Path) -> None:
    png = plots.write_plot(result, tmp_path / "a.PNG")
    assert png.read_bytes().startswith(b"\x89PNG")
    with pytest.raises(InputError, match=r"must end in \.png or \.svg"):
        plots.write_plot(result, tmp_path / "a.jpg")
    with pytest.raises(InputError, match="cannot write"):
        plots.write_plot(result, tmp_path / "no" / "such" / "dir.svg")


def _width_pt(svg: str) -> float:
    import re

    match = re.search(r'<svg[^>]*\bwidth="([\d.]+)pt"', svg)
    assert match, svg[:300]
    return float(match.group(1))


@pytest.mark.parametrize("draw", [plots.length_svg, plots.seats_svg])
def test_compact_charts_are_narrower_for_phones(result: SimulationResult, draw: object) -> None:
    assert callable(draw)
    wide, narrow = draw(result, "en"), draw(result, "en", compact=True)
    # Same labels, drawn on a narrower page: a phone shrinks it less, so the text stays legible.
    assert "<svg" in narrow and _width_pt(narrow) < 0.7 * _width_pt(wide)


def test_mean_and_quantiles_are_in_a_legend_not_beside_the_lines(result: SimulationResult) -> None:
    # labels beside the lines overlapped ("mean" over "p50") when the two are close
    ax = plots.figure(result, "en", parts="length").axes[0]
    assert not ax.texts
    legend = ax.get_legend()
    assert legend is not None
    labels = [text.get_text() for text in legend.get_texts()]
    assert [label.split()[0] for label in labels] == ["mean", "p50", "p90", "p99"]
    assert labels[0] == f"mean {result.throws.mean:.0f}"
