"""The whole house's layers: which package of ``bobing`` may import which (docs/architecture.md).

The folder names tell a throw's path — ``web/routes/ws.py`` → ``tables/service.py`` →
``tables/commands.py`` → ``engine`` — and every import, even one inside a function, must point
down this table, and no module of ``bobing`` may reach itself again through its imports (no
import circle). ruff's banned-API lists say the same for third-party frameworks.
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
    # the event loop and the open-file limit, shared by the server and the load clients
    "process": set(),
    # the dice reader: a photo in, faces out (its errors are the engine's InputError)
    "vision": {"engine"},
    # vision: the confidence under which a die read from a photo is unsure, served to the pad
    "tables": {"engine", "i18n", "organizer", "storage", "realtime", "vision"},
    "gatherings": {"engine", "i18n", "organizer", "storage", "tables"},
    # vision: the photo route reads a referee's dice in a worker (the reader imports no web)
    "web": {
        "engine", "i18n", "organizer", "analysis", "storage", "realtime", "tables", "gatherings",
        "process", "vision",
    },
    # tables: the frames' decoder (tables/frames.py), as every Python client of the socket;
    # nothing of web/: a load client does not live in the server
    "bench": {"engine", "realtime", "storage", "tables", "process"},
    "cli": {
        "engine", "i18n", "organizer", "analysis", "storage", "realtime", "tables", "gatherings",
        "web", "bench", "process", "vision",
    },
}  # fmt: skip

# Third-party imports a package may make (the standard library is always allowed).
THIRD_PARTY: dict[str, set[str]] = {
    "engine": set(),
    "i18n": set(),
    "organizer": set(),
    "analysis": {"numpy", "matplotlib"},
    "storage": {"sqlalchemy", "alembic", "platformdirs", "asyncpg"},
    "realtime": {"redis"},
    # uvloop: the server's event loop when it is installed (bobing/process/loop.py)
    "process": {"uvloop"},
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
    # OpenCV (headless), NumPy and Pillow: the photo decoded and the dice found (docs/vision.md)
    "vision": {"cv2", "numpy", "PIL"},
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


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph() -> dict[str, set[str]]:
    """Each module of ``bobing`` → the modules of ``bobing`` it imports, anywhere in the file
    (top level, inside functions, under TYPE_CHECKING). ``from bobing.x import mod`` names the
    module ``bobing.x.mod``; ``from bobing.x.mod import name`` names ``bobing.x.mod``."""
    modules = {_module_name(path): path for path in ROOT.rglob("*.py")}

    def owner(name: str) -> str:
        while name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets = [
                    f"{node.module}.{alias.name}"
                    if f"{node.module}.{alias.name}" in modules
                    else node.module
                    for alias in node.names
                ]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            found.update(owner(t) for t in targets if t.split(".")[0] == "bobing")
        graph[name] = found - {name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of ``graph`` with more than one module (Tarjan's
    algorithm, iterative): each is a set of modules that import each other round a circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_circles_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_module_graph_sees_imports_inside_functions() -> None:
    graph = module_graph()
    # web/serve.py imports the app only inside _serve (so that `import` stays cheap)
    assert "bobing.web.app" in graph["bobing.web.serve"]
    assert "bobing.realtime.memory" in graph["bobing.realtime.backends"]


def test_no_import_circle_in_bobing() -> None:
    found = circles(module_graph())
    assert not found, "import circles:\n" + "\n".join(" ↔ ".join(c) for c in found)
