"""Deadlines from the log: one timer task per table and kind, firing when its deadline passes.

One mechanism for every log-derived deadline: the time limit (calling time) and the
auto-throw (the server throws for an absent player) are each a :class:`Clocks`.

The deadline itself is in the table's log (``deadline_set``), so it survives a restart: the
timers are re-armed whenever a runtime is loaded, and at start-up for every table in play.
Calling time is an ordinary command whose id names the deadline (``time-up:<deadline>``); the
log's unique command ids and the append's optimistic concurrency make it happen exactly once,
however many server instances have a timer for the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime

from bobing.storage.event_store import iso, utcnow

log = logging.getLogger("bobing.web")

RETRY_SECONDS = 5.0
"""How long a timer waits before trying again when calling time failed (database down)."""

MAX_SLEEP_SECONDS = 3600.0
"""A timer wakes at least this often and re-checks the wall clock (a suspended machine)."""


def time_up_command_id(deadline: datetime) -> str:
    """The command id of calling time at ``deadline`` (the same on every server instance)."""
    return "time-up:" + iso(deadline)


class Clocks:
    """The timer tasks of one server instance for one kind of deadline, one per table.

    ``fire(code, deadline)`` does what is due and returns True when done (or when nothing is
    left to do), False to be tried again after :data:`RETRY_SECONDS`; ``action`` names it in
    the log.
    """

    def __init__(
        self,
        fire: Callable[[str, datetime], Awaitable[bool]],
        *,
        retry_seconds: float = RETRY_SECONDS,
        action: str = "calling time",
    ) -> None:
        self._fire = fire
        self.action = action
        self.retry_seconds = retry_seconds
        self._timers: dict[str, tuple[datetime, asyncio.Task[None]]] = {}
        self.closed = False

    def __len__(self) -> int:
        return len(self._timers)

    def deadline(self, code: str) -> datetime | None:
        """The deadline a timer is armed for at this table, if any."""
        armed = self._timers.get(code)
        return None if armed is None else armed[0]

    def arm(self, code: str, deadline: datetime | None) -> None:
        """Run a timer for ``code`` until ``deadline`` (None: no timer)."""
        armed = self._timers.get(code)
        if armed is not None:
            if armed[0] == deadline and not armed[1].done():
                return
            self._drop(code)
        if deadline is None or self.closed:
            return
        task = asyncio.get_running_loop().create_task(
            self._run(code, deadline), name=f"bobing-clock-{code}"
        )
        self._timers[code] = (deadline, task)

    def _drop(self, code: str) -> None:
        armed = self._timers.pop(code, None)
        # A timer that is calling time itself re-arms (to nothing) from inside its own commit:
        # it must not cancel itself halfway through publishing.
        if armed is not None and armed[1] is not asyncio.current_task():
            armed[1].cancel()

    async def _run(self, code: str, deadline: datetime) -> None:
        try:
            while True:
                left = (deadline - utcnow()).total_seconds()
                if left <= 0:
                    break
                await asyncio.sleep(min(left, MAX_SLEEP_SECONDS))
            while not self.closed:
                try:
                    if await self._fire(code, deadline):
                        return
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.warning("%s at table %s failed; retrying", self.action, code, exc_info=True)
                await asyncio.sleep(self.retry_seconds)
        finally:
            armed = self._timers.get(code)
            if armed is not None and armed[1] is asyncio.current_task():
                del self._timers[code]

    async def close(self) -> None:
        """Stop every timer (the deadlines stay in the logs)."""
        self.closed = True
        tasks = [task for _, task in self._timers.values()]
        self._timers.clear()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
