"""The WebSocket of a table: ``/ws/tables/{code}?after=N&lang=…``, its tokens offered as
subprotocols (``Sec-WebSocket-Protocol: bobing, bobing.token.<token>``), and a screen's one
read-only socket for many tables: ``/ws/watch?t=CODE:N&t=CODE2:M&lang=…`` (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Coroutine
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect, WebSocketState

from bobing.engine.errors import BobingError
from bobing.storage.event_store import iso, utcnow
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import (
    ID_PATTERN,
    SUBPROTOCOL,
    decode_frame,
    dumps,
    parse_command,
    pong,
    subprotocol_tokens,
)
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.tokens import MAX_TOKEN_LENGTH, hash_token
from bobing.web.edge.lang import request_lang
from bobing.web.hub import Connection, Hub
from bobing.web.ratelimit import NO_SUCH_CODE, RateLimiter, code_name, count_miss

router = APIRouter()
PREFIX = "/ws/tables/"
WATCH_PATH = "/ws/watch"
MAX_WATCHED = 64
"""Tables one watching socket may follow (an event's tables and its playoff)."""
log = logging.getLogger("bobing.web")


def origin_allowed(ws: WebSocket) -> bool:
    """Whether a socket may open: a browser says which page opens it (``Origin``), and only
    the server's own pages (the ``Host`` asked for, ``--public-url``) and the configured
    origins may; a client without an ``Origin`` (a program, not a page) always may.

    Without this a page anywhere (``https://evil.example``, a sandboxed frame's ``null``)
    could open a table's socket from a guest's phone with the tokens its page passes."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True
    origin = origin.strip().rstrip("/").lower()
    settings = ws.app.state.settings
    allowed = {o.strip().rstrip("/").lower() for o in settings.allowed_origins}
    if settings.public_url:
        public = urlsplit(settings.public_url)
        allowed.add(f"{public.scheme}://{public.netloc}".lower())
    if origin in allowed:
        return True
    parsed = urlsplit(origin)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        return False
    host = ws.headers.get("host", "").strip().lower()
    if ":" in host.rsplit("]", 1)[-1]:
        return parsed.netloc == host
    # a proxy's Host without a port (nginx's $host): the names must match
    return parsed.hostname == host.strip("[]")


async def _refuse_origin(ws: WebSocket) -> bool:
    """Refuse the handshake (HTTP 403) of a page from another origin; True when refused."""
    if origin_allowed(ws):
        return False
    log.info("refused a WebSocket from origin %r", ws.headers.get("origin", "")[:100])
    await ws.close(1008)
    return True


async def _accept(ws: WebSocket) -> None:
    """Complete the handshake, naming :data:`SUBPROTOCOL` when the client offered it (a
    browser that offered subprotocols fails a socket whose answer names none), and never one
    of the offered tokens."""
    offered = [name.strip() for name in ws.scope.get("subprotocols", [])]
    await ws.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)


def socket_tokens(ws: WebSocket) -> list[str]:
    """The tokens a table's socket brings: offered in its handshake (``bobing.token.<token>``),
    and, for one release, the old ``?token=`` of a page loaded before the upgrade (deprecated:
    a query string lands in access logs; docs/protocol.md)."""
    tokens = subprotocol_tokens(ws.scope.get("subprotocols", []))
    for token in ws.query_params.getlist("token"):
        if token not in tokens:
            tokens.append(token)
    return tokens


@router.websocket("/ws/tables/{code}")
async def table_socket(ws: WebSocket, code: str) -> None:
    """Push every event of the table; accept commands from the tokens' holders."""
    service: TableService = ws.app.state.service
    hub: Hub = ws.app.state.hub
    lang = request_lang(ws)
    if await _refuse_origin(ws):
        return
    await _accept(ws)
    limiter = ws.app.state.rate_limiter
    address = ws.client.host if ws.client is not None else None
    try:
        await limiter.look_up(address, code_name("tables", code))
        # With several instances a cached runtime may be behind the log: welcome and clamp
        # ?after= against the real head.
        if service.broker.shared:
            runtime = await service.fresh_runtime(code)
        else:
            runtime = await service.runtime(code)
    except ApiError as exc:
        exc = await _counted(limiter, address, code, exc)
        await ws.send_text(dumps(exc.frame(lang, None)))
        await ws.close(4404)
        return
    except Exception:
        log.exception("cannot load table %s", code)
        error = ApiError("unavailable", "the database does not answer; reconnect later")
        await ws.send_text(dumps(error.frame(lang, None)))
        await ws.close(1011)
        return
    after_text = ws.query_params.get("after", "0")
    after = int(after_text) if after_text.isdigit() and len(after_text) < 12 else -1
    if after < 0:
        error = ApiError("invalid_field", "after must be a sequence number >= 0", field="after")
        await ws.send_text(dumps(error.frame(lang, None)))
        after = 0
    hashes: list[str] = []
    for token in socket_tokens(ws):
        digest = hash_token(token[:MAX_TOKEN_LENGTH])
        if runtime.knows(digest):
            hashes.append(digest)
        else:
            error = ApiError("invalid_token", f"a token does not belong to table {runtime.code}")
            await ws.send_text(dumps(error.frame(lang, None)))
    conn = Connection(ws, runtime.code, lang, hashes, min(after, runtime.last_seq) if after else 0)
    conn.max_frame_bytes = ws.app.state.settings.transport.max_frame_bytes
    await ws.send_text(dumps(_welcome(runtime, conn)))
    hub.attach(conn)
    sender = asyncio.create_task(hub.sender(conn))
    try:
        await _receive(ws, service, conn)
    finally:
        hub.detach(conn)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


async def _counted(limiter: RateLimiter, address: str | None, code: str, exc: ApiError) -> ApiError:
    """What to answer a look-up of ``code`` that failed with ``exc``: an unknown code is a
    miss (the refusal instead, once the address has used up its misses)."""
    if exc.code not in NO_SUCH_CODE:
        return exc
    limiter.missed(address, code_name("tables", code))
    return await count_miss(limiter, address) or exc


def _welcome(runtime: Runtime, conn: Connection) -> dict[str, object]:
    roles = runtime.roles(conn.token_hashes)
    return {
        "type": "welcome",
        "code": conn.code,
        "roles": roles.names(),
        "player": (roles.players or roles.handed or (None,))[0],
        "last_seq": runtime.last_seq,
        "server_time": iso(utcnow()),
    }


async def _receive(ws: WebSocket, service: TableService, conn: Connection) -> None:
    # The sender closes the socket when it gives up (a client too slow to keep up), which
    # ends this loop too: receive() then reports the disconnect.
    # The server's own receive, once the socket is open: Starlette's wrapper only checks, for
    # every message, what this loop checks itself (any message but a frame ends it).
    receive = ws._receive
    while True:
        try:
            message = await receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message["type"] != "websocket.receive":
            if message["type"] == "websocket.disconnect":
                ws.client_state = WebSocketState.DISCONNECTED
            return
        data = message.get("text")
        if data is None:
            data = message.get("bytes") or b""
        command_id = None
        try:
            frame = decode_frame(data, conn.max_frame_bytes)
            raw_id = frame.get("id")
            if isinstance(raw_id, str) and ID_PATTERN.fullmatch(raw_id):
                command_id = raw_id  # echoed even when the rest of the command is bad
            command = parse_command(frame)
            if command.type == "ping":
                conn.send(pong(command.id))
            elif command.type == "auth":
                digest = hash_token(command.args["token"])
                runtime = await service.runtime(conn.code)
                if not runtime.knows(digest):
                    raise ApiError(
                        "invalid_token", f"the token does not belong to table {runtime.code}"
                    )
                if digest not in conn.token_hashes:
                    conn.token_hashes.append(digest)
                conn.send(_welcome(runtime, conn))
            else:
                if command.type == "react":
                    # Counted in the shared buckets: every instance allows an address one rate.
                    address = ws.client.host if ws.client is not None else "?"
                    await ws.app.state.rate_limiter.acquire("react", address)
                conn.hold()  # its own events go out with its ack, in one write
                outcome = await service.execute(conn.code, command, conn.token_hashes)
                conn.send_text(outcome.ack_text(command.id))
        except ApiError as exc:
            conn.send(exc.frame(conn.lang, command_id))
        except BobingError as exc:
            conn.send(from_bobing(exc).frame(conn.lang, command_id))
        except Exception:
            log.exception("command failed at table %s", conn.code)
            error = ApiError("unavailable", "the server could not store the command; retry")
            conn.send(error.frame(conn.lang, command_id))
        finally:
            conn.release()


class TaggedSocket:
    """One table's frames on a shared socket: each is sent as ``{"type": "table", "code": …,
    "frame": <the table's frame, unchanged>}``, so the per-table protocol (and the hub's
    fan-out, catch-up and back-pressure) stays as it is."""

    def __init__(self, ws: WebSocket, code: str) -> None:
        self.ws = ws
        self.prefix = '{"type":"table","code":' + json.dumps(code) + ',"frame":'

    def send_text(self, text: str) -> Coroutine[Any, Any, None]:
        """Send one table frame inside its envelope."""
        return self.ws.send_text(f"{self.prefix}{text}}}")

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close the shared socket (a table that cannot be served makes the client resync)."""
        with contextlib.suppress(Exception):
            await self.ws.close(code, reason)


def _watched(ws: WebSocket) -> list[tuple[str, int]]:
    """The ``t=CODE`` or ``t=CODE:N`` parameters: each table once, at most MAX_WATCHED."""
    out: dict[str, int] = {}
    for value in ws.query_params.getlist("t")[:MAX_WATCHED]:
        code, _, after_text = value.partition(":")
        code = code.strip().upper()[:16]
        after = int(after_text) if after_text.isdigit() and len(after_text) < 12 else 0
        if code and code not in out:
            out[code] = after
    return list(out.items())


@router.websocket(WATCH_PATH)
async def watch_socket(ws: WebSocket) -> None:
    """Push every event of several tables over one socket (read-only: a dashboard, a hall)."""
    service: TableService = ws.app.state.service
    hub: Hub = ws.app.state.hub
    lang = request_lang(ws)
    if await _refuse_origin(ws):
        return
    await _accept(ws)
    limiter: RateLimiter = ws.app.state.rate_limiter
    address = ws.client.host if ws.client is not None else None
    conns: list[Connection] = []
    senders: list[asyncio.Task[None]] = []
    watched = _watched(ws)
    await ws.send_text(
        dumps(
            {
                "type": "welcome",
                "code": None,
                "tables": [code for code, _ in watched],
                "roles": [],
                "player": None,
                "last_seq": 0,
                "server_time": iso(utcnow()),
            }
        )
    )
    try:
        for code, after in watched:
            tagged = TaggedSocket(ws, code)
            # Each code is a look-up like any other (and an unknown one a miss): a watching
            # socket is no faster way to guess codes than a GET.
            try:
                await limiter.look_up(address, code_name("tables", code))
                runtime = await service.runtime(code)
            except ApiError as exc:
                exc = await _counted(limiter, address, code, exc)
                await tagged.send_text(dumps(exc.frame(lang, None)))
                continue
            conn = Connection(
                tagged,  # type: ignore[arg-type]  # sends and closes like a WebSocket
                runtime.code,
                lang,
                [],
                min(after, runtime.last_seq) if after else 0,
            )
            await tagged.send_text(dumps(_welcome(runtime, conn)))
            hub.attach(conn)
            conns.append(conn)
            senders.append(asyncio.create_task(hub.sender(conn)))
        await _receive_watching(ws, lang)
    except Exception:
        log.exception("watching socket failed")
        with contextlib.suppress(Exception):
            await ws.close(1011)
    finally:
        for conn in conns:
            hub.detach(conn)
        for sender in senders:
            sender.cancel()
        for sender in senders:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await sender


async def _receive_watching(ws: WebSocket, lang: str) -> None:
    """A watching socket answers pings; any other command is refused (it has no tokens)."""
    while True:
        try:
            message = await ws.receive()
        except (WebSocketDisconnect, RuntimeError):
            return
        if message["type"] == "websocket.disconnect":
            return
        data = message.get("text")
        if data is None:
            data = message.get("bytes") or b""
        command_id = None
        try:
            frame = decode_frame(data, ws.app.state.settings.transport.max_frame_bytes)
            raw_id = frame.get("id")
            if isinstance(raw_id, str) and ID_PATTERN.fullmatch(raw_id):
                command_id = raw_id
            command = parse_command(frame)
            if command.type != "ping":
                raise ApiError(
                    "forbidden",
                    "a watching socket only reads; send commands on /ws/tables/{code}",
                    action="command",
                )
            reply = dumps({"type": "pong", "id": command.id, "server_time": iso(utcnow())})
        except ApiError as exc:
            reply = dumps(exc.frame(lang, command_id))
        except BobingError as exc:
            reply = dumps(from_bobing(exc).frame(lang, command_id))
        # a whole frame is written at once, so a pong may go out between two table frames
        await ws.send_text(reply)
