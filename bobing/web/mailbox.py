"""A queue with one reader, for what every socket keeps for its whole life.

:class:`asyncio.Queue` keeps four deques and an ``Event`` from the moment it is made (about
3 KB), for any number of readers and writers. Each table socket has two queues with one
reader each, and both are empty nearly all the time: the messages its client sent, read by
the route (Uvicorn's ASGI receive queue, replaced in ``limits_transport``), and the frames
waiting for its sender task (``hub.Frames``). A :class:`Mailbox` has the same interface for
its one reader, in one deque that exists only while something waits in it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

T = TypeVar("T")


class Mailbox(Generic[T]):
    """``put_nowait``, ``get_nowait``, ``get``, ``empty`` and ``qsize`` as
    :class:`asyncio.Queue` has them (``QueueFull``, ``QueueEmpty``), for one reader at a time."""

    __slots__ = ("_items", "_most", "_waiter")

    def __init__(self, most: int = 0) -> None:
        self._items: deque[T] | None = None
        """What waits, in order; None when nothing does."""
        self._most = most
        """The most items held; 0: no limit."""
        self._waiter: asyncio.Future[None] | None = None
        """The reader's, while it waits in :meth:`get`."""

    def empty(self) -> bool:
        """Whether nothing waits."""
        return self._items is None

    def qsize(self) -> int:
        """How many items wait."""
        return 0 if self._items is None else len(self._items)

    def put_nowait(self, item: T) -> None:
        """Add ``item`` at the end; :class:`asyncio.QueueFull` when ``most`` are waiting."""
        items = self._items
        if items is None:
            items = self._items = deque()
        elif self._most and len(items) >= self._most:
            raise asyncio.QueueFull
        items.append(item)
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    def replace_last(self, item: T) -> None:
        """Put ``item`` in the newest item's place (at the end, when nothing waits)."""
        if self._items is None:
            self.put_nowait(item)
        else:
            self._items[-1] = item

    def get_nowait(self) -> T:
        """The first item; :class:`asyncio.QueueEmpty` when nothing waits."""
        items = self._items
        if items is None:
            raise asyncio.QueueEmpty
        item = items.popleft()
        if not items:
            self._items = None
        return item

    async def get(self) -> T:
        """The first item, once there is one."""
        if self._waiter is not None:
            raise RuntimeError("a Mailbox has one reader, and it is already waiting")
        while self._items is None:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self.get_nowait()
