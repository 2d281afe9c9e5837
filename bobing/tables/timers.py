"""The timers of a table, derived from its log: the time limit (``deadline_set``) and the
auto-throw for an absent player. Both are :class:`bobing.tables.clock.Clocks`: retried while
the database is down, re-armed when a table is loaded, and the log makes each happen once
however many instances fire. :class:`TableTimers` is a part of
:class:`bobing.tables.service.TableService`.
"""

from __future__ import annotations

import logging
from datetime import datetime

from bobing.storage.event_store import (
    iso,
)
from bobing.tables.cache import PAGE
from bobing.tables.clock import time_up_command_id
from bobing.tables.commands import AUTO_THROW, Plan, plan_time_up
from bobing.tables.parts import ServicePart
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import (
    Roles,
    Runtime,
    auto_throw_deadline,
)

log = logging.getLogger("bobing.web")


class TableTimers(ServicePart):
    """The time limit's and the auto-throw's timers of
    :class:`~bobing.tables.service.TableService`."""

    # -- time limits ------------------------------------------------------------------------

    def _arm(self, runtime: Runtime) -> None:
        """Keep the table's timers in step with its log: the time limit and the auto-throw."""
        self._arm_clock(runtime)
        self._arm_auto_throw(runtime)

    def _arm_clock(self, runtime: Runtime) -> None:
        """Keep the table's timer in step with its clock (docs/protocol.md, Time limits)."""
        running = (
            runtime.status == "playing"
            and runtime.closing is None
            and runtime.game is not None
            and not runtime.game.is_over
        )
        self.clocks.arm(runtime.code, runtime.deadline if running else None)

    async def rearm(self) -> int:
        """Load every table in play that has a time limit, arming its timer; how many."""
        armed = 0
        for code, settings in await self.store.tables_with_status("playing"):
            if settings.get("time_limit") is None:
                continue
            try:
                await self.runtime(code)
            except Exception:
                log.warning("cannot re-arm the clock of table %s", code, exc_info=True)
                continue
            armed += 1
        return armed

    async def _time_up(self, code: str, deadline: datetime) -> bool:
        """Call time at ``deadline``; True when done (or nothing to do), False to retry."""
        deadline_iso = iso(deadline)

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            return plan_time_up(runtime, deadline_iso)

        cached = self._runtimes.get(code)
        seen = None if cached is None else cached.last_seq
        try:
            outcome = await self._run(code, time_up_command_id(deadline), (), plan)
        except ApiError as exc:
            if exc.code in ("conflict", "unavailable"):
                return False
            log.warning("the clock could not call time at table %s: %s", code, exc.message)
            return True
        if outcome.duplicate and seen is not None:
            # Another instance called time first. Its broker message may never reach this
            # instance (the memory broker is per process): tell this instance's sockets.
            runtime = await self.runtime(code)
            stored = await self.store.events_after(runtime.code, seen, PAGE)
            if stored and stored[-1].seq == runtime.last_seq:
                await self._publish(runtime, [e.to_json() for e in stored])
        return True

    # -- absent players: the server throws once the table's auto-throw time runs out --------

    def _arm_auto_throw(self, runtime: Runtime) -> None:
        """Keep the auto-throw timer in step with the log (the same timers as the time
        limit: retried while the database is down, re-armed on load, and the turn makes it
        happen once however many instances fire)."""
        self.auto_throws.arm(runtime.code, auto_throw_deadline(runtime))

    async def _auto_throw(self, code: str, deadline: datetime) -> bool:
        """The server's throw for the absent player; True when done (or nothing to do),
        False to retry."""
        runtime = await self.runtime(code)
        if runtime.game is None or auto_throw_deadline(runtime) != deadline:
            return True  # the log moved on: the timer of the new deadline is armed
        turn = runtime.game.throw_count + 1
        command = Command("throw", None, {"turn": turn, AUTO_THROW: True})
        try:
            await self.execute(code, command, ())
        except ApiError as exc:
            # The player threw meanwhile (turn_taken), or the game paused or ended; a busy
            # or unreachable database is tried again.
            return exc.code not in ("conflict", "unavailable")
        return True
