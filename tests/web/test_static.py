"""The front end as a real server gives it: hashed names cached forever, precompressed bodies, a
revalidated page that announces its whole module graph, robots.txt, the manifest and the worker."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import brotli
import httpx
import pytest
from PIL import Image

from bobing.web.assets import IMMUTABLE
from bobing.web.settings import STATIC_DIR

# `import ... from "./x.js"`, `export ... from "./x.js"`, `import "./x.js"` (not a dynamic
# `import("./x.js")` inside an exported function: that one is fetched on demand)
IMPORT = re.compile(
    r"""^(?:(?:import|export)\b[^"';(]*?\bfrom\s*|import\s*)["'](\.{1,2}/[^"']+)["']""", re.M
)


def graph_on_disk(entry: str = "js/app.js") -> set[str]:
    """The modules reachable from the entry, read from the files (independently of the server)."""
    todo, seen = [STATIC_DIR / entry], set()
    while todo:
        file = todo.pop().resolve()
        if file in seen:
            continue
        seen.add(file)
        todo.extend(file.parent / rel for rel in IMPORT.findall(file.read_text("utf-8")))
    return {"/" + f.relative_to(STATIC_DIR).as_posix() for f in seen}


def preloads(page: str) -> list[str]:
    return re.findall(r'<link rel="modulepreload" href="([^"]+)"', page)


def import_map(page: str) -> dict[str, str]:
    found = re.search(r'<script type="importmap">(.*?)</script>', page, re.S)
    assert found, "the page has no import map"
    imports: dict[str, str] = json.loads(found.group(1))["imports"]
    return imports


async def test_every_first_screen_module_is_preloaded_by_its_hashed_name(
    http: httpx.AsyncClient,
) -> None:
    page = (await http.get("/t/ABCD")).text
    imports = import_map(page)
    announced = preloads(page)
    assert len(announced) == len(set(announced))
    assert sorted(announced) == sorted(imports[m] for m in graph_on_disk())
    assert f'<script type="module" src="{imports["/js/app.js"]}"></script>' in page
    # every module the graph holds is in the map (an import outside it would not be cached)
    assert set(graph_on_disk()) <= set(imports)
    for plain, hashed in imports.items():
        stem, _, suffix = plain.rpartition(".")
        assert re.fullmatch(re.escape(stem) + r"\.[0-9a-f]{10}\." + suffix, hashed), hashed
    # the game's screens come once the lobby is complete (table.js), not with the page
    assert imports["/js/views/play.js"] not in announced


async def test_the_home_page_preloads_its_view_and_a_table_does_not(
    http: httpx.AsyncClient,
) -> None:
    home = (await http.get("/")).text
    table = (await http.get("/t/ABCD")).text
    view = import_map(home)["/js/views/home.js"]
    assert sorted(preloads(home)) == sorted(
        import_map(home)[m] for m in graph_on_disk() | graph_on_disk("js/views/home.js")
    )
    assert view not in preloads(table)
    assert import_map(home) == import_map(table)


async def test_catalogues_and_stylesheets_are_fetched_by_their_hashed_names(
    http: httpx.AsyncClient,
) -> None:
    page = (await http.get("/t/ABCD", headers={"Accept-Language": "en"})).text
    imports = import_map(page)
    for lang in ("en", "zh-Hans", "zh-Hant"):
        assert re.fullmatch(rf"/i18n/{lang}\.[0-9a-f]{{10}}\.json", imports[f"/i18n/{lang}.json"])
    # the page's catalogue is preloaded by the name i18n.js asks for (import.meta.resolve), so
    # the browser uses the preload, or its cache, instead of asking again
    catalogue = imports["/i18n/en.json"]
    assert f'<link rel="preload" href="{catalogue}" as="fetch" crossorigin="anonymous" />' in page
    r = await http.get(catalogue)
    assert r.headers["cache-control"] == IMMUTABLE
    assert r.json()["app.name"]
    assert re.fullmatch(r"/css/events\.[0-9a-f]{10}\.css", imports["/css/events.css"])


@pytest.mark.parametrize(
    ("lang", "title", "loading"),
    [
        ("zh-Hans", "博饼", "博饼 · 加载中…"),
        ("zh-Hant", "博餅", "博餅 · 載入中…"),
        ("en", "Bobing", "博饼 Bobing · loading…"),
    ],
)
async def test_the_first_paint_speaks_the_page_language(
    http: httpx.AsyncClient, lang: str, title: str, loading: str
) -> None:
    page = (await http.get("/t/ABCD", params={"lang": lang})).text
    found = re.search(r"<title>(.*?)</title>", page)
    assert found and found.group(1).startswith(title)
    boot = re.search(r'<div class="boot" aria-busy="true">.*?<p>(.*?)</p>', page, re.S)
    assert boot and boot.group(1) == loading


async def test_the_page_paints_without_asking_for_a_stylesheet_or_an_icon(
    http: httpx.AsyncClient,
) -> None:
    page = (await http.get("/t/ABCD")).text
    head = page.split("</head>")[0]
    # app.css is written into the page: the first paint needs no other request
    style = re.search(r"<style>(.*?)</style>", head, re.S)
    assert style and style.group(1) == (STATIC_DIR / "css" / "app.css").read_text("utf-8")
    assert 'rel="stylesheet"' not in head
    icon = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml" />', head)
    assert icon and icon.group(1).startswith("data:image/svg+xml,%3Csvg ")
    assert '"' not in icon.group(1)


async def test_hashed_files_are_immutable_and_precompressed(http: httpx.AsyncClient) -> None:
    page = (await http.get("/")).text
    styles = [v for k, v in import_map(page).items() if k.startswith("/css/")]
    assert len(styles) == 4
    for hashed in import_map(page).values():
        plain = re.sub(r"\.[0-9a-f]{10}\.", ".", hashed)
        on_disk = (STATIC_DIR / plain.lstrip("/")).read_bytes()
        for accept, coding in (("br, gzip", "br"), ("gzip", "gzip"), ("identity", None)):
            r = await http.get(hashed, headers={"Accept-Encoding": accept})
            assert r.status_code == 200, hashed
            assert r.headers["cache-control"] == IMMUTABLE
            assert r.headers.get("content-encoding") == coding, (hashed, accept)
            assert "accept-encoding" in r.headers["vary"].lower()
            assert r.content == on_disk  # httpx undoes the coding
        raw = await http.get(hashed, headers={"Accept-Encoding": "br"})
        assert raw.headers["content-type"].startswith(
            ("text/javascript", "text/css", "application/json")
        )
        assert int(raw.headers["content-length"]) < len(on_disk)
    r = await http.get(styles[0], headers={"Accept-Encoding": "br"})
    async with http.stream("GET", styles[0], headers={"Accept-Encoding": "br"}) as streamed:
        body = b"".join([chunk async for chunk in streamed.aiter_raw()])
    assert brotli.decompress(body) == r.content


async def test_the_page_and_plain_names_revalidate(http: httpx.AsyncClient) -> None:
    for path in ("/", "/t/ABCD", "/e/WXYZ/hall", "/js/app.js", "/i18n/en.json"):
        r = await http.get(path)
        assert r.status_code == 200, path
        assert r.headers["cache-control"] == "no-cache", path
        etag = r.headers["etag"]
        again = await http.get(path, headers={"If-None-Match": etag})
        assert again.status_code == 304, path
        assert again.content == b""
    page = await http.get("/t/ABCD", headers={"Accept-Language": "en-GB,en;q=0.8"})
    assert '<html lang="en">' in page.text
    assert "accept-language" in page.headers["vary"].lower()
    assert page.headers["content-type"].startswith("text/html")


async def test_stylesheets_a_first_paint_does_not_need_come_after_the_content(
    http: httpx.AsyncClient,
) -> None:
    page = (await http.get("/")).text
    head, body = page.split("</head>")
    assert re.findall(r'rel="stylesheet" href="/css/(\w+)\.', head) == []
    # the events' stylesheet comes with the event views (app.js), not with every page
    assert sorted(re.findall(r'rel="stylesheet" href="/css/([\w-]+)\.', body)) == [
        "live",
        "table-life",
    ]


async def test_robots_txt_is_a_real_one(http: httpx.AsyncClient) -> None:
    r = await http.get("/robots.txt")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    assert "<html" not in r.text
    lines = r.text.splitlines()
    assert "User-agent: *" in lines
    assert {"Disallow: /api/", "Disallow: /t/", "Disallow: /e/"} <= set(lines)


async def test_unknown_static_files_are_not_answered_with_the_page(
    http: httpx.AsyncClient,
) -> None:
    for path in ("/js/nothing.js", "/css/nothing.css", "/api/nothing"):
        r = await http.get(path)
        assert r.status_code == 404, path
        assert r.headers["content-type"] == "application/problem+json"
    assert (await http.post("/t/ABCD")).status_code == 405


async def test_json_is_compressed_on_the_fly(http: httpx.AsyncClient) -> None:
    r = await http.get("/openapi.json", headers={"Accept-Encoding": "gzip"})
    assert r.status_code == 200
    assert r.headers["content-encoding"] == "gzip"
    assert r.json()["openapi"]


@pytest.mark.parametrize(
    ("lang", "name"), [("zh-Hans", "博饼"), ("zh-Hant", "博餅"), ("en", "Bobing")]
)
async def test_the_manifest_names_the_app_in_the_page_language(
    http: httpx.AsyncClient, lang: str, name: str
) -> None:
    page = (await http.get("/", params={"lang": lang})).text
    link = re.search(r'<link rel="manifest" href="([^"]+)"', page)
    assert link
    r = await http.get(link.group(1).replace("&amp;", "&"))
    assert r.headers["content-type"] == "application/manifest+json"
    manifest = r.json()
    assert manifest["short_name"] == name
    assert manifest["display"] == "standalone"
    assert manifest["start_url"] == "/"
    assert manifest["theme_color"].startswith("#")
    pngs = [i for i in manifest["icons"] if i["type"] == "image/png"]
    assert {i["sizes"] for i in pngs} >= {"192x192", "512x512"}
    for icon in pngs:
        got = await http.get(icon["src"])
        assert got.headers["content-type"] == "image/png"
        width, height = Image.open(io.BytesIO(got.content)).size
        assert f"{width}x{height}" == icon["sizes"]


async def test_the_worker_knows_every_hashed_file(http: httpx.AsyncClient) -> None:
    page = (await http.get("/")).text
    r = await http.get("/sw.js")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/javascript")
    assert r.headers["cache-control"] == "no-cache"
    first, _, rest = r.text.partition("\n")
    shell = json.loads(first.removeprefix("self.SHELL = ").removesuffix(";"))
    assert set(import_map(page).values()) <= set(shell["hashed"])
    assert re.fullmatch(r"[0-9a-f]{10}", shell["version"])
    assert rest == Path(STATIC_DIR / "sw.js").read_text("utf-8")
    for path in shell["hashed"][:5]:
        assert (await http.get(path)).headers["cache-control"] == IMMUTABLE


def test_a_changed_file_changes_its_name_the_page_and_the_worker_only(tmp_path: Path) -> None:
    import shutil

    from bobing.web.assets import StaticSite

    before = StaticSite(STATIC_DIR)
    copy = tmp_path / "static"
    shutil.copytree(STATIC_DIR, copy)
    (copy / "js" / "dom.js").write_text((copy / "js" / "dom.js").read_text() + "\n// v2\n")
    after = StaticSite(copy)
    changed = {p for p in before.names if before.names[p] != after.names[p]}
    assert changed == {"/js/dom.js"}
    assert before.version != after.version
    assert before.worker.body != after.worker.body  # so the browser installs the new worker
    page_before = before.index["en"].body.decode()
    page_after = after.index["en"].body.decode()
    assert before.names["/js/dom.js"] in page_before
    assert after.names["/js/dom.js"] in page_after
    assert before.names["/js/dom.js"] not in page_after
