"""The engine's modules form layers: no import circle, not even inside a function.

A lower idea never needs a higher one (STYLE.md): hands know nothing of rule sets, a rule set
knows nothing of presets or rule files, the game knows the record format but not judging.
"""

from __future__ import annotations

import ast
from pathlib import Path

import bobing.engine

ENGINE = Path(bobing.engine.__file__).parent
NAMES = {path.stem for path in ENGINE.glob("*.py")} - {"__init__"}


def engine_imports(path: Path) -> set[str]:
    """The engine modules a file imports anywhere (top level, functions, TYPE_CHECKING)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if parts[:2] == ["bobing", "engine"] and len(parts) == 3:
                found.add(parts[2])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["bobing", "engine"] and len(parts) == 3:
                    found.add(parts[2])
    return found & NAMES


GRAPH = {name: engine_imports(ENGINE / f"{name}.py") - {name} for name in NAMES}


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (a list of modules back to the first), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)):
            return found
    return None


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
