"""Game records (RULES.md §6): read, validate, play, write; and adjudication (§7)."""

from __future__ import annotations

import json
import random
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from bobing.engine.dice import DICE_COUNT
from bobing.engine.errors import IllegalAction, InputError, RecordError, RulesError
from bobing.engine.events import Closed, GrabOpened, Skipped, Started, Thrown
from bobing.engine.hands import TIERS
from bobing.engine.rules import RuleSet, load_rules, rules_from_json

if TYPE_CHECKING:
    from bobing.engine.game import Game

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


def _throw_entry(index: int, entry: Any) -> tuple[str | None, tuple[int, ...] | None]:
    """(player or None, faces or None for 跳猴) of throw ``index`` (1-based), validated."""
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
                f"{where}: no dice (give \"dice\" or \"tiaohou\": true)",
                code="throw_no_dice",
                throw=index,
            )
    else:
        raise RecordError(
            f"{where}: expected six digits like \"444412\" or an object, not {entry!r}",
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


def _start_args(start: Any) -> dict[str, Any]:
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
    game = _play_strict(record, own)
    if rules is None or rules == own:
        return Judgement(game, False, 0)
    return _rejudge(record, game, rules)


def _play_strict(record: Mapping[str, Any], rules: RuleSet) -> Game:
    from bobing.engine.game import Game

    if "players" not in record:
        raise RecordError("record has no players", code="record_no_players", key="players")
    players = record["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError(
            "players must be a list of names", code="players_not_list", key="players"
        )
    try:
        game = Game(rules, players)
    except InputError as exc:
        raise RecordError(
            f"players: {exc}", code="record_players", key="players", inner=exc
        ) from None
    seed = _seed(record)
    try:
        game.start(**_start_args(record.get("start")))
    except InputError as exc:
        raise RecordError(f"start: {exc}", code="record_start", key="start", inner=exc) from None
    throws = record.get("throws", [])
    if not isinstance(throws, list):
        raise RecordError("throws must be a list", code="throws_not_list", key="throws")
    index = 0  # throws so far: a close is not a throw and takes no number
    for position, entry in enumerate(throws):
        if is_close(entry):
            _close(game, index)
            continue
        index += 1
        player, faces = _throw_entry(index, entry)
        if game.is_over:
            left = sum(1 for later in throws[position:] if not is_close(later))
            raise RecordError(
                f"throw {index}: the game is already over ({left} throw(s) after the end)",
                code="throw_after_end",
                throw=index,
                count=left,
            )
        if game.next_player is None:
            raise RecordError(
                f"throw {index}: the lights-off grab must be settled before any more throws",
                code="throw_during_grab",
                throw=index,
            )
        try:
            game.throw(faces, player=player, tiaohou=faces is None)
        except (IllegalAction, InputError) as exc:
            raise RecordError(
                f"throw {index}: {exc}", code="record_throw", throw=index, inner=exc
            ) from None
    grab = record.get("grab")
    if game.phase == "grab":
        if grab is not None:
            if not isinstance(grab, dict):
                raise RecordError(
                    "grab must map player names to tier counts", code="grab_not_object", key="grab"
                )
            game.grab(grab)
        else:
            game.grab(rng=random.Random(seed if seed is not None else 0))
    elif grab is not None:
        raise RecordError(
            "grab: the game did not end with a lights-off grab (六勃黑 under grab_end)",
            code="grab_without_grab",
            key="grab",
        )
    return game


def _close(game: Game, throws: int) -> None:
    """Call time in a record after ``throws`` throws, naming the place in errors."""
    if game.is_over:
        raise RecordError(
            f"close after throw {throws}: the game is already over",
            code="close_after_end",
            key="throws",
            throw=throws,
        )
    if game.state.closed:
        raise RecordError(
            f"close after throw {throws}: time was already called (a record holds one close)",
            code="close_twice",
            key="throws",
            throw=throws,
        )
    if game.next_player is None:
        raise RecordError(
            f"close after throw {throws}: the lights-off grab must be settled first",
            code="close_during_grab",
            key="throws",
            throw=throws,
        )
    game.close()


def _seed(record: Mapping[str, Any]) -> int | None:
    seed = record.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise RecordError(
            f"seed must be a whole number, not {seed!r}",
            code="seed_not_integer",
            key="seed",
            value=seed,
        )
    return seed


def _rejudge(record: Mapping[str, Any], judged: Game, rules: RuleSet) -> Judgement:
    from bobing.engine.game import Game

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
    game.start(**_start_args(record.get("start")))
    while True:
        if close_at is not None and game.throw_count >= close_at and game.can_close():
            game.close()
            close_at = None
        name = game.next_player
        if name is None or not queues[name]:
            break
        faces = queues[name].popleft()
        game.throw(faces, tiaohou=faces is None)
    if game.phase == "grab":
        grab = record.get("grab")
        if isinstance(grab, dict) and game.can_grab(grab):
            game.grab(grab)
        else:
            seed = _seed(record)
            game.grab(rng=random.Random(seed if seed is not None else 0))
    return Judgement(game, True, sum(len(q) for q in queues.values()))


def record_of(game: Game, *, seed: int | None = None, **extra: Any) -> dict[str, Any]:
    """Write ``game`` as a RULES.md §6 record."""
    rules = game.rules
    overrides = rules.overrides()
    record: dict[str, Any] = {
        "rules": rules.preset if len(overrides) == 1 else overrides,
        "players": list(game.players),
    }
    throws: list[Any] = []
    grab: dict[str, dict[str, int]] = {}
    grabbing = False
    for event in game.events:
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
    if grab:
        record["grab"] = {p: {str(t): row[str(t)] for t in TIERS if str(t) in row}
                          for p, row in grab.items()}
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


def adjudicate(
    record: Mapping[str, Any], rules: str | Path | Mapping[str, Any] | RuleSet | None = None
) -> dict[str, Any]:
    """Judge a record: the RULES.md §7 object (raises a :class:`BobingError` for bad input).

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
