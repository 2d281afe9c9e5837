"""The game record format (RULES.md §6, §8.1): reading, validating entries, writing.

Only the format: playing a record is :meth:`Game.from_record`, judging and re-judging one is
:mod:`bobing.engine.record`. A game writes itself with :func:`write_record`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from bobing.engine.dice import DICE_COUNT
from bobing.engine.errors import RecordError, RulesError
from bobing.engine.events import Closed, Event, GrabOpened, Skipped, Started, Thrown
from bobing.engine.hands import TIERS
from bobing.engine.rules import rules_from_json
from bobing.engine.switches import RuleSet

RECORD_KEYS = ("rules", "players", "start", "seed", "throws", "grab")
"""The keys of RULES.md §6; others (e.g. ``fairness``, ``table``) are kept but not judged."""


def load_record(path: str | Path) -> dict[str, Any]:
    """Read a record file, raising :class:`RecordError` for unreadable or malformed JSON."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a BOM from Notepad is fine
    except OSError as exc:
        raise RecordError(
            f"cannot read record {str(path)!r}: {exc.strerror}",
            code="record_unreadable",
            path=str(path),
            reason=str(exc.strerror),
            errno=exc.errno,
        ) from None
    except UnicodeDecodeError:
        raise RecordError(
            f"record {str(path)!r} is not UTF-8 text", code="record_not_utf8", path=str(path)
        ) from None
    return parse_record(text, str(path))


def parse_record(text: str, source: str = "<record>") -> dict[str, Any]:
    """A record from JSON text (``source`` names it in errors), raising :class:`RecordError`.

    >>> parse_record('{"players": ["甲", "乙"]}')["players"]
    ['甲', '乙']
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(
            f"record {source!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}",
            code="record_not_json",
            path=source,
            reason=exc.msg,
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except RecursionError:
        raise RecordError(
            f"record {source!r} is nested too deeply", code="record_too_deep", path=source
        ) from None
    if not isinstance(data, dict):
        raise RecordError(
            f"a record is a JSON object, not {type(data).__name__}",
            code="record_not_object",
            type=type(data).__name__,
        )
    return data


def is_close(entry: Any) -> bool:
    """Whether a ``throws`` entry is a close (``{"close": true}``, RULES.md §8.1), validated.

    >>> is_close({"close": True}), is_close("444412")
    (True, False)
    """
    if not isinstance(entry, dict) or "close" not in entry:
        return False
    if entry != {"close": True}:
        raise RecordError(
            f'a close is written {{"close": true}} and nothing else, not {entry!r}',
            code="close_entry_invalid",
            key="throws",
            value=entry,
        )
    return True


def throw_entry(index: int, entry: Any) -> tuple[str | None, tuple[int, ...] | None]:
    """(player or None, faces or None for 跳猴) of throw ``index`` (1-based), validated.

    >>> throw_entry(3, {"player": "甲", "dice": [4, 4, 4, 4, 1, 2]})
    ('甲', (4, 4, 4, 4, 1, 2))
    """
    where = f"throw {index}"
    player: str | None = None
    if isinstance(entry, str):
        dice: Any = entry
        tiaohou = False
    elif isinstance(entry, dict):
        unknown = sorted(set(entry) - {"dice", "tiaohou", "player"})
        if unknown:
            raise RecordError(
                f"{where}: unknown key {unknown[0]!r}; allowed: dice, tiaohou, player",
                code="throw_unknown_key",
                throw=index,
                key=unknown[0],
            )
        raw_player = entry.get("player")
        if raw_player is not None and not isinstance(raw_player, str):
            raise RecordError(
                f"{where}: player must be a name", code="throw_player_not_name", throw=index
            )
        player = raw_player
        tiaohou = entry.get("tiaohou", False)
        if not isinstance(tiaohou, bool):
            raise RecordError(
                f"{where}: tiaohou must be true or false",
                code="throw_tiaohou_not_bool",
                throw=index,
            )
        dice = entry.get("dice")
        if tiaohou and dice is not None:
            raise RecordError(
                f"{where}: a 跳猴 has no dice", code="throw_tiaohou_with_dice", throw=index
            )
        if not tiaohou and dice is None:
            raise RecordError(
                f'{where}: no dice (give "dice" or "tiaohou": true)',
                code="throw_no_dice",
                throw=index,
            )
    else:
        raise RecordError(
            f'{where}: expected six digits like "444412" or an object, not {entry!r}',
            code="throw_not_dice",
            throw=index,
            value=entry,
        )
    if tiaohou:
        return player, None
    if isinstance(dice, list):
        faces_ok = all(type(d) is int and 1 <= d <= 6 for d in dice)
        if not faces_ok or len(dice) != DICE_COUNT:
            raise RecordError(
                f"{where}: dice {dice!r} are not six faces 1-6",
                code="throw_dice_list",
                throw=index,
                key="dice",
                value=dice,
            )
        dice = "".join(str(d) for d in dice)
    if not isinstance(dice, str):
        raise RecordError(
            f"{where}: dice must be six digits, not {dice!r}",
            code="throw_dice_not_text",
            throw=index,
            value=dice,
        )
    if len(dice) != DICE_COUNT or not dice.isascii() or not dice.isdigit():
        raise RecordError(
            f"{where}: {dice!r} is not six digits 1-6 ({len(dice)} characters)",
            code="throw_dice_length",
            throw=index,
            value=dice,
            length=len(dice),
        )
    bad = [c for c in dice if c not in "123456"]
    if bad:
        raise RecordError(
            f"{where}: {dice!r} has a {bad[0]}, faces are 1-6",
            code="throw_dice_face",
            throw=index,
            value=dice,
            face=bad[0],
        )
    return player, tuple(int(c) for c in dice)


def start_args(start: Any) -> dict[str, Any]:
    """The keyword arguments of :meth:`Game.start` for a record's ``start``, validated."""
    if start is None:
        return {}
    if not isinstance(start, dict):
        raise RecordError(
            'start must be {"starter": NAME} or {"thrower": NAME, "dice": [a, b]}',
            code="start_not_object",
            key="start",
            value=start,
        )
    unknown = sorted(set(start) - {"starter", "thrower", "dice"})
    if unknown:
        raise RecordError(
            f"start: unknown key {unknown[0]!r}; allowed: starter, thrower, dice",
            code="start_unknown_key",
            key="start",
            name=unknown[0],
        )
    if "starter" in start:
        if set(start) != {"starter"}:
            raise RecordError(
                "start: give a starter, or a thrower with two dice",
                code="start_starter_and_dice",
                key="start",
            )
        return {"starter": start["starter"]}
    if set(start) != {"thrower", "dice"}:
        raise RecordError(
            "start: the two-dice start needs thrower and dice",
            code="start_needs_thrower_and_dice",
            key="start",
        )
    dice = start["dice"]
    ok = (
        isinstance(dice, list)
        and len(dice) == 2
        and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in dice)
    )
    if not ok:
        raise RecordError(
            f"start.dice must be two faces 1-6, not {dice!r}",
            code="start_dice_invalid",
            key="start.dice",
            value=dice,
        )
    return {"thrower": start["thrower"], "dice": tuple(dice)}


def record_rules(record: Mapping[str, Any]) -> RuleSet:
    """The rules a record was played under (default traditional)."""
    spec = record.get("rules", "traditional")
    try:
        return rules_from_json(spec)
    except RulesError as exc:
        raise RecordError(f"rules: {exc}", code="record_rules", key="rules", inner=exc) from None


def seed_of(record: Mapping[str, Any]) -> int | None:
    """A record's ``seed`` (for a lights-off grab without ``grab``), validated."""
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(
            f"seed must be a whole number, not {seed!r}",
            code="seed_not_integer",
            key="seed",
            value=seed,
        )
    return seed


def write_record(
    rules: RuleSet,
    players: Sequence[str],
    events: Iterable[Event],
    *,
    seed: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A game, given by its rules, seats and events, as a RULES.md §6 record."""
    overrides = rules.overrides()
    record: dict[str, Any] = {
        "rules": rules.preset if len(overrides) == 1 else overrides,
        "players": list(players),
    }
    throws: list[Any] = []
    grabs: list[dict[str, dict[str, int]]] = []
    grab: dict[str, dict[str, int]] = {}
    grabbing = False
    for event in events:
        if event.type == "next_set":  # 一二会 (RULES.md §10.2): a set's grab is its own
            grabbing = False
            continue
        if isinstance(event, Started):
            if event.thrower is not None and event.dice is not None:
                record["start"] = {"thrower": event.thrower, "dice": list(event.dice)}
            else:
                record["start"] = {"starter": event.starter}
        elif isinstance(event, Thrown):
            if event.dice is None:
                throws.append({"player": event.player, "tiaohou": True})
            else:
                throws.append({"player": event.player, "dice": event.dice})
        elif isinstance(event, Closed):
            throws.append({"close": True})
        elif isinstance(event, GrabOpened):
            grabbing = True
            grab = {}
            grabs.append(grab)
        elif grabbing and event.type == "awarded":
            d = event.to_json()
            row = grab.setdefault(d["player"], {})
            row[d["tier"]] = row.get(d["tier"], 0) + d["count"]
        elif grabbing and event.type == "zhuangyuan":
            d = event.to_json()
            grab.setdefault(d["player"], {})["zhuangyuan"] = 1
        elif isinstance(event, Skipped):
            pass
    if seed is not None:
        record["seed"] = seed
    record["throws"] = throws
    written = [
        {p: {str(t): row[str(t)] for t in TIERS if str(t) in row} for p, row in one.items()}
        for one in grabs
        if one
    ]
    if written:
        record["grab"] = written[0] if len(written) == 1 else written
    record.update(extra)
    return record


def dumps_record(record: Mapping[str, Any]) -> str:
    """A record as readable JSON text: one key per line, one throw per line.

    >>> print(dumps_record({"players": ["甲", "乙"], "throws": ["444412", "123456"]}))
    {
     "players": ["甲", "乙"],
     "throws": [
      "444412",
      "123456"
     ]
    }
    """

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))

    lines = []
    for key, value in record.items():
        if key == "throws" and isinstance(value, list) and value:
            body = ",\n".join(f"  {one(v)}" for v in value)
            lines.append(f" {one(key)}: [\n{body}\n ]")
        else:
            lines.append(f" {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(lines) + "\n}"


__all__ = [
    "RECORD_KEYS",
    "dumps_record",
    "is_close",
    "load_record",
    "parse_record",
    "record_rules",
    "seed_of",
    "start_args",
    "throw_entry",
    "write_record",
]
