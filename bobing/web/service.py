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
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import hashlib
import hmac
import io
import secrets
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bobing.engine.dice import parse_dice
from bobing.engine.errors import BobingError
from bobing.engine.events import EVENT_TYPES, Event, Thrown, event_from_json
from bobing.engine.fairness import (
    START_THROW,
    commitment,
    derive_faces,
    grab_rng,
    new_nonce,
    new_server_seed,
)
from bobing.engine.game import MAX_NAME_LENGTH, MAX_PLAYERS, MIN_PLAYERS, Game, Phase
from bobing.engine.hands import TIERS
from bobing.engine.rules import RuleSet, load_rules, rules_from_json
from bobing.realtime.broker import Broker, table_channel
from bobing.storage.event_store import (
    Append,
    CodeTaken,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    TableInfo,
    TableSnapshot,
    iso,
    utcnow,
)
from bobing.web.problems import ApiError, from_bobing
from bobing.web.protocol import Command, dumps

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
CODE_LENGTH = 6
MODES = ("online", "pass_and_play", "referee")
MAX_TABLE_NAME = 40
MAX_PRIZE_NAME = 40
MAX_PRIZE_VALUE = 10**9
HTML_CHARACTERS = frozenset("<>&\"'")
COMMIT_ATTEMPTS = 4
PAGE = 1000


def hash_token(token: str) -> str:
    """Tokens are stored (and compared) only as SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    """A fresh secret token, e.g. ``h_…`` (host), ``g_…`` (play), ``p_…`` (player)."""
    return f"{prefix}_{secrets.token_urlsafe(24)}"


def normalize_code(code: str) -> str:
    """Table codes are case-insensitive."""
    return code.strip().upper()


def check_display_text(value: Any, *, field_name: str, max_length: int) -> str:
    """A trimmed display name: no HTML characters, no control characters, not too long."""
    if not isinstance(value, str):
        raise ApiError("invalid_name", f"{field_name} must be text", field=field_name, name="")
    text = unicodedata.normalize("NFC", value.strip())
    if not text:
        raise ApiError("invalid_name", f"{field_name} is empty", field=field_name, name=value)
    bad = sorted({c for c in text if c in HTML_CHARACTERS or _is_control(c)})
    if bad:
        raise ApiError(
            "invalid_name",
            f"invalid {field_name} {text[:80]!r}: characters {''.join(bad)!r} are not allowed",
            field=field_name,
            name=text[:80],
            characters="".join(c if c.isprintable() else repr(c) for c in bad),
        )
    if len(text) > max_length:
        raise ApiError(
            "name_too_long",
            f"{field_name} {text[:80]!r} has {len(text)} characters; at most {max_length}",
            field=field_name,
            name=text[:80],
            length=len(text),
            limit=max_length,
        )
    return text


def _is_control(char: str) -> bool:
    category = unicodedata.category(char)
    if category == "Cf":
        return char not in "\u200d"  # the zero-width joiner builds emoji
    return category in ("Cc", "Cs", "Co", "Cn") or char in "\u2028\u2029"


@dataclass(slots=True)
class Roles:
    """What a set of tokens allows at one table."""

    host: bool = False
    play: bool = False
    players: tuple[str, ...] = ()

    def names(self) -> list[str]:
        """Role names for the welcome frame."""
        out = ["host"] if self.host else []
        if self.play:
            out.append("play")
        if self.players:
            out.append("player")
        return out

    @property
    def anyone(self) -> bool:
        """Whether any token matched."""
        return self.host or self.play or bool(self.players)


@dataclass(slots=True)
class Runtime:
    """A table in memory: the fold of its stored log plus the secrets needed to act on it."""

    info: TableInfo
    rules: RuleSet
    seats: list[Seat]
    status: str
    last_seq: int
    game: Game | None = None
    start_dice: dict[str, Any] | None = None
    fair_throws: list[dict[str, Any]] = field(default_factory=list)
    last_throw: dict[str, Any] | None = None
    end_reason: str | None = None
    seed_revealed: bool = False
    throw_seqs: dict[int, int] = field(default_factory=dict)
    """The seq of each surviving throw's first event (its ``dice``), by throw number."""
    command_seqs: dict[str, int] = field(default_factory=dict)
    static_json: str | None = None
    state_json: str = "{}"
    """The state after the last committed event, as JSON text (built once per commit; text
    rather than dicts keeps the garbage collector's long-lived generation small)."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    evicted: bool = False

    @property
    def code(self) -> str:
        """The table code."""
        return self.info.code

    @property
    def names(self) -> list[str]:
        """Seated names in clockwise order."""
        return [s.name for s in self.seats]

    @property
    def over(self) -> bool:
        """Whether the game (or the table) has ended."""
        return self.status == "over"

    def roles(self, token_hashes: Iterable[str]) -> Roles:
        """The roles the given token hashes carry here."""
        roles = Roles()
        players: list[str] = []
        for digest in token_hashes:
            if hmac.compare_digest(digest, self.info.host_token_hash):
                roles.host = True
            if self.info.play_token_hash is not None and hmac.compare_digest(
                digest, self.info.play_token_hash
            ):
                roles.play = True
            for seat in self.seats:
                if hmac.compare_digest(digest, seat.token_hash):
                    players.append(seat.name)
        roles.players = tuple(players)
        return roles

    def knows(self, token_hash: str) -> bool:
        """Whether a token hash belongs to anything at this table."""
        return self.roles([token_hash]).anyone


@dataclass(slots=True)
class Plan:
    """What a command decided: events to commit, and how the runtime changes once committed."""

    events: list[dict[str, Any]]
    status: str | None = None
    seats: list[Seat] | None = None
    commit: Callable[[Runtime], None] | None = None
    reply: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a committed (or already committed) command."""

    seq: int
    last_seq: int
    duplicate: bool = False
    reply: dict[str, Any] = field(default_factory=dict)

    def ack(self, command_id: str | None) -> dict[str, Any]:
        """The ``ack`` frame."""
        return {
            "type": "ack",
            "id": command_id,
            "seq": self.seq,
            "last_seq": self.last_seq,
            "duplicate": self.duplicate,
        }


@dataclass(frozen=True, slots=True)
class Created:
    """A new table and its secrets (returned once)."""

    code: str
    host_token: str
    play_token: str | None
    state: dict[str, Any]


class TableService:
    """Tables, commands and the runtime cache of one server instance."""

    def __init__(self, store: EventStore, broker: Broker, *, cache_size: int = 5000) -> None:
        self.store = store
        self.broker = broker
        self.cache_size = cache_size
        self._runtimes: OrderedDict[str, Runtime] = OrderedDict()
        self._loading: dict[str, asyncio.Future[Runtime | None]] = {}

    # -- runtimes -------------------------------------------------------------------------

    async def runtime(self, code: str) -> Runtime:
        """The table's runtime (loaded from the log when not cached); table_not_found else."""
        code = normalize_code(code)
        cached = self._runtimes.get(code)
        if cached is not None:
            self._runtimes.move_to_end(code)
            return cached
        pending = self._loading.get(code)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._loading[code] = pending
            try:
                snapshot = await self.store.load(code)
                loaded = None if snapshot is None else fold(snapshot)
                if loaded is not None:
                    self._remember(loaded)
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

    async def fresh_runtime(self, code: str) -> Runtime:
        """The runtime, reloaded if another instance has written to the log since."""
        runtime = await self.runtime(code)
        head = await self.store.last_seq(runtime.code)
        if head is not None and head != runtime.last_seq:
            self.evict(runtime.code)
            runtime = await self.runtime(code)
        return runtime

    def _remember(self, runtime: Runtime) -> None:
        self._runtimes[runtime.code] = runtime
        while len(self._runtimes) > self.cache_size:
            code, oldest = next(iter(self._runtimes.items()))
            if oldest.lock.locked():
                break
            self.evict(code)

    def evict(self, code: str) -> None:
        """Forget a cached runtime (it is reloaded from the log on next use)."""
        runtime = self._runtimes.pop(code, None)
        if runtime is not None:
            runtime.evicted = True

    def signal(self, code: str, last_seq: int) -> None:
        """A broker message said the log reached ``last_seq``: drop a stale cached runtime."""
        runtime = self._runtimes.get(code)
        if runtime is not None and last_seq > runtime.last_seq and not runtime.lock.locked():
            self.evict(code)

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
    ) -> Created:
        """Create a table; the host (and for pass-and-play the play) token is returned once."""
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
        rule_set = _rules(rules, prizes)
        prizes_named = _named_prizes(named_prizes)
        seed = new_server_seed()
        host_token = new_token("h")
        play_token = new_token("g") if mode == "pass_and_play" else None
        settings = {"named_prizes": prizes_named, "referee_thrower": referee_thrower}
        rules_json = rule_set.to_json()
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
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
            )
            created_event = {
                "type": "table_created",
                "name": table_name,
                "mode": mode,
                "rules": rules_json,
                "named_prizes": prizes_named,
                "referee_thrower": referee_thrower,
                "commitment": info.commitment,
            }
            try:
                stored = await self.store.create_table(info, [created_event])
            except CodeTaken:
                continue
            runtime = Runtime(
                info=info, rules=rule_set, seats=[], status="lobby", last_seq=len(stored)
            )
            state = build_state(runtime)
            runtime.state_json = dumps(state)
            self._remember(runtime)
            return Created(code, host_token, play_token, state)
        raise ApiError("conflict", "could not find a free table code; try again")

    async def join(self, code: str, name: Any) -> dict[str, Any]:
        """Seat ``name``; returns ``{"seat", "name", "player_token"}``."""

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            display = check_display_text(name, field_name="name", max_length=MAX_NAME_LENGTH)
            if runtime.status != "lobby":
                raise ApiError(
                    "not_in_lobby",
                    f"table {runtime.code} has started; nobody can join now",
                    code=runtime.code,
                    status=runtime.status,
                )
            if display in runtime.names:
                raise ApiError(
                    "name_taken",
                    f"the name {display!r} is already seated at table {runtime.code}",
                    name=display,
                    code=runtime.code,
                )
            if len(runtime.seats) >= MAX_PLAYERS:
                raise ApiError(
                    "table_full",
                    f"table {runtime.code} already seats {MAX_PLAYERS} players",
                    limit=MAX_PLAYERS,
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

        outcome = await self._run(code, None, (), plan)
        return outcome.reply

    # -- commands ---------------------------------------------------------------------------

    async def execute(self, code: str, command: Command, token_hashes: Iterable[str]) -> Outcome:
        """Apply one state-changing command for the holder of ``token_hashes``."""
        decide = _PLANS.get(command.type)
        if decide is None:
            raise ApiError("unknown_command", f"{command.type!r} is not a table command")

        def plan(runtime: Runtime, roles: Roles) -> Plan:
            return decide(runtime, roles, command.args)

        return await self._run(code, command.id, tuple(token_hashes), plan)

    async def _run(
        self,
        code: str,
        command_id: str | None,
        token_hashes: tuple[str, ...],
        decide: Callable[[Runtime, Roles], Plan],
    ) -> Outcome:
        for _ in range(COMMIT_ATTEMPTS):
            runtime = await self.runtime(code)
            async with runtime.lock:
                if runtime.evicted:
                    continue
                if command_id is not None and command_id in runtime.command_seqs:
                    return Outcome(
                        runtime.command_seqs[command_id], runtime.last_seq, duplicate=True
                    )
                roles = runtime.roles(token_hashes)
                try:
                    plan = decide(runtime, roles)
                except BobingError as exc:
                    raise from_bobing(exc) from None
                if not plan.events:
                    return Outcome(runtime.last_seq, runtime.last_seq, reply=plan.reply)
                request = Append(
                    runtime.code,
                    runtime.last_seq,
                    plan.events,
                    command_id=command_id,
                    status=plan.status,
                    seats=plan.seats,
                )
                try:
                    stored = await self.store.append(request)
                except StaleWrite:
                    # Another instance wrote first (or the command id was used there):
                    # reload the log and decide again.
                    self.evict(runtime.code)
                    continue
                except Exception:
                    self.evict(runtime.code)
                    raise
                self._committed(runtime, plan, stored, command_id)
                await self._publish(runtime, stored)
                return Outcome(stored[0].seq, runtime.last_seq, reply=plan.reply)
        raise ApiError("conflict", "the table kept changing; send the command again")

    def _committed(
        self, runtime: Runtime, plan: Plan, stored: list[StoredEvent], command_id: str | None
    ) -> None:
        if plan.commit is not None:
            plan.commit(runtime)
        if plan.status is not None:
            runtime.status = plan.status
        for event in stored:
            _note(runtime, event)
        runtime.last_seq = stored[-1].seq
        if command_id is not None:
            runtime.command_seqs[command_id] = stored[0].seq
        runtime.state_json = state_text(runtime)

    async def _publish(self, runtime: Runtime, stored: list[StoredEvent]) -> None:
        frame = events_frame(stored, runtime.state_json)
        message = f"{stored[0].seq} {stored[-1].seq} {frame}"
        # The log is committed: if the signal is lost, clients still resync from the log.
        with contextlib.suppress(Exception):
            await self.broker.publish(table_channel(runtime.code), message)

    # -- reading ----------------------------------------------------------------------------

    async def state_json(self, code: str) -> str:
        """The table state as JSON text (RULES.md §7 result inside, see docs/protocol.md)."""
        return (await self.fresh_runtime(code)).state_json

    async def events(self, code: str, after: int, limit: int) -> dict[str, Any]:
        """A page of the log after ``after``."""
        runtime = await self.runtime(code)
        events = await self.store.events_after(runtime.code, after, limit)
        head = await self.store.last_seq(runtime.code)
        return {"events": [e.to_json() for e in events], "last_seq": head}

    async def record(self, code: str) -> dict[str, Any]:
        """The RULES.md §6 record with the fairness block."""
        return record_of(await self.fresh_runtime(code))

    async def results_csv(self, code: str) -> str:
        """Results as CSV, one row per seat."""
        return results_csv(await self.fresh_runtime(code))


# -- folding the log ------------------------------------------------------------------------


def events_frame(events: Iterable[StoredEvent], state_json: str | None) -> str:
    """The ``events`` frame as text; the state is spliced in as already-encoded JSON."""
    head = '{"type":"events","events":' + dumps([e.to_json() for e in events])
    return head + ("}" if state_json is None else ',"state":' + state_json + "}")


def fold(snapshot: TableSnapshot) -> Runtime:
    """A runtime from the stored log (the game is replayed by the engine, nothing re-decided)."""
    info = snapshot.info
    runtime = Runtime(
        info=info,
        rules=rules_from_json(info.rules),
        seats=list(snapshot.seats),
        status=info.status,
        last_seq=snapshot.last_seq,
    )
    game_events: list[Event] = []
    for event in snapshot.events:
        if event.command_id is not None:
            runtime.command_seqs[event.command_id] = event.seq
        if event.type in EVENT_TYPES:
            game_events.append(event_from_json(event.data))
        elif event.type == "throw_undone":
            del game_events[_throw_index(game_events, event.data["throw"]) :]
        _note(runtime, event)
    if game_events:
        runtime.game = Game.replay(runtime.rules, runtime.names, game_events)
        runtime.last_throw = _last_thrown(game_events)
    runtime.state_json = state_text(runtime)
    return runtime


def _throw_index(events: list[Event], throw: int) -> int:
    """Where throw ``throw`` begins among a game's events (its ``thrown`` event)."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, Thrown) and event.throw == throw:
            return index
    raise ValueError(f"no throw {throw} among the game's events")


def _last_thrown(events: list[Event]) -> dict[str, Any] | None:
    """``last_throw`` of the state: the last ``thrown`` event of the game, if any."""
    for event in reversed(events):
        if isinstance(event, Thrown):
            return {
                "throw": event.throw,
                "player": event.player,
                "dice": event.dice,
                "hand": event.hand,
            }
    return None


def _note(runtime: Runtime, event: StoredEvent) -> None:
    """Track what the state shows beyond the engine's game."""
    data = event.data
    if event.type == "thrown":
        runtime.last_throw = {
            "throw": data.get("throw"),
            "player": data.get("player"),
            "dice": data.get("dice"),
            "hand": data.get("hand"),
        }
    elif event.type == "dice":
        runtime.throw_seqs[data["throw"]] = event.seq
        if data.get("nonce") is not None:
            runtime.fair_throws.append({"throw": data["throw"], "nonce": data["nonce"]})
    elif event.type == "throw_undone":
        undone = data["throw"]
        runtime.throw_seqs.pop(undone, None)
        runtime.fair_throws = [f for f in runtime.fair_throws if f["throw"] < undone]
        runtime.end_reason = None
    elif event.type == "seed_revealed":
        runtime.seed_revealed = True
    elif event.type == "start_dice":
        runtime.start_dice = {
            "thrower": data["thrower"],
            "dice": list(data["dice"]),
            "nonce": data.get("nonce"),
            "starter": data.get("starter"),
        }
    elif event.type == "ended":
        runtime.end_reason = data.get("reason")


# -- deciding commands ---------------------------------------------------------------------


def _need_host(roles: Roles, action: str) -> None:
    if not roles.host:
        raise ApiError("forbidden", f"only the host may {action}", action=action)


def _need_lobby(runtime: Runtime, action: str) -> None:
    if runtime.status != "lobby":
        raise ApiError(
            "not_in_lobby",
            f"{action} is only possible before the game starts",
            action=action,
            status=runtime.status,
        )


def _need_seated(runtime: Runtime, name: str) -> None:
    if name not in runtime.names:
        raise ApiError(
            "unknown_player",
            f"{name!r} is not seated at table {runtime.code}",
            name=name,
            code=runtime.code,
        )


def _ending(runtime: Runtime, reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "ended", "reason": reason},
        {
            "type": "seed_revealed",
            "server_seed": runtime.info.server_seed,
            "commitment": runtime.info.commitment,
        },
    ]


def plan_throw(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """A throw: server dice (online, pass-and-play) or given faces (referee)."""
    if runtime.status != "playing" or runtime.game is None:
        raise ApiError(
            "not_playing",
            {
                "lobby": "the game has not started",
                "paused": "the game is paused",
                "over": "the game is over",
            }.get(runtime.status, "the game is not running"),
            status=runtime.status,
        )
    game = runtime.game
    if game.phase is Phase.GRAB:
        raise ApiError(
            "illegal_action",
            "the lights are off: the host must settle the grab first",
            message="the lights are off: the host must settle the grab first",
        )
    expected = game.throw_count + 1
    turn = args.get("turn")
    if turn is not None and turn != expected:
        raise ApiError(
            "turn_taken",
            f"throw {turn} is not the next throw; the next is throw {expected}",
            turn=turn,
            expected=expected,
        )
    current = game.next_player
    if current is None:  # pragma: no cover - MAIN/FINAL always have a next player
        raise ApiError("not_playing", "nobody is to throw now", status=runtime.status)
    named = args.get("player")
    if named is not None and named != current:
        _need_seated(runtime, named)
        raise ApiError(
            "not_your_turn",
            f"it is {current}'s turn (throw {expected}), not {named}'s",
            next=current,
            player=named,
            turn=expected,
        )
    mode = runtime.info.mode
    own_turn = current in roles.players
    allowed = {
        "online": own_turn,
        "pass_and_play": roles.play or roles.host or own_turn,
        "referee": roles.host or (own_turn and bool(runtime.info.settings.get("referee_thrower"))),
    }[mode]
    if not allowed:
        if roles.players and (mode != "referee" or runtime.info.settings.get("referee_thrower")):
            raise ApiError(
                "not_your_turn",
                f"it is {current}'s turn (throw {expected}), not {roles.players[0]}'s",
                next=current,
                player=roles.players[0],
                turn=expected,
            )
        raise ApiError(
            "forbidden",
            f"this connection may not throw for {current} at a {mode} table",
            action="throw",
            mode=mode,
        )
    tiaohou = bool(args.get("tiaohou", False))
    faces: tuple[int, ...] | None
    if mode == "referee":
        if args.get("nonce") is not None:
            raise ApiError("wrong_mode", "a referee table throws real dice: send dice, not a nonce")
        if tiaohou:
            if args.get("dice") is not None:
                raise ApiError("invalid_field", "a 跳猴 has no dice", field="dice")
            faces = None
        else:
            if args.get("dice") is None:
                raise ApiError(
                    "invalid_field", "a referee throw needs dice (or tiaohou)", field="dice"
                )
            faces = parse_dice(args["dice"])
        fair = {
            "type": "dice",
            "throw": expected,
            "player": current,
            "nonce": None,
            "source": "referee",
        }
    else:
        if args.get("dice") is not None or tiaohou:
            raise ApiError(
                "wrong_mode",
                f"a {mode} table rolls its own dice; faces and 跳猴 are for referee tables",
                mode=mode,
            )
        nonce = args.get("nonce") or new_nonce()
        faces = derive_faces(runtime.info.server_seed, runtime.code, expected, nonce)
        fair = {
            "type": "dice",
            "throw": expected,
            "player": current,
            "nonce": nonce,
            "source": "server",
        }
    game.verify_throw(current, faces, tiaohou=tiaohou)
    new = game.throw(faces, player=current, tiaohou=tiaohou)
    if game.state.phase is Phase.GRAB and mode != "referee":
        new += game.grab(rng=grab_rng(runtime.info.server_seed, runtime.code))
    events = [fair, *(e.to_json() for e in new)]
    status = None
    if game.is_over:
        events += _ending(runtime, "game_over")
        status = "over"
    return Plan(events, status=status)


def plan_grab(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host settles a referee table's lights-off grab."""
    _need_host(roles, "settle the grab")
    if runtime.info.mode != "referee":
        raise ApiError("wrong_mode", "the server settles the grab itself at this table")
    game = runtime.game
    if game is None or game.phase is not Phase.GRAB:
        raise ApiError(
            "illegal_action",
            "there is no lights-off grab to settle",
            message="there is no lights-off grab to settle",
        )
    allocation = args.get("allocation")
    if (allocation is None) == (not args.get("random")):
        raise ApiError(
            "invalid_field", "send either an allocation or random: true", field="allocation"
        )
    if allocation is not None:
        new = game.grab(allocation)
    else:
        new = game.grab(rng=grab_rng(runtime.info.server_seed, runtime.code))
    return Plan([*(e.to_json() for e in new), *_ending(runtime, "game_over")], status="over")


def plan_reorder(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host changes the seat order (clockwise) before the start."""
    _need_host(roles, "reorder seats")
    _need_lobby(runtime, "reorder")
    order: list[str] = list(args["players"])
    for name in order:
        _need_seated(runtime, name)
    if sorted(order) != sorted(runtime.names):
        raise ApiError(
            "invalid_field",
            "players must list every seated name exactly once: " + ", ".join(runtime.names),
            field="players",
        )
    by_name = {s.name: s for s in runtime.seats}
    seats = [Seat(n, i, by_name[n].token_hash) for i, n in enumerate(order, start=1)]

    def commit(rt: Runtime) -> None:
        rt.seats = seats

    return Plan([{"type": "seats_reordered", "players": order}], seats=seats, commit=commit)


def plan_remove(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host removes a seated player before the start."""
    _need_host(roles, "remove a player")
    _need_lobby(runtime, "remove")
    name = args["player"]
    _need_seated(runtime, name)
    rest = [s for s in runtime.seats if s.name != name]
    seats = [Seat(s.name, i, s.token_hash) for i, s in enumerate(rest, start=1)]

    def commit(rt: Runtime) -> None:
        rt.seats = seats
        if rt.start_dice is not None and name in (
            rt.start_dice.get("thrower"),
            rt.start_dice.get("starter"),
        ):
            rt.start_dice = None

    return Plan([{"type": "player_removed", "name": name}], seats=seats, commit=commit)


def _need_players(runtime: Runtime) -> None:
    if len(runtime.seats) < MIN_PLAYERS:
        raise ApiError(
            "not_enough_players",
            f"a game needs at least {MIN_PLAYERS} players; {len(runtime.seats)} seated",
            count=len(runtime.seats),
            minimum=MIN_PLAYERS,
        )


def plan_start_dice(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The two start dice: rolled by the server (throw 0), or given at a referee table."""
    _need_host(roles, "throw the start dice")
    _need_lobby(runtime, "start_dice")
    _need_players(runtime)
    thrower = args.get("thrower") or runtime.names[0]
    _need_seated(runtime, thrower)
    nonce: str | None
    if runtime.info.mode == "referee" and args.get("dice") is not None:
        raw = args["dice"]
        faces = [int(c) for c in raw if c.isdigit()] if isinstance(raw, str) else list(raw)
        if len(faces) != 2 or not all(
            isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in faces
        ):
            raise ApiError(
                "invalid_dice", f"invalid start dice {raw!r}: two faces 1-6", value=str(raw)[:40]
            )
        dice = (faces[0], faces[1])
        nonce = None
    elif args.get("dice") is not None:
        raise ApiError("wrong_mode", "this table rolls its own start dice", mode=runtime.info.mode)
    else:
        nonce = args.get("nonce") or new_nonce()
        rolled = derive_faces(runtime.info.server_seed, runtime.code, START_THROW, nonce, 2)
        dice = (rolled[0], rolled[1])
    # The engine counts the seats: a throwaway game tells who would start.
    trial = Game(runtime.rules, runtime.names)
    starter = trial.start(thrower=thrower, dice=dice)[0].to_json()["starter"]
    return Plan(
        [
            {
                "type": "start_dice",
                "thrower": thrower,
                "dice": list(dice),
                "nonce": nonce,
                "starter": starter,
            }
        ]
    )


def plan_start(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host starts the game: a named starter, the start dice, or the first seat."""
    _need_host(roles, "start the game")
    _need_lobby(runtime, "start")
    _need_players(runtime)
    game = Game(runtime.rules, runtime.names)
    starter = args.get("starter")
    if starter is not None:
        _need_seated(runtime, starter)
        new = game.start(starter=starter)
    elif runtime.start_dice is not None:
        new = game.start(
            thrower=runtime.start_dice["thrower"], dice=tuple(runtime.start_dice["dice"])
        )
    else:
        new = game.start()

    def commit(rt: Runtime) -> None:
        rt.game = game

    return Plan([e.to_json() for e in new], status="playing", commit=commit)


def plan_pause(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host pauses play."""
    _need_host(roles, "pause")
    if runtime.status != "playing":
        raise ApiError(
            "not_playing", f"cannot pause a {runtime.status} table", status=runtime.status
        )
    return Plan([{"type": "paused"}], status="paused")


def plan_resume(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host resumes a paused game."""
    _need_host(roles, "resume")
    if runtime.status != "paused":
        raise ApiError(
            "not_playing", f"cannot resume a {runtime.status} table", status=runtime.status
        )
    return Plan([{"type": "resumed"}], status="playing")


def plan_end(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host ends the game now; the seed is revealed."""
    _need_host(roles, "end the game")
    if runtime.over:
        raise ApiError("not_playing", "the game is already over", status=runtime.status)
    return Plan(_ending(runtime, "host"), status="over")


def plan_undo(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host voids the last throw of a referee table (faces typed wrong).

    The log stays append-only: a ``throw_undone`` event names the throw, and the game becomes
    the fold of the events before it (everything the throw brought about is gone with it:
    cakes, standing, the final round, a grab, the end). A game that throw ended resumes; one
    the host ended does not.
    """
    _need_host(roles, "undo a throw")
    mode = runtime.info.mode
    if mode != "referee":
        raise ApiError(
            "wrong_mode",
            f"a {mode} table rolls its own dice: only a referee table can undo a throw",
            mode=mode,
        )
    game = runtime.game
    if game is None:
        raise ApiError("not_playing", "the game has not started", status=runtime.status)
    if runtime.over and runtime.end_reason != "game_over":
        raise ApiError(
            "not_playing", "the host ended the game; it cannot be resumed", status=runtime.status
        )
    last = game.throw_count
    if last == 0:
        raise ApiError("nothing_to_undo", "there is no throw to undo yet")
    wanted = args.get("throw")
    if wanted is not None and wanted != last:
        raise ApiError(
            "not_last_throw",
            f"throw {wanted} is not the last throw; the last is throw {last}",
            throw=wanted,
            last=last,
        )
    index = _throw_index(game.events, last)
    thrown = game.events[index]
    assert isinstance(thrown, Thrown)
    kept = game.events[:index]
    undone = {
        "type": "throw_undone",
        "throw": last,
        "player": thrown.player,
        "dice": thrown.dice,
        "hand": thrown.hand,
        "from_seq": runtime.throw_seqs[last],
    }

    def commit(rt: Runtime) -> None:
        rt.game = Game.replay(rt.rules, rt.names, kept)
        rt.last_throw = _last_thrown(kept)

    return Plan([undone], status="playing" if runtime.over else None, commit=commit)


_PLANS: dict[str, Callable[[Runtime, Roles, Mapping[str, Any]], Plan]] = {
    "throw": plan_throw,
    "grab": plan_grab,
    "reorder": plan_reorder,
    "remove": plan_remove,
    "start_dice": plan_start_dice,
    "start": plan_start,
    "pause": plan_pause,
    "resume": plan_resume,
    "end": plan_end,
    "undo": plan_undo,
}


# -- creation helpers ---------------------------------------------------------------------


def _rules(rules: Any, prizes: Any) -> RuleSet:
    try:
        if rules is None:
            base: Any = {"preset": "traditional"}
        elif isinstance(rules, str):
            base = {"preset": load_rules(rules).preset}
        elif isinstance(rules, Mapping):
            base = dict(rules)
        else:
            raise ApiError(
                "invalid_rules",
                f"rules must be a preset name or a rule object, not {type(rules).__name__}",
                message="rules must be a preset name or a rule object",
            )
        if prizes is not None:
            if not isinstance(prizes, Mapping):
                raise ApiError("invalid_field", "prizes must map tiers to counts", field="prizes")
            merged = dict(base.get("prizes") or {})
            merged.update(prizes)
            base["prizes"] = merged
        rule_set = rules_from_json(base)
    except BobingError as exc:
        raise from_bobing(exc) from None
    if rule_set.total_cakes == 0:
        raise ApiError(
            "invalid_rules",
            "the table plays for no cakes at all",
            message="the table plays for no cakes at all",
        )
    return rule_set


def _named_prizes(value: Any) -> dict[str, dict[str, Any]]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ApiError(
            "invalid_field", "named_prizes must map tiers to {name, value}", field="named_prizes"
        )
    tiers = {str(t) for t in TIERS}
    out: dict[str, dict[str, Any]] = {}
    for tier, prize in value.items():
        where = f"named_prizes.{str(tier)[:20]}"
        if tier not in tiers:
            raise ApiError(
                "invalid_field",
                f"unknown tier {str(tier)[:20]!r} in named_prizes; allowed: " + ", ".join(tiers),
                field=where,
            )
        if not isinstance(prize, Mapping) or set(prize) - {"name", "value"}:
            raise ApiError("invalid_field", f"{where} must be {{name, value}}", field=where)
        name = check_display_text(prize.get("name"), field_name=where, max_length=MAX_PRIZE_NAME)
        amount = prize.get("value", 0)
        if (
            isinstance(amount, bool)
            or not isinstance(amount, int | float)
            or not 0 <= amount <= MAX_PRIZE_VALUE
            or amount != amount
        ):
            raise ApiError(
                "invalid_field",
                f"{where}.value must be a number 0-{MAX_PRIZE_VALUE}",
                field=where + ".value",
            )
        out[str(tier)] = {"name": name, "value": amount}
    return out


# -- views ------------------------------------------------------------------------------


RESULT_KEYS = ("status", "ended_by", "next", "zhuangyuan", "holdings", "pool")


def game_result(game: Game) -> dict[str, Any]:
    """The state's ``result``: RULES.md §7 without its ``events`` list (``Game.result``)."""
    result = game.result(events=False)
    return {key: result[key] for key in RESULT_KEYS}


STATIC_KEYS = ("code", "name", "mode", "created_at", "referee_thrower", "rules", "named_prizes")
"""State keys that never change after creation (encoded once per runtime)."""


def static_state(runtime: Runtime) -> dict[str, Any]:
    """The part of the state fixed at creation."""
    settings = runtime.info.settings
    return {
        "code": runtime.code,
        "name": runtime.info.name,
        "mode": runtime.info.mode,
        "created_at": iso(runtime.info.created_at),
        "referee_thrower": bool(settings.get("referee_thrower")),
        "rules": runtime.info.rules,
        "named_prizes": settings.get("named_prizes") or {},
    }


def dynamic_state(runtime: Runtime) -> dict[str, Any]:
    """The part of the state that moves with the log."""
    game = runtime.game
    playing = runtime.status == "playing"
    return {
        "status": runtime.status,
        "end_reason": runtime.end_reason,
        "players": [{"seat": s.seat, "name": s.name} for s in runtime.seats],
        "start_dice": None
        if runtime.start_dice is None
        else {
            "thrower": runtime.start_dice["thrower"],
            "dice": runtime.start_dice["dice"],
            "starter": runtime.start_dice.get("starter"),
        },
        "phase": str(game.phase) if game is not None else str(Phase.NOT_STARTED),
        "next": game.next_player if game is not None and playing else None,
        "turn": game.throw_count + 1 if game is not None and not game.is_over else None,
        "throw_count": game.throw_count if game is not None else 0,
        "last_throw": runtime.last_throw,
        "skipping": skipping(game),
        "final_round": final_round(game),
        "result": None if game is None else game_result(game),
        "last_seq": runtime.last_seq,
        "fairness": {
            "commitment": runtime.info.commitment,
            "server_seed": _revealed_seed(runtime),
        },
    }


def _revealed_seed(runtime: Runtime) -> str | None:
    # Once revealed it stays public, even if an undo resumes the game (referee tables only,
    # whose throws are real dice: nothing left to predict but a random grab).
    return runtime.info.server_seed if runtime.over or runtime.seed_revealed else None


def skipping(game: Game | None) -> list[str]:
    """Who will lose their next turn to a 跳猴 (seat order)."""
    if game is None or game.phase not in (Phase.MAIN, Phase.FINAL):
        return []
    state = game.state
    return [name for name, flag in zip(state.players, state.skip, strict=True) if flag]


def final_round(game: Game | None) -> dict[str, Any] | None:
    """The last round, once it has begun: up to which turn, who throws last, how many throws.

    ``until_turn`` is the engine's turn index (the ``final`` event's); ``last_thrower`` and
    ``throws_left`` (this one included) count the turns to come, skipping the players who are
    to lose a turn — a 跳猴 during the last round may still change them.
    """
    if game is None or game.phase is not Phase.FINAL:
        return None
    state = game.state
    until = state.final_until
    if until is None:  # pragma: no cover - the final phase always has its last turn
        return None
    skip = list(state.skip)
    last: str | None = None
    left = 0
    for turn in range(state.turn, until + 1):
        seat = state.seat_at(turn)
        if skip[seat]:
            skip[seat] = False
            continue
        last = state.players[seat]
        left += 1
    return {"until_turn": until, "last_thrower": last, "throws_left": left}


def build_state(runtime: Runtime) -> dict[str, Any]:
    """The table state JSON of docs/protocol.md."""
    return {**static_state(runtime), **dynamic_state(runtime)}


def state_text(runtime: Runtime) -> str:
    """:func:`build_state` as JSON text, re-encoding only what changes."""
    if runtime.static_json is None:
        runtime.static_json = dumps(static_state(runtime))[:-1]  # without the closing brace
    return runtime.static_json + "," + dumps(dynamic_state(runtime))[1:]


def record_of(runtime: Runtime) -> dict[str, Any]:
    """RULES.md §6 record plus ``table`` and ``fairness`` (the seed only once over)."""
    fairness = {
        "commitment": runtime.info.commitment,
        "server_seed": _revealed_seed(runtime),
        "table_id": runtime.code,
        "start": None
        if runtime.start_dice is None or runtime.start_dice.get("nonce") is None
        else {
            "thrower": runtime.start_dice["thrower"],
            "dice": runtime.start_dice["dice"],
            "nonce": runtime.start_dice["nonce"],
        },
        "throws": list(runtime.fair_throws),
    }
    table = {"code": runtime.code, "name": runtime.info.name, "mode": runtime.info.mode}
    if runtime.game is not None:
        return runtime.game.to_record(table=table, fairness=fairness)
    rules = runtime.rules.overrides()
    return {
        "rules": runtime.rules.preset if len(rules) == 1 else rules,
        "players": runtime.names,
        "throws": [],
        "table": table,
        "fairness": fairness,
    }


CSV_COLUMNS = ["seat", "player", *(str(t) for t in TIERS), "cakes", "value", "zhuangyuan_hand"]


def results_csv(runtime: Runtime) -> str:
    """One row per seat: cakes per tier, total, value of named prizes, the 状元 hand."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    named = runtime.info.settings.get("named_prizes") or {}
    result = game_result(runtime.game) if runtime.game is not None else None
    winner = (result or {}).get("zhuangyuan") or {}
    over = result is not None and result["status"] == "over"
    for seat in runtime.seats:
        holdings = (result or {}).get("holdings", {}).get(seat.name, {})
        counts = [int(holdings.get(str(t), 0)) for t in TIERS]
        value = sum(counts[i] * named.get(str(t), {}).get("value", 0) for i, t in enumerate(TIERS))
        hand = winner.get("hand") if over and winner.get("player") == seat.name else None
        writer.writerow([seat.seat, _csv_safe(seat.name), *counts, sum(counts), value, hand or ""])
    return "\ufeff" + buffer.getvalue()


def _csv_safe(text: str) -> str:
    # Spreadsheet formula injection: a leading = + - @ would be evaluated.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
