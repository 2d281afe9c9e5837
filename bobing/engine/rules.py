"""Rule files: a preset name or alias, a JSON rule object, or a file, read into a
validated :class:`RuleSet` (RULES.md §5, §8, §9). What a rule set is lives in
:mod:`bobing.engine.switches`; every name of it is importable from here too.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import replace
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from bobing.engine.errors import RulesError
from bobing.engine.hands import HANDS, ORDINARY_TIERS, TIERS, Hand, Tier
from bobing.engine.presets import DEFAULT_RULES, find_preset
from bobing.engine.switches import (
    _BOOL_SWITCHES,
    _ENUM_SWITCHES,
    _RANKABLE,
    DEFAULT_MAX_PLAYERS,
    MAX_PLAYERS,
    MAX_PRIZE_COUNT,
    MAX_PRIZE_NAME,
    MAX_PRIZE_VALUE,
    MAX_RANKED_LINES,
    MAX_ROUNDS,
    MAX_SETS,
    MIN_PLAYERS,
    SWITCHES,
    Award,
    BiandijinEffect,
    ChajinhuaDuitang,
    ChajinhuaLugu,
    Chase,
    ChaseFrom,
    ChaseUntil,
    Direction,
    End,
    LiuboheiEffect,
    LiubohongDuitang,
    LiubohongEffect,
    Money,
    RankedPrize,
    RuleSet,
    SixOnes,
    Standing,
    StartCount,
    Tiaohou,
    WuziCompare,
    ZhuangyuanCake,
    allowed_values,
    fit_zhuangyuan_order,
    required_zhuangyuan_hands,
    zhuangyuan_hands_for,
)

# -- reading rule files ---------------------------------------------------------------------


def _enum_value(switch: str, value: Any) -> StrEnum:
    enum = _ENUM_SWITCHES[switch]
    if isinstance(value, str):
        try:
            return enum(value)
        except ValueError:
            pass
    raise RulesError(
        f"invalid value {value!r} for {switch}; allowed: {', '.join(allowed_values(switch))}",
        code="invalid_switch_value",
        key=switch,
        value=value,
        allowed=allowed_values(switch),
    )


def _parse_order(value: Any) -> tuple[Hand, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(
            f"zhuangyuan_order must be a non-empty list of hand ids, not {value!r}",
            code="order_not_list",
            key="zhuangyuan_order",
            value=value,
        )
    order: list[Hand] = []
    for item in value:
        if not isinstance(item, str) or item not in {str(h) for h in _RANKABLE}:
            raise RulesError(
                f"invalid hand {item!r} in zhuangyuan_order; allowed: "
                + ", ".join(str(h) for h in _RANKABLE),
                code="order_invalid_hand",
                key="zhuangyuan_order",
                value=item,
                allowed=[str(h) for h in _RANKABLE],
            )
        order.append(Hand(item))
    return tuple(order)


def _parse_chase(value: Any) -> Chase | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise RulesError(
            f'chase must be null or {{"tiers": [...], "from": ...}}, not {value!r}',
            code="chase_not_object",
            key="chase",
            value=value,
        )
    unknown = sorted(set(value) - {"tiers", "from", "until"})
    if unknown:
        raise RulesError(
            f"unknown key {unknown[0]!r} in chase; allowed: tiers, from, until",
            code="chase_unknown_key",
            key="chase." + unknown[0],
            name=unknown[0],
        )
    tiers_value = value.get("tiers", ["sanhong", "duitang"])
    if not isinstance(tiers_value, list):
        raise RulesError(
            f"chase.tiers must be a list, not {tiers_value!r}",
            code="chase_tiers_not_list",
            key="chase.tiers",
            value=tiers_value,
        )
    tiers: list[Tier] = []
    for item in tiers_value:
        if not isinstance(item, str) or item not in {str(t) for t in ORDINARY_TIERS}:
            raise RulesError(
                f"invalid tier {item!r} in chase.tiers; allowed: "
                + ", ".join(str(t) for t in ORDINARY_TIERS),
                code="chase_invalid_tier",
                key="chase.tiers",
                value=item,
                allowed=[str(t) for t in ORDINARY_TIERS],
            )
        if Tier(item) not in tiers:
            tiers.append(Tier(item))
    source = _choice("chase.from", value.get("from", "nearest_before"), ChaseFrom)
    until = _choice("chase.until", value.get("until", "others_left"), ChaseUntil)
    return Chase(tuple(tiers), ChaseFrom(source), ChaseUntil(until))


E = TypeVar("E", bound=StrEnum)


def _choice(key: str, value: Any, enum: type[E]) -> E:
    """One of ``enum``'s values for the key ``key`` of a nested switch, or a clear error."""
    allowed = [str(v) for v in enum]
    if isinstance(value, str) and value in allowed:
        return enum(value)
    raise RulesError(
        f"invalid value {value!r} for {key}; allowed: " + ", ".join(allowed),
        code="invalid_switch_value",
        key=key,
        value=value,
        allowed=allowed,
    )


def _parse_values(value: Any) -> tuple[tuple[Tier, int | float], ...] | None:
    """``values`` (RULES.md §9.3): null or ``{tier: number >= 0}``, kept in TIERS order."""
    if value is None:
        return None
    if not isinstance(value, dict) or not value:
        raise RulesError(
            f"values must be null or an object of tier values, not {value!r}",
            code="values_not_object",
            key="values",
            value=value,
        )
    for key, worth in value.items():
        if key not in {str(t) for t in TIERS}:
            raise RulesError(
                f"unknown tier {key!r} in values; allowed: " + ", ".join(str(t) for t in TIERS),
                code="values_unknown_tier",
                key="values." + str(key),
                name=key,
                allowed=[str(t) for t in TIERS],
            )
        ok = (
            not isinstance(worth, bool)
            and isinstance(worth, int | float)
            and math.isfinite(worth)
            and 0 <= worth <= MAX_PRIZE_VALUE
        )
        if not ok:
            raise RulesError(
                f"invalid value {worth!r} for values.{key}: a number 0-{MAX_PRIZE_VALUE}",
                code="values_bad_value",
                key="values." + key,
                value=worth,
                tier=key,
                limit=MAX_PRIZE_VALUE,
            )
    return tuple((t, value[str(t)]) for t in TIERS if str(t) in value)


def _parse_patterns(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise RulesError(
            f"duitang_patterns must be a non-empty list of six-digit strings, not {value!r}",
            code="patterns_not_list",
            key="duitang_patterns",
            value=value,
        )
    patterns: list[str] = []
    for item in value:
        ok = isinstance(item, str) and len(item) == 6 and all(c in "123456" for c in item)
        if not ok:
            raise RulesError(
                f"invalid pattern {item!r} in duitang_patterns: six digits 1-6, e.g. 334455",
                code="invalid_pattern",
                key="duitang_patterns",
                value=item,
            )
        normal = "".join(sorted(item))
        if normal not in patterns:
            patterns.append(normal)
    return tuple(patterns)


def _parse_prizes(value: Any, base: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    if not isinstance(value, dict):
        raise RulesError(
            f"prizes must be an object of tier counts, not {value!r}",
            code="prizes_not_object",
            key="prizes",
            value=value,
        )
    counts = dict(zip(TIERS, base, strict=True))
    for key, count in value.items():
        if key not in {str(t) for t in TIERS}:
            raise RulesError(
                f"unknown tier {key!r} in prizes; allowed: " + ", ".join(str(t) for t in TIERS),
                code="prizes_unknown_tier",
                key="prizes." + str(key),
                name=key,
                allowed=[str(t) for t in TIERS],
            )
        if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= 999:
            raise RulesError(
                f"invalid count {count!r} for prizes.{key}: a whole number 0-{MAX_PRIZE_COUNT}",
                code="prizes_invalid_count",
                key="prizes." + key,
                value=count,
                tier=key,
                limit=MAX_PRIZE_COUNT,
            )
        counts[Tier(key)] = count
    c = [counts[t] for t in TIERS]
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def _parse_whole(key: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(
            f"invalid value {value!r} for {key}: a whole number {low}-{high}",
            code="invalid_whole_number",
            key=key,
            value=value,
            minimum=low,
            maximum=high,
        )
    return value


def _parse_ranked_prizes(value: Any) -> tuple[RankedPrize, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not value or len(value) > MAX_RANKED_LINES:
        raise RulesError(
            f"ranked_prizes must be null or a list of 1-{MAX_RANKED_LINES} prizes "
            f'{{"name": ..., "count": N, "value": X}}, not {value!r}',
            code="ranked_prizes_not_list",
            key="ranked_prizes",
            value=value,
            limit=MAX_RANKED_LINES,
        )
    return tuple(_parse_ranked_prize(index, item) for index, item in enumerate(value, start=1))


def _parse_ranked_prize(index: int, item: Any) -> RankedPrize:
    where = f"ranked_prizes[{index}]"
    if not isinstance(item, dict):
        raise RulesError(
            f'{where}: a prize is {{"name": ..., "count": N, "value": X}}, not {item!r}',
            code="ranked_prize_not_object",
            key=where,
            index=index,
            value=item,
        )
    unknown = sorted(set(item) - {"name", "count", "value"})
    if unknown:
        raise RulesError(
            f"{where}: unknown key {unknown[0]!r}; allowed: name, count, value",
            code="ranked_prize_unknown_key",
            key=where,
            index=index,
            name=unknown[0],
        )
    name = item.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_PRIZE_NAME:
        raise RulesError(
            f"{where}: name must be text of 1-{MAX_PRIZE_NAME} characters, not {name!r}",
            code="ranked_prize_bad_name",
            key=where,
            index=index,
            value=name,
            limit=MAX_PRIZE_NAME,
        )
    count = item.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_PRIZE_COUNT:
        raise RulesError(
            f"{where}: count must be a whole number 1-{MAX_PRIZE_COUNT}, not {count!r}",
            code="ranked_prize_bad_count",
            key=where,
            index=index,
            value=count,
            limit=MAX_PRIZE_COUNT,
        )
    worth = item.get("value")
    ok = worth is None or (
        not isinstance(worth, bool)
        and isinstance(worth, int | float)
        and math.isfinite(worth)
        and 0 <= worth <= MAX_PRIZE_VALUE
    )
    if not ok:
        raise RulesError(
            f"{where}: value must be a number 0-{MAX_PRIZE_VALUE}, not {worth!r}",
            code="ranked_prize_bad_value",
            key=where,
            index=index,
            value=worth,
            limit=MAX_PRIZE_VALUE,
        )
    return RankedPrize(name.strip(), count, worth)


def rules_from_json(value: Any) -> RuleSet:
    """Build rules from a preset name or alias, or a rule object ``{"preset": ..., overrides}``.

    >>> rules_from_json({"preset": "modern", "chase": {"tiers": ["duitang"]}}).chase.tiers
    (<Tier.DUITANG: 'duitang'>,)
    """
    if isinstance(value, str):
        return find_preset(value)
    if not isinstance(value, Mapping):
        raise RulesError(
            f"rules must be a preset name or an object, not {type(value).__name__}",
            code="rules_not_object",
            key="rules",
            type=type(value).__name__,
        )
    preset_name = value.get("preset", "traditional")
    if not isinstance(preset_name, str):
        raise RulesError(
            f"preset must be a name, not {preset_name!r}",
            code="preset_not_name",
            key="preset",
            value=preset_name,
        )
    base = find_preset(preset_name)
    changes: dict[str, Any] = {}
    for key, raw in value.items():
        if key == "preset":
            continue
        if key not in SWITCHES:
            raise RulesError(
                f"unknown rule switch {key!r}; allowed: preset, " + ", ".join(SWITCHES),
                code="unknown_rule_switch",
                key=key,
                allowed=["preset", *SWITCHES],
            )
        if key in _ENUM_SWITCHES:
            changes[key] = _enum_value(key, raw)
        elif key in _BOOL_SWITCHES:
            if not isinstance(raw, bool):
                raise RulesError(
                    f"invalid value {raw!r} for {key}; allowed: true, false",
                    code="invalid_switch_value",
                    key=key,
                    value=raw,
                    allowed=["true", "false"],
                )
            changes[key] = raw
        elif key == "zhuangyuan_order":
            changes[key] = _parse_order(raw)
        elif key == "chase":
            changes[key] = _parse_chase(raw)
        elif key == "duitang_patterns":
            changes[key] = _parse_patterns(raw)
        elif key == "prizes":
            changes[key] = _parse_prizes(raw, base.prizes)
        elif key == "max_players":
            changes[key] = _parse_whole(key, raw, MIN_PLAYERS, MAX_PLAYERS)
        elif key == "rounds":
            changes[key] = None if raw is None else _parse_whole(key, raw, 1, MAX_ROUNDS)
        elif key == "sets":
            changes[key] = _parse_whole(key, raw, 1, MAX_SETS)
        elif key == "ranked_prizes":
            changes[key] = _parse_ranked_prizes(raw)
        elif key == "values":
            changes[key] = _parse_values(raw)
    return replace(base, **changes)


def fit_order(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A rule object whose ``zhuangyuan_order`` is brought in line with its effects.

    For an editor changing one switch at a time: a hand that becomes a 状元 hand is put in
    place, one that stops being one is dropped. Invalid values are left for
    :func:`rules_from_json` to refuse.

    >>> fit_order({"preset": "modern", "liubohei": "zhuangyuan"})["zhuangyuan_order"][:3]
    ['liubohong', 'liubohei', 'chajinhua']
    """
    out = dict(spec)
    preset = spec.get("preset", "traditional")
    try:
        base = find_preset(preset) if isinstance(preset, str) else DEFAULT_RULES
        order = _parse_order(spec.get("zhuangyuan_order", [str(h) for h in base.zhuangyuan_order]))
        required = zhuangyuan_hands_for(
            LiuboheiEffect(spec.get("liubohei", base.liubohei)),
            SixOnes(spec.get("six_ones", base.six_ones)),
            BiandijinEffect(spec.get("biandijin", base.biandijin)),
        )
    except (RulesError, ValueError, TypeError):
        return out
    out["zhuangyuan_order"] = [str(h) for h in fit_zhuangyuan_order(order, required)]
    # RULES.md §9.3: a switch that depends on another goes back to its default when the other
    # changes, and 反向博钱 starts from values of 0 for every tier that has cakes.
    if spec.get("liubohong", base.liubohong) != "zhuangyuan" and "liubohong_duitang" in out:
        out["liubohong_duitang"] = "none"
    if spec.get("money", base.money) == "pay":
        if not out.get("values"):
            out["values"] = dict.fromkeys((str(t) for t in TIERS), 0)
    elif "money" in out:
        out["values"] = None
    return out


def load_rules(spec: str | Path | Mapping[str, Any] | RuleSet | None = None) -> RuleSet:
    """Rules from a preset name or alias, a JSON rule file's path, a rule object, or None."""
    if spec is None:
        return DEFAULT_RULES
    if isinstance(spec, RuleSet):
        return spec
    if isinstance(spec, Mapping):
        return rules_from_json(spec)
    text = str(spec)
    path = Path(text)
    looks_like_file = (
        isinstance(spec, Path)
        or text.lower().endswith(".json")
        or any(sep in text for sep in ("/", "\\"))
    )
    if not looks_like_file:
        try:
            return rules_from_json(text)
        except RulesError:
            # Not a preset: a rule file in the current directory may still have that name.
            if not path.is_file():
                raise
    return _read_rule_file(path, text)


def _read_rule_file(path: Path, text: str) -> RuleSet:
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RulesError(
            f"cannot read rule file {text!r}: {exc.strerror or exc}",
            code="rule_file_unreadable",
            key="rules",
            value=text,
            reason=str(exc.strerror or exc),
            errno=exc.errno,
        ) from None
    except UnicodeDecodeError:
        raise RulesError(
            f"rule file {text!r} is not UTF-8 text",
            code="rule_file_not_utf8",
            key="rules",
            value=text,
        ) from None
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise RulesError(
            f"rule file {text!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
            f"column {exc.colno}",
            code="rule_file_not_json",
            key="rules",
            value=text,
            reason=exc.msg,
            line=exc.lineno,
            column=exc.colno,
        ) from None
    except RecursionError:
        raise RulesError(
            f"rule file {text!r} is nested too deeply",
            code="rule_file_too_deep",
            key="rules",
            value=text,
        ) from None
    if not isinstance(data, dict):
        raise RulesError(
            f'rule file {text!r} must hold a JSON object {{"preset": ..., ...}}, '
            f"not {type(data).__name__}",
            code="rule_file_not_object",
            key="rules",
            value=text,
            type=type(data).__name__,
        )
    return rules_from_json(data)


__all__ = [
    "DEFAULT_MAX_PLAYERS",
    "DEFAULT_RULES",
    "HANDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SWITCHES",
    "Award",
    "BiandijinEffect",
    "ChajinhuaDuitang",
    "ChajinhuaLugu",
    "Chase",
    "ChaseFrom",
    "ChaseUntil",
    "Direction",
    "End",
    "LiuboheiEffect",
    "LiubohongDuitang",
    "LiubohongEffect",
    "Money",
    "RankedPrize",
    "RuleSet",
    "SixOnes",
    "Standing",
    "StartCount",
    "Tiaohou",
    "WuziCompare",
    "ZhuangyuanCake",
    "allowed_values",
    "fit_order",
    "load_rules",
    "required_zhuangyuan_hands",
    "rules_from_json",
]
