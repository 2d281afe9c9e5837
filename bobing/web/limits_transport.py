"""Transport limits: what one client may hold of the server's sockets, time and memory.

Two layers, because some limits must act before a request exists:

* **Connections** (:class:`ConnectionGuard` and :func:`guarded_protocols`): Uvicorn's own
  protocol classes, subclassed. Each open socket is counted against its client address (HTTP
  and WebSocket alike, until it closes); one over ``max_connections_per_address`` gets a 429
  problem and is closed at once. A request whose headers have not all arrived within
  ``header_timeout`` seconds of its first byte (or of the connection, for a silent one) gets a
  408 problem and is closed: a half-sent request no longer holds a socket forever. Headers
  over ``max_header_bytes`` get a 431. A WebSocket is pinged only once it has been silent for
  Uvicorn's ``ws_ping_interval`` (phones ping the table themselves), and closed if it does not
  answer; once its handshake is done, the handshake's request and response are let go, and
  what it receives waits for the app in a :class:`~bobing.web.mailbox.Mailbox`.
* **Requests** (:class:`RequestLimits`, ASGI middleware): a control character in the path is a
  400; the body is read here, whatever its framing (``Content-Length`` or chunked), and one
  over ``max_body_bytes`` is a 413 (read on, and dropped, for as much again first, so the answer
  is not lost to a reset); a body that stalls for ``idle_timeout`` seconds between
  chunks is a 408; a JSON body goes through :mod:`bobing.tables.json_input` (the WebSocket frames'
  parser too), so a lone surrogate or a deep nest is a clean 400 before any route sees it.

Every refusal is an RFC 9457 problem (``bobing.tables.problems``); the numbers are
:class:`TransportLimits`, set by ``bobing serve`` options or ``BOBING_*`` variables
(docs/security.md, "Transport limits").
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bobing.i18n import lang_from_env, request_language
from bobing.tables import json_input
from bobing.tables.problems import ApiError
from bobing.web.headers import PROBLEM_POLICY, security_headers
from bobing.web.mailbox import Mailbox

log = logging.getLogger("bobing.web")
PROBLEM = b"application/problem+json"


@dataclass(frozen=True, slots=True)
class TransportLimits:
    """The limits on one client's use of the server's sockets; 0 turns a limit off."""

    header_timeout: float = 10.0
    """Seconds from a request's first byte (or a new connection) to the end of its headers."""
    idle_timeout: float = 30.0
    """Seconds a request body may stall between two chunks."""
    max_connections_per_address: int = 100
    """Open sockets (HTTP and WebSocket) from one client address."""
    max_header_bytes: int = 16 * 1024
    """The request line and headers together."""
    max_body_bytes: int = 64 * 1024
    """A request body, however it is framed."""
    max_frame_bytes: int = 4096
    """A WebSocket frame the server reads; larger ones up to 16 times this get ``too_large``,
    beyond that the socket is closed (1009)."""

    @property
    def ws_max_size(self) -> int:
        """The largest frame Uvicorn reads at all (so that a too-large one is answered)."""
        return max(16 * self.max_frame_bytes, 64 * 1024)


def _raw_problem(error: ApiError, extra: tuple[tuple[bytes, bytes], ...] = ()) -> bytes:
    """A complete HTTP/1.1 response with the problem, for a socket no ASGI app will answer.

    No request (and so no Accept-Language) exists yet: the text is in the server's language
    (``BOBING_LANG``, else zh-Hans); the stable ``code`` tells programs what happened.
    """
    body = json.dumps(error.problem(lang_from_env()), ensure_ascii=False).encode("utf-8")
    reason = {
        408: b"Request Timeout",
        429: b"Too Many Requests",
        431: b"Request Header Fields Too Large",
    }
    lines = [
        b"HTTP/1.1 %d %s" % (error.status, reason.get(error.status, b"Error")),
        b"content-type: " + PROBLEM,
        b"content-length: %d" % len(body),
        b"connection: close",
        *(name + b": " + value for name, value in security_headers(PROBLEM_POLICY)),
        *(name + b": " + value for name, value in extra),
    ]
    return b"\r\n".join(lines) + b"\r\n\r\n" + body


class ConnectionGuard:
    """Counts the open sockets of each client address; one server's shared bookkeeping."""

    def __init__(self, limits: TransportLimits) -> None:
        self.limits = limits
        self.per_address: Counter[str] = Counter()
        self.owners: dict[asyncio.BaseTransport, str] = {}

    @staticmethod
    def address(transport: asyncio.BaseTransport) -> str:
        """The client's IP address (the port is the client's choice, so not part of it)."""
        peer = transport.get_extra_info("peername")
        if isinstance(peer, tuple) and peer:
            return str(peer[0])
        return "local"

    def admit(self, transport: asyncio.BaseTransport) -> bool:
        """Count a new socket, or say it is one too many for its address."""
        if transport in self.owners:
            return True
        address = self.address(transport)
        cap = self.limits.max_connections_per_address
        if cap and self.per_address[address] >= cap:
            return False
        self.per_address[address] += 1
        self.owners[transport] = address
        return True

    def release(self, transport: asyncio.BaseTransport) -> None:
        """The socket closed (idempotent: after a WebSocket upgrade either protocol may call)."""
        address = self.owners.pop(transport, None)
        if address is not None:
            self.per_address[address] -= 1
            if self.per_address[address] <= 0:
                del self.per_address[address]

    def open_count(self, address: str) -> int:
        """How many sockets ``address`` holds now."""
        return self.per_address.get(address, 0)


def guarded_protocols(
    guard: ConnectionGuard,
    http_base: type[asyncio.Protocol] | None = None,
    ws_base: type[asyncio.Protocol] | None = None,
) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol] | None]:
    """Uvicorn's HTTP and WebSocket protocol classes (its ``auto`` choices by default), with
    the connection cap and the header timeout of ``guard``; pass them as ``http=`` and ``ws=``
    to ``uvicorn.Config``."""
    if http_base is None:
        from uvicorn.protocols.http.auto import AutoHTTPProtocol

        http_base = AutoHTTPProtocol
    if ws_base is None:
        from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

        ws_base = AutoWebSocketsProtocol  # type: ignore[assignment]
    limits = guard.limits

    class GuardedHTTP(http_base):  # type: ignore[valid-type,misc]
        _guard_timer: asyncio.TimerHandle | None = None
        _guard_head = 0
        _guard_tail = b""
        _guard_waiting = True
        _guard_refused = False

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if not guard.admit(transport):
                self._guard_refused = True
                error = ApiError(
                    "too_many_connections",
                    f"over {limits.max_connections_per_address} connections from one address",
                    limit=limits.max_connections_per_address,
                )
                transport.write(_raw_problem(error, ((b"retry-after", b"5"),)))
                transport.close()
                return
            self._guard_expect_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            self._guard_cancel()
            guard.release(self.transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._guard_refused:
                return
            if self._guard_waiting:
                window = self._guard_tail + data
                end = window.find(b"\r\n\r\n")
                if end >= 0:
                    self._guard_head += end + 4 - len(self._guard_tail)
                    self._guard_waiting = False
                    self._guard_cancel()
                else:
                    self._guard_head += len(data)
                    self._guard_tail = window[-3:]
                if limits.max_header_bytes and self._guard_head > limits.max_header_bytes:
                    self._guard_cancel()
                    error = ApiError(
                        "headers_too_large",
                        f"request headers over {limits.max_header_bytes} bytes",
                        limit=limits.max_header_bytes,
                    )
                    self.transport.write(_raw_problem(error))
                    self.transport.close()
                    return
                if self._guard_waiting and self._guard_timer is None:
                    self._guard_arm()
            super().data_received(data)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._guard_expect_headers()

        # -- the header timer ------------------------------------------------------------

        def _guard_expect_headers(self) -> None:
            self._guard_waiting = True
            self._guard_head = 0
            self._guard_tail = b""
            self._guard_cancel()
            self._guard_arm()

        def _guard_arm(self) -> None:
            if limits.header_timeout:
                loop = asyncio.get_running_loop()
                self._guard_timer = loop.call_later(limits.header_timeout, self._guard_expired)

        def _guard_cancel(self) -> None:
            if self._guard_timer is not None:
                self._guard_timer.cancel()
                self._guard_timer = None

        def _guard_expired(self) -> None:
            self._guard_timer = None
            cycle = getattr(self, "cycle", None)
            busy = cycle is not None and not getattr(cycle, "response_complete", True)
            if not self._guard_waiting or busy or self.transport.is_closing():
                return
            error = ApiError(
                "request_timeout",
                f"the request headers did not arrive within {limits.header_timeout:g} seconds",
                seconds=f"{limits.header_timeout:g}",
            )
            self.transport.write(_raw_problem(error))
            self.transport.close()

    if ws_base is None:  # pragma: no cover - uvicorn[standard] always has one
        return GuardedHTTP, None

    class GuardedWebSocket(ws_base):  # type: ignore[valid-type,misc]
        _heard_at = 0.0
        """When the client last sent anything (the event loop's clock)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # What the client sent, for the app's one reader (its receive): a Mailbox, not an
            # asyncio.Queue's four deques and Event kept for the socket's whole life.
            self.queue: Mailbox[dict[str, Any]] = Mailbox()

        def connection_lost(self, exc: Exception | None) -> None:
            transport = getattr(self, "transport", None)
            if transport is not None:
                guard.release(transport)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            self._heard_at = self.loop.time()
            super().data_received(data)

        async def send(self, message: Any) -> None:
            await super().send(message)
            if self.handshake_complete and getattr(self, "response", None) is not None:
                # The handshake is over: its request and response, every header of both, are
                # never read again, and a table's socket lives for the whole game (about 2 KB
                # of the 26 KB of objects it kept; docs/benchmarks.md).
                self.request = self.response = None

        def send_keepalive_ping(self) -> None:
            # One heartbeat a socket: Uvicorn pings every socket every ws_ping_interval, but a
            # client heard from within it (a phone pings the table every 20 s itself) is
            # plainly there; only a silent one is pinged, and closed if it does not answer.
            quiet = self.loop.time() - self._heard_at
            if quiet < self.ping_interval and not self.transport.is_closing():
                self.ping_timer = self.loop.call_later(
                    self.ping_interval - quiet, self.send_keepalive_ping
                )
                return
            super().send_keepalive_ping()

    return GuardedHTTP, GuardedWebSocket


class RequestLimits:
    """ASGI middleware: path characters, body size (any framing), body stalls, JSON text."""

    def __init__(
        self, app: ASGIApp, limits: TransportLimits, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.limits = limits
        self.larger = {tuple(path.split("/")): limit for path, limit in (larger or {}).items()}
        """Paths that take a larger body (a file, not JSON: an organiser's roster, a photo of
        the dice), and their limit; a ``{name}`` segment stands for any one segment (a code)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if any(ord(c) < 0x20 or ord(c) == 0x7F for c in path):
            await self._refuse(scope, send, ApiError("bad_path", f"control character in {path!r}"))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers", ()))
        declared = headers.get(b"content-length", b"")
        larger = self._larger(path)
        limit = self.limits.max_body_bytes if larger is None else larger
        if declared.isdigit() and int(declared) > limit:
            size = int(declared)
            await self._refuse(
                scope,
                send,
                ApiError(
                    "too_large",
                    f"request body of {size} bytes is over the limit of {limit}",
                    size=size,
                    limit=limit,
                ),
            )
            return
        if not (declared.strip(b"0") or b"transfer-encoding" in headers):
            await self.app(scope, receive, send)
            return
        try:
            body = await self._read_body(receive, limit)
            # A larger body is a file (a roster), never JSON: a text roster naming "NaN" is fine.
            is_json = b"json" in headers.get(b"content-type", b"json")
            if body and is_json and larger is None:
                _check_json(body)
        except ApiError as error:
            await self._refuse(scope, send, error)
            return
        except _Disconnected:
            return
        delivered = False

        async def replay() -> MutableMapping[str, Any]:
            nonlocal delivered
            if not delivered:
                delivered = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _larger(self, path: str) -> int | None:
        """The larger limit of ``path``'s body, or None for the ordinary one."""
        parts = path.split("/")
        for pattern, limit in self.larger.items():
            if len(pattern) == len(parts) and all(
                want == got or (want.startswith("{") and want.endswith("}") and got)
                for want, got in zip(pattern, parts, strict=True)
            ):
                return limit
        return None

    async def _read_body(self, receive: Receive, limit: int) -> bytes:
        timeout = self.limits.idle_timeout or None
        chunks: list[bytes] = []
        size = 0
        while True:
            try:
                message: Message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                raise ApiError(
                    "request_timeout",
                    f"the request body stalled for {self.limits.idle_timeout:g} seconds",
                    seconds=f"{self.limits.idle_timeout:g}",
                ) from None
            if message["type"] == "http.disconnect":
                raise _Disconnected
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                if message.get("more_body", False):
                    await self._drain(receive, limit)
                raise ApiError(
                    "too_large",
                    f"request body over the limit of {limit} bytes",
                    size=size,
                    limit=limit,
                )
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _drain(self, receive: Receive, most: int) -> None:
        """Read and drop the rest of a body that is over its limit, up to ``most`` more bytes,
        before the 413: a socket closed with unread bytes is reset, and a reset can take the
        answer with it before the client reads it (the "lingering close" of Apache and nginx).
        A body longer still is closed on, as before."""
        timeout = self.limits.idle_timeout or None
        dropped = 0
        while dropped <= most:
            try:
                message: Message = await asyncio.wait_for(receive(), timeout)
            except TimeoutError:
                return
            if message["type"] == "http.disconnect":
                return
            dropped += len(message.get("body", b""))
            if not message.get("more_body", False):
                return

    async def _refuse(self, scope: Scope, send: Send, error: ApiError) -> None:
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        query = scope.get("query_string", b"").decode("latin-1")
        wanted = ""
        for part in query.split("&"):
            if part.startswith("lang="):
                wanted = part[5:]
        header = dict(scope.get("headers", ())).get(b"accept-language", b"").decode("latin-1")
        lang = request_language(wanted, header)
        body = json.dumps(error.problem(lang), ensure_ascii=False).encode("utf-8")
        headers = [(b"content-type", PROBLEM), (b"content-length", str(len(body)).encode())]
        if error.code == "request_timeout":
            headers.append((b"connection", b"close"))
        await send({"type": "http.response.start", "status": error.status, "headers": headers})
        await send({"type": "http.response.body", "body": body})


def _check_json(body: bytes) -> None:
    """Refuse what no route could carry (a lone surrogate, a deep nest); a body that is not
    JSON at all is left to the route, which knows its own limits and answers ``malformed``."""
    try:
        json_input.loads(body, what="request body")
    except ApiError as error:
        if error.code != "malformed":
            raise


class _Disconnected(Exception):
    """The client went away while sending its body: nothing to answer."""
