"""The hub's ordering when a direct write has to wait (back-pressure), at the unit level.

Real sockets rarely back up on loopback (kernel buffers hold megabytes), so this drives the
hub with a socket stand-in whose writes block until released.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from bobing.realtime.memory import MemoryBroker
from bobing.web.hub import Connection, Frames, Hub, text_frame


class SlowSocket:
    """Just enough of a Starlette WebSocket: send_text waits while the gate is closed."""

    def __init__(self) -> None:
        self.gate = asyncio.Event()
        self.gate.set()
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        await self.gate.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.sent.append(f"closed {code}")


class NoBacklogService:
    """The hub asks the service only for catch-ups; nothing is missing here."""

    def signal(self, code: str, last: int) -> None:
        pass


def _slow_connection(
    queue_size: int = 100,
) -> tuple[MemoryBroker, Hub, Connection, SlowSocket]:
    """A hub on a memory broker with one caught-up socket whose sends wait for its gate."""
    broker = MemoryBroker()
    hub = Hub(broker, NoBacklogService(), queue_size=queue_size)  # type: ignore[arg-type]
    sock = SlowSocket()
    conn = Connection(sock, "T", "en", [], last_sent=0)  # type: ignore[arg-type]
    hub.attach(conn)
    conn.caught_up = True
    return broker, hub, conn, sock


async def test_frames_stay_in_order_through_a_stall() -> None:
    broker, hub, conn, sock = _slow_connection()
    sender = asyncio.create_task(_sender_without_catch_up(hub, conn))
    await asyncio.sleep(0)

    await broker.publish("bobing:table:T", "1 1 frame-1")
    assert sock.sent == ["frame-1"]  # written directly, synchronously
    sock.gate.clear()
    await broker.publish("bobing:table:T", "2 3 frame-2")  # this write stalls
    assert conn.stalled is not None and not conn.idle
    await broker.publish("bobing:table:T", "4 4 frame-4")  # queued behind it
    conn.send({"type": "ack", "id": "x"})
    await asyncio.sleep(0.01)
    assert sock.sent == ["frame-1"]
    sock.gate.set()
    await until(lambda: len(sock.sent) == 4 and conn.idle)
    assert sock.sent == ["frame-1", "frame-2", "frame-4", '{"type":"ack","id":"x"}']
    assert conn.idle and conn.last_sent == 4
    await broker.publish("bobing:table:T", "5 5 frame-5")
    assert sock.sent[-1] == "frame-5"
    sender.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await sender
    hub.detach(conn)
    assert broker.channels() == []


async def until(condition: Callable[[], bool], timeout: float = 30) -> None:
    """Let the event loop run until ``condition()`` holds (the sender task works meanwhile)."""

    async def loop() -> None:
        while not condition():
            await asyncio.sleep(0)

    await asyncio.wait_for(loop(), timeout)


async def _sender_without_catch_up(hub: Hub, conn: Connection) -> Any:
    while True:
        item = await conn.queue.get()
        conn.busy = True
        try:
            await hub._send_item(conn, item)
        finally:
            conn.busy = False


class RecordingWriter:
    """A socket's transport written directly (``DirectWriter``): records each ``write()``;
    while ``paused`` it takes nothing, as a transport whose buffer is full."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.paused = False

    def write(self, framed: bytes) -> bool:
        if self.paused:
            return False
        self.writes.append(framed)
        return True


def _held_connection() -> tuple[MemoryBroker, Hub, Connection, SlowSocket, RecordingWriter]:
    """A hub on a memory broker with one caught-up socket whose transport is recorded."""
    broker, hub, conn, sock = _slow_connection()
    writer = RecordingWriter()
    conn.writer = writer  # type: ignore[assignment]
    return broker, hub, conn, sock, writer


async def test_a_command_s_own_frames_go_out_with_its_answer_in_one_write() -> None:
    broker, hub, conn, sock, writer = _held_connection()
    conn.hold()
    await broker.publish("bobing:table:T", "1 2 events-1")
    await broker.publish("bobing:table:T", "3 3 events-3")
    assert writer.writes == [] and conn.last_sent == 3  # held for the answer
    conn.send_text('{"type":"ack"}')
    assert writer.writes == [
        text_frame(b"events-1") + text_frame(b"events-3") + text_frame(b'{"type":"ack"}')
    ]
    assert conn.held is None
    await broker.publish("bobing:table:T", "4 4 events-4")  # no longer held
    assert writer.writes[-1] == text_frame(b"events-4")
    conn.release()  # nothing held: writes nothing
    assert len(writer.writes) == 2 and sock.sent == []
    hub.detach(conn)


async def test_held_frames_keep_their_order_on_a_full_transport_or_a_queue() -> None:
    broker, hub, conn, sock, writer = _held_connection()
    # the transport takes nothing: the held frame and the answer go the usual way, in order
    conn.hold()
    await broker.publish("bobing:table:T", "1 1 events-1")
    writer.paused = True
    conn.send_text("ack-1")
    assert writer.writes == [] and sock.sent == ["events-1", "ack-1"]
    # a frame that has to queue (a gap: the sender reads the log) lets the held one out first
    writer.paused = False
    conn.hold()
    await broker.publish("bobing:table:T", "2 2 events-2")
    await broker.publish("bobing:table:T", "9 9 events-9")
    assert writer.writes == [text_frame(b"events-2")]
    assert conn.queue.get_nowait() == ("events", 9, 9, "events-9")
    # a command that failed before its answer (release in the receive loop's finally)
    conn.hold()
    await broker.publish("bobing:table:T", "3 3 events-3")
    conn.release()
    assert writer.writes[-1] == text_frame(b"events-3") and conn.held is None
    hub.detach(conn)


async def test_frames_wait_in_order_for_their_one_consumer() -> None:
    frames = Frames(most=2)
    assert frames.empty() and frames.qsize() == 0
    with pytest.raises(asyncio.QueueEmpty):
        frames.get_nowait()
    waiting = asyncio.create_task(frames.get())
    await asyncio.sleep(0)
    assert not waiting.done()  # nothing to take yet
    frames.put_nowait(("raw", "a"))
    assert await waiting == ("raw", "a")
    frames.put_nowait(("raw", "b"))
    frames.put_nowait(("raw", "c"))
    with pytest.raises(asyncio.QueueFull):
        frames.put_nowait(("raw", "d"))
    assert frames.qsize() == 2
    assert frames.get_nowait() == ("raw", "b")
    # a consumer cancelled while it waits takes nothing: the next one gets every frame
    frames.get_nowait()
    cancelled = asyncio.create_task(frames.get())
    await asyncio.sleep(0)
    cancelled.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await cancelled
    frames.put_nowait(("raw", "e"))
    assert await asyncio.wait_for(frames.get(), 1) == ("raw", "e") and frames.empty()
    # one reader: a second one waiting beside the first is a mistake, said at once
    first = asyncio.create_task(frames.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await frames.get()
    frames.put_nowait(("raw", "g"))
    assert await first == ("raw", "g")
    # the close of a socket too slow takes the newest frame's place, or the first
    frames.replace_last(("close",))
    frames.put_nowait(("raw", "f"))
    frames.replace_last(("close",))
    assert [frames.get_nowait(), frames.get_nowait()] == [("close",), ("close",)]


async def test_a_socket_that_cannot_keep_up_is_told_to_reconnect() -> None:
    broker, hub, conn, sock = _slow_connection(queue_size=3)
    sock.gate.clear()
    await broker.publish("bobing:table:T", "1 1 frame-1")  # stalls: the rest queue behind it
    for seq in range(2, 8):
        await broker.publish("bobing:table:T", f"{seq} {seq} frame-{seq}")
    assert conn.overflowed and not conn.idle
    # never more than queue_size: the stalled send and the next frame, then the close
    queued = [conn.queue.get_nowait() for _ in range(conn.queue.qsize())]
    assert queued == [("stalled",), ("events", 2, 2, "frame-2"), ("close",)]
    await broker.publish("bobing:table:T", "8 8 frame-8")  # nothing more once overflowed
    assert conn.queue.empty()
    sock.gate.set()
    assert [await hub._send_item(conn, item) for item in queued] == [True, True, False]
    # in order up to the close: the phone reconnects after frame 2 and reads on from the log
    assert sock.sent == ["frame-1", "frame-2", "closed 1013"]
    hub.detach(conn)
