"""Checking what a client sends when creating a table: display text, rules, named prizes."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.hands import TIERS
from bobing.engine.rules import RuleSet, load_rules, rules_from_json
from bobing.web.problems import ApiError, from_bobing

MODES = ("online", "pass_and_play", "referee")


MAX_TABLE_NAME = 40


MAX_PRIZE_NAME = 40


MAX_PRIZE_VALUE = 10**9


HTML_CHARACTERS = frozenset("<>&\"'")


MAX_TIME_LIMIT = 600
"""The longest time limit a table may set, in minutes (ten hours: a whole evening)."""


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


def parse_rules(rules: Any, prizes: Any) -> RuleSet:
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


MAX_RANKED_ENTRIES = 30
"""The longest ranked prize list a table may set (one line per kind of prize)."""

MAX_ROUNDS = 100
"""The most rounds a ranked table may set."""


def check_ranked_prizes(rule_set: RuleSet) -> None:
    """A ranked prize list shown to everybody: display-safe names, sizes bounded."""
    prizes = rule_set.ranked_prizes or ()
    if len(prizes) > MAX_RANKED_ENTRIES:
        raise ApiError(
            "invalid_field",
            f"ranked_prizes lists {len(prizes)} prizes; at most {MAX_RANKED_ENTRIES}",
            field="ranked_prizes",
            count=len(prizes),
            limit=MAX_RANKED_ENTRIES,
        )
    for index, prize in enumerate(prizes):
        where = f"ranked_prizes[{index}]"
        check_display_text(prize.name, field_name=where + ".name", max_length=MAX_PRIZE_NAME)
        if prize.count > MAX_RANKED_ENTRIES:
            raise ApiError(
                "invalid_field",
                f"{where}.count {prize.count} is more prizes than a table has seats "
                f"(at most {MAX_RANKED_ENTRIES})",
                field=where + ".count",
                value=prize.count,
                limit=MAX_RANKED_ENTRIES,
            )
        if prize.value is not None and not 0 <= prize.value <= MAX_PRIZE_VALUE:
            raise ApiError(
                "invalid_field",
                f"{where}.value must be a number 0-{MAX_PRIZE_VALUE}",
                field=where + ".value",
            )
    if rule_set.rounds is not None and rule_set.rounds > MAX_ROUNDS:
        raise ApiError(
            "invalid_field",
            f"rounds {rule_set.rounds} is more than {MAX_ROUNDS}",
            field="rounds",
            value=rule_set.rounds,
            limit=MAX_ROUNDS,
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
