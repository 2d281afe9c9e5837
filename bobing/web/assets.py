"""The front end as served: content-hashed, precompressed, with an index.html made at start-up.

There is no build step. When the app starts, every file under ``static/`` is read once, hashed
and compressed (gzip and brotli), and ``index.html`` is rewritten around what was found:

- every file is also served as ``/js/dom.3f2a9c01d4.js`` (its content hash in the name) with
  ``Cache-Control: public, max-age=31536000, immutable``; the plain names stay valid but are
  revalidated (``no-cache`` with an ETag), and so is the page itself;
- an import map sends each module's plain URL to its hashed one, so the ``import ... from
  "./x.js"`` statements inside the modules stay as written and are still safe to cache forever;
- a ``<link rel="modulepreload">`` for every module the first screen imports, read from the
  import graph of the entry module (so the browser fetches them all at once instead of one
  import at a time); a route whose view the entry fetches on demand (the home page) gets a page
  of its own that preloads that view's graph too, so the table's page carries none of it;
- the favicon inline (a data: URL), one request less before a phone's first screen;
- the title and the boot screen's words in the page's language (from the catalogue), so the
  first paint already speaks it;
- the stylesheet a first paint needs is written into ``<head>`` (``<style>``), so the page
  paints with the page alone; the others move to the end of ``<body>``, where they no longer
  hold the first paint (module scripts still wait for them); a stylesheet only some views use
  (the events') is not in the page: app.js adds it with those views;
- the import map also names the catalogues and the stylesheets, so the scripts fetch them by
  their hashed names too (``import.meta.resolve``, dom.js ``staticUrl``);
- ``/robots.txt``, ``/manifest.webmanifest`` (in the page's language), the icons, and
  ``/sw.js`` (the service worker, given the list of hashed files as its version).
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import mimetypes
import os
import re
from dataclasses import dataclass
from functools import cached_property
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import brotli

from bobing.i18n import LANGS, normalize_lang
from bobing.web.headers import csp_hash

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
HASH_LENGTH = 10
ENTRY = "/js/app.js"
"""The module ``index.html`` starts; the first screen needs everything it imports."""
ROUTE_VIEWS = {"/": "/js/views/home.js"}
"""Paths whose first screen is a view ``app.js`` imports on demand: their page preloads it."""
WORKER = "/sw.js"
FIRST_PAINT_STYLES = ("/css/app.css",)
"""Stylesheets written into the page: the boot screen and the page frame are drawn by them."""
THEME_COLOR = "#10163a"
BACKGROUND_COLOR = "#10163a"
ICON_SIZES = (192, 512)
COMPRESSIBLE = frozenset(
    {
        "application/javascript",
        "text/javascript",
        "text/css",
        "text/html",
        "text/plain",
        "application/json",
        "application/manifest+json",
        "image/svg+xml",
    }
)
MEDIA_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".css": "text/css",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".html": "text/html",
    ".webmanifest": "application/manifest+json",
    ".png": "image/png",
    ".txt": "text/plain",
}
ROBOTS = """\
# Tables and events are private (their codes are their addresses): only the public pages
# (the home page, the rules, the odds) are for search engines.
User-agent: *
Allow: /$
Allow: /rules
Allow: /odds
Disallow: /api/
Disallow: /ws/
Disallow: /t/
Disallow: /e/
"""

# `import {a, b} from "./x.js"`, `import x from "./x.js"`, `export {a} from "./x.js"` and
# `import "./x.js"`, at the start of a line (prettier keeps them there), possibly over lines.
_IMPORT = re.compile(
    r"""^(?:import|export)\b(?:[^"';]*?\bfrom\s*)?["'](\.{1,2}/[^"']+)["']""",
    re.MULTILINE,
)
_STYLESHEET = re.compile(r'\s*<link rel="stylesheet" href="([^"]+)" />')
_BOOT_WORDS = re.compile(r'(<div class="boot"[^>]*>.*?<p>)(.*?)(</p>)', re.S)
_TITLE = re.compile(r"<title>.*?</title>")
_ENTRY_SCRIPT = re.compile(r'\s*<script type="module" src="' + re.escape(ENTRY) + r'"></script>')


@dataclass(frozen=True, slots=True)
class Asset:
    """One response body, with its compressed forms and its validator."""

    body: bytes
    media_type: str
    etag: str
    gzip: bytes | None = None
    br: bytes | None = None

    @classmethod
    def of(cls, body: bytes, media_type: str) -> Asset:
        """``body`` hashed, and compressed when compressing pays."""
        digest = content_hash(body)
        small = len(body) < 256 or media_type.split(";")[0] not in COMPRESSIBLE
        return cls(
            body=body,
            media_type=media_type,
            etag=f'"{digest}"',
            gzip=None if small else gzip.compress(body, compresslevel=9, mtime=0),
            br=None if small else compress_brotli(body),
        )

    def encoded(self, accept_encoding: str) -> tuple[bytes, str | None]:
        """The smallest body the client accepts, and its ``Content-Encoding``."""
        accepted = accepted_encodings(accept_encoding)
        if self.br is not None and "br" in accepted:
            return self.br, "br"
        if self.gzip is not None and "gzip" in accepted:
            return self.gzip, "gzip"
        return self.body, None


def compress_brotli(body: bytes) -> bytes:
    """Brotli at its best (and slowest) quality, kept on disk by content so a restart is quick."""
    key = hashlib.sha256(body).hexdigest()
    cached = _cache_dir() / f"{key}.br"
    try:
        return cached.read_bytes()
    except OSError:
        pass
    packed: bytes = brotli.compress(body, quality=11)
    with contextlib.suppress(OSError):
        cached.parent.mkdir(parents=True, exist_ok=True)
        partial = cached.with_suffix(f".{os.getpid()}.tmp")
        partial.write_bytes(packed)
        partial.replace(cached)
    return packed


def _cache_dir() -> Path:
    from platformdirs import user_cache_path

    return user_cache_path("bobing") / "static"


def content_hash(body: bytes) -> str:
    """The first characters of the body's SHA-256 (what goes into a hashed file name)."""
    return hashlib.sha256(body).hexdigest()[:HASH_LENGTH]


def accepted_encodings(header: str) -> set[str]:
    """Codings an ``Accept-Encoding`` header allows (``q=0`` excluded)."""
    accepted: set[str] = set()
    for part in header.split(","):
        name, _, params = part.strip().partition(";")
        quality = params.strip()
        if quality.startswith("q="):
            try:
                if float(quality[2:]) <= 0:
                    continue
            except ValueError:
                continue
        if name:
            accepted.add(name.strip().lower())
    return accepted


def hashed_name(path: str, body: bytes) -> str:
    """``/js/dom.js`` → ``/js/dom.3f2a9c01d4.js``."""
    stem, dot, suffix = path.rpartition(".")
    if not dot or "/" in suffix:
        return f"{path}.{content_hash(body)}"
    return f"{stem}.{content_hash(body)}.{suffix}"


def module_imports(source: str, path: str) -> list[str]:
    """The static imports of the module at ``path``, as absolute paths, in source order."""
    base = path.rsplit("/", 1)[0].split("/")
    found: list[str] = []
    for relative in _IMPORT.findall(source):
        parts = list(base)
        for piece in relative.split("/"):
            if piece == "..":
                parts.pop()
            elif piece != ".":
                parts.append(piece)
        resolved = "/".join(parts)
        if resolved not in found:
            found.append(resolved)
    return found


def import_graph(sources: dict[str, str], entry: str) -> list[str]:
    """Every module reachable from ``entry`` by static imports (entry first, then breadth-first).

    A missing module is an error: the page would fail to start.
    """
    order = [entry]
    seen = {entry}
    for path in order:
        if path not in sources:
            raise ValueError(f"module {path!r} is imported but is not in static/")
        for child in module_imports(sources[path], path):
            if child not in seen:
                seen.add(child)
                order.append(child)
    return order


class StaticSite:
    """Every static response the server gives, computed once from a ``static/`` directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.inline_scripts: set[str] = set()
        """CSP hash sources of the inline scripts the pages carry (the import map)."""
        self.inline_styles: set[str] = set()
        """CSP hash sources of the inline stylesheets the pages carry (the first paint's)."""
        self.plain: dict[str, Asset] = {}
        """URL path → asset, for the names as written (revalidated)."""
        self.hashed: dict[str, Asset] = {}
        """URL path with the content hash → asset (immutable)."""
        self.names: dict[str, str] = {}
        """Plain URL path → hashed URL path."""
        sources: dict[str, str] = {}
        for file in sorted(p for p in root.rglob("*") if p.is_file()):
            path = "/" + file.relative_to(root).as_posix()
            if path in ("/index.html", WORKER):
                continue
            body = file.read_bytes()
            asset = Asset.of(body, media_type_of(path))
            self.plain[path] = asset
            hashed = hashed_name(path, body)
            self.hashed[hashed] = asset
            self.names[path] = hashed
            if path.startswith("/js/") and path.endswith(".js"):
                sources[path] = body.decode("utf-8")
        self.first_screen = import_graph(sources, ENTRY) if sources else []
        """Modules the first screen of a table (and of any route but ROUTE_VIEWS) imports."""
        self.route_screens = {
            path: self.first_screen
            + [m for m in import_graph(sources, view) if m not in self.first_screen]
            for path, view in ROUTE_VIEWS.items()
            if view in sources
        }
        """Modules the first screen of each path of ROUTE_VIEWS imports (preloaded)."""
        self.catalogues = {lang: self._catalogue(lang) for lang in LANGS}
        has_page = (root / "index.html").is_file()
        self.index = {
            lang: Asset.of(self._index(lang, self.first_screen).encode(), "text/html")
            for lang in (LANGS if has_page else ())
        }
        """The page in each language, for every client route but those of ROUTE_VIEWS."""
        self.route_index = {
            path: {
                lang: Asset.of(self._index(lang, screen).encode(), "text/html")
                for lang in (LANGS if has_page else ())
            }
            for path, screen in self.route_screens.items()
        }
        """The page of each path of ROUTE_VIEWS, in each language."""
        self.robots = Asset.of(ROBOTS.encode(), "text/plain; charset=utf-8")
        self.manifests = {
            lang: Asset.of(self._manifest(lang).encode(), "application/manifest+json")
            for lang in LANGS
        }
        self.version = content_hash(
            "\n".join(
                sorted(self.names.values())
                + [a.etag for a in self.index.values()]
                + [a.etag for pages in self.route_index.values() for a in pages.values()]
            ).encode()
        )
        """One hash over every file: the service worker's cache name."""
        self.worker = (
            Asset.of(self._worker(), "text/javascript") if (root / "sw.js").is_file() else None
        )

    def _catalogue(self, lang: str) -> dict[str, str]:
        asset = self.plain.get(f"/i18n/{lang}.json")
        if asset is None:
            return {}
        data: dict[str, str] = json.loads(asset.body)
        return data

    def text(self, lang: str, key: str, fallback: str) -> str:
        """A UI string from the front end's own catalogue (one truth for the page's words)."""
        return self.catalogues.get(lang, {}).get(key, fallback)

    def url(self, path: str) -> str:
        """The hashed URL of a static file (its plain URL when it is not a file)."""
        return self.names.get(path, path)

    # ---- the generated documents -------------------------------------------------------------

    def _index(self, lang: str, screen: list[str]) -> str:
        source = (self.root / "index.html").read_text("utf-8")
        late: list[str] = []

        def stylesheet(match: re.Match[str]) -> str:
            href = match.group(1)
            if href in FIRST_PAINT_STYLES:
                css = self._inline_css(href)
                self.inline_styles.add(csp_hash(css))
                return f"\n    <style>{css}</style>"
            late.append(f'<link rel="stylesheet" href="{self.url(href)}" />')
            return ""

        html = _STYLESHEET.sub(stylesheet, source)
        # the modules, and the files scripts fetch by their hashed names (import.meta.resolve)
        imports = {
            path: self.url(path)
            for path in self.names
            if path.endswith(".js") or path.startswith(("/i18n/", "/css/"))
        }
        import_map = json.dumps({"imports": imports}, separators=(",", ":"))
        self.inline_scripts.add(csp_hash(import_map))
        head = [
            f'<link rel="manifest" href="/manifest.webmanifest?lang={lang}" />',
            f'<link rel="apple-touch-icon" href="{icon_path(180)}" />',
            # i18n.js fetches its catalogue by the hashed name the import map gives it
            f'<link rel="preload" href="{self.url(f"/i18n/{lang}.json")}" as="fetch"'
            ' crossorigin="anonymous" />',
            f'<script type="importmap">{import_map}</script>',
            *(f'<link rel="modulepreload" href="{self.url(m)}" />' for m in screen),
            f'<script type="module" src="{self.url(ENTRY)}"></script>',
        ]
        html = _ENTRY_SCRIPT.sub(lambda _m: "".join(f"\n    {tag}" for tag in head), html, count=1)
        html = html.replace('<html lang="zh-Hans">', f'<html lang="{lang}">', 1)
        title = escape(self.text(lang, "app.title", "博饼"))
        html = _TITLE.sub(lambda _m: f"<title>{title}</title>", html, count=1)
        loading = escape(self.text(lang, "app.loading", "博饼 · 加载中…"))
        html = _BOOT_WORDS.sub(lambda m: m.group(1) + loading + m.group(3), html, count=1)
        html = html.replace('href="/favicon.svg"', f'href="{self._favicon()}"', 1)
        if late:
            html = html.replace("</body>", "".join(f"  {t}\n" for t in late) + "  </body>", 1)
        return html

    def _inline_css(self, path: str) -> str:
        """A stylesheet's text for a ``<style>`` element (it must not close the element)."""
        css = self.plain[path].body.decode("utf-8")
        if "</style" in css.lower():
            raise ValueError(f"{path!r} cannot be written into the page: it holds '</style'")
        return css

    def _favicon(self) -> str:
        """The favicon as a data: URL (a small SVG: the phone need not ask for it)."""
        asset = self.plain.get("/favicon.svg")
        if asset is None:
            return "/favicon.svg"
        svg = " ".join(asset.body.decode("utf-8").split()).replace('"', "'")
        return "data:image/svg+xml," + quote(svg, safe=" =:/',.-")

    def _manifest(self, lang: str) -> str:
        name = self.text(lang, "app.name", "博饼")
        manifest: dict[str, Any] = {
            "name": self.text(lang, "app.title", name),
            "short_name": name,
            "lang": lang,
            "start_url": "/",
            "scope": "/",
            "display": "standalone",
            "theme_color": THEME_COLOR,
            "background_color": BACKGROUND_COLOR,
            "icons": [
                *(
                    {"src": icon_path(size), "sizes": f"{size}x{size}", "type": "image/png"}
                    for size in ICON_SIZES
                ),
                {
                    "src": icon_path(512, maskable=True),
                    "sizes": "512x512",
                    "type": "image/png",
                    "purpose": "maskable",
                },
                {"src": self.url("/favicon.svg"), "sizes": "any", "type": "image/svg+xml"},
            ],
        }
        return json.dumps(manifest, ensure_ascii=False, indent=2)

    def _worker(self) -> bytes:
        source = (self.root / WORKER.lstrip("/")).read_bytes()
        shell = {
            "version": self.version,
            "hashed": sorted(self.hashed),
        }
        return b"self.SHELL = " + json.dumps(shell).encode() + b";\n" + source

    @cached_property
    def icons(self) -> dict[str, Asset]:
        """The home-screen icons, drawn on first use (Pillow) from the favicon's artwork."""
        sizes = [(s, False) for s in (*ICON_SIZES, 180)] + [(512, True)]
        return {
            icon_path(size, maskable=maskable): Asset.of(draw_icon(size, maskable), "image/png")
            for size, maskable in sizes
        }

    # ---- lookup ------------------------------------------------------------------------------

    def lookup(self, path: str, lang: str) -> tuple[Asset, str] | None:
        """The asset at ``path`` and its Cache-Control, or None (the page answers)."""
        if path in self.hashed:
            return self.hashed[path], IMMUTABLE
        if path in self.plain:
            return self.plain[path], REVALIDATE
        if path == "/robots.txt":
            return self.robots, REVALIDATE
        if path == "/manifest.webmanifest":
            return self.manifests[normalize_lang(lang)], REVALIDATE
        if path == WORKER and self.worker is not None:
            return self.worker, REVALIDATE
        if path.startswith("/icons/") and path in self.icons:
            return self.icons[path], REVALIDATE
        return None

    def page(self, lang: str, path: str = "") -> Asset | None:
        """``index.html`` for a client route in a language; None without one."""
        pages = self.route_index.get(path, self.index)
        return pages.get(normalize_lang(lang))


def media_type_of(path: str) -> str:
    """The Content-Type of a static file (text in UTF-8)."""
    suffix = "." + path.rsplit(".", 1)[-1] if "." in path else ""
    media = MEDIA_TYPES.get(suffix) or mimetypes.guess_type(path)[0] or "application/octet-stream"
    if media.startswith("text/") or media in ("application/json", "image/svg+xml"):
        return f"{media}; charset=utf-8"
    return media


def icon_path(size: int, *, maskable: bool = False) -> str:
    """Where the PNG icon of a size is served."""
    return f"/icons/icon-{size}{'-maskable' if maskable else ''}.png"


def draw_icon(size: int, maskable: bool = False) -> bytes:
    """The favicon's moon and die as a PNG (maskable: inside the safe circle, full bleed)."""
    from PIL import Image, ImageDraw

    scale = size / 64
    image = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    navy, gold, paper, blue, red = "#10163a", "#f5d27a", "#fbfaf6", "#1f4fa3", "#c8272d"
    if maskable:
        draw.rectangle((0, 0, size, size), fill=navy)
    else:
        draw.rounded_rectangle((0, 0, size - 1, size - 1), radius=14 * scale, fill=navy)
    inner = 0.8 if maskable else 1.0  # a maskable icon keeps its artwork in the middle 80 %

    def box(x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        def at(v: float) -> float:
            return (32 + (v - 32) * inner) * scale

        return at(x0), at(y0), at(x1), at(y1)

    draw.ellipse(box(10, 10, 54, 54), fill=gold)
    draw.rounded_rectangle(
        box(19, 19, 45, 45),
        radius=6 * scale * inner,
        fill=paper,
        outline=blue,
        width=max(1, round(2 * scale * inner)),
    )
    for cx, cy in ((26, 26), (38, 26), (26, 38), (38, 38)):
        draw.ellipse(box(cx - 3.6, cy - 3.6, cx + 3.6, cy + 3.6), fill=red)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
