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

This module keeps creating and joining tables and that commit loop. The service's other parts
are modules of their own, each what changes together: :mod:`bobing.tables.cache` (the runtime
cache, loading and catching up), :mod:`bobing.tables.timers` (the time limit and the
auto-throw), :mod:`bobing.tables.rematch` (play again) and :mod:`bobing.tables.outcomes` (what a
command came to). The pieces they use live by concern beside them: :mod:`bobing.tables.runtime`
(a table in memory, the fold of its log), :mod:`bobing.tables.commands` (deciding each command),
:mod:`bobing.tables.state` (what clients see), :mod:`bobing.tables.export` (record and CSV),
:mod:`bobing.tables.validation` (what a client sends at creation) and
:mod:`bobing.tables.tokens` (secrets and codes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.fairness import (
    commitment,
    new_nonce,
    new_server_seed,
)
from bobing.engine.game import MAX_NAME_LENGTH
from bobing.organizer.text import name_key
from bobing.realtime.broker import Broker, table_channel
from bobing.storage.event_store import (
    Append,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    TableInfo,
    utcnow,
)
from bobing.storage.photos import KeptPhoto, PhotoStore
from bobing.tables.cache import CATCH_UPS_AT_ONCE, PAGE, RuntimeCache, UnusableSnapshot, fold
from bobing.tables.clock import Clocks
from bobing.tables.commands import AUTO_THROW, PLANS, Plan, need_seated, need_start_thrower_open
from bobing.tables.export import record_of, results_csv
from bobing.tables.frames import events_frame
from bobing.tables.limits import MAX_TABLE_NAME, Limits
from bobing.tables.outcomes import Created, Outcome, command_digest, repeated, sender_of
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import Command
from bobing.tables.rematch import Rematches
from bobing.tables.runtime import (
    Roles,
    Runtime,
    note_event,
)
from bobing.tables.state import build_state, refresh_state, state_text
from bobing.tables.timers import TableTimers
from bobing.tables.tokens import hash_token, new_token, with_free_code
from bobing.tables.validation import (
    MODES,
    check_display_text,
    parse_named_prizes,
    parse_rules,
    parse_time_limit,
)
from bobing.vision.limits import KEPT_MEDIA_TYPE

__all__ = [
    "CATCH_UPS_AT_ONCE",
    "PAGE",
    "Created",
    "Outcome",
    "TableService",
    "UnusableSnapshot",
    "command_digest",
    "fold",
    "sender_of",
]
"""The table service and, for code that imported them from here, the names of its parts."""

log = logging.getLogger("bobing.web")

COMMIT_ATTEMPTS = 4

ALWAYS_ROOM = frozenset({"end"})
"""Commands a full log still takes: the host can always end the game (a few events, and the
table is over: nothing follows that a full log would have to refuse)."""


class TableService(RuntimeCache, TableTimers, Rematches):
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
        self.photos = PhotoStore(store.db)
        """The photos ``keep_photos`` tables keep (docs/vision.md)."""
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
        keep_photos: Any = False,
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
        if not isinstance(keep_photos, bool):
            raise ApiError(
                "invalid_field", "keep_photos must be true or false", field="keep_photos"
            )
        if keep_photos and mode != "referee":
            raise ApiError(
                "invalid_field",
                f"a {mode} table rolls its own dice: only a referee table keeps photos",
                field="keep_photos",
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
        if keep_photos:
            settings["keep_photos"] = True
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
            if keep_photos:
                created_event["keep_photos"] = True
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
            need_start_thrower_open(runtime)
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

        photo_id = command.args.get("photo_id") if command.type == "throw" else None
        if photo_id is not None:
            code = await self._need_pending_photo(code, str(photo_id), command.id)
        outcome = await self._run(
            code,
            command.id,
            tuple(token_hashes),
            plan,
            # only a command with an id is stored with its digest (a retry's check)
            digest=None if command.id is None else command_digest(command),
            # A client's command needs a token of the table; the server's own (the auto-throw)
            # carries a field no client can send.
            need_token=AUTO_THROW not in command.args,
            check_room=command.type not in ALWAYS_ROOM,
        )
        if photo_id is not None:
            # the throw's first event is its ``dice`` (commands.plan_throw), naming the photo
            linked = await self.photos.link(code, str(photo_id), outcome.seq)
            if not linked and not outcome.duplicate:
                # dropped between the check and the commit (eight newer photos in between):
                # the throw stands, its 📷 answers not_found
                log.warning(
                    "table %s: photo %s was gone when throw %s named it",
                    code,
                    photo_id,
                    outcome.seq,
                )
        return outcome

    # -- photos kept as evidence ----------------------------------------------------------

    async def keep_photo(self, code: str, jpeg: bytes) -> str | None:
        """Keep a photo the dice of a ``keep_photos`` table were read from, pending until a
        throw names it; its id, or None when the table's photos are at their byte cap."""
        runtime = await self.runtime(code)
        photo_id = new_nonce()
        kept = await self.photos.keep(
            runtime.code,
            photo_id,
            KeptPhoto(KEPT_MEDIA_TYPE, jpeg),
            at=utcnow(),
            pending=self.limits.kept_photos_pending,
            table_bytes=self.limits.kept_photo_bytes_per_table,
        )
        return photo_id if kept else None

    async def _need_pending_photo(self, code: str, photo_id: str, command_id: str | None) -> str:
        """The table's code, once ``photo_id`` is known to wait for its throw there (or the
        command was applied already: its retry is answered as a repeat)."""
        runtime = await self.runtime(code)
        if not runtime.info.settings.get("keep_photos"):
            return runtime.code  # plan_throw refuses it, naming the table
        if not await self.photos.is_pending(runtime.code, photo_id) and (
            command_id is None or await self.store.command_seq(runtime.code, command_id) is None
        ):
            raise ApiError(
                "invalid_field",
                f"photo {photo_id} is not a photo of table {runtime.code} waiting for its "
                "throw (each photo confirms one throw; an old one may have been dropped)",
                field="photo_id",
            )
        return runtime.code

    async def photo(self, code: str, seq: int) -> KeptPhoto:
        """The photo kept for the throw whose ``dice`` event is ``seq``; ``not_found`` if none
        (no photo was kept, or that throw was undone)."""
        runtime = await self.fresh_runtime(code)
        photo = (
            await self.photos.photo(runtime.code, seq) if seq in runtime.photos.values() else None
        )
        if photo is None:
            raise ApiError(
                "not_found",
                f"table {runtime.code} keeps no photo for event {seq}",
                code=runtime.code,
            )
        return photo

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
                    return repeated(
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
                            return repeated(runtime, command_id, found, sender, digest)
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
                            return repeated(runtime, command_id, found, sender, digest)
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
