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


def test_chinese_labels_when_a_cjk_font_exists(result: SimulationResult) -> None:
    svg = plots.length_svg(result, "zh-Hans")
    expected = "每局掷数" if plots.cjk_font() else "throws per game"
    assert expected in svg


def test_english_labels_without_a_cjk_font(
    result: SimulationResult, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plots, "cjk_font", lambda: None)
    assert "throws per game" in plots.length_svg(result, "zh-Hant")


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
