"""The front end's layers (docs/ui.md, Modules): the routers (``js/app.js``, ``js/table.js``)
pick the screens, each screen (``js/views/``) draws one and imports no other, the pieces two
screens share are in ``js/widgets/``, and neither a widget nor a plain module imports a screen.

Imports are read as the server reads them for its preload list (``assets.module_imports``),
plus every ``import("./x.js")``, the on-demand ones and JSDoc's type imports alike.
"""

from __future__ import annotations

import re
from pathlib import Path

from bobing.web.assets import module_imports

STATIC = Path(__file__).resolve().parent.parent / "bobing" / "web" / "static"
ROUTERS = {"/js/app.js", "/js/table.js"}
"""The modules that choose a screen: app.js by the address, table.js by the table's status."""

_DYNAMIC = re.compile(r"""\bimport\(\s*["'](\.{1,2}/[^"']+)["']\s*\)""")


def imports(source: str, path: str) -> list[str]:
    """Every module ``path`` names: static imports, ``import()`` calls and JSDoc type imports."""
    found = module_imports(source, path)
    for relative in _DYNAMIC.findall(source):
        (resolved,) = module_imports(f'import {{}} from "{relative}";', path)
        if resolved not in found:
            found.append(resolved)
    return found


def modules() -> dict[str, str]:
    return {
        "/" + p.relative_to(STATIC).as_posix(): p.read_text("utf-8")
        for p in sorted((STATIC / "js").rglob("*.js"))
    }


def wrong_imports(sources: dict[str, str]) -> list[str]:
    """Each import that goes against the layers, as ``importer → imported``."""
    wrong = []
    for path, source in sources.items():
        for target in imports(source, path):
            if not target.startswith("/js/views/") or path in ROUTERS:
                continue
            wrong.append(f"{path} → {target}")
    return wrong


def test_no_view_imports_another_and_nothing_below_imports_a_view() -> None:
    sources = modules()
    assert "/js/views/play.js" in sources and "/js/widgets/board.js" in sources
    assert wrong_imports(sources) == []


def test_wrong_imports_sees_every_kind_of_import() -> None:
    sources = {
        "/js/views/tv.js": 'import { poolView } from "./play.js";\n',
        "/js/views/end.js": 'const m = await import("./play.js");\n',
        "/js/views/lobby.js": '/** @type {import("../views/home.js").HomeView} */\nlet v;\n',
        "/js/widgets/board.js": 'export { x } from "../views/play.js";\n',
        "/js/ranked.js": 'import { endReason } from "./views/end.js";\n',
        "/js/table.js": 'import { LobbyPanel } from "./views/lobby.js";\n',
        "/js/views/play.js": 'import { poolView } from "../widgets/board.js";\n',
    }
    assert wrong_imports(sources) == [
        "/js/views/tv.js → /js/views/play.js",
        "/js/views/end.js → /js/views/play.js",
        "/js/views/lobby.js → /js/views/home.js",
        "/js/widgets/board.js → /js/views/play.js",
        "/js/ranked.js → /js/views/end.js",
    ]


def test_the_server_serves_and_preloads_the_subfolders() -> None:
    """A module in a folder of its own (``js/widgets/``) is hashed, in the import map, and
    preloaded when the first screen imports it: the server lists every file under static/."""
    from bobing.web.assets import StaticSite

    site = StaticSite(STATIC)
    assert "/js/widgets/keep_focus.js" in site.names
    assert site.plain["/js/widgets/board.js"].br is not None
    # the lobby keeps focus across its repaints: the first screen needs the widget
    assert "/js/widgets/keep_focus.js" in site.first_screen
    assert "/js/views/play.js" not in site.first_screen
