"""Checking what a client sends when creating a table: display text, rules, named prizes."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.hands import TIERS
from bobing.engine.presets import find_preset
from bobing.engine.rules import RuleSet, rules_from_json
from bobing.web.problems import ApiError, from_bobing

MODES = ("online", "pass_and_play", "referee")


MAX_TABLE_NAME = 40


MAX_PRIZE_NAME = 40


MAX_PRIZE_VALUE = 10**9


HTML_CHARACTERS = frozenset("<>&\"'")


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
            # a preset id or alias only: load_rules would also read a rule *file* of the
            # server's disk named by a client
            base = {"preset": find_preset(rules[:40]).preset}
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
