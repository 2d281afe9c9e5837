"""A table in memory: who may act (:class:`Roles`) and the fold of its log (:class:`Runtime`)."""

from __future__ import annotations

import asyncio
import hmac
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from bobing.engine.events import EVENT_TYPES, Event, Thrown, event_from_json
from bobing.engine.game import Game, Phase
from bobing.engine.rules import RuleSet
from bobing.organizer.text import name_key
from bobing.storage.event_store import (
    CommandRecord,
    EncodedFold,
    FoldSnapshot,
    Seat,
    StoredEvent,
    TableInfo,
    iso,
)
from bobing.tables.frames import THROWN_FIELDS
from bobing.tables.protocol import dumps

RECENT_COMMANDS = 1024
"""Command ids a runtime remembers (older ones are found in the log: the unique index)."""

SNAPSHOT_VERSION = 3


@dataclass(slots=True)
class Roles:
    """What a set of tokens allows at one table."""

    host: bool = False
    play: bool = False
    players: tuple[str, ...] = ()
    handed: tuple[str, ...] = ()
    """Seats whose hand-off link these tokens hold: not a player token yet (only
    ``claim_seat`` trades it for one)."""

    def names(self) -> list[str]:
        """Role names for the welcome frame."""
        out = ["host"] if self.host else []
        if self.play:
            out.append("play")
        if self.players:
            out.append("player")
        if self.handed:
            out.append("seat")
        return out

    @property
    def anyone(self) -> bool:
        """Whether any token matched."""
        return self.host or self.play or bool(self.players) or bool(self.handed)


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
    start_thrower: str | None = None
    """Who throws the start dice, as the event names them for this table (RULES.md §10.1):
    a ``start_dice`` that names no thrower uses them; None at a table of no event."""
    fair_throws: list[dict[str, Any]] = field(default_factory=list)
    disputes: list[dict[str, Any]] = field(default_factory=list)
    """Throws a thrower's device says were not rolled with the nonce it sent (``dispute``)."""
    last_throw: dict[str, Any] | None = None
    end_reason: str | None = None
    seed_revealed: bool = False
    throw_seqs: dict[int, int] = field(default_factory=dict)
    """The seq of each surviving throw's first event (its ``dice``), by throw number."""
    photos: dict[int, int] = field(default_factory=dict)
    """The surviving throws a photo was kept for (``keep_photos``): throw number → the seq of
    its ``dice`` event, where the photo is linked (``GET /api/tables/{code}/photos/{seq}``)."""
    throw_at: dict[int, str] = field(default_factory=dict)
    """When each surviving throw's dice came in, by the server's clock (ISO), by throw number:
    an event-wide ranking orders equal throws of different tables by it (RULES.md §10.2)."""
    commands: dict[str, CommandRecord] = field(default_factory=dict)
    """The most recent command ids (at most :data:`RECENT_COMMANDS`), oldest first."""
    forgot_commands: bool = False
    """Whether older command ids than those in :attr:`commands` exist (look in the log)."""
    locked: bool = False
    """The host locked the lobby: nobody may join."""
    removed: dict[str, float] = field(default_factory=dict)
    """Names the host removed (by :func:`name_key`) and when (POSIX seconds)."""
    snapshot_seq: int = 0
    """The seq of the latest snapshot of this fold stored (or being stored)."""
    auto_throw: int | None = None
    """Seconds a player may let pass before the server throws for them (online tables)."""
    turn_since: datetime | None = None
    """When the last event that is not a reaction was committed: the turn clock starts here,
    so the auto-throw deadline is derived from the log and survives a restart."""
    rematch_code: str | None = None
    """The table of the rematch, once the host started one."""
    reactions: int = 0
    """Reactions in the log: they never count against the game's log limit (``max_events``)."""
    handed: set[str] = field(default_factory=set)
    """Seats handed to another phone and not claimed yet: their token is a hand-off link."""
    reacted: dict[str, float] = field(default_factory=dict)
    """Monotonic time of each sender's last reaction (the rate limit; not stored)."""
    deadline: datetime | None = None
    """When the running clock of a table with a time limit calls time (None when paused,
    called, or without a limit; kept once over, for a referee's undo that resumes the game)."""
    time_left: float | None = None
    """Seconds left on the clock while the game is paused."""
    minute_seconds: float = 60.0
    """Seconds one minute of the time limit lasts (the server's ``time_limit_minute``; not
    stored: the deadline in the log is what counts)."""
    closing: dict[str, Any] | None = None
    """Time called (by the host or the clock): ``{"by", "at", "seq"}``; the game ends at the
    end of the round (RULES.md §8.1)."""
    static_json: str | None = None
    """The state's fixed half as JSON text, without its closing brace (encoded once)."""
    dynamic: dict[str, Any] | None = None
    """The state's moving half after the last committed event (``tables.state``)."""
    patch: tuple[int, str] | None = None
    """The last commit's change of the state: the seq it applies after, and the patch as JSON
    text (``tables.frames``); None when the runtime was loaded rather than changed."""
    state_parts: dict[str, Any] = field(default_factory=dict)
    """What pieces of :attr:`dynamic` were built from, to reuse those that did not change (the
    patch passes over the same object at a glance: ``tables.state``)."""
    state_cache: str | None = None
    """The whole state as JSON text, once asked for since the last commit (a join, a resync,
    ``GET``): live frames carry only the patch."""
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    evicted: bool = False
    seat_tokens: tuple[list[Seat], dict[str, str]] | None = None
    """The seats' token hashes → names, with the seat list they were read from (the runtime
    replaces its seats, never changes them in place; a list that changed length is read
    again all the same): :meth:`roles` looks a hash up instead of comparing it with every
    seat's."""

    def remember_command(self, command_id: str, record: CommandRecord) -> None:
        """Note a command id (forgetting the oldest beyond :data:`RECENT_COMMANDS`)."""
        self.commands[command_id] = record
        while len(self.commands) > RECENT_COMMANDS:
            del self.commands[next(iter(self.commands))]
            self.forgot_commands = True

    @property
    def code(self) -> str:
        """The table code."""
        return self.info.code

    @property
    def names(self) -> list[str]:
        """Seated names in clockwise order."""
        return [s.name for s in self.seats]

    @property
    def time_limit(self) -> int | None:
        """The table's time limit in minutes, if it has one."""
        limit = self.info.settings.get("time_limit")
        return limit if isinstance(limit, int) else None

    @property
    def over(self) -> bool:
        """Whether the game (or the table) has ended."""
        return self.status == "over"

    def roles(self, token_hashes: Iterable[str]) -> Roles:
        """The roles the given token hashes carry here."""
        roles = Roles()
        players: list[str] = []
        handed: list[str] = []
        for digest in token_hashes:
            if hmac.compare_digest(digest, self.info.host_token_hash):
                roles.host = True
            if self.info.play_token_hash is not None and hmac.compare_digest(
                digest, self.info.play_token_hash
            ):
                roles.play = True
            name = self._seat_tokens().get(digest)
            if name is not None:
                (handed if name in self.handed else players).append(name)
        roles.players = tuple(players)
        roles.handed = tuple(handed)
        return roles

    def _seat_tokens(self) -> dict[str, str]:
        # A token hash is SHA-256 of a secret token: looking it up in a dict tells a timing
        # attacker nothing of any token (the host's and the play hashes, one each, are still
        # compared in constant time).
        index = self.seat_tokens
        if index is None or index[0] is not self.seats or len(index[1]) != len(self.seats):
            index = self.seat_tokens = (self.seats, {s.token_hash: s.name for s in self.seats})
        return index[1]

    def knows(self, token_hash: str) -> bool:
        """Whether a token hash belongs to anything at this table."""
        return self.roles([token_hash]).anyone


def auto_throw_deadline(runtime: Runtime) -> datetime | None:
    """When the server throws for the player whose turn it is: the time of the last event
    (reactions aside) plus the table's auto-throw seconds; None when it does not. The one
    formula: the service arms its timer with it, the state shows it."""
    game = runtime.game
    if (
        not runtime.auto_throw
        or runtime.status != "playing"
        or runtime.info.mode != "online"
        or game is None
        or game.phase not in (Phase.MAIN, Phase.FINAL)
        or runtime.turn_since is None
    ):
        return None
    return runtime.turn_since + timedelta(seconds=runtime.auto_throw)


def throw_index(events: list[Event], throw: int) -> int:
    """Where throw ``throw`` begins among a game's events (its ``thrown`` event)."""
    for index in range(len(events) - 1, -1, -1):
        event = events[index]
        if isinstance(event, Thrown) and event.throw == throw:
            return index
    raise ValueError(f"no throw {throw} among the game's events")


def last_thrown(events: list[Event]) -> dict[str, Any] | None:
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


def note_event(runtime: Runtime, event: StoredEvent) -> None:
    """Track what the state shows beyond the engine's game."""
    data = event.data
    kind = event.type
    if kind != "reaction":
        runtime.turn_since = event.at
    else:
        runtime.reactions += 1
    if kind in NOTED:  # most of a throw's events (awarded, standing…) are the game's alone
        if kind == "thrown":
            runtime.last_throw = {key: data.get(key) for key in THROWN_FIELDS}
        elif kind == "dice":
            runtime.throw_seqs[data["throw"]] = event.seq
            if data.get("photo"):
                runtime.photos[data["throw"]] = event.seq
            runtime.throw_at[data["throw"]] = iso(event.at)
            if data.get("nonce") is not None:
                runtime.fair_throws.append({"throw": data["throw"], "nonce": data["nonce"]})
        elif kind == "deadline_set":
            runtime.deadline = datetime.fromisoformat(data["deadline"])
            runtime.time_left = None
        elif kind == "paused":
            if runtime.deadline is not None:
                runtime.time_left = data.get("time_left")
                runtime.deadline = None
        elif kind == "time_called":
            runtime.closing = {
                "by": data["by"],
                "at": iso(event.at),
                "throw": data.get("throw"),
                "seq": event.seq,
            }
            runtime.deadline = None
            runtime.time_left = None
        elif kind == "throw_undone":
            undone = data["throw"]
            runtime.throw_seqs.pop(undone, None)
            runtime.photos.pop(undone, None)
            runtime.throw_at.pop(undone, None)
            runtime.fair_throws = [f for f in runtime.fair_throws if f["throw"] < undone]
            runtime.end_reason = None
        elif kind == "nonce_disputed":
            runtime.disputes.append(
                {key: data.get(key) for key in ("throw", "player", "sent", "nonce")}
            )
        elif kind == "seed_revealed":
            runtime.seed_revealed = True
        elif kind == "start_dice":
            runtime.start_dice = {
                "thrower": data["thrower"],
                "dice": list(data["dice"]),
                "nonce": data.get("nonce"),
                "starter": data.get("starter"),
            }
        elif kind == "start_thrower_named":
            runtime.start_thrower = data.get("name")
        elif kind == "ended":
            runtime.end_reason = data.get("reason")
        elif kind == "lobby_locked":
            runtime.locked = bool(data.get("locked"))
        elif kind == "player_removed":
            name = data.get("name")
            runtime.removed[name_key(str(name or ""))] = event.at.timestamp()
            if runtime.start_thrower == name:
                runtime.start_thrower = None
            # Start dice thrown by or pointing at the removed player no longer decide the start.
            if runtime.start_dice is not None and name in (
                runtime.start_dice.get("thrower"),
                runtime.start_dice.get("starter"),
            ):
                runtime.start_dice = None
        elif kind == "auto_throw_set":
            runtime.auto_throw = data.get("seconds") or None
        elif kind == "rematch":
            runtime.rematch_code = data.get("code")
        elif kind == "seat_handed":
            runtime.handed.add(data["player"])
        elif kind in ("seat_claimed", "player_removed"):
            runtime.handed.discard(data.get("player") or data.get("name") or "")
    if event.command_id is not None:
        runtime.remember_command(
            event.command_id, CommandRecord(event.seq, event.sender, event.digest)
        )


NOTED = frozenset(
    {
        "thrown",
        "dice",
        "deadline_set",
        "paused",
        "time_called",
        "throw_undone",
        "nonce_disputed",
        "seed_revealed",
        "start_dice",
        "start_thrower_named",
        "ended",
        "lobby_locked",
        "player_removed",
        "auto_throw_set",
        "rematch",
        "seat_handed",
        "seat_claimed",
    }
)
"""The events :func:`note_event` has more to note of than the turn clock and the command."""


CATCH_UP_TYPES = frozenset(
    {
        "dice",
        "thrown",
        "skipped",
        "awarded",
        "standing",
        "skip_next",
        "final",
        "grab_open",
        "zhuangyuan",
        "next_set",
        "reaction",
        "nonce_disputed",
    }
)
"""Events a cached runtime can apply itself when another instance committed them: a throw's
and a reaction's. Every other kind comes with what only the table's row holds (seats, status,
settings) or rewinds the game, so a runtime behind such an event is reloaded instead."""


def catch_up(runtime: Runtime, events: list[StoredEvent]) -> bool:
    """Apply ``events``, the log right after ``runtime.last_seq`` (committed by another
    instance), as a load of the whole log would; False, with ``runtime`` untouched, when one
    of them is not in :data:`CATCH_UP_TYPES` (reload the table). The caller holds the lock
    and refreshes the state (``tables.state.refresh_state``)."""
    if not events or any(
        event.seq != runtime.last_seq + i or event.type not in CATCH_UP_TYPES
        for i, event in enumerate(events, start=1)
    ):
        return False
    moves = [event_from_json(e.data) for e in events if e.type in EVENT_TYPES]
    if moves:
        if runtime.game is None:
            return False
        runtime.game = runtime.game.extended(moves)
    for event in events:
        note_event(runtime, event)
    runtime.last_seq = events[-1].seq
    return True


def encoded_fold(runtime: Runtime) -> EncodedFold:
    """The fold as of ``runtime.last_seq``, for :meth:`EventStore.save_snapshot`: its JSON
    text, encoded at once (the store writes it as it is).

    Seats, status and settings are not in it: the table's row always holds their latest
    values. The game is kept as its engine events (replayed on load, nothing re-decided).
    Being text, the snapshot shares nothing with the runtime (it is written in the
    background while the next commands change the runtime's lists and dicts: a shared
    ``fair_throws`` once listed a later throw twice, and ``bobing verify`` failed).
    """
    data: dict[str, Any] = {
        "version": SNAPSHOT_VERSION,
        "game_events": [] if runtime.game is None else [e.to_json() for e in runtime.game.events],
        "start_dice": runtime.start_dice,
        "start_thrower": runtime.start_thrower,
        "fair_throws": runtime.fair_throws,
        "last_throw": runtime.last_throw,
        "end_reason": runtime.end_reason,
        "seed_revealed": runtime.seed_revealed,
        "throw_seqs": [[t, s] for t, s in runtime.throw_seqs.items()],
        "photos": [[t, s] for t, s in runtime.photos.items()],
        "throw_at": [[t, a] for t, a in runtime.throw_at.items()],
        "commands": [[c, r.seq, r.sender, r.digest] for c, r in runtime.commands.items()],
        "forgot_commands": runtime.forgot_commands,
        "locked": runtime.locked,
        "removed": runtime.removed,
        "auto_throw": runtime.auto_throw,
        "turn_since": None if runtime.turn_since is None else runtime.turn_since.isoformat(),
        "rematch_code": runtime.rematch_code,
        "deadline": None if runtime.deadline is None else runtime.deadline.isoformat(),
        "time_left": runtime.time_left,
        "closing": runtime.closing,
        "handed": sorted(runtime.handed),
        "reactions": runtime.reactions,
    }
    return EncodedFold(runtime.last_seq, dumps(data))


def snapshot_of(runtime: Runtime) -> FoldSnapshot:
    """:func:`encoded_fold` as the store loads it back (:func:`restore` takes it)."""
    fold = encoded_fold(runtime)
    return FoldSnapshot(fold.seq, json.loads(fold.text))


def restore(runtime: Runtime, snapshot: FoldSnapshot) -> list[Event]:
    """Put a snapshot's bookkeeping into a fresh runtime; returns the game's events so far."""
    data = snapshot.data
    if data.get("version") != SNAPSHOT_VERSION:
        raise ValueError(f"unknown snapshot version {data.get('version')!r}")
    runtime.start_dice = data["start_dice"]
    runtime.start_thrower = data.get("start_thrower")  # absent from older snapshots
    runtime.fair_throws = list(data["fair_throws"])
    runtime.last_throw = data["last_throw"]
    runtime.end_reason = data["end_reason"]
    runtime.seed_revealed = bool(data["seed_revealed"])
    runtime.throw_seqs = {int(t): int(s) for t, s in data["throw_seqs"]}
    runtime.photos = {int(t): int(s) for t, s in data.get("photos", ())}  # older: none kept
    runtime.throw_at = {int(t): str(a) for t, a in data.get("throw_at", [])}  # newer snapshots
    for command_id, seq, sender, digest in data["commands"]:
        runtime.remember_command(command_id, CommandRecord(int(seq), sender, digest))
    runtime.forgot_commands = runtime.forgot_commands or bool(data["forgot_commands"])
    runtime.locked = bool(data["locked"])
    runtime.removed = {str(k): float(v) for k, v in data["removed"].items()}
    runtime.auto_throw = data["auto_throw"]
    runtime.turn_since = _moment(data["turn_since"])
    runtime.rematch_code = data["rematch_code"]
    runtime.deadline = _moment(data["deadline"])
    runtime.time_left = data["time_left"]
    runtime.closing = data["closing"]
    runtime.handed = set(data["handed"])
    runtime.reactions = int(data["reactions"])
    runtime.snapshot_seq = snapshot.seq
    return [event_from_json(e) for e in data["game_events"]]


def _moment(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def who_may_throw(runtime: Runtime) -> dict[str, Any] | None:
    """Who may send the next throw: a connection holding one of ``roles``, or seated as
    ``player``; None when no throw can be made now. (The host's stand-in and the server's
    auto-throw come on top.) The state carries it, so a phone need not restate the rule.
    """
    game = runtime.game
    if runtime.status != "playing" or game is None or game.phase is Phase.GRAB:
        return None
    player = game.next_player
    if player is None:
        return None
    mode = runtime.info.mode
    if mode == "online":
        return {"roles": [], "player": player}
    if mode == "pass_and_play":
        return {"roles": ["host", "play"], "player": player}
    referee_thrower = bool(runtime.info.settings.get("referee_thrower"))
    return {"roles": ["host"], "player": player if referee_thrower else None}


def may_throw(runtime: Runtime, roles: Roles) -> bool:
    """Whether a connection with ``roles`` may send the next throw (:func:`who_may_throw`)."""
    allowed = who_may_throw(runtime)
    if allowed is None:
        return False
    if any(role in allowed["roles"] for role in roles.names()):
        return True
    return allowed["player"] is not None and allowed["player"] in roles.players
