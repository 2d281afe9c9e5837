"""Import layers of a package: which of its modules each module imports, and any circle."""

from __future__ import annotations

import ast
from pathlib import Path
from types import ModuleType


def package_imports(path: Path, package: str, names: set[str]) -> set[str]:
    """The modules of ``package`` a file imports anywhere (top level, functions,
    TYPE_CHECKING), as ``from bobing.x.mod import …``, ``import bobing.x.mod`` or
    ``from bobing.x import mod``."""
    found: set[str] = set()
    prefix = package.split(".")
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        modules: list[str] = []
        if isinstance(node, ast.ImportFrom) and node.module:
            modules = [node.module]
            if node.module == package:
                modules = [f"{package}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        for module in modules:
            parts = module.split(".")
            if parts[: len(prefix)] == prefix and len(parts) == len(prefix) + 1:
                found.add(parts[-1])
    return found & names


def import_graph(package: ModuleType) -> dict[str, set[str]]:
    """Each module of ``package`` → the modules of the same package it imports."""
    assert package.__file__ is not None
    root = Path(package.__file__).parent
    names = {path.stem for path in root.glob("*.py")} - {"__init__"}
    return {
        name: package_imports(root / f"{name}.py", package.__name__, names) - {name}
        for name in names
    }


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` (a list of modules back to the first), or None."""
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
