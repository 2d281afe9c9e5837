"""The WebSocket of a table: ``/ws/tables/{code}?token=…&after=N&lang=…``."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from bobing.engine.errors import BobingError
from bobing.i18n import request_language
from bobing.storage.event_store import iso, utcnow
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import ID_PATTERN, decode_frame, dumps, parse_command, pong
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.tokens import MAX_TOKEN_LENGTH, hash_token
from bobing.web.hub import Connection, Hub
from bobing.web.ratelimit import MISSES, count_miss, guard_code

router = APIRouter()
PREFIX = "/ws/tables/"
log = logging.getLogger("bobing.web")


def _lang(ws: WebSocket) -> str:
    return request_language(ws.query_params.get("lang"), ws.headers.get("accept-language"))


@router.websocket("/ws/tables/{code}")
async def table_socket(ws: WebSocket, code: str) -> None:
    """Push every event of the table; accept commands from the tokens' holders."""
    service: TableService = ws.app.state.service
    hub: Hub = ws.app.state.hub
    lang = _lang(ws)
    await ws.accept()
    limiter = ws.app.state.rate_limiter
    address = ws.client.host if ws.client is not None else None
    try:
        await guard_code(limiter, address)  # a guesser out of misses learns nothing more
        # With several instances a cached runtime may be behind the log: welcome and clamp
        # ?after= against the real head.
        if service.broker.shared:
            runtime = await service.fresh_runtime(code)
        else:
            runtime = await service.runtime(code)
    except ApiError as exc:
        if exc.code in MISSES:
            await count_miss(limiter, address)
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
    for token in ws.query_params.getlist("token"):
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
                outcome = await service.execute(conn.code, command, conn.token_hashes)
                conn.send(outcome.ack(command.id))
        except ApiError as exc:
            conn.send(exc.frame(conn.lang, command_id))
        except BobingError as exc:
            conn.send(from_bobing(exc).frame(conn.lang, command_id))
        except Exception:
            log.exception("command failed at table %s", conn.code)
            error = ApiError("unavailable", "the server could not store the command; retry")
            conn.send(error.frame(conn.lang, command_id))
