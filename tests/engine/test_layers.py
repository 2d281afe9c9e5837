"""The engine's modules form layers: no import circle, not even inside a function.

A lower idea never needs a higher one (STYLE.md): hands know nothing of rule sets, a rule set
knows nothing of presets or rule files, the game knows the record format but not judging.
"""

from __future__ import annotations

from pathlib import Path

from layering import cycle, import_graph, package_imports

import bobing.engine

GRAPH = import_graph(bobing.engine)


def test_the_engine_has_no_import_circle() -> None:
    assert cycle(GRAPH) is None, " → ".join(cycle(GRAPH) or [])


def test_the_layers_point_down() -> None:
    assert "switches" not in GRAPH["hands"] and "rules" not in GRAPH["hands"]
    assert not {"presets", "rules"} & GRAPH["switches"]
    assert "record" not in GRAPH["game"] and "game" in GRAPH["record"]
    assert "game" not in GRAPH["state"] and "state" in GRAPH["game"]
    assert "game" not in GRAPH["ranked"] and "game" not in GRAPH["record_format"]


def test_the_check_can_fail() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None
    assert package_imports(Path(__file__), "bobing.engine", {"game"}) == set()
