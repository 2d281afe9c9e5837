"""The analysis modules form layers: no import circle, not even inside a function.

The lower idea never needs the higher one (STYLE.md): the exact chain (markov) and the
simulation kernel share the outcome classes below them, and neither imports the other or
the module that runs many games.
"""

from __future__ import annotations

from pathlib import Path

from layering import cycle, import_graph, package_imports

import bobing.analysis

GRAPH = import_graph(bobing.analysis)


def test_analysis_has_no_import_circle() -> None:
    assert cycle(GRAPH) is None, " → ".join(cycle(GRAPH) or [])


def test_the_layers_point_down() -> None:
    assert GRAPH["outcomes"] == set() and GRAPH["limits"] == set()
    assert GRAPH["markov"] <= {"outcomes", "limits"}
    assert not {"simulate", "results", "markov", "reference"} & GRAPH["kernel"]
    assert "simulate" not in GRAPH["results"] and "simulate" not in GRAPH["ranked"]


def test_the_check_can_fail() -> None:
    assert cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    names = set(GRAPH)
    assert package_imports(Path(__file__), "bobing.analysis", names) == set()
