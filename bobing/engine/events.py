"""Game events: frozen facts. A game's state is the fold of its events (see :mod:`game`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from bobing.engine.errors import RecordError

EVENT_VERSION = 1
"""Bumped when the JSON form of an event changes incompatibly."""


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``type`` is its snake_case JSON name."""

    type: ClassVar[str] = "event"

    def to_json(self) -> dict[str, Any]:
        """The event as a JSON object with its ``type`` first."""
        return event_to_json(self)


@dataclass(frozen=True, slots=True)
class Started(Event):
    """The starter is decided, directly or by the two-dice start."""

    type: ClassVar[str] = "started"
    starter: str
    thrower: str | None = None
    dice: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class Thrown(Event):
    """A throw: six faces (and the hand they make), or a 跳猴 (``dice`` None)."""

    type: ClassVar[str] = "thrown"
    throw: int
    player: str
    dice: str | None
    hand: str | None


@dataclass(frozen=True, slots=True)
class Skipped(Event):
    """A player lost this turn to an earlier 跳猴; it still counts as their turn."""

    type: ClassVar[str] = "skipped"
    player: str
    turn: int


@dataclass(frozen=True, slots=True)
class Awarded(Event):
    """``count`` cakes of ``tier`` go to ``player``, from the pool or from player ``source``.

    ``reason``: ``hand`` (the throw's tier; a 六勃黑 under ``take_one``: its prize), ``bonus``
    (四进's 一秀/二举, 五子带一秀), ``chajinhua`` (its 对堂 cakes, never chased; under ``at_end``
    awarded after the 状元 cake), ``chase`` (追), ``sweep`` (六勃红/遍地锦, a friendly 六勃红's
    对堂), ``grab`` (lights off).
    """

    type: ClassVar[str] = "awarded"
    throw: int | None
    player: str
    tier: str
    count: int
    source: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class StandingSet(Event):
    """A 状元 hand becomes the thrower's standing (replacing the older one: 禄骨)."""

    type: ClassVar[str] = "standing"
    throw: int
    player: str
    hand: str
    dice: str


@dataclass(frozen=True, slots=True)
class SkipNext(Event):
    """After a 跳猴 the thrower will lose their next turn."""

    type: ClassVar[str] = "skip_next"
    throw: int
    player: str


@dataclass(frozen=True, slots=True)
class FinalStarted(Event):
    """Every non-状元 cake is claimed and a 状元 stands: play ends after turn ``until_turn``."""

    type: ClassVar[str] = "final"
    throw: int
    until_turn: int


@dataclass(frozen=True, slots=True)
class GrabOpened(Event):
    """六勃黑 under ``grab_end``: lights off, the remaining cakes are grabbed."""

    type: ClassVar[str] = "grab_open"
    throw: int


@dataclass(frozen=True, slots=True)
class Closed(Event):
    """Time was called (RULES.md §8.1) after ``throw`` throws (None: before any throw).

    Play ends after turn ``until_turn``: the end of the current round, or at once (the turn
    just played) under ``end`` = ``immediate`` or when nobody has thrown in this round yet.
    """

    type: ClassVar[str] = "close"
    throw: int | None
    until_turn: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    """The game is over; ``ended_by``: exhausted, liubohong, liubohei, biandijin, closed, rounds."""

    type: ClassVar[str] = "game_over"
    throw: int | None
    ended_by: str


@dataclass(frozen=True, slots=True)
class ZhuangyuanWon(Event):
    """The 状元 cake goes to ``player``: by their hand thrown at ``throw``, or grabbed."""

    type: ClassVar[str] = "zhuangyuan"
    player: str
    hand: str | None
    dice: str | None
    throw: int | None


@dataclass(frozen=True, slots=True)
class SetStarted(Event):
    """一二会 (RULES.md §10.2): the set before is over and set ``number`` begins at once with a
    full pool, ``starter`` (the player after the one who threw last) first; ``throw``: the
    throws so far (they go on counting through every set)."""

    type: ClassVar[str] = "next_set"
    number: int
    starter: str
    throw: int | None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        Started,
        Thrown,
        Skipped,
        Awarded,
        StandingSet,
        SkipNext,
        FinalStarted,
        GrabOpened,
        Closed,
        GameOver,
        ZhuangyuanWon,
        SetStarted,
    )
}

# JSON uses "from" where Python cannot.
_JSON_NAME = {"source": "from"}
_PY_NAME = {v: k for k, v in _JSON_NAME.items()}


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as JSON: ``{"type": ..., fields...}`` (tuples become lists).

    >>> event_to_json(Awarded(3, "甲", "yixiu", 1, None, "hand"))["from"] is None
    True
    """
    out: dict[str, Any] = {"type": event.type}
    for name, key in _json_names(type(event)):
        value = getattr(event, name)
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


_NAMES: dict[type[Any], tuple[tuple[str, str], ...]] = {}


def _json_names(kind: type[Any]) -> tuple[tuple[str, str], ...]:
    """An event class's fields and their JSON names (looked up once per class: a table server
    turns every event into JSON)."""
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple((f.name, _JSON_NAME.get(f.name, f.name)) for f in fields(kind))
    return names


def event_from_json(data: dict[str, Any]) -> Event:
    """The event back from :func:`event_to_json`, raising :class:`RecordError` when malformed."""
    if not isinstance(data, dict):
        raise RecordError(f"event must be an object, not {data!r}")
    kind = data.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise RecordError(f"unknown event type {kind!r}", key="type")
    kwargs: dict[str, Any] = {}
    json_names = {_JSON_NAME.get(f.name, f.name) for f in fields(cls)}
    for key, value in data.items():
        if key == "type":
            continue
        if key not in json_names:
            raise RecordError(f"unknown key {key!r} in {kind} event", key=key)
        kwargs[_PY_NAME.get(key, key)] = tuple(value) if isinstance(value, list) else value
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise RecordError(f"malformed {kind} event: {exc}") from None


def events_to_json(events: Iterable[Event]) -> dict[str, Any]:
    """A stored log: ``{"event_version": EVENT_VERSION, "events": [...]}``.

    >>> events_to_json([Started("甲")])["event_version"] == EVENT_VERSION
    True
    """
    return {"event_version": EVENT_VERSION, "events": [event_to_json(e) for e in events]}


def events_from_json(data: Any) -> list[Event]:
    """The events of :func:`events_to_json`, refusing a log written by a newer version."""
    if not isinstance(data, dict) or not isinstance(data.get("events"), list):
        raise RecordError('an event log is {"event_version": N, "events": [...]}', key="events")
    version = data.get("event_version")
    if type(version) is not int or not 1 <= version <= EVENT_VERSION:
        raise RecordError(
            f"unsupported event_version {version!r}; this bobing reads 1 to {EVENT_VERSION}",
            key="event_version",
        )
    return [event_from_json(item) for item in data["events"]]
