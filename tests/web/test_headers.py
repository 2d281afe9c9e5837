"""Issue 29: every response of the app carries a strict Content-Security-Policy,
``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: no-referrer`` (there were none,
from the app or through the shipped nginx), whatever proxy is in front.

The policy lets the page run its own files only; the page's two inline blocks (the import map
and the first paint's stylesheet) are allowed by their hashes, nothing else inline is there.
Browsers enforce it in the end-to-end tests (``tests/e2e``: every CSP violation is a console
error, which fails the test).
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import httpx

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def directives(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def assert_secured(response: httpx.Response) -> dict[str, list[str]]:
    assert response.headers["x-content-type-options"] == "nosniff", response.url
    assert response.headers["referrer-policy"] == "no-referrer", response.url
    policy = directives(response.headers["content-security-policy"])
    assert policy["frame-ancestors"] == ["'none'"], policy
    assert policy["object-src"] == ["'none'"], policy
    for name in ("default-src", "script-src", "style-src", "connect-src"):
        assert policy[name][0] == "'self'", policy
        assert not {"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"} & set(
            policy[name]
        ), policy
    return policy


async def test_every_response_carries_the_headers(http: httpx.AsyncClient) -> None:
    created = await http.post("/api/tables", json={"name": "头"})
    page = await http.get("/t/ABCDEF")
    responses = [
        created,
        page,
        await http.get("/"),
        await http.get("/js/app.js"),
        await http.get("/css/app.css"),
        await http.get(f"/api/tables/{created.json()['code']}"),
        await http.get("/api/tables/NOSUCH"),  # a problem
        await http.get("/api/nothing"),  # the 404 of no route
        await http.get("/robots.txt"),
        await http.get("/sw.js"),
        await http.get("/", headers={"If-None-Match": page.headers["etag"]}),  # a 304
        await http.post("/api/tables", content=b"{" * 100, headers={"content-type": "x"}),
    ]
    for response in responses:
        assert_secured(response)


async def test_the_page_runs_only_what_the_policy_names(http: httpx.AsyncClient) -> None:
    for path in ("/", "/t/ABCDEF", "/e/ABCDEF", "/e/ABCDEF/tv"):
        response = await http.get(path)
        page = response.text
        policy = assert_secured(response)
        scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
        inline = [body for attrs, body in scripts if "src=" not in attrs]
        # the import map is the one inline script (browsers read it only inline)
        assert len(inline) == 1 and '<script type="importmap">' in page, scripts
        assert policy["script-src"] == ["'self'", sha256(inline[0])], policy
        styles = re.findall(r"<style>(.*?)</style>", page, re.S)
        assert policy["style-src"] == ["'self'", *sorted(sha256(s) for s in styles)], policy
        assert not re.search(r"\sstyle=|\son[a-z]+=|javascript:", page), path


def test_the_shipped_proxies_add_nothing_that_contradicts_them() -> None:
    """The app sets them; nginx and Caddy add HSTS only (no second, looser policy)."""
    for recipe in (DEPLOY / "nginx" / "nginx.conf", DEPLOY / "Caddyfile"):
        text = recipe.read_text("utf-8").lower()
        for header in (
            "content-security-policy",
            "x-content-type-options",
            "referrer-policy",
            "x-frame-options",
        ):
            # neither a second header nor one hidden (proxy_hide_header, header -NAME)
            assert header not in text, (recipe, header)
