"""One heartbeat a socket: the server pings a WebSocket only when it has gone silent.

Phones ping the table every 20 s themselves (``PING_EVERY_MS``, static/js/conn.js); Uvicorn
would also ping every socket every ``ws_ping_interval``, a second heartbeat that costs the
server a timer, a write and a pong to parse per phone (about 9 % of its CPU at a human pace
with a thousand phones). These tests speak the WebSocket protocol by hand (websockets'
sans-I/O client over a plain TCP stream), so they see every control frame the server sends
and decide whether to answer it.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import urlparse

import httpx
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Response
from websockets.uri import parse_uri
from webtools import TIMEOUT, create_table, running_server, ws_url

from bobing.process.heartbeat import WS_PING_INTERVAL, WS_PING_TIMEOUT
from bobing.web.mailbox import Mailbox
from bobing.web.serve import uvicorn_options as serve_uvicorn_options
from bobing.web.settings import Settings

CONN_JS = Path(__file__).parents[2] / "bobing" / "web" / "static" / "js" / "conn.js"
INTERVAL = 1.0
"""The test servers' ping interval and timeout (seconds): long beside the chatty socket's
tenth of it, so only an event loop stalled for most of a second could make it look silent."""


class RawSocket:
    """A table socket that shows every frame it receives and answers pings only if told to."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, protocol: ClientProtocol
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.protocol = protocol
        self.pings = 0
        self.closed = False
        self.close_code: int | None = None

    @classmethod
    async def open(cls, url: str) -> RawSocket:
        parts = urlparse(url)
        assert parts.hostname is not None and parts.port is not None
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        protocol = ClientProtocol(parse_uri(url))
        protocol.send_request(protocol.connect())
        raw = cls(reader, writer, protocol)
        await raw.flush()
        while True:
            events = await raw.read()
            if any(isinstance(e, Response) for e in events):
                assert protocol.handshake_exc is None, protocol.handshake_exc
                return raw

    async def flush(self) -> None:
        self.writer.write(b"".join(self.protocol.data_to_send()))
        await self.writer.drain()

    async def read(self) -> list[object]:
        """The events of the next bytes from the server (pings counted, nothing answered)."""
        data = await asyncio.wait_for(self.reader.read(65536), TIMEOUT)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
            self.closed = True
        events: list[object] = list(self.protocol.events_received())
        for event in events:
            if isinstance(event, Frame) and event.opcode is Opcode.PING:
                self.pings += 1
            if isinstance(event, Frame) and event.opcode is Opcode.CLOSE:
                self.closed = True
                self.close_code = int.from_bytes(event.data[:2], "big") if event.data else None
        return events

    async def listen(self, seconds: float, *, answer: bool, chatty: bool = False) -> None:
        """Read for ``seconds``: answering pings (the library's pongs) if ``answer``; sending
        the table a ``ping`` command every tenth of ``INTERVAL`` if ``chatty`` (a phone)."""
        loop = asyncio.get_running_loop()
        end = loop.time() + seconds
        next_ping = loop.time()
        number = 0
        while not self.closed and loop.time() < end:
            if chatty and loop.time() >= next_ping:
                number += 1
                self.protocol.send_text(
                    json.dumps({"type": "ping", "id": f"ping-{number}"}).encode()
                )
                next_ping += INTERVAL / 10
            if not answer:
                self.protocol.data_to_send()  # the library's pongs are dropped, unsent
            await self.flush()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.read(), INTERVAL / 10)
        if answer:
            await self.flush()

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):  # the server may have closed it first
            await self.writer.wait_closed()


@contextlib.asynccontextmanager
async def table_socket(db_url: str) -> AsyncIterator[RawSocket]:
    """A raw socket on a new table of a server run as ``bobing serve`` runs it, but with a
    ping interval and timeout of ``INTERVAL``."""
    settings = Settings(db_url=db_url)
    options = {
        **serve_uvicorn_options(settings),
        "ws_ping_interval": INTERVAL,
        "ws_ping_timeout": INTERVAL,
    }
    async with (
        running_server(settings, **options) as base,
        httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http,
    ):
        code = (await create_table(http, mode="online"))["code"]
        raw = await RawSocket.open(ws_url(base, code))
        try:
            yield raw
        finally:
            await raw.close()


async def test_a_socket_that_keeps_talking_is_never_pinged(db_url: str) -> None:
    async with table_socket(db_url) as phone:
        await phone.listen(INTERVAL * 4, answer=True, chatty=True)
        assert not phone.closed
        assert phone.pings == 0


async def test_a_silent_socket_is_pinged_and_kept_while_it_answers(db_url: str) -> None:
    async with table_socket(db_url) as quiet:
        await quiet.listen(INTERVAL * 4, answer=True)
        assert not quiet.closed
        assert quiet.pings >= 2


async def test_a_silent_socket_that_does_not_answer_is_closed(db_url: str) -> None:
    async with table_socket(db_url) as gone:
        await gone.listen(INTERVAL * 8, answer=False)
        assert gone.pings >= 1
        assert gone.closed
        assert gone.close_code == 1011  # keepalive ping timeout


async def test_an_open_socket_keeps_nothing_of_its_handshake(db_url: str) -> None:
    """The handshake's request and response, every header of both, are let go once it is
    done: a table's socket lives for the whole game, and they are never read again. (What it
    still keeps: benchmarks/bench_socket_memory.py.)"""
    async with table_socket(db_url) as phone:
        await phone.listen(INTERVAL / 2, answer=True, chatty=True)  # the welcome, a pong
        served = [o for o in gc.get_objects() if type(o).__name__ == "GuardedWebSocket"]
        assert len(served) == 1 and served[0].handshake_complete
        assert served[0].request is None and served[0].response is None
        # what the phone sent waits for the route in a Mailbox: read, nothing is kept
        assert isinstance(served[0].queue, Mailbox) and served[0].queue.empty()
        await phone.listen(INTERVAL / 2, answer=True, chatty=True)
        assert not phone.closed


def test_the_server_waits_longer_than_a_phone_between_pings() -> None:
    """The phones' heartbeat comes within the server's interval, so it never pings them."""
    found = re.search(r"const PING_EVERY_MS = (\d+);", CONN_JS.read_text(encoding="utf-8"))
    assert found, "conn.js no longer says PING_EVERY_MS"
    phone_seconds = int(found.group(1)) / 1000
    assert phone_seconds + 2 <= WS_PING_INTERVAL  # a late timer on a busy phone included
    assert WS_PING_TIMEOUT > 0
    settings = Settings()
    options = serve_uvicorn_options(settings)
    assert options["ws_ping_interval"] == WS_PING_INTERVAL
    assert options["ws_ping_timeout"] == WS_PING_TIMEOUT
