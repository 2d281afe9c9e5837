"""The engine imports only the standard library (and itself): parsed, not trusted to ruff."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import bobing.engine

ENGINE = Path(bobing.engine.__file__).parent
MODULES = sorted(ENGINE.rglob("*.py"))
ALLOWED = set(sys.stdlib_module_names) | {"__future__"}


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """(line, module) for every import in a file, including ones inside functions."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # a relative import stays inside the package
                package = ".".join(path.relative_to(ENGINE.parent.parent).parts[: -node.level])
                found.append((node.lineno, f"{package}.{node.module or ''}".rstrip(".")))
            else:
                found.append((node.lineno, node.module or ""))
    return found


def test_engine_has_modules() -> None:
    names = {p.name for p in MODULES}
    assert {"dice.py", "hands.py", "rules.py", "presets.py", "errors.py", "ranking.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_imports_only_stdlib_and_engine(path: Path) -> None:
    bad = [
        f"{path.name}:{line}: {module}"
        for line, module in imported_modules(path)
        if module.split(".")[0] not in ALLOWED
        and module != "bobing.engine"
        and not module.startswith("bobing.engine.")
    ]
    assert not bad, "the engine must import only the standard library: " + ", ".join(bad)


def test_the_check_can_fail(tmp_path: Path) -> None:
    fake = ENGINE / "_probe_does_not_exist.py"
    assert not fake.exists()
    probe = tmp_path / "probe.py"
    probe.write_text("import json\nfrom rich import print\ndef f():\n    import numpy\n")
    modules = [m for _, m in imported_modules(probe)]
    assert modules == ["json", "rich", "numpy"]
    assert [m for m in modules if m.split(".")[0] not in ALLOWED] == ["rich", "numpy"]
