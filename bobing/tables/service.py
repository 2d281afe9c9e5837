"""The table service: who may do what at a table, turned into events committed to the log.

Every rule is the engine's (:class:`bobing.engine.game.Game`); this module adds the lobby,
tokens, modes, provably fair dice and the commit protocol:

1. take the table's lock (one command at a time per table in this process);
2. decide the command against the in-memory runtime (a fold of the stored log);
3. append the new events with ``expected_seq`` = the runtime's head — if another server
   instance got there first the append fails (:class:`StaleWrite`), the runtime is reloaded
   from the database and the command is decided again;
4. only then update the runtime and publish the events (the database log is the truth;
   the broker message is only a signal).

The pieces live by concern beside it: :mod:`bobing.tables.runtime` (a table in memory, the fold
of its log), :mod:`bobing.tables.commands` (deciding each command), :mod:`bobing.tables.state` (what
clients see), :mod:`bobing.tables.export` (record and CSV), :mod:`bobing.tables.validation` (what a
client sends at creation) and :mod:`bobing.tables.tokens` (secrets and codes).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.events import EVENT_TYPES, Event, event_from_json
from bobing.engine.fairness import (
    commitment,
    new_server_seed,
)
from bobing.engine.game import MAX_NAME_LENGTH, Game
from bobing.engine.rules import rules_from_json
from bobing.organizer.text import name_key
from bobing.realtime.broker import Broker, table_channel
from bobing.storage.event_store import (
    Append,
    CommandRecord,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    TableInfo,
    TableSnapshot,
    iso,
    utcnow,
)
from bobing.tables.clock import Clocks, time_up_command_id
from bobing.tables.commands import AUTO_THROW, PLANS, Plan, need_seated, plan_time_up
from bobing.tables.export import record_of, results_csv
from bobing.tables.frames import events_frame
from bobing.tables.limits import MAX_TABLE_NAME, Limits
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import Command
from bobing.tables.runtime import (
    Roles,
    Runtime,
    auto_throw_deadline,
    catch_up,
    last_thrown,
    note_event,
    restore,
    snapshot_of,
    throw_index,
)
from bobing.tables.state import build_state, refresh_state, state_text
from bobing.tables.tokens import hash_token, new_token, normalize_code, with_free_code
from bobing.tables.validation import (
    MODES,
    check_display_text,
    parse_named_prizes,
    parse_rules,
    parse_time_limit,
)

log = logging.getLogger("bobing.web")

COMMIT_ATTEMPTS = 4

ALWAYS_ROOM = frozenset({"end"})
"""Commands a full log still takes: the host can always end the game (a few events, and the
table is over: nothing follows that a full log would have to refuse)."""


PAGE = 1000
CATCH_UPS_AT_ONCE = 8
"""Background catch-ups (:meth:`TableService.signal`) reading at one time: each holds a pooled
connection, and a burst of signals must not take every one (a command that finds its table
still behind reads the tail itself)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a committed (or already committed) command."""

    seq: int
    last_seq: int
    duplicate: bool = False
    reply: dict[str, Any] = field(default_factory=dict)

    def ack(self, command_id: str | None) -> dict[str, Any]:
        """The ``ack`` frame; ``reply`` carries what only the sender may know (a new token)."""
        frame: dict[str, Any] = {
            "type": "ack",
            "id": command_id,
            "seq": self.seq,
            "last_seq": self.last_seq,
            "duplicate": self.duplicate,
        }
        if self.reply:
            frame["reply"] = self.reply
        return frame


@dataclass(frozen=True, slots=True)
class Created:
    """A new table and its secrets (returned once)."""

    code: str
    host_token: str
    play_token: str | None
    state: dict[str, Any]


class TableService:
    """Tables, commands and the runtime cache of one server instance."""

    def __init__(
        self,
        store: EventStore,
        broker: Broker,
        *,
        cache_size: int = 5000,
        limits: Limits | None = None,
    ) -> None:
        self.store = store
        self.broker = broker
        self.cache_size = cache_size
        self.limits = limits or Limits()
        self._runtimes: OrderedDict[str, Runtime] = OrderedDict()
        self._loading: dict[str, asyncio.Future[Runtime | None]] = {}
        self._heads: dict[str, int] = {}
        """Log heads other instances signalled past a cached runtime (:meth:`signal`)."""
        self._catching: set[str] = set()
        """Tables whose cached runtime is catching up in the background."""
        self._catch_up_slots = asyncio.Semaphore(CATCH_UPS_AT_ONCE)
        self._background: set[asyncio.Task[None]] = set()
        self.clocks = Clocks(self._time_up)
        """The time limits' timers (``deadline_set`` in the log)."""
        self.auto_throws = Clocks(self._auto_throw, action="throwing for an absent player")
        """The auto-throws' timers (the last event's time + the table's seconds)."""

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
        """The runtime, reloaded if another instance has written to the log since."""
        runtime = await self.runtime(code)
        head = await self.store.last_seq(runtime.code)
        if head is not None and head != runtime.last_seq:
            self.evict(runtime.code)
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
        snapshot = snapshot_of(runtime)
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

    async def close(self) -> None:
        """Stop the timers (at shutdown; the deadlines stay in the log) and wait for the
        snapshots being written."""
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self.clocks.close()
        await self.auto_throws.close()

    # -- creating and joining -------------------------------------------------------------

    async def create_table(
        self,
        *,
        name: Any,
        mode: Any = "online",
        rules: Any = None,
        prizes: Any = None,
        named_prizes: Any = None,
        referee_thrower: Any = False,
        creator: str | None = None,
        time_limit: Any = None,
        gathering: str | None = None,
        event_tables: int | None = None,
    ) -> Created:
        """Create a table; the host (and for pass-and-play the play) token is returned once.

        ``creator`` (a hash of the client's address) counts toward the open-table quota; a
        table of the event ``gathering`` counts toward its open-event quota instead (checked
        by the event's creation), and its state names the event and its ``event_tables``.
        """
        table_name = check_display_text(name, field_name="name", max_length=MAX_TABLE_NAME)
        if mode not in MODES:
            raise ApiError(
                "invalid_field",
                f"invalid mode {mode!r}; allowed: " + ", ".join(MODES),
                field="mode",
                value=str(mode)[:40],
            )
        if not isinstance(referee_thrower, bool):
            raise ApiError(
                "invalid_field", "referee_thrower must be true or false", field="referee_thrower"
            )
        rule_set = parse_rules(rules, prizes)
        prizes_named = parse_named_prizes(named_prizes)
        quota = self.limits.open_tables_per_address
        if (
            creator is not None
            and gathering is None
            and quota
            and await self.store.open_tables(creator) >= quota
        ):
            raise ApiError(
                "too_many_tables",
                f"this address already has {quota} open tables; end one or wait for it to expire",
                limit=quota,
            )
        limit = parse_time_limit(time_limit)
        seed = new_server_seed()
        host_token = new_token("h")
        play_token = new_token("g") if mode == "pass_and_play" else None
        settings = {
            "named_prizes": prizes_named,
            "referee_thrower": referee_thrower,
            "time_limit": limit,
        }
        if event_tables is not None:
            settings["event_tables"] = event_tables
        rules_json = rule_set.to_json()

        async def create(code: str) -> Created:
            info = TableInfo(
                code=code,
                name=table_name,
                mode=str(mode),
                status="lobby",
                rules=rules_json,
                settings=settings,
                host_token_hash=hash_token(host_token),
                play_token_hash=None if play_token is None else hash_token(play_token),
                server_seed=seed,
                commitment=commitment(seed),
                created_at=utcnow(),
                creator=creator,
                gathering=gathering,
            )
            created_event = {
                "type": "table_created",
                "name": table_name,
                "mode": mode,
                "rules": rules_json,
                "named_prizes": prizes_named,
                "referee_thrower": referee_thrower,
                "time_limit": limit,
                "commitment": info.commitment,
            }
            stored = await self.store.create_table(info, [created_event])
            runtime = Runtime(
                info=info, rules=rule_set, seats=[], status="lobby", last_seq=len(stored)
            )
            state = build_state(runtime)
            refresh_state(runtime)
            self._remember(runtime)
            return Created(code, host_token, play_token, state)

        return await with_free_code(create, "table")

    async def discard(self, codes: list[str]) -> None:
        """Delete tables that never became usable (a failed event creation), cache and all."""
        for code in codes:
            self.evict(code)
            self.clocks.arm(code, None)
        await self.store.delete_tables(list(codes))

    async def join(self, code: str, name: Any, token_hashes: Iterable[str] = ()) -> dict[str, Any]:
        """Seat ``name``; returns ``{"seat", "name", "player_token"}``.

        The host (``token_hashes`` holding the host token) may seat players while the lobby is
        locked, and seat again a name removed a moment ago.
        """

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            display = check_display_text(name, field_name="name", max_length=MAX_NAME_LENGTH)
            if runtime.status != "lobby":
                raise ApiError(
                    "not_in_lobby",
                    f"table {runtime.code} has started; nobody can join now",
                    code=runtime.code,
                    status=runtime.status,
                )
            if runtime.locked and not roles.host:
                raise ApiError(
                    "lobby_locked",
                    f"the host of table {runtime.code} has locked the lobby",
                    code=runtime.code,
                )
            key = name_key(display)
            for seated in runtime.names:
                if name_key(seated) == key:
                    raise ApiError(
                        "name_taken",
                        f"the name {display!r} is already seated at table {runtime.code}"
                        + ("" if seated == display else f" (as {seated!r})"),
                        name=seated,
                        code=runtime.code,
                    )
            removed_at = runtime.removed.get(key)
            if removed_at is not None and not roles.host:
                wait = removed_at + self.limits.rejoin_cooldown - time.time()
                if wait > 0:
                    raise ApiError(
                        "rejoin_too_soon",
                        f"the host removed {display!r} from table {runtime.code}; "
                        f"that name may join again in {math.ceil(wait)} s",
                        name=display,
                        code=runtime.code,
                        retry_after=math.ceil(wait),
                    )
            seats_at_most = runtime.rules.max_players  # the rules' own limit (RULES.md §8)
            if len(runtime.seats) >= seats_at_most:
                raise ApiError(
                    "table_full",
                    f"table {runtime.code} already seats {seats_at_most} players",
                    limit=seats_at_most,
                    code=runtime.code,
                )
            token = new_token("p")
            seat = Seat(display, len(runtime.seats) + 1, hash_token(token))
            seats = [*runtime.seats, seat]

            def commit(rt: Runtime) -> None:
                rt.seats = seats

            return Plan(
                [{"type": "player_joined", "seat": seat.seat, "name": display}],
                seats=seats,
                commit=commit,
                reply={"seat": seat.seat, "name": display, "player_token": token},
            )

        outcome = await self._run(code, None, tuple(token_hashes), plan)
        return outcome.reply

    async def name_start_thrower(self, code: str, name: str) -> None:
        """The event names who throws this table's start dice (RULES.md §10.1): logged, so a
        ``start_dice`` that names nobody uses them and the 组长's lobby pre-selects them.
        Before the start dice only; naming the one already named adds nothing."""

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            if runtime.status != "lobby" or runtime.start_dice is not None:
                raise ApiError(
                    "not_in_lobby",
                    "the start thrower is chosen before the start dice are thrown",
                    action="start_thrower",
                    status=runtime.status,
                )
            need_seated(runtime, name)
            if runtime.start_thrower == name:
                return Plan([])
            return Plan([{"type": "start_thrower_named", "name": name}])

        await self._run(code, None, (), plan)

    # -- commands ---------------------------------------------------------------------------

    async def execute(self, code: str, command: Command, token_hashes: Iterable[str]) -> Outcome:
        """Apply one state-changing command for the holder of ``token_hashes``."""
        if command.type == "rematch":
            return await self._rematch(code, command, tuple(token_hashes))
        if command.type == "claim_rematch":
            return await self._claim_rematch(code, command, tuple(token_hashes))
        decide = PLANS.get(command.type)
        if decide is None:
            raise ApiError("unknown_command", f"{command.type!r} is not a table command")

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            return decide(runtime, roles, command.args)

        return await self._run(
            code,
            command.id,
            tuple(token_hashes),
            plan,
            digest=command_digest(command),
            # A client's command needs a token of the table; the server's own (the auto-throw)
            # carries a field no client can send.
            need_token=AUTO_THROW not in command.args,
            check_room=command.type not in ALWAYS_ROOM,
        )

    async def _run(
        self,
        code: str,
        command_id: str | None,
        token_hashes: tuple[str, ...],
        decide: Callable[[Runtime, Roles], Plan],
        *,
        digest: str | None = None,
        need_token: bool = False,
        check_room: bool = True,
    ) -> Outcome:
        for _ in range(COMMIT_ATTEMPTS):
            runtime = await self.runtime(code)
            async with runtime.lock:
                if runtime.evicted:
                    continue
                # Who is asking comes first: an id is only looked up for its own sender.
                roles = runtime.roles(token_hashes)
                if need_token and not roles.anyone:
                    if await self._behind(runtime):
                        continue  # a player seated through another instance: reload first
                    raise ApiError(
                        "forbidden",
                        f"a command at table {runtime.code} needs a token of that table",
                        action="command",
                    )
                sender = sender_of(token_hashes, runtime) if command_id else None
                if command_id is not None and command_id in runtime.commands:
                    return _repeated(
                        runtime, command_id, runtime.commands[command_id], sender, digest
                    )
                try:
                    try:
                        plan = decide(runtime, roles)
                    except BobingError as exc:
                        raise from_bobing(exc) from None
                except ApiError:
                    if await self._behind(runtime):
                        continue  # refused by a stale copy: decide again on the log's state
                    # A retry of a command older than the runtime remembers fails to decide
                    # again (its turn has passed): the log says whether it was done.
                    if command_id is not None and runtime.forgot_commands:
                        found = await self.store.command(runtime.code, command_id)
                        if found is not None:
                            return _repeated(runtime, command_id, found, sender, digest)
                    raise
                if not plan.events:
                    return Outcome(runtime.last_seq, runtime.last_seq, reply=plan.reply)
                if check_room:
                    self._check_room(runtime, plan.events)
                request = Append(
                    runtime.code,
                    runtime.last_seq,
                    plan.events,
                    command_id=command_id,
                    status=plan.status,
                    seats=plan.seats,
                    sender=sender,
                    digest=digest,
                )
                try:
                    stored = await self.store.append(request)
                except StaleWrite:
                    # Another instance wrote first, or the command id is in the log but no
                    # longer in memory: look it up, else reload the log and decide again.
                    self.evict(runtime.code)
                    if command_id is not None:
                        found = await self.store.command(runtime.code, command_id)
                        if found is not None:
                            return _repeated(runtime, command_id, found, sender, digest)
                    continue
                except Exception:
                    self.evict(runtime.code)
                    raise
                logged = self._committed(runtime, plan, stored)
                self._maybe_snapshot(runtime)
                await self._publish(runtime, logged)
                return Outcome(stored[0].seq, runtime.last_seq, reply=plan.reply)
        raise ApiError("conflict", "the table kept changing; send the command again")

    async def _behind(self, runtime: Runtime) -> bool:
        """With other instances writing, whether the log moved past ``runtime`` (then evicted).

        A command is only refused after this check: a copy that missed another instance's
        write (its signal still on the way) must not turn down a valid command.
        """
        if not self.broker.shared:
            return False
        head = await self.store.last_seq(runtime.code)
        if head is None or head == runtime.last_seq:
            return False
        self.evict(runtime.code)
        return True

    def _check_room(self, runtime: Runtime, events: list[dict[str, Any]]) -> None:
        """``log_full`` when the game's events would pass ``max_events``. Reactions are
        counted apart (they never take a game's room) against the same number of their own."""
        limit = self.limits.max_events
        reactions = sum(1 for e in events if e.get("type") == "reaction")
        if limit and reactions and runtime.reactions + reactions > limit:
            raise ApiError(
                "log_full",
                f"table {runtime.code} has {runtime.reactions} reactions, the most a table may "
                f"hold is {limit}",
                code=runtime.code,
                limit=limit,
            )
        count = len(events) - reactions
        if limit and count and runtime.last_seq - runtime.reactions + count > limit:
            raise ApiError(
                "log_full",
                f"table {runtime.code} has {runtime.last_seq - runtime.reactions} events, the "
                "most a table may "
                f"hold is {limit}; the host can still end the game",
                code=runtime.code,
                limit=limit,
            )

    def _committed(
        self, runtime: Runtime, plan: Plan, stored: list[StoredEvent]
    ) -> list[dict[str, Any]]:
        """Bring the runtime up to the committed ``stored``; their JSON (as the log has them)."""
        if plan.commit is not None:
            plan.commit(runtime)
        if plan.status is not None:
            runtime.status = plan.status
        for event in stored:
            note_event(runtime, event)
        runtime.last_seq = stored[-1].seq
        logged = [event.to_json() for event in stored]
        refresh_state(runtime, logged)
        self._arm(runtime)
        return logged

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

    # -- play again with the same people ----------------------------------------------------

    async def _rematch(self, code: str, command: Command, token_hashes: tuple[str, ...]) -> Outcome:
        """The host opens a new table with the same seats, rules and prizes; the old table's
        log names it (``rematch``) and every seat fetches its own new token with
        ``claim_rematch``. The host's new tokens come back in this command's reply only."""
        runtime = await self.runtime(code)
        if command.id is not None and command.id in runtime.commands:
            sender = sender_of(token_hashes, runtime)
            record = runtime.commands[command.id]
            return _repeated(runtime, command.id, record, sender, command_digest(command))
        roles = runtime.roles(token_hashes)
        if not roles.host:
            raise ApiError("forbidden", "only the host may start a rematch", action="rematch")
        if not runtime.over:
            raise ApiError(
                "not_playing", "a rematch follows a game that is over", status=runtime.status
            )
        if runtime.rematch_code is not None:
            raise ApiError(
                "rematch_exists",
                f"table {runtime.code} already continues at {runtime.rematch_code}",
                code=runtime.rematch_code,
            )
        if runtime.info.gathering is not None:
            # a new table outside the event would leave its roster, prizes and 王中王
            raise ApiError(
                "event_table",
                f"table {runtime.code} is one of event {runtime.info.gathering}'s tables: "
                "what comes next is the organiser's",
                event=runtime.info.gathering,
            )
        settings = runtime.info.settings
        created = await self.create_table(
            name=runtime.info.name,
            mode=runtime.info.mode,
            rules=runtime.info.rules,
            named_prizes=settings.get("named_prizes") or None,
            referee_thrower=bool(settings.get("referee_thrower")),
        )
        names = runtime.names

        def seat_all(new: Runtime, roles: Roles) -> Plan:
            # Each seat waits for its phone: a token nobody holds until claim_rematch.
            seats = [Seat(n, i, hash_token(new_token("p"))) for i, n in enumerate(names, 1)]
            events: list[dict[str, Any]] = [
                {"type": "player_joined", "seat": seat.seat, "name": seat.name} for seat in seats
            ]
            if runtime.auto_throw:
                events.append({"type": "auto_throw_set", "seconds": runtime.auto_throw})

            def commit(rt: Runtime) -> None:
                rt.seats = seats

            return Plan(events, seats=seats, commit=commit)

        if names:
            await self._run(created.code, None, (), seat_all)

        def announce(old: Runtime, roles: Roles) -> Plan:
            if old.rematch_code is not None:
                raise ApiError(
                    "rematch_exists",
                    f"table {old.code} already continues at {old.rematch_code}",
                    code=old.rematch_code,
                )
            return Plan(
                [{"type": "rematch", "code": created.code}],
                reply={
                    "code": created.code,
                    "host_token": created.host_token,
                    "play_token": created.play_token,
                },
            )

        return await self._run(
            code,
            command.id,
            token_hashes,
            announce,
            digest=command_digest(command),
            need_token=True,
        )

    async def _claim_rematch(
        self, code: str, command: Command, token_hashes: tuple[str, ...]
    ) -> Outcome:
        """A seat of the old table takes its seat at the rematch: a new player token for it."""
        old = await self.runtime(code)
        roles = old.roles(token_hashes)
        if old.rematch_code is None:
            raise ApiError("no_rematch", f"table {old.code} has no rematch", code=old.code)
        if not roles.players:
            raise ApiError(
                "forbidden",
                "only a player of this table has a seat at the rematch",
                action="claim_rematch",
            )
        name = roles.players[0]
        target = old.rematch_code

        def claim(new: Runtime, _: Roles) -> Plan:
            need_seated(new, name)
            token = new_token("p")
            seats = [
                Seat(s.name, s.seat, hash_token(token) if s.name == name else s.token_hash)
                for s in new.seats
            ]

            def commit(rt: Runtime) -> None:
                rt.seats = seats

            return Plan(
                [{"type": "seat_claimed", "player": name, "from": old.code}],
                seats=seats,
                commit=commit,
                reply={"code": new.code, "player": name, "player_token": token},
            )

        return await self._run(target, None, (), claim)

    async def _publish(self, runtime: Runtime, logged: list[dict[str, Any]]) -> None:
        """Signal the committed events ``logged`` (the runtime's last, as JSON) with their
        frame: the patch of the commit that made them, else (another instance's events, found
        in the log) the whole state."""
        first, last = logged[0]["seq"], logged[-1]["seq"]
        patch = runtime.patch
        if patch is not None and patch[0] == first - 1 and runtime.last_seq == last:
            frame = events_frame(logged, after=first - 1, patch_json=patch[1])
        else:
            frame = events_frame(logged, after=first - 1, state_json=state_text(runtime))
        message = f"{first} {last} {frame}"
        # The log is committed: if the signal is lost, clients still resync from the log.
        with contextlib.suppress(Exception):
            await self.broker.publish(table_channel(runtime.code), message)

    # -- reading ----------------------------------------------------------------------------

    async def state_json(self, code: str) -> str:
        """The table state as JSON text (RULES.md §7 result inside, see docs/protocol.md)."""
        return state_text(await self.fresh_runtime(code))

    async def events(self, code: str, after: int, limit: int) -> dict[str, Any]:
        """A page of the log after ``after``."""
        runtime = await self.runtime(code)
        events = await self.store.events_after(runtime.code, after, limit)
        head = await self.store.last_seq(runtime.code)
        return {"events": [e.to_json() for e in events], "last_seq": head}

    async def record(self, code: str) -> dict[str, Any]:
        """The RULES.md §6 record with the fairness block."""
        return record_of(await self.fresh_runtime(code))

    async def results_csv(self, code: str, lang: str | None = None) -> str:
        """Results as CSV, one row per seat."""
        return results_csv(await self.fresh_runtime(code), lang)


class UnusableSnapshot(Exception):
    """A stored snapshot this version cannot read (the table is folded from its whole log)."""


def command_digest(command: Command) -> str:
    """What a command asks for (type and fields): one id names one command."""
    text = json.dumps([command.type, command.args], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sender_of(token_hashes: tuple[str, ...], runtime: Runtime) -> str | None:
    """Who sent a command: a hash of the table's tokens it came with (None without any)."""
    known = sorted({h for h in token_hashes if runtime.knows(h)})
    if not known:
        return None
    return hashlib.sha256(" ".join(known).encode("ascii")).hexdigest()


def _repeated(
    runtime: Runtime,
    command_id: str,
    record: CommandRecord,
    sender: str | None,
    digest: str | None,
) -> Outcome:
    """A command id seen before: the original ack if it is the same sender's same command."""
    # Events stored before senders were recorded (None) are taken as the same sender.
    if record.sender is not None and record.sender != sender:
        raise ApiError(
            "command_id_reused",
            f"command id {command_id!r} was already used at table {runtime.code} by another "
            "sender; use a fresh id for each command",
            id=command_id,
            reason="sender",
        )
    if record.digest is not None and digest is not None and record.digest != digest:
        raise ApiError(
            "command_id_reused",
            f"command id {command_id!r} was already used at table {runtime.code} for a "
            "different command; use a fresh id for each command",
            id=command_id,
            reason="command",
        )
    return Outcome(record.seq, runtime.last_seq, duplicate=True)


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
