"""A table in memory: who may act (:class:`Roles`) and the fold of its log (:class:`Runtime`)."""

from __future__ import annotations

import asyncio
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bobing.engine.events import Event, Thrown
from bobing.engine.game import Game
from bobing.engine.rules import RuleSet
from bobing.storage.event_store import (
    Seat,
    StoredEvent,
    TableInfo,
    iso,
)
from bobing.web.protocol import dumps


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
    auto_throw: int | None = None
    """Seconds a player may let pass before the server throws for them (online tables)."""
    turn_since: datetime | None = None
    """When the last event that is not a reaction was committed: the turn clock starts here,
    so the auto-throw deadline is derived from the log and survives a restart."""
    rematch_code: str | None = None
    """The table of the rematch, once the host started one."""
    reacted: dict[str, float] = field(default_factory=dict)
    """Monotonic time of each sender's last reaction (the rate limit; not stored)."""
    deadline: datetime | None = None
    """When the running clock of a table with a time limit calls time (None when paused,
    called, or without a limit; kept once over, for a referee's undo that resumes the game)."""
    time_left: float | None = None
    """Seconds left on the clock while the game is paused."""
    closing: dict[str, Any] | None = None
    """Time called (by the host or the clock): ``{"by", "at", "seq"}``; the game ends at the
    end of the round (RULES.md §8.1)."""
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
    if event.type != "reaction":
        runtime.turn_since = event.at
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
    elif event.type == "deadline_set":
        runtime.deadline = datetime.fromisoformat(data["deadline"])
        runtime.time_left = None
    elif event.type == "paused":
        if runtime.deadline is not None:
            runtime.time_left = data.get("time_left")
            runtime.deadline = None
    elif event.type == "time_called":
        runtime.closing = {
            "by": data["by"],
            "at": iso(event.at),
            "throw": data.get("throw"),
            "seq": event.seq,
        }
        runtime.deadline = None
        runtime.time_left = None
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
    elif event.type == "auto_throw_set":
        runtime.auto_throw = data.get("seconds") or None
    elif event.type == "rematch":
        runtime.rematch_code = data.get("code")


def events_frame(events: Iterable[StoredEvent], state_json: str | None) -> str:
    """The ``events`` frame as text; the state is spliced in as already-encoded JSON."""
    head = '{"type":"events","events":' + dumps([e.to_json() for e in events])
    return head + ("}" if state_json is None else ',"state":' + state_json + "}")
