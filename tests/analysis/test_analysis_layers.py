"""The analysis modules form layers: no import circle, not even inside a function.

The lower idea never needs the higher one (STYLE.md): the exact chain (markov) and the
simulation kernel share the outcome classes below them, and neither imports the other or
the module that runs many games.
"""

from __future__ import annotations

import ast
from pathlib import Path

import bobing.analysis

ANALYSIS = Path(bobing.analysis.__file__).parent
NAMES = {path.stem for path in ANALYSIS.glob("*.py")} - {"__init__"}


def analysis_imports(path: Path) -> set[str]:
    """The analysis modules a file imports anywhere (top level, functions, TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == "bobing.analysis":
                modules = [f"bobing.analysis.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            parts = module.split(".")
            if parts[:2] == ["bobing", "analysis"] and len(parts) == 3:
                found.add(parts[2])
    return found & NAMES


GRAPH = {name: analysis_imports(ANALYSIS / f"{name}.py") - {name} for name in NAMES}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (modules back to the first), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


def test_analysis_has_no_import_circle() -> None:
    assert cycle(GRAPH) is None, " → ".join(cycle(GRAPH) or [])


def test_the_layers_point_down() -> None:
    assert GRAPH["outcomes"] == set() and GRAPH["limits"] == set()
    assert GRAPH["markov"] <= {"outcomes", "limits"}
    assert not {"simulate", "results", "markov", "reference"} & GRAPH["kernel"]
    assert "simulate" not in GRAPH["results"] and "simulate" not in GRAPH["ranked"]


def test_the_check_can_fail() -> None:
    assert cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert analysis_imports(Path(__file__)) == set()
