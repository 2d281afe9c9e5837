"""Judging game records (RULES.md §6-§8): play one, re-judge it under other rules, adjudicate.

The record format itself (reading, validation of entries, writing) is
:mod:`bobing.engine.record_format`; its public names are importable from here too.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from bobing.engine.errors import InputError, RecordError
from bobing.engine.events import Closed, Thrown
from bobing.engine.game import Game
from bobing.engine.record_format import (
    RECORD_KEYS,
    dumps_record,
    is_close,
    load_record,
    parse_record,
    record_rules,
    seed_of,
    start_args,
    write_record,
)
from bobing.engine.rules import load_rules
from bobing.engine.switches import RuleSet


class Judgement(NamedTuple):
    """A judged record: the game, whether it was re-judged under other rules, unused throws."""

    game: Game
    rejudged: bool
    unused_throws: int


def play_record(record: Mapping[str, Any], rules: RuleSet | None = None) -> Game:
    """Play a record's throws through the engine, validating each (see :func:`judge_record`).

    ``rules`` re-judges the same throws under other rules ("what if we had played 追?").
    """
    return judge_record(record, rules).game


def judge_record(record: Mapping[str, Any], rules: RuleSet | None = None) -> Judgement:
    """Judge a record, optionally under other ``rules``.

    The record is always checked under its own rules first, so a bad record is an error
    whatever ``rules`` say. A record without ``"rules"`` is simply played under ``rules``.
    Re-judging keeps what each person threw: every player's throws, in their order, are
    replayed whenever it is that player's turn under the new rules (direction, start and
    跳猴 switches may change who throws when). Play stops when the game is over (the rest of
    the throws are unused) or when the player to throw has no throw left. A lights-off grab
    uses the record's ``grab`` if it fits, else the record's seed.
    """
    if not isinstance(record, Mapping):
        raise RecordError(
            "a record is a JSON object", code="record_not_mapping", type=type(record).__name__
        )
    own = rules if rules is not None and "rules" not in record else record_rules(record)
    game = Game.from_record(record, own)
    if rules is None or rules == own:
        return Judgement(game, False, 0)
    return _rejudge(record, game, rules)


def record_of(game: Game, *, seed: int | None = None, **extra: Any) -> dict[str, Any]:
    """Write ``game`` as a RULES.md §6 record (the same as :meth:`Game.to_record`)."""
    return write_record(game.rules, game.players, game.events, seed=seed, **extra)


def _rejudge(record: Mapping[str, Any], judged: Game, rules: RuleSet) -> Judgement:
    queues: dict[str, deque[tuple[int, ...] | None]] = {name: deque() for name in judged.players}
    close_at: int | None = None  # time was called after this many throws
    for event in judged.events:
        if isinstance(event, Thrown):
            faces = None if event.dice is None else tuple(int(c) for c in event.dice)
            queues[event.player].append(faces)
        elif isinstance(event, Closed):
            close_at = event.throw or 0
    try:
        game = Game(rules, judged.players)
    except InputError as exc:
        raise RecordError(
            f"players: {exc}", code="record_players", key="players", inner=exc
        ) from None
    game.start(**start_args(record.get("start")))
    given = record.get("grab")
    grabs = list(given) if isinstance(given, list) else [given] if given is not None else []
    seed = seed_of(record)
    chooser = random.Random(seed if seed is not None else 0)
    while True:
        if close_at is not None and game.throw_count >= close_at and game.can_close():
            game.close()
            close_at = None
        if game.phase == "grab" and rules.sets > 1 and any(queues.values()):
            _settle(game, grabs, chooser)  # 一二会 (RULES.md §10.2): the next set follows
            continue
        name = game.next_player
        if name is None or not queues[name]:
            break
        faces = queues[name].popleft()
        game.throw(faces, tiaohou=faces is None)
    if game.phase == "grab":
        _settle(game, grabs, chooser)
    return Judgement(game, True, sum(len(q) for q in queues.values()))


def _settle(game: Game, grabs: list[Any], chooser: random.Random) -> None:
    """Settle a re-judged grab with the record's next allocation if it fits, else at random."""
    grab = grabs.pop(0) if grabs else None
    if isinstance(grab, dict) and game.can_grab(grab):
        game.grab(grab)
    else:
        game.grab(rng=chooser)


def adjudicate(
    record: Mapping[str, Any], rules: str | Path | Mapping[str, Any] | RuleSet | None = None
) -> dict[str, Any]:
    """Judge a record: the RULES.md §7 object (raises a :class:`BobingError` for bad input).

    >>> throws = ["444412", {"close": True}, "123456"]
    >>> result = adjudicate({"players": ["甲", "乙"], "throws": throws})
    >>> result["ended_by"], result["zhuangyuan"]["player"], result["holdings"]["乙"]
    ('closed', '甲', {'duitang': 1})

    ``rules`` (a preset, rule file, rule object or :class:`RuleSet`) re-judges the record, see
    :func:`judge_record`; the result then also says ``"rejudged": true`` and how many throws
    were left unused.
    """
    judged = judge_record(record, None if rules is None else load_rules(rules))
    result = judged.game.result()
    if judged.rejudged:
        result["rejudged"] = True
        result["unused_throws"] = judged.unused_throws
    return result


__all__ = [
    "RECORD_KEYS",
    "Judgement",
    "adjudicate",
    "dumps_record",
    "is_close",
    "judge_record",
    "load_record",
    "parse_record",
    "play_record",
    "record_of",
    "record_rules",
]
