"""Issue 29: a table's tokens were in its socket's URL (``/ws/tables/CODE?token=…``), so they
landed in every access log on the way (Uvicorn's, the proxy's). Now they ride in the handshake's
``Sec-WebSocket-Protocol`` (``bobing, bobing.token.<token>``); the server answers ``bobing``,
never a token, and logs the socket's path without one. (Through the shipped nginx:
``tests/scale/test_deploy.py``; the browser's own socket: ``tests/e2e/test_secret_links.py``.)
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import websockets
from webtools import TIMEOUT, Client, create_table, join, running_server, subprotocols, ws_url

from bobing.tables.protocol import SUBPROTOCOL_TOKEN, offered_subprotocols, subprotocol_tokens
from bobing.tables.tokens import new_token
from bobing.web.settings import Settings


class Lines(logging.Handler):
    """Every line a logger writes, as text."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextlib.contextmanager
def uvicorn_lines() -> Iterator[list[str]]:
    """What Uvicorn logs (its ``[accepted]`` line names each socket's path and query); from a
    running server on (Uvicorn sets its loggers' handlers when it is configured)."""
    handler = Lines()
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


def test_every_token_is_a_valid_subprotocol_name() -> None:
    # RFC 6455 §4.1: a subprotocol is an HTTP token (RFC 9110 tchar); ours are a letter, "_"
    # and URL-safe base64, so every one can be offered as it is
    tchar = set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    for prefix in "hgpsko":
        for _ in range(200):
            token = new_token(prefix)
            assert SUBPROTOCOL_TOKEN.fullmatch(token), token
            offered = offered_subprotocols([token])
            assert all(set(name) <= tchar for name in offered), offered
            assert subprotocol_tokens(offered) == [token]
    # a string that is no token of ours is not offered (a browser would throw on it)
    assert offered_subprotocols(["a b", "x,y", "h_ok"]) == ["bobing", "bobing.token.h_ok"]


async def test_a_socket_s_tokens_ride_in_the_handshake_never_in_its_url(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite+aiosqlite:///{tmp_path / 't.sqlite3'}")
    async with (
        running_server(settings, log_level="info") as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        with uvicorn_lines() as logged:
            await _sockets_of_a_table(server, http, logged)


async def _sockets_of_a_table(server: str, http: httpx.AsyncClient, logged: list[str]) -> None:
    """Every way of opening a table's socket, while ``logged`` gathers Uvicorn's lines."""
    created = await create_table(http, mode="online")
    code, host_token = created["code"], created["host_token"]
    player_token = (await join(http, code, "甲"))["player_token"]
    await join(http, code, "乙")
    url = ws_url(server, code, lang="en")
    assert "token" not in url
    offered = subprotocols([host_token, player_token])
    async with websockets.connect(url, subprotocols=offered, open_timeout=TIMEOUT) as ws:
        # the server names "bobing" (a browser fails a socket whose answer names none of
        # those offered), and never echoes a token
        assert ws.subprotocol == "bobing"
        assert ws.response is not None
        assert ws.response.headers.get_all("Sec-WebSocket-Protocol") == ["bobing"]
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome", welcome
        assert welcome["roles"] == ["host", "player"] and welcome["player"] == "甲"
    # the project's test client offers its tokens the same way, and they act
    host = await Client.connect(server, code, [host_token])
    assert host.welcome is not None and host.welcome["roles"] == ["host"]
    assert (await host.command("start"))["type"] == "ack"
    # a wrong token offered is refused as before (the socket stays, as a spectator's)
    stranger = await Client.connect(server, code, ["h_not-a-token"])
    assert stranger.welcome is not None and stranger.welcome["code"] == "invalid_token"
    # a program that offers nothing still reads, and gets no subprotocol back
    async with websockets.connect(url, open_timeout=TIMEOUT) as plain:
        assert plain.subprotocol is None
        assert json.loads(await plain.recv())["roles"] == []
    await host.close()
    await stranger.close()
    accepted = [line for line in logged if f"/ws/tables/{code}" in line]
    assert len(accepted) == 4, logged  # Uvicorn did log every socket's path ...
    for line in logged:  # ... and no token
        assert host_token not in line and player_token not in line, line


async def test_the_old_query_token_still_acts_for_one_release(tmp_path: Path) -> None:
    """A page loaded before the upgrade reconnects with ``?token=`` (its script is the old one):
    its tokens still act, so no game in progress breaks at a deploy (docs/protocol.md)."""
    settings = Settings(db_url=f"sqlite+aiosqlite:///{tmp_path / 'q.sqlite3'}")
    async with (
        running_server(settings) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        created = await create_table(http, mode="online")
        url = ws_url(server, created["code"]) + f"?token={created['host_token']}"
        async with websockets.connect(url, open_timeout=TIMEOUT) as ws:
            assert ws.subprotocol is None
            assert json.loads(await ws.recv())["roles"] == ["host"]
