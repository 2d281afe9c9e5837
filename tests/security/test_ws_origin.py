"""Issue 29: WebSockets accepted any ``Origin`` (``https://evil.example``, ``null``), so a page
anywhere could open a table's socket from a guest's browser. Now a browser's socket opens only
from the server's own pages (the ``Host`` asked for, ``--public-url``) or an origin allowed
with ``--allow-origin``; a client that sends no ``Origin`` (a program) still connects.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.exceptions import InvalidStatus
from webtools import TIMEOUT, running_server

from bobing.web.settings import Settings


async def _opens(url: str, origin: str | None) -> bool:
    headers = {} if origin is None else {"Origin": origin}
    try:
        async with websockets.connect(url, additional_headers=headers, open_timeout=TIMEOUT) as ws:
            frame = json.loads(await ws.recv())
            assert frame["type"] == "welcome", frame
            return True
    except InvalidStatus as refused:
        assert refused.response.status_code == 403
        return False


@pytest.mark.parametrize("path", ["/ws/tables/{code}", "/ws/watch?t={code}"])
async def test_only_the_server_s_own_pages_open_sockets(tmp_path: Path, path: str) -> None:
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{tmp_path / 'o.sqlite3'}",
        public_url="https://bobing.example",
        allowed_origins=("https://tv.example",),
    )
    async with (
        running_server(settings) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        code = (await http.post("/api/tables", json={"name": "源"})).json()["code"]
        url = server.replace("http://", "ws://") + path.format(code=code)
        own = server  # http://127.0.0.1:PORT: the Host the page was loaded from
        for origin in (None, own, "https://bobing.example", "https://TV.example/"):
            assert await _opens(url, origin), origin
        for origin in (
            "https://evil.example",
            "null",
            "http://127.0.0.1:1",  # the same machine, another port: another origin
            "https://bobing.example.evil.example",
            "file://",
        ):
            assert not await _opens(url, origin), origin
