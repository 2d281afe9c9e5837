"""The timers behind time limits (bobing.tables.clock): one per table, re-armed when the deadline
moves, dropped when the clock stops, retried until calling time succeeds."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from bobing.storage.event_store import utcnow
from bobing.tables.clock import Clocks, time_up_command_id

SOON = timedelta(milliseconds=50)
WAIT = 30.0


class Calls:
    """What the clocks asked for, and how the calls answer (True: done, False: retry)."""

    def __init__(self, answers: list[bool] | None = None) -> None:
        self.seen: list[tuple[str, datetime]] = []
        self.answers = answers or []
        self.event = asyncio.Event()

    async def fire(self, code: str, deadline: datetime) -> bool:
        self.seen.append((code, deadline))
        self.event.set()
        return self.answers.pop(0) if self.answers else True


async def test_a_timer_calls_time_once_at_its_deadline() -> None:
    calls = Calls()
    clocks = Clocks(calls.fire)
    deadline = utcnow() + SOON
    clocks.arm("ABCDEF", deadline)
    clocks.arm("ABCDEF", deadline)  # the same deadline again: still one timer
    assert len(clocks) == 1 and clocks.deadline("ABCDEF") == deadline
    await asyncio.wait_for(calls.event.wait(), WAIT)
    await asyncio.sleep(0)
    assert calls.seen == [("ABCDEF", deadline)]
    assert len(clocks) == 0  # done: the timer is gone
    await clocks.close()


async def test_a_moved_deadline_replaces_the_timer_and_none_stops_it() -> None:
    calls = Calls()
    clocks = Clocks(calls.fire)
    clocks.arm("ABCDEF", utcnow() + timedelta(hours=1))
    later = utcnow() + SOON
    clocks.arm("ABCDEF", later)  # resumed after a pause: a new deadline
    clocks.arm("GHJKMN", utcnow() + timedelta(hours=1))
    clocks.arm("GHJKMN", None)  # paused, over, or time called: no timer
    assert clocks.deadline("GHJKMN") is None
    await asyncio.wait_for(calls.event.wait(), WAIT)
    assert calls.seen == [("ABCDEF", later)]
    await clocks.close()
    assert len(clocks) == 0


async def test_calling_time_is_retried_until_it_succeeds() -> None:
    calls = Calls(answers=[False, False, True])
    clocks = Clocks(calls.fire, retry_seconds=0.01)
    deadline = utcnow() - timedelta(seconds=1)  # passed while the server was down
    clocks.arm("ABCDEF", deadline)
    for _ in range(3):
        calls.event.clear()
        await asyncio.wait_for(calls.event.wait(), WAIT)
    await asyncio.sleep(0.05)
    assert calls.seen == [("ABCDEF", deadline)] * 3
    await clocks.close()


async def test_closed_clocks_arm_nothing() -> None:
    clocks = Clocks(Calls().fire)
    await clocks.close()
    clocks.arm("ABCDEF", utcnow() + timedelta(hours=1))
    assert len(clocks) == 0


def test_the_command_id_names_the_deadline() -> None:
    deadline = datetime.fromisoformat("2026-10-06T12:30:00.000+00:00")
    assert time_up_command_id(deadline) == "time-up:2026-10-06T12:30:00.000Z"
