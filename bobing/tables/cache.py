"""The runtime cache of one server instance: each table in memory as the fold of its log.

Loaded once however many ask at the same time, kept up to the log's head when another
instance's broker signal says it moved (caught up from the events after it, in the
background), snapshotted every :attr:`Limits.snapshot_every` events, evicted past
``cache_size``. :class:`RuntimeCache` is a part of :class:`bobing.tables.service.TableService`.
"""

from __future__ import annotations

import asyncio
import logging

from bobing.engine.errors import BobingError
from bobing.engine.events import EVENT_TYPES, Event, event_from_json
from bobing.engine.game import Game
from bobing.engine.rules import rules_from_json
from bobing.storage.event_store import (
    TableSnapshot,
)
from bobing.tables.parts import ServicePart
from bobing.tables.problems import ApiError
from bobing.tables.runtime import (
    Runtime,
    catch_up,
    encoded_fold,
    last_thrown,
    note_event,
    restore,
    throw_index,
)
from bobing.tables.state import refresh_state
from bobing.tables.tokens import normalize_code

log = logging.getLogger("bobing.web")

PAGE = 1000
CATCH_UPS_AT_ONCE = 8
"""Background catch-ups (:meth:`TableService.signal`) reading at one time: each holds a pooled
connection, and a burst of signals must not take every one (a command that finds its table
still behind reads the tail itself)."""


class RuntimeCache(ServicePart):
    """The cached runtimes of :class:`~bobing.tables.service.TableService` (its state is set
    up by the service's ``__init__``)."""

    # -- runtimes -------------------------------------------------------------------------

    async def runtime(self, code: str) -> Runtime:
        """The table's runtime (loaded from the log when not cached); table_not_found else."""
        code = normalize_code(code)
        cached = self._runtimes.get(code)
        if cached is not None:
            self._runtimes.move_to_end(code)
            if self._heads.get(code, 0) <= cached.last_seq:
                return cached
            return await self._caught_up(cached)
        pending = self._loading.get(code)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[code] = pending
            try:
                snapshot = await self.store.load(code)
                try:
                    loaded = None if snapshot is None else fold(snapshot)
                except UnusableSnapshot:
                    # Written by another version, say: the whole log is still the truth.
                    log.warning("ignoring the stored snapshot of table %s", code)
                    snapshot = await self.store.load(code, use_snapshot=False)
                    loaded = None if snapshot is None else fold(snapshot)
                if loaded is not None:
                    self._remember(loaded)
                    self._maybe_snapshot(loaded)
                pending.set_result(loaded)
            except BaseException as exc:
                pending.set_exception(exc)
                pending.exception()  # retrieved: waiters re-raise it themselves
                raise
            finally:
                del self._loading[code]
        runtime = await asyncio.shield(pending)
        if runtime is None:
            raise ApiError("table_not_found", f"no table {code!r}", code=code)
        return runtime

    async def _caught_up(self, runtime: Runtime) -> Runtime:
        """A cached runtime another instance's signal left behind, brought to the log's head:
        the events after it read (one query) and applied under its lock; reloaded instead when
        they need more than the events (:func:`catch_up`). A reload per signal used to be what
        a table whose phones are on several instances paid for every throw."""
        code = runtime.code
        async with runtime.lock:
            if not runtime.evicted and self._heads.get(code, 0) > runtime.last_seq:
                events = await self.store.events_after(code, runtime.last_seq, PAGE)
                try:
                    done = catch_up(runtime, events)
                except Exception:  # the full load below says what is wrong, if anything
                    log.warning("cannot catch up table %s: reloading", code, exc_info=True)
                    done = False
                if done:
                    refresh_state(runtime, [event.to_json() for event in events])
                    self._arm(runtime)
                else:
                    self.evict(code)
            if not runtime.evicted:
                if self._heads.get(code, 0) <= runtime.last_seq:
                    self._heads.pop(code, None)
                return runtime
        return await self.runtime(code)

    async def fresh_runtime(self, code: str) -> Runtime:
        """The runtime, reloaded if another instance has written to the log since.

        Compared under the runtime's lock: a command of this instance between its append and
        its commit has moved the log's head already, and evicting its runtime then let the
        next command decide on a second copy beside it (with a lock of its own) while it
        finished: concurrent claims at one event table got ``conflict`` and ``forbidden``
        (tests/security/test_room_of_200.py).
        """
        runtime = await self.runtime(code)
        async with runtime.lock:
            head = await self.store.last_seq(runtime.code)
            if not runtime.evicted and head is not None and head != runtime.last_seq:
                self.evict(runtime.code)
        if runtime.evicted:
            runtime = await self.runtime(code)
        return runtime

    def _remember(self, runtime: Runtime) -> None:
        runtime.minute_seconds = self.limits.time_limit_minute
        self._arm(runtime)
        self._runtimes[runtime.code] = runtime
        while len(self._runtimes) > self.cache_size:
            code, oldest = next(iter(self._runtimes.items()))
            if oldest.lock.locked():
                break
            self.evict(code)

    def evict(self, code: str) -> None:
        """Forget a cached runtime (it is reloaded from the log on next use)."""
        runtime = self._runtimes.pop(code, None)
        self._heads.pop(code, None)
        if runtime is not None:
            runtime.evicted = True

    def evict_if_idle(self, code: str) -> None:
        """Forget a cached runtime that no command is using (it may be behind the log)."""
        runtime = self._runtimes.get(code)
        if runtime is not None and not runtime.lock.locked():
            self.evict(code)

    def _maybe_snapshot(self, runtime: Runtime) -> None:
        """Store a snapshot of the fold once :attr:`Limits.snapshot_every` events have passed.

        Taken now (the runtime is consistent under its lock or right after loading), written in
        the background: a lost snapshot only means a longer tail on the next load.
        """
        if runtime.last_seq - runtime.snapshot_seq < self.limits.snapshot_every:
            return
        snapshot = encoded_fold(runtime)
        runtime.snapshot_seq = snapshot.seq

        async def save() -> None:
            try:
                await self.store.save_snapshot(runtime.code, snapshot)
            except Exception:
                log.warning("could not store a snapshot of table %s", runtime.code, exc_info=True)

        task = asyncio.create_task(save())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def signal(self, code: str, last_seq: int) -> None:
        """A broker message said the log reached ``last_seq``: a cached runtime behind it
        catches up (:meth:`_caught_up`) now, in the background, so that the next command here
        (the next player's throw, typically) does not wait for the read; and in any case
        before its next use."""
        runtime = self._runtimes.get(code)
        if runtime is None or last_seq <= max(runtime.last_seq, self._heads.get(code, 0)):
            return
        self._heads[code] = last_seq
        if code in self._catching:
            return  # the running catch-up reads on to this head
        self._catching.add(code)

        async def catch_up_now() -> None:
            try:
                seen = -1
                while not runtime.evicted and seen < runtime.last_seq < self._heads.get(code, 0):
                    seen = runtime.last_seq
                    async with self._catch_up_slots:
                        await self._caught_up(runtime)
            except Exception:  # the next command reads the log itself
                log.warning("could not catch up table %s", code, exc_info=True)
            finally:
                self._catching.discard(code)

        task = asyncio.create_task(catch_up_now())
        self._background.add(task)
        task.add_done_callback(self._background.discard)


class UnusableSnapshot(Exception):
    """A stored snapshot this version cannot read (the table is folded from its whole log)."""


def fold(snapshot: TableSnapshot) -> Runtime:
    """A runtime from the stored log: the latest fold snapshot, if any, then the events after it
    (the game is replayed by the engine, nothing re-decided)."""
    info = snapshot.info
    runtime = Runtime(
        info=info,
        rules=rules_from_json(info.rules),
        seats=list(snapshot.seats),
        status=info.status,
        last_seq=snapshot.last_seq,
    )
    game_events: list[Event] = []
    if snapshot.fold is not None:
        try:
            game_events = restore(runtime, snapshot.fold)
        except (KeyError, TypeError, ValueError, BobingError) as exc:
            raise UnusableSnapshot(f"table {info.code}: {exc}") from exc
    for event in snapshot.events:
        if event.type in EVENT_TYPES:
            game_events.append(event_from_json(event.data))
        elif event.type == "throw_undone":
            del game_events[throw_index(game_events, event.data["throw"]) :]
        note_event(runtime, event)
    if game_events:
        runtime.game = Game.replay(runtime.rules, runtime.names, game_events)
        runtime.last_throw = last_thrown(game_events)
    refresh_state(runtime)
    return runtime
