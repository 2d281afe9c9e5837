"""Checking what a client sends: display text and names, rules, named prizes, typed dice.

Rules over HTTP and WebSocket are a preset id or alias, or a rule object, and nothing else: they
go to :func:`bobing.engine.rules.rules_from_json`, which cannot open a file (rule files are a
command-line feature of ``load_rules``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bobing.engine.errors import BobingError, InputError, RulesError
from bobing.engine.hands import TIERS
from bobing.engine.rules import RuleSet, rules_from_json
from bobing.engine.switches import MAX_PRIZE_NAME, MAX_PRIZE_VALUE
from bobing.organizer.text import display_text
from bobing.tables.limits import MAX_TABLE_PRIZE_COUNT, MAX_TABLE_PRIZE_LINES, MAX_TIME_LIMIT
from bobing.tables.problems import ApiError, from_bobing

MODES = ("online", "pass_and_play", "referee")


def check_display_text(value: Any, *, field_name: str, max_length: int) -> str:
    """A display name by the organizer's one rule (:func:`display_text`), as an ApiError."""
    try:
        return display_text(value, key=field_name, limit=max_length)
    except InputError as exc:
        params = exc.params
        if exc.code == "text_too_long":
            raise ApiError(
                "name_too_long",
                exc.message,
                field=field_name,
                name=params.get("text", ""),
                length=params.get("length"),
                limit=max_length,
            ) from None
        raise ApiError(
            "invalid_name",
            exc.message,
            field=field_name,
            name=params.get("text", value if isinstance(value, str) else ""),
            characters=params.get("characters", ""),
        ) from None


def check_faces(value: Any, count: int, *, field_name: str) -> tuple[int, ...]:
    """Typed dice: ``count`` ASCII digits 1-6 as one string, or a list of ``count`` integers.

    Anything else (other digits such as ``²`` or ``١``, letters, separators) is refused
    before the engine reads the faces.
    """
    faces: list[int] | None = None
    if isinstance(value, str):
        if len(value) == count and all(c in "123456" for c in value):
            faces = [int(c) for c in value]
    elif (
        isinstance(value, list | tuple)
        and len(value) == count
        and all(isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in value)
    ):
        faces = list(value)
    if faces is None:
        shown = value if isinstance(value, str) else str(value)
        raise ApiError(
            "invalid_dice",
            f"invalid {field_name} {shown[:40]!r}: {count} faces 1-6, as "
            f"{'1' * count!r} or a list of {count} whole numbers",
            value=shown[:40],
            count=count,
        )
    return tuple(faces)


def preset_rules(name: str) -> RuleSet:
    """A preset by id or alias; over the web a name is never a path (nothing is opened)."""
    return web_rules(name.strip())


def web_rules(value: Any) -> RuleSet:
    """:func:`rules_from_json` with the web's wording: an unknown preset is not offered a file."""
    try:
        return rules_from_json(value)
    except RulesError as exc:
        if exc.code != "unknown_preset":
            raise from_bobing(exc) from None
        name = str(exc.params.get("value", ""))[:80]
        allowed = ", ".join(str(a) for a in exc.params.get("allowed", ()))
        message = f"unknown preset {name!r}; allowed: {allowed}, or a rule object"
        raise ApiError("invalid_rules", message, message=message, value=name) from None


def parse_rules(rules: Any, prizes: Any) -> RuleSet:
    """A table's rules from a preset name, a rule object or None, with ``prizes`` merged."""
    try:
        if rules is None:
            base: Any = {"preset": "traditional"}
        elif isinstance(rules, str):
            # A name, never a path: rules_from_json only looks presets up.
            base = {"preset": preset_rules(rules).preset}
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
            own = base.get("prizes") or {}
            if not isinstance(own, Mapping):
                message = "rules.prizes must map tiers to counts"
                raise ApiError("invalid_rules", message, message=message)
            merged = dict(own)
            merged.update(prizes)
            base["prizes"] = merged
        rule_set = web_rules(base)
    except BobingError as exc:
        raise from_bobing(exc) from None
    if rule_set.ranked_prizes is not None:
        check_ranked_prizes(rule_set)
        return rule_set  # a ranked table plays for its prize list, not for cakes
    if rule_set.total_cakes == 0:
        raise ApiError(
            "invalid_rules",
            "the table plays for no cakes at all",
            message="the table plays for no cakes at all",
        )
    return rule_set


def check_ranked_prizes(rule_set: RuleSet) -> None:
    """A ranked prize list shown to everybody: display-safe names, sizes bounded."""
    prizes = rule_set.ranked_prizes or ()
    if len(prizes) > MAX_TABLE_PRIZE_LINES:
        raise ApiError(
            "invalid_field",
            f"ranked_prizes lists {len(prizes)} prizes; at most {MAX_TABLE_PRIZE_LINES}",
            field="ranked_prizes",
            count=len(prizes),
            limit=MAX_TABLE_PRIZE_LINES,
        )
    for index, prize in enumerate(prizes):
        where = f"ranked_prizes[{index}]"
        check_display_text(prize.name, field_name=where + ".name", max_length=MAX_PRIZE_NAME)
        if prize.count > MAX_TABLE_PRIZE_COUNT:
            raise ApiError(
                "invalid_field",
                f"{where}.count {prize.count} is more prizes than a table has seats "
                f"(at most {MAX_TABLE_PRIZE_COUNT})",
                field=where + ".count",
                value=prize.count,
                limit=MAX_TABLE_PRIZE_COUNT,
            )
        if prize.value is not None and not 0 <= prize.value <= MAX_PRIZE_VALUE:
            raise ApiError(
                "invalid_field",
                f"{where}.value must be a number 0-{MAX_PRIZE_VALUE}",
                field=where + ".value",
            )


def parse_named_prizes(value: Any) -> dict[str, dict[str, Any]]:
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


def parse_time_limit(value: Any) -> int | None:
    """A table's time limit in whole minutes (1-600), or None for a game without one."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_TIME_LIMIT:
        raise ApiError(
            "invalid_field",
            f"invalid time_limit {str(value)[:20]!r}: whole minutes 1-{MAX_TIME_LIMIT}, or null",
            field="time_limit",
            value=str(value)[:20],
            limit=MAX_TIME_LIMIT,
        )
    return value
