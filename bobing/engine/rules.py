"""Rule sets: every switch of RULES.md §5 as validated, frozen data; presets with aliases."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any

from bobing.engine.errors import RulesError
from bobing.engine.hands import (
    ALWAYS_ZHUANGYUAN,
    HANDS,
    ORDINARY_HAND_TIER,
    ORDINARY_TIERS,
    TIERS,
    Classification,
    Classifier,
    Hand,
    Multiset,
    Tier,
    classifier_for,
)


class WuziCompare(StrEnum):
    """How two 五子 compare."""

    KICKER = "kicker"
    FACE_THEN_KICKER = "face_then_kicker"


class ChajinhuaDuitang(StrEnum):
    """Whether 插金花 takes the 对堂 cakes: at once, never, or those left when it wins the 状元."""

    IMMEDIATE = "immediate"
    NONE = "none"
    AT_END = "at_end"


class ChajinhuaLugu(StrEnum):
    """Whether a standing 插金花 can be replaced by its owner's later 状元 (禄骨)."""

    EXEMPT = "exempt"
    KEEPS_DUITANG = "keeps_duitang"


class Standing(StrEnum):
    """Which of a player's 状元 throws stands: the newest (禄骨) or the best."""

    LATEST = "latest"
    BEST = "best"


class LiubohongEffect(StrEnum):
    """What 六勃红 does."""

    TAKE_ALL_END = "take_all_end"
    TAKE_REMAINING_END = "take_remaining_end"
    ZHUANGYUAN = "zhuangyuan"
    FRIENDLY_END = "friendly_end"


class LiuboheiEffect(StrEnum):
    """What 六勃黑 does."""

    GRAB_END = "grab_end"
    ZHUANGYUAN_END_SHARE = "zhuangyuan_end_share"
    ZHUANGYUAN = "zhuangyuan"
    IGNORE = "ignore"
    TAKE_ONE = "take_one"


class SixOnes(StrEnum):
    """Whether six 1s are 六勃黑 or the separate 遍地锦."""

    LIUBOHEI = "liubohei"
    BIANDIJIN = "biandijin"


class BiandijinEffect(StrEnum):
    """What 遍地锦 does (when ``six_ones`` = ``biandijin``)."""

    TAKE_REMAINING_END = "take_remaining_end"
    ZHUANGYUAN = "zhuangyuan"
    ZHUANGYUAN_TAKE_REMAINING_END = "zhuangyuan_take_remaining_end"


class ChaseFrom(StrEnum):
    """Whom 追 takes a cake from."""

    NEAREST_BEFORE = "nearest_before"
    LATEST = "latest"


class Tiaohou(StrEnum):
    """What 跳猴 (a die out of the bowl) costs."""

    VOID = "void"
    VOID_SKIP_NEXT = "void_skip_next"


class Direction(StrEnum):
    """Play direction relative to the clockwise seat list."""

    CLOCKWISE = "clockwise"
    COUNTERCLOCKWISE = "counterclockwise"


class StartCount(StrEnum):
    """Whether the start count begins at the thrower or at the next player."""

    FROM_THROWER = "from_thrower"
    FROM_NEXT = "from_next"


class End(StrEnum):
    """How play ends once every non-状元 cake is claimed."""

    FINISH_ROUND = "finish_round"
    ONE_MORE_ROUND = "one_more_round"
    IMMEDIATE = "immediate"


class Award(StrEnum):
    """What the table plays for: the cakes of §4, or ranked prizes by best throw (§8.2)."""

    CAKES = "cakes"
    RANKED = "ranked"


@dataclass(frozen=True, slots=True)
class RankedPrize:
    """One line of a ranked prize list: ``count`` prizes called ``name``, each worth ``value``.

    >>> RankedPrize("一等奖", 1, 498).to_json()
    {'name': '一等奖', 'count': 1, 'value': 498}
    """

    name: str
    count: int = 1
    value: int | float | None = None

    def to_json(self) -> dict[str, Any]:
        """The rule-file form ``{"name": ..., "count": ..., "value": ...}`` (value if given)."""
        out: dict[str, Any] = {"name": self.name, "count": self.count}
        if self.value is not None:
            out["value"] = self.value
        return out


@dataclass(frozen=True, slots=True)
class Chase:
    """追: which tiers chase when exhausted, and from whom."""

    tiers: tuple[Tier, ...]
    source: ChaseFrom = ChaseFrom.NEAREST_BEFORE

    def to_json(self) -> dict[str, Any]:
        """The rule-file form ``{"tiers": [...], "from": ...}``."""
        return {"tiers": [str(t) for t in self.tiers], "from": str(self.source)}


MAX_PRIZE_COUNT = 999
MIN_PLAYERS = 2
"""The fewest players at a table."""
MAX_PLAYERS = 30
"""The hard ceiling of ``max_players``: no table seats more (RULES.md §8)."""
DEFAULT_MAX_PLAYERS = 12
MAX_RANKED_LINES = 50
"""Lines in a ranked prize list (each line may stand for many prizes)."""
MAX_PRIZE_NAME = 40
MAX_PRIZE_VALUE = 1_000_000_000
MAX_ROUNDS = 1000


@dataclass(frozen=True)
class RuleSet:
    """Every switch of RULES.md §5. Build with :func:`load_rules`; validated on creation."""

    zhuangyuan_order: tuple[Hand, ...]
    wuzi_compare: WuziCompare = WuziCompare.KICKER
    sijin_bonus: bool = False
    wuzi_bonus: bool = False
    chajinhua_duitang: ChajinhuaDuitang = ChajinhuaDuitang.IMMEDIATE
    chajinhua_lugu: ChajinhuaLugu = ChajinhuaLugu.EXEMPT
    standing: Standing = Standing.LATEST
    liubohong: LiubohongEffect = LiubohongEffect.TAKE_ALL_END
    liubohong_spares_chajinhua: bool = False
    liubohei: LiuboheiEffect = LiuboheiEffect.GRAB_END
    six_ones: SixOnes = SixOnes.LIUBOHEI
    biandijin: BiandijinEffect = BiandijinEffect.TAKE_REMAINING_END
    chase: Chase | None = None
    tiaohou: Tiaohou = Tiaohou.VOID_SKIP_NEXT
    direction: Direction = Direction.CLOCKWISE
    start_count: StartCount = StartCount.FROM_THROWER
    end: End = End.FINISH_ROUND
    duitang_patterns: tuple[str, ...] = ("123456",)
    prizes: tuple[int, int, int, int, int, int] = (1, 2, 4, 8, 16, 32)
    max_players: int = DEFAULT_MAX_PLAYERS
    award: Award = Award.CAKES
    ranked_prizes: tuple[RankedPrize, ...] | None = None
    rounds: int | None = None
    preset: str = field(default="traditional", compare=False)

    def __post_init__(self) -> None:
        _check_consistent(self)

    # -- derived data -------------------------------------------------------------------

    @cached_property
    def classifier(self) -> Classifier:
        """The lookup table for the switches that change classification."""
        patterns: frozenset[Multiset] = frozenset(
            tuple(int(c) for c in p)  # type: ignore[misc]
            for p in self.duitang_patterns
        )
        return classifier_for(str(self.six_ones), patterns, self.sijin_bonus, self.wuzi_bonus)

    def classify(self, dice: str | tuple[int, ...] | list[int]) -> Classification:
        """Classify a throw under these rules."""
        return self.classifier.classify(dice)

    def prize_count(self, tier: Tier) -> int:
        """How many cakes of ``tier`` the table plays for."""
        return self.prizes[TIERS.index(tier)]

    @property
    def prize_map(self) -> dict[Tier, int]:
        """Prize counts by tier, highest tier first."""
        return dict(zip(TIERS, self.prizes, strict=True))

    @property
    def total_cakes(self) -> int:
        """All cakes on the table."""
        return sum(self.prizes)

    def is_zhuangyuan_hand(self, hand: Hand) -> bool:
        """Whether ``hand`` makes a 状元 standing under these rules."""
        return hand in self.zhuangyuan_order

    def tier_of(self, hand: Hand) -> Tier | None:
        """The tier a hand wins: 状元 hands → ``zhuangyuan``, ordinary hands their own tier."""
        if hand in self.zhuangyuan_order:
            return Tier.ZHUANGYUAN
        return ORDINARY_HAND_TIER.get(hand)

    def zhuangyuan_key(self, c: Classification) -> tuple[int, int, int]:
        """A sort key for 状元 hands, larger is better; equal keys tie (the earlier throw wins).

        >>> from bobing.engine.presets import TRADITIONAL as r
        >>> r.zhuangyuan_key(r.classify("222226")) > r.zhuangyuan_key(r.classify("333331"))
        True
        """
        try:
            level = len(self.zhuangyuan_order) - self.zhuangyuan_order.index(c.hand)
        except ValueError:
            raise RulesError(
                f"{c.hand} is not a 状元 hand under these rules",
                code="not_zhuangyuan_hand",
                hand=str(c.hand),
            ) from None
        if c.hand is Hand.WUZI and self.wuzi_compare is WuziCompare.FACE_THEN_KICKER:
            return (level, c.face or 0, c.kicker or 0)
        return (level, c.kicker or 0, 0)

    # -- serialization ------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """Every switch as the JSON of a rule file (a complete override of its preset)."""
        return {
            "preset": self.preset,
            "zhuangyuan_order": [str(h) for h in self.zhuangyuan_order],
            "wuzi_compare": str(self.wuzi_compare),
            "sijin_bonus": self.sijin_bonus,
            "wuzi_bonus": self.wuzi_bonus,
            "chajinhua_duitang": str(self.chajinhua_duitang),
            "chajinhua_lugu": str(self.chajinhua_lugu),
            "standing": str(self.standing),
            "liubohong": str(self.liubohong),
            "liubohong_spares_chajinhua": self.liubohong_spares_chajinhua,
            "liubohei": str(self.liubohei),
            "six_ones": str(self.six_ones),
            "biandijin": str(self.biandijin),
            "chase": self.chase.to_json() if self.chase else None,
            "tiaohou": str(self.tiaohou),
            "direction": str(self.direction),
            "start_count": str(self.start_count),
            "end": str(self.end),
            "duitang_patterns": list(self.duitang_patterns),
            "prizes": {str(t): n for t, n in self.prize_map.items()},
            "max_players": self.max_players,
            "award": str(self.award),
            "ranked_prizes": None
            if self.ranked_prizes is None
            else [p.to_json() for p in self.ranked_prizes],
            "rounds": self.rounds,
        }

    def overrides(self) -> dict[str, Any]:
        """Only the switches that differ from this rule set's preset (compact rule files)."""
        from bobing.engine.presets import PRESETS

        base = PRESETS[self.preset].to_json()
        mine = self.to_json()
        diff: dict[str, Any] = {"preset": self.preset}
        for key, value in mine.items():
            if key != "preset" and base[key] != value:
                diff[key] = value
        return diff


SWITCHES: tuple[str, ...] = tuple(f.name for f in fields(RuleSet) if f.name != "preset")
"""Every switch name a rule file may set, in RULES.md order."""

_ENUM_SWITCHES: dict[str, type[StrEnum]] = {
    "wuzi_compare": WuziCompare,
    "chajinhua_duitang": ChajinhuaDuitang,
    "chajinhua_lugu": ChajinhuaLugu,
    "standing": Standing,
    "liubohong": LiubohongEffect,
    "liubohei": LiuboheiEffect,
    "six_ones": SixOnes,
    "biandijin": BiandijinEffect,
    "tiaohou": Tiaohou,
    "direction": Direction,
    "start_count": StartCount,
    "end": End,
    "award": Award,
}
_BOOL_SWITCHES: tuple[str, ...] = ("sijin_bonus", "wuzi_bonus", "liubohong_spares_chajinhua")


def allowed_values(switch: str) -> list[str]:
    """The values a switch accepts, for error messages and editors."""
    if switch in _ENUM_SWITCHES:
        return [str(v) for v in _ENUM_SWITCHES[switch]]
    if switch in _BOOL_SWITCHES:
        return ["true", "false"]
    if switch == "max_players":
        return [f"{MIN_PLAYERS}-{MAX_PLAYERS}"]
    if switch == "rounds":
        return ["null", f"1-{MAX_ROUNDS}"]
    if switch == "ranked_prizes":
        return ['null', '[{"name": ..., "count": N, "value": X}, ...]']
    if switch == "chase":
        return ['null', '{"tiers": [...], "from": "nearest_before" | "latest"}']
    if switch == "zhuangyuan_order":
        return [str(h) for h in _RANKABLE]
    if switch == "prizes":
        return [str(t) for t in TIERS]
    if switch == "duitang_patterns":
        return ["six digits 1-6, e.g. 123456 or 334455"]
    raise RulesError(f"unknown switch {switch!r}", code="unknown_switch", switch=switch)


_RANKABLE: tuple[Hand, ...] = (
    Hand.LIUBOHONG,
    Hand.BIANDIJIN,
    Hand.LIUBOHEI,
    Hand.CHAJINHUA,
    Hand.WUHONG,
    Hand.WUZI,
    Hand.SIHONG,
)


def required_zhuangyuan_hands(rules: RuleSet) -> set[Hand]:
    """The hands whose effect makes them 状元 hands under ``rules``."""
    required = set(ALWAYS_ZHUANGYUAN) | {Hand.LIUBOHONG}
    if rules.liubohei in (LiuboheiEffect.ZHUANGYUAN_END_SHARE, LiuboheiEffect.ZHUANGYUAN):
        required.add(Hand.LIUBOHEI)
    if rules.six_ones is SixOnes.BIANDIJIN and rules.biandijin in (
        BiandijinEffect.ZHUANGYUAN,
        BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END,
    ):
        required.add(Hand.BIANDIJIN)
    return required


def _why_not_zhuangyuan(rules: RuleSet, hand: Hand, why: Mapping[Hand, str]) -> RulesError:
    """Why ``hand`` may not be in zhuangyuan_order, as data a translation can use."""
    text = why.get(hand, f"{hand} is not a 状元 hand")
    if hand is Hand.LIUBOHEI:
        return RulesError(text, code="why_liubohei_effect", value=str(rules.liubohei))
    if hand is Hand.BIANDIJIN and rules.six_ones is SixOnes.LIUBOHEI:
        return RulesError(text, code="why_six_ones_liubohei")
    if hand is Hand.BIANDIJIN:
        return RulesError(text, code="why_biandijin_effect", value=str(rules.biandijin))
    return RulesError(text, code="why_not_zhuangyuan", hand=str(hand))


def _check_consistent(rules: RuleSet) -> None:
    order = rules.zhuangyuan_order
    seen: set[Hand] = set()
    for hand in order:
        if hand in seen:
            raise RulesError(
                f"zhuangyuan_order lists {hand!s} twice",
                code="order_duplicate",
                key="zhuangyuan_order",
                value=str(hand),
            )
        seen.add(hand)
    required = required_zhuangyuan_hands(rules)
    missing = [str(h) for h in _RANKABLE if h in required and h not in seen]
    if missing:
        raise RulesError(
            f"zhuangyuan_order must list {', '.join(missing)}: under these rules "
            f"{'it is a 状元 hand' if len(missing) == 1 else 'they are 状元 hands'}",
            code="order_missing_hand" if len(missing) == 1 else "order_missing_hands",
            key="zhuangyuan_order",
            value=missing,
        )
    extra = [str(h) for h in order if h not in required]
    if extra:
        why = {
            Hand.LIUBOHEI: f"liubohei is {rules.liubohei!s}, not a 状元 hand",
            Hand.BIANDIJIN: (
                "six_ones is liubohei, so 遍地锦 never occurs"
                if rules.six_ones is SixOnes.LIUBOHEI
                else f"biandijin is {rules.biandijin!s}, not a 状元 hand"
            ),
        }
        reasons = "; ".join(why.get(Hand(h), f"{h} is not a 状元 hand") for h in extra)
        raise RulesError(
            f"zhuangyuan_order must not list {', '.join(extra)}: {reasons}",
            code="order_extra",
            key="zhuangyuan_order",
            value=extra,
            reasons=[_why_not_zhuangyuan(rules, Hand(h), why) for h in extra],
        )
    if rules.chase is not None:
        if not rules.chase.tiers:
            raise RulesError(
                "chase.tiers must name at least one tier", code="chase_no_tiers", key="chase.tiers"
            )
        for tier in rules.chase.tiers:
            if tier not in ORDINARY_TIERS:
                raise RulesError(
                    f"chase.tiers cannot contain {tier!s}; allowed: "
                    + ", ".join(str(t) for t in ORDINARY_TIERS),
                    code="chase_tier_not_allowed",
                    key="chase.tiers",
                    value=str(tier),
                    allowed=[str(t) for t in ORDINARY_TIERS],
                )
    _check_award(rules)
    if rules.prizes[0] != 1:
        raise RulesError(
            f"prizes.zhuangyuan must be 1 (one 状元 cake), not {rules.prizes[0]}",
            code="zhuangyuan_prize_not_one",
            key="prizes.zhuangyuan",
            value=rules.prizes[0],
        )


def _check_award(rules: RuleSet) -> None:
    """``ranked_prizes`` and ``rounds`` belong to ranked mode, which needs a prize list."""
    if not MIN_PLAYERS <= rules.max_players <= MAX_PLAYERS:
        raise RulesError(
            f"invalid value {rules.max_players!r} for max_players: a whole number "
            f"{MIN_PLAYERS}-{MAX_PLAYERS}",
            code="invalid_whole_number",
            key="max_players",
            value=rules.max_players,
            minimum=MIN_PLAYERS,
            maximum=MAX_PLAYERS,
        )
    ranked = rules.award is Award.RANKED
    if ranked and not rules.ranked_prizes:
        raise RulesError(
            "award is ranked, so ranked_prizes must list the prizes, best first",
            code="ranked_prizes_missing",
            key="ranked_prizes",
        )
    if not ranked and rules.ranked_prizes is not None:
        raise RulesError(
            'ranked_prizes needs award "ranked" (award is cakes: the cakes of prizes are '
            "played for)",
            code="ranked_prizes_without_ranked",
            key="ranked_prizes",
        )
    if not ranked and rules.rounds is not None:
        raise RulesError(
            'rounds needs award "ranked" (a game for cakes ends when they are gone)',
            code="rounds_without_ranked",
            key="rounds",
            value=rules.rounds,
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
    unknown = sorted(set(value) - {"tiers", "from"})
    if unknown:
        raise RulesError(
            f"unknown key {unknown[0]!r} in chase; allowed: tiers, from",
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
    source = value.get("from", "nearest_before")
    if not isinstance(source, str) or source not in {str(s) for s in ChaseFrom}:
        raise RulesError(
            f"invalid value {source!r} for chase.from; allowed: "
            + ", ".join(str(s) for s in ChaseFrom),
            code="invalid_switch_value",
            key="chase.from",
            value=source,
            allowed=[str(s) for s in ChaseFrom],
        )
    return Chase(tuple(tiers), ChaseFrom(source))


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
            code="ranked_prize_not_object", key=where, index=index, value=item,
        )
    unknown = sorted(set(item) - {"name", "count", "value"})
    if unknown:
        raise RulesError(
            f"{where}: unknown key {unknown[0]!r}; allowed: name, count, value",
            code="ranked_prize_unknown_key", key=where, index=index, name=unknown[0],
        )
    name = item.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_PRIZE_NAME:
        raise RulesError(
            f"{where}: name must be text of 1-{MAX_PRIZE_NAME} characters, not {name!r}",
            code="ranked_prize_bad_name", key=where, index=index, value=name,
            limit=MAX_PRIZE_NAME,
        )
    count = item.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_PRIZE_COUNT:
        raise RulesError(
            f"{where}: count must be a whole number 1-{MAX_PRIZE_COUNT}, not {count!r}",
            code="ranked_prize_bad_count", key=where, index=index, value=count,
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
            code="ranked_prize_bad_value", key=where, index=index, value=worth,
            limit=MAX_PRIZE_VALUE,
        )
    return RankedPrize(name.strip(), count, worth)


def rules_from_json(value: Any) -> RuleSet:
    """Build rules from a preset name or alias, or a rule object ``{"preset": ..., overrides}``.

    >>> rules_from_json({"preset": "modern", "chase": {"tiers": ["duitang"]}}).chase.tiers
    (<Tier.DUITANG: 'duitang'>,)
    """
    from bobing.engine.presets import find_preset

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
        elif key == "ranked_prizes":
            changes[key] = _parse_ranked_prizes(raw)
    return replace(base, **changes)


def load_rules(spec: str | Path | Mapping[str, Any] | RuleSet | None = None) -> RuleSet:
    """Rules from a preset name or alias, a JSON rule file's path, a rule object, or None."""
    if spec is None:
        from bobing.engine.presets import DEFAULT_RULES

        return DEFAULT_RULES
    if isinstance(spec, RuleSet):
        return spec
    if isinstance(spec, Mapping):
        return rules_from_json(spec)
    text = str(spec)
    path = Path(text)
    looks_like_file = isinstance(spec, Path) or text.lower().endswith(".json") or any(
        sep in text for sep in ("/", "\\")
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


def __getattr__(name: str) -> Any:
    if name == "DEFAULT_RULES":
        from bobing.engine.presets import DEFAULT_RULES

        return DEFAULT_RULES
    raise AttributeError(name)


__all__ = [
    "HANDS",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "SWITCHES",
    "Award",
    "Chase",
    "RankedPrize",
    "RuleSet",
    "load_rules",
    "rules_from_json",
]
