"""The whole house's layers: which package of ``bobing`` may import which (docs/architecture.md).

The folder names tell a throw's path — ``web/routes/ws.py`` → ``tables/service.py`` →
``tables/commands.py`` → ``engine`` — and every import, even one inside a function, must point
down this table. ruff's banned-API lists say the same for third-party frameworks.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "bobing"

# Each package → the packages of bobing it may import (besides itself).
ALLOWED: dict[str, set[str]] = {
    "engine": set(),
    "i18n": {"engine"},
    "organizer": {"engine"},
    "analysis": {"engine", "i18n"},
    "storage": {"engine"},
    "realtime": {"engine"},
    "tables": {"engine", "i18n", "organizer", "storage", "realtime"},
    "gatherings": {"engine", "i18n", "organizer", "storage", "tables"},
    "web": {
        "engine", "i18n", "organizer", "analysis", "storage", "realtime", "tables", "gatherings",
    },
    # tables: the frames' decoder (tables/frames.py), as every Python client of the socket
    "bench": {"engine", "realtime", "storage", "tables", "web"},
    "cli": {
        "engine", "i18n", "organizer", "analysis", "storage", "realtime", "tables", "gatherings",
        "web", "bench",
    },
}  # fmt: skip

# Third-party imports a package may make (the standard library is always allowed).
THIRD_PARTY: dict[str, set[str]] = {
    "engine": set(),
    "i18n": set(),
    "organizer": set(),
    "analysis": {"numpy", "matplotlib"},
    "storage": {"sqlalchemy", "alembic", "platformdirs"},
    "realtime": {"redis"},
    "tables": {"pydantic"},
    # pypinyin: the results' name order (bobing/gatherings/collation.py)
    "gatherings": {"pydantic", "pypinyin"},
    # brotli, PIL and platformdirs: the static front end precompressed, its icons drawn, and
    # the compressed files kept between starts (bobing/web/assets.py); websockets: the state
    # of a socket the hub writes to directly (Uvicorn's protocol is built on it, web/hub.py)
    "web": {
        "fastapi",
        "starlette",
        "uvicorn",
        "uvloop",
        "pydantic",
        "segno",
        "sqlalchemy",
        "brotli",
        "PIL",
        "platformdirs",
        "websockets",
    },
    "bench": {"websockets"},
    "cli": {"typer", "rich", "click"},
}


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _packages() -> list[str]:
    return sorted(p.name for p in ROOT.iterdir() if (p / "__init__.py").exists())


def test_every_package_has_a_place() -> None:
    assert set(_packages()) == set(ALLOWED) == set(THIRD_PARTY)


@pytest.mark.parametrize("package", _packages())
def test_imports_point_down(package: str) -> None:
    wrong: list[str] = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for module in _imports(path):
            top, _, rest = module.partition(".")
            where = path.relative_to(ROOT.parent)
            if top == "bobing":
                target = rest.split(".")[0]
                if target and target != package and target not in ALLOWED[package]:
                    wrong.append(f"{where} imports {module}")
            elif top not in sys.stdlib_module_names and top not in THIRD_PARTY[package]:
                wrong.append(f"{where} imports {module} (third-party)")
    assert not wrong, "\n".join(wrong)


def test_allowed_table_has_no_circle() -> None:
    seen: set[str] = set()

    def visit(node: str, path: tuple[str, ...]) -> None:
        assert node not in path, " → ".join((*path, node))
        if node in seen:
            return
        for nxt in ALLOWED[node]:
            visit(nxt, (*path, node))
        seen.add(node)

    for package in ALLOWED:
        visit(package, ())
