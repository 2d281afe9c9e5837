"""Real servers and real clients for the web tests: Uvicorn on 127.0.0.1, httpx, websockets."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import itertools
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import urlencode

import httpx
import uvicorn
import websockets
from hypothesis import strategies as st
from websockets.typing import Subprotocol

from bobing.tables.frames import StaleBase, decode_events
from bobing.tables.protocol import offered_subprotocols
from bobing.web.app import create_app
from bobing.web.serve import KEEP_ALIVE, WS_MAX_SIZE, bind
from bobing.web.settings import Settings

_ids = itertools.count(1)

TIMEOUT = 30.0
"""How long a test waits for a frame or a condition before it fails. Generous, because CI runs
on two loaded cores; only a failing test ever waits this long (waits end on the condition)."""

_open_clients: list[Client] = []
"""Every client connected during the current test: closed at its end even when it fails (an
unclosed socket is otherwise reported, as a ResourceWarning, in whichever later test the
garbage collector happens to run)."""


def root_conftest() -> ModuleType:
    """tests/conftest.py (need_postgres ...); every conftest.py is "conftest", so load by path."""
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def new_id(prefix: str = "c") -> str:
    """A fresh command id."""
    return f"{prefix}-{next(_ids)}"


@contextlib.asynccontextmanager
async def running_server(
    settings: Settings, *, app: Any = None, **options: Any
) -> AsyncIterator[str]:
    """A real Uvicorn server on an ephemeral 127.0.0.1 port in this event loop.

    ``app`` is the application to serve (by default one made from ``settings``); ``options``
    go to ``uvicorn.Config`` (e.g. ``ws_ping_interval=None``).
    """
    sock = bind("127.0.0.1", 0)
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        app if app is not None else create_app(settings),
        **{
            "log_level": "warning",
            "ws_max_size": WS_MAX_SIZE,
            "ws_per_message_deflate": False,
            "lifespan": "on",
            "timeout_graceful_shutdown": 5,
            # As `bobing serve` keeps an idle connection: longer than the httpx clients' own
            # keep-alive, so they drop it first (tests/scale/test_deploy.py).
            "timeout_keep_alive": KEEP_ALIVE,
            **options,
        },
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        deadline = time.monotonic() + TIMEOUT
        while not server.started:
            if task.done():
                await task
                raise RuntimeError("server did not start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server did not start within {TIMEOUT:.0f} s")
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        # Clients the test left open are closed first: the server's graceful shutdown would
        # otherwise wait for them.
        await close_clients()
        server.should_exit = True
        try:
            with contextlib.suppress(asyncio.CancelledError):
                try:
                    await asyncio.wait_for(asyncio.shield(task), TIMEOUT)
                except TimeoutError:
                    server.force_exit = True
                    await asyncio.wait_for(task, TIMEOUT)
        finally:
            sock.close()


async def close_clients() -> None:
    """Close every client of the current test that is still open (see ``_open_clients``)."""
    while _open_clients:
        client = _open_clients.pop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(client.ws.close(), TIMEOUT)


class ServeProcess:
    """``bobing serve`` as a separate process (for restart tests).

    Its output goes to a file, never to a pipe nobody reads (a full pipe would block the
    server); the address is read from that file with a deadline, so a server that never comes
    up fails the test instead of hanging it.
    """

    def __init__(self, db_url: str, log_path: Path) -> None:
        self.db_url = db_url
        self.log_path = log_path
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = ""

    def start(self) -> str:
        bobing = Path(sys.executable).with_name("bobing")
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [str(bobing), "serve", "--host", "127.0.0.1", "--port", "0", "--db", self.db_url],
                stdout=log,
                stderr=subprocess.STDOUT,
                env=env,
            )
        deadline = time.monotonic() + 2 * TIMEOUT
        while time.monotonic() < deadline:
            output = self.log_path.read_bytes()[offset:].decode("utf-8", "replace")
            found = re.search(r"serving on (http://\S+)", output)
            if found:
                self.url = found.group(1)
                return self.url
            if self.proc.poll() is not None:
                raise RuntimeError("bobing serve exited:\n" + output)
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("bobing serve did not start:\n" + self.log_path.read_text("utf-8"))

    def kill(self) -> None:
        """SIGKILL: no shutdown hooks, no flushing — what a crash looks like."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(TIMEOUT)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(TIMEOUT)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT)


def ws_url(base: str, code: str, after: int = 0, **extra: str) -> str:
    """The WebSocket URL of a table: no token in it (they ride in the handshake's
    ``Sec-WebSocket-Protocol``: :func:`subprotocols`)."""
    query: list[tuple[str, str]] = []
    if after:
        query.append(("after", str(after)))
    query.extend(extra.items())
    suffix = ("?" + urlencode(query)) if query else ""
    return base.replace("http://", "ws://") + f"/ws/tables/{code}" + suffix


def subprotocols(tokens: Iterable[str] = ()) -> list[Subprotocol]:
    """What a socket of the project's clients offers: ``bobing`` and its tokens
    (``bobing.token.<token>``, docs/protocol.md)."""
    return [Subprotocol(name) for name in offered_subprotocols(list(tokens))]


class Client:
    """A WebSocket client that keeps every event it has seen, in order."""

    def __init__(self, ws: Any, name: str = "", after: int = 0) -> None:
        self.ws = ws
        self.name = name
        self.after = after
        """The seq this client had seen before connecting (``?after=``)."""
        self.events: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.replies: dict[str, dict[str, Any]] = {}
        self.other: list[dict[str, Any]] = []
        self.welcome: dict[str, Any] | None = None

    @classmethod
    async def connect(
        cls,
        base: str,
        code: str,
        tokens: Iterable[str] = (),
        after: int = 0,
        name: str = "",
        max_queue: int | None = None,
        rcvbuf: int | None = None,
        history: list[dict[str, Any]] | None = None,
        ping_interval: float | None = 20,
        **extra: str,
    ) -> Client:
        """Connect; with ``history`` (events seen before), resume after its last seq.

        By default the client buffers every frame until the test reads it (``max_queue=None``):
        with a bounded queue the library stops reading the socket once the queue is full, so
        the server's keepalive pings go unanswered and, on a slow machine, the server drops a
        client that a test only reads at the end (1011 "keepalive ping timeout").
        """
        if history:
            after = history[-1]["seq"]
        sock = None
        if rcvbuf is not None:
            # A tiny receive buffer makes the server's writes back up quickly (a slow phone).
            host, port = base.removeprefix("http://").split(":")
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            sock.connect((host, int(port)))
            sock.setblocking(False)
        ws = await websockets.connect(
            ws_url(base, code, after, **extra),
            subprotocols=subprotocols(tokens),
            max_size=4 * WS_MAX_SIZE,
            max_queue=max_queue,
            sock=sock,
            ping_interval=ping_interval,
            # A test client that stopped reading cannot see the server's close frame.
            close_timeout=1,
        )
        client = cls(ws, name, after)
        _open_clients.append(client)
        client.events = list(history or [])
        client.welcome = await client.until(lambda f: f["type"] in ("welcome", "error"))
        if client.welcome["type"] == "welcome":
            # The first events frame (the backlog, maybe empty) always carries the state.
            await client.until(lambda f: f["type"] == "events" and "state" in f)
        return client

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else self.after

    async def close(self) -> None:
        with contextlib.suppress(ValueError):
            _open_clients.remove(self)
        await self.ws.close()

    async def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        """The next frame; an ``events`` frame decoded (docs/protocol.md): its events as the
        log has them, and ``state`` the whole state after them (a patch applied)."""
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        if frame["type"] == "events":
            try:
                events, state = decode_events(frame, self.state)
            except StaleBase as exc:
                raise AssertionError(f"{self.name}: {exc}") from None
            for event in events:
                expected = self.last_seq + 1
                assert event["seq"] == expected, (
                    f"{self.name}: got seq {event['seq']}, expected {expected}"
                )
                self.events.append(event)
            frame["events"] = events
            if state is not None:
                self.state = frame["state"] = state
        elif frame["type"] in ("ack", "error", "pong") and frame.get("id"):
            self.replies[frame["id"]] = frame
        else:
            self.other.append(frame)
        return frame

    async def until(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float = TIMEOUT
    ) -> dict[str, Any]:
        async def loop() -> dict[str, Any]:
            while True:
                frame = await self.recv(timeout)
                if predicate(frame):
                    return frame

        return await asyncio.wait_for(loop(), timeout)

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        await self.ws.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    async def command(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Send a command with a fresh id (unless given) and wait for its ack or error."""
        command_id = fields.pop("id", None) or new_id()
        await self.send({"type": kind, "id": command_id, **fields})
        if command_id in self.replies:
            return self.replies.pop(command_id)
        await self.until(
            lambda f: f.get("id") == command_id and f["type"] in ("ack", "error", "pong")
        )
        return self.replies.pop(command_id)

    async def reach(self, seq: int, timeout: float = TIMEOUT) -> None:
        """Read until this client has seen event ``seq`` and the state after it."""
        if self.last_seq >= seq and self.state is not None and self.state["last_seq"] >= seq:
            return
        await self.until(
            lambda f: (
                self.last_seq >= seq and self.state is not None and self.state["last_seq"] >= seq
            ),
            timeout,
        )


async def create_table(http: httpx.AsyncClient, **body: Any) -> dict[str, Any]:
    body.setdefault("name", "测试桌")
    response = await http.post("/api/tables", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def join(http: httpx.AsyncClient, code: str, name: str) -> dict[str, Any]:
    response = await http.post(f"/api/tables/{code}/join", json={"name": name})
    assert response.status_code == 201, response.text
    joined: dict[str, Any] = response.json()
    return joined


SMALL_PRIZES = {"zhuangyuan": 1, "duitang": 1, "sanhong": 1, "sijin": 1, "erju": 2, "yixiu": 3}
"""A short game: few cakes, so it ends within a few dozen throws."""


@dataclass(frozen=True)
class DropPlan:
    """A game of ``players`` and at most ``throws`` throws, during which one player's phone
    drops after the throws listed in ``drops`` (the throw's frames possibly still in flight)
    and comes back with what it had seen (``"resync"``: ``?after=``) or with nothing
    (``"fresh"``)."""

    players: int
    throws: int
    drops: dict[int, str]


def drop_plans() -> st.SearchStrategy[DropPlan]:
    """Random games and random drop points (Hypothesis)."""
    return st.integers(2, 4).flatmap(
        lambda players: st.integers(1, 40).flatmap(
            lambda throws: st.builds(
                DropPlan,
                st.just(players),
                st.just(throws),
                st.dictionaries(
                    st.integers(0, throws), st.sampled_from(("resync", "fresh")), max_size=4
                ),
            )
        )
    )


async def play_with_drops(bases: list[str], plan: DropPlan) -> tuple[Client, Client]:
    """Play ``plan`` on a table created through ``bases[0]``; throws go over HTTP through each
    instance in turn. Returns (the phone that dropped, a phone of the same player that never
    did), both read up to the table's last event, and checks both saw the logged events."""
    names = ["甲", "乙", "丙", "丁"][: plan.players]
    async with httpx.AsyncClient(base_url=bases[0], timeout=TIMEOUT) as http:
        created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
        code = created["code"]
        tokens = {name: (await join(http, code, name))["player_token"] for name in names}
        mine = tokens[names[0]]
        steady = await Client.connect(bases[0], code, [mine], name="steady")
        phone = await Client.connect(bases[-1], code, [mine], name="phone")
        await command_over_http(http, code, created["host_token"], {"type": "start"})
        comebacks = 0
        for throw in range(plan.throws + 1):
            if throw in plan.drops:
                await phone.close()  # whatever was in flight to it is lost
                comebacks += 1
                history = phone.events if plan.drops[throw] == "resync" else None
                base = bases[comebacks % len(bases)]
                phone = await Client.connect(base, code, [mine], history=history, name="phone")
            state = (await http.get(f"/api/tables/{code}")).json()
            if throw == plan.throws or state["status"] != "playing":
                break
            via_base = bases[throw % len(bases)]
            async with httpx.AsyncClient(base_url=via_base, timeout=TIMEOUT) as via:
                await command_over_http(
                    via, code, tokens[state["next"]], {"type": "throw", "turn": state["turn"]}
                )
        last = (await http.get(f"/api/tables/{code}")).json()["last_seq"]
        logged = (await http.get(f"/api/tables/{code}/events", params={"limit": 1000})).json()
    for client in (steady, phone):
        await client.reach(last)
        assert client.events == logged["events"], client.name
    return phone, steady


async def command_over_http(
    http: httpx.AsyncClient, code: str, token: str, command: dict[str, Any]
) -> dict[str, Any]:
    """Send one command with ``token``; it must be applied."""
    response = await http.post(
        f"/api/tables/{code}/commands",
        json={"id": new_id(), **command},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200, response.text
    reply: dict[str, Any] = response.json()
    return reply
