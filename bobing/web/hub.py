"""WebSocket connections of this instance, and the fan-out of committed events to them.

Each connection has one sender task and a bounded queue, so a slow phone never delays the
others. Broker messages carry ``"<first seq> <last seq> <frame JSON>"``; a connection sends
the frame as is when it continues exactly where it left off, and otherwise reads the missing
events from the log (the database is the truth).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

from bobing.realtime.broker import Broker, table_channel
from bobing.tables.frames import events_frame
from bobing.tables.protocol import dumps
from bobing.tables.service import PAGE, TableService
from bobing.tables.state import state_text
from bobing.web.mailbox import Mailbox

log = logging.getLogger("bobing.web")


class Frames(Mailbox[tuple[Any, ...]]):
    """The frames waiting for one socket's sender task (``("events", first, last, frame)``,
    ``("raw", text)``, ``("stalled",)``, ``("catchup",)``, ``("close",)``): a table's socket
    almost never queues one, its frames are written directly."""

    __slots__ = ()


@dataclass(eq=False)
class Connection:
    """One client socket at one table.

    Frames go out directly when nothing is queued or being sent for this socket (the common
    case: one ``transport.write`` inside the broker callback); otherwise they wait in the
    queue for the socket's sender task, which keeps them in order.
    """

    ws: WebSocket
    code: str
    lang: str
    token_hashes: list[str]
    last_sent: int
    queue: Frames = field(default_factory=Frames)
    overflowed: bool = False
    caught_up: bool = False
    """The backlog after ``?after=`` has been sent; only then may frames go out directly."""
    busy: bool = False
    """The sender task is in the middle of a send."""
    stalled: Any = None
    """A direct send that had to wait (back-pressure): the sender task finishes it first."""
    max_frame_bytes: int = 4096
    """The largest frame this client may send (``TransportLimits.max_frame_bytes``)."""
    writer: DirectWriter | None = None
    """The socket's own transport, for table frames framed once for every socket."""
    held: list[tuple[str, bytes]] | None = None
    """While this socket's own command runs (:meth:`hold`): the table frames written to it
    meanwhile, as text and as framed, which go out with the command's answer in one write."""

    def __post_init__(self) -> None:
        self.writer = direct_writer(self.ws)

    def hold(self) -> None:
        """Hold the table frames written to this socket until its command's answer
        (:meth:`send_text`, or :meth:`release`): the thrower's events and its ack, one
        ``write()`` instead of two. Only for a socket written directly."""
        if self.writer is not None:
            self.held = []

    def release(self) -> None:
        """Write what :meth:`hold` kept, in order, and stop holding."""
        held, self.held = self.held, None
        if held:
            self._write_all(held, b"".join(framed for _, framed in held))

    def write_framed(self, text: str, framed: bytes) -> bool:
        """Write a table frame (``framed`` is ``text`` as :func:`text_frame`) to an idle
        socket now, or hold it for the answer; False when it must go the usual way."""
        if self.held is not None:
            self.held.append((text, framed))
            return True
        return self.writer is not None and self.writer.write(framed)

    def _write_all(self, texts: list[tuple[str, bytes]], framed: bytes) -> None:
        """Write frames already framed together as ``framed``; one at a time the usual way
        when the transport does not take it now, or after what is queued."""
        if self.idle and self.writer is not None and self.writer.write(framed):
            return
        for text, _ in texts:
            if self.idle:
                self.send_now(text)
            else:
                self.push(("raw", text))

    def push(self, item: tuple[Any, ...]) -> None:
        """Queue a frame; a connection that cannot keep up is closed (it will resync)."""
        if self.held:
            self.release()  # what was held goes first
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(item)
        except asyncio.QueueFull:
            # The newest frame's place goes to the close: what is ahead of it (a send that
            # stalled halfway, say) still goes out in order, and the client reads on from it.
            self.overflowed = True
            self.queue.replace_last(("close",))

    @property
    def idle(self) -> bool:
        """Nothing queued, being sent or stalled: a new frame may be written right away."""
        return (
            self.caught_up
            and not self.busy
            and self.stalled is None
            and not self.overflowed
            and self.queue.empty()
        )

    def send_now(self, text: str) -> None:
        """Write a frame from synchronous code (the caller checked :attr:`idle`)."""
        coro = self.ws.send_text(text)
        try:
            waiting = coro.send(None)
        except StopIteration:
            return
        except Exception:  # the socket is gone; the receive loop will notice
            coro.close()
            return
        # The transport is paused: let the sender task finish this send before anything else.
        self.stalled = (coro, waiting)
        self.push(("stalled",))

    def send(self, frame: dict[str, Any]) -> None:
        """Send a reply frame (ack, error, pong ...)."""
        self.send_text(dumps(frame))

    def send_text(self, text: str) -> None:
        """Send a reply frame already encoded (:meth:`Outcome.ack_text`), after any table
        frames held for it (:meth:`hold`), in the same write."""
        held, self.held = self.held, None
        if held:
            framed = text_frame(text.encode("utf-8"))
            self._write_all([*held, (text, framed)], b"".join(f for _, f in held) + framed)
        elif not self.idle:
            self.push(("raw", text))
        elif self.writer is None or not self.writer.write(text_frame(text.encode("utf-8"))):
            self.send_now(text)


def text_frame(payload: bytes) -> bytes:
    """A final, unmasked text frame (RFC 6455 §5.2), as a server sends it."""
    size = len(payload)
    if size < 126:
        head = bytes((0x81, size))
    elif size < 1 << 16:
        head = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return head + payload


class DirectWriter:
    """Writes a frame framed once for a whole table straight to one socket's transport.

    Sending through the ASGI interface encodes and frames the text again for every socket (a
    throw's frame at a table of ten: ten times); the bytes are the same for all. Only for
    Uvicorn's websockets (sans-I/O) protocol without compression, where a server's text frame
    carries no per-connection state; and only while the connection is open and its transport
    takes writes (else the caller sends the usual way, which waits for the transport).
    """

    __slots__ = ("protocol",)

    def __init__(self, protocol: WebSocketsSansIOProtocol) -> None:
        self.protocol = protocol

    def write(self, framed: bytes) -> bool:
        """Write ``framed`` (:func:`text_frame`) now; False when it must go the usual way."""
        protocol = self.protocol
        if (
            protocol.disconnected
            or protocol.close_sent
            or not protocol.writable.is_set()
            or protocol.conn.state is not State.OPEN
            or protocol.transport.is_closing()
        ):
            return False
        protocol.transport.write(framed)
        return True


def direct_writer(ws: Any) -> DirectWriter | None:
    """A :class:`DirectWriter` for a Starlette WebSocket served by Uvicorn's sans-I/O protocol
    without per-message deflate; None for anything else (a tagged socket, another server)."""
    protocol = getattr(getattr(ws, "_send", None), "__self__", None)
    if not isinstance(protocol, WebSocketsSansIOProtocol) or protocol.conn.extensions:
        return None
    return DirectWriter(protocol)


class _Resume:
    """Await a coroutine that was started by hand and suspended on ``waiting``."""

    def __init__(self, coro: Any, waiting: Any) -> None:
        self.coro = coro
        self.waiting = waiting

    def __await__(self) -> Any:
        yielded = self.waiting
        while True:
            yield yielded
            try:
                yielded = self.coro.send(None)
            except StopIteration as done:
                return done.value


class Hub:
    """Connections per table, subscribed to the broker while any are open."""

    def __init__(self, broker: Broker, service: TableService, *, queue_size: int = 5000) -> None:
        self.broker = broker
        self.service = service
        self.queue_size = queue_size
        self.tables: dict[str, set[Connection]] = {}
        self._unsubscribe: dict[str, Callable[[], None]] = {}
        broker.on_resync(self._resync)

    def attach(self, conn: Connection) -> None:
        """Start delivering the table's events to ``conn``."""
        conn.queue = Frames(self.queue_size)
        members = self.tables.setdefault(conn.code, set())
        members.add(conn)
        if conn.code not in self._unsubscribe:
            code = conn.code
            self._unsubscribe[code] = self.broker.subscribe(
                table_channel(code), lambda message: self._deliver(code, message)
            )

    def detach(self, conn: Connection) -> None:
        """Stop delivering to ``conn``."""
        members = self.tables.get(conn.code)
        if members is None:
            return
        members.discard(conn)
        if not members:
            del self.tables[conn.code]
            unsubscribe = self._unsubscribe.pop(conn.code, None)
            if unsubscribe is not None:
                unsubscribe()

    def _deliver(self, code: str, message: str) -> None:
        try:
            first_text, last_text, frame = message.split(" ", 2)
            first, last = int(first_text), int(last_text)
        except ValueError:
            log.warning("ignoring a malformed broker message for table %s", code)
            return
        self.service.signal(code, last)
        framed: bytes | None = None  # the frame as sent, built once for every socket
        for conn in tuple(self.tables.get(code, ())):
            if conn.idle and first == conn.last_sent + 1:
                conn.last_sent = last
                if conn.writer is not None:
                    if framed is None:
                        framed = text_frame(frame.encode("utf-8"))
                    if conn.write_framed(frame, framed):
                        continue
                conn.send_now(frame)
            else:
                conn.push(("events", first, last, frame))

    def _resync(self, channel: str, reconnected: bool) -> None:
        # Messages of this table may have been missed (a subscription that just became
        # active, or a broker connection that came back): every socket reads the log after
        # what it has, and after a break the cached runtime may be behind too.
        code = channel.removeprefix(table_channel(""))
        if reconnected:
            self.service.evict_if_idle(code)
        for conn in tuple(self.tables.get(code, ())):
            conn.push(("catchup",))

    def _unheard(self, reader: Connection) -> None:
        """``reader`` found events in the log past this instance's runtime: every other
        socket of its table behind them reads the log after what it has, in order."""
        for conn in tuple(self.tables.get(reader.code, ())):
            if conn is not reader and conn.last_sent < reader.last_sent:
                conn.push(("catchup",))

    @property
    def connection_count(self) -> int:
        """Open connections (all tables)."""
        return sum(len(c) for c in self.tables.values())

    async def close_all(self) -> None:
        """Close every socket (server shutdown)."""
        for members in list(self.tables.values()):
            for conn in list(members):
                with contextlib.suppress(Exception):
                    await conn.ws.close(1001)

    # -- the per-connection sender ----------------------------------------------------------

    async def sender(self, conn: Connection) -> None:
        """Send the backlog after ``conn.last_sent``, then every queued frame, in order."""
        try:
            await self._catch_up(conn, always=True)
            conn.caught_up = True
            while True:
                item = await conn.queue.get()
                conn.busy = True
                try:
                    if not await self._send_item(conn, item):
                        return
                finally:
                    conn.busy = False
        except (WebSocketDisconnect, RuntimeError, OSError):
            return
        except Exception:
            # Typically the database failing during a catch-up. Never leave a socket that
            # silently stops sending: close it, the client reconnects with ?after=.
            log.exception("sender failed at table %s", conn.code)
            conn.overflowed = True  # nothing more is queued or written directly
            with contextlib.suppress(Exception):
                await conn.ws.close(1011, "server error: reconnect with ?after=<last seq>")

    async def _send_item(self, conn: Connection, item: tuple[Any, ...]) -> bool:
        kind = item[0]
        if kind == "stalled":
            coro, waiting = conn.stalled
            try:
                await _Resume(coro, waiting)
            finally:
                conn.stalled = None
        elif kind == "raw":
            await conn.ws.send_text(item[1])
        elif kind == "events":
            _, first, last, frame = item
            if last <= conn.last_sent:
                return True
            if first == conn.last_sent + 1:
                conn.last_sent = last
                await conn.ws.send_text(frame)
            else:
                await self._catch_up(conn)
        elif kind == "catchup":
            await self._catch_up(conn)
        elif kind == "close":
            await conn.ws.close(1013, "too slow: reconnect with ?after=<last seq>")
            return False
        return True

    async def _catch_up(self, conn: Connection, *, always: bool = False) -> None:
        """Send the events after ``conn.last_sent`` from the log, the last frame with the whole
        state as of its last event: live frames that follow carry only a patch from it."""
        # On connect the state is always sent (with the backlog, possibly empty).
        owed_state = always
        while True:
            after = conn.last_sent
            stored = await self.service.store.events_after(conn.code, after, PAGE)
            events = [event.to_json() for event in stored]
            if not events and not owed_state:
                return
            if events:
                conn.last_sent = stored[-1].seq
                owed_state = True
            runtime = await self.service.runtime(conn.code)
            if len(events) < PAGE and runtime.last_seq != conn.last_sent:
                if runtime.last_seq < conn.last_sent:
                    # The log has events this instance never heard of (another instance
                    # committed them and died before its signal went out): the table's
                    # other sockets here read them too, or they would wait for the next.
                    self._unheard(conn)
                runtime = await self.service.fresh_runtime(conn.code)
            if len(events) < PAGE and runtime.last_seq == conn.last_sent:
                await conn.ws.send_text(
                    events_frame(events, after=after, state_json=state_text(runtime))
                )
                return
            # A page of a long log, or more events were committed meanwhile: read on. (With
            # nothing read, the fold is not at the log's head, say a table being deleted:
            # nothing more to send.)
            await conn.ws.send_text(events_frame(events, after=after))
            if not events:
                return
