"""What a rule set is: every switch of RULES.md §5, §8 and §9 as validated, frozen data.

Reading rule files (and finding presets by name) is :mod:`bobing.engine.rules`; the presets
themselves are :mod:`bobing.engine.presets`. This module needs neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import StrEnum
from functools import cached_property
from typing import Any, get_type_hints

from bobing.engine.errors import RulesError
from bobing.engine.hands import (
    ALWAYS_ZHUANGYUAN,
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
    FRIENDLY_END_SANHONG = "friendly_end_sanhong"


class LiubohongDuitang(StrEnum):
    """Whether a 六勃红 (under ``liubohong`` = ``zhuangyuan``) that wins the 状元 also takes the
    对堂 cakes left (RULES.md §9.3)."""

    NONE = "none"
    AT_END = "at_end"


class ZhuangyuanCake(StrEnum):
    """Whether the 状元 cake goes to the 状元 or is shared by the table (分状元, §9.3)."""

    WINNER = "winner"
    SHARED = "shared"


class ChaseUntil(StrEnum):
    """How long 追 goes on: while other cakes are unclaimed, or to the end (§9.3)."""

    OTHERS_LEFT = "others_left"
    END = "end"


class Money(StrEnum):
    """Whether winners receive their prizes or pay their values into the kitty (反向博钱)."""

    RECEIVE = "receive"
    PAY = "pay"


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
    until: ChaseUntil = ChaseUntil.OTHERS_LEFT

    def to_json(self) -> dict[str, Any]:
        """The rule-file form ``{"tiers": [...], "from": ...}`` (``"until"`` only when ``end``,
        so old rule files read the same)."""
        out: dict[str, Any] = {"tiers": [str(t) for t in self.tiers], "from": str(self.source)}
        if self.until is not ChaseUntil.OTHERS_LEFT:
            out["until"] = str(self.until)
        return out


# Game limits: every layer above (the table server, the browser through ``GET /api/limits``,
# the command line) reads these names; none writes its own copy (docs/architecture.md, "Limits").
MAX_PRIZE_COUNT = 999
"""Cakes of one tier, or prizes on one ranked line, in a rule set (a whole class's 会饼)."""
MIN_PLAYERS = 2
"""The fewest players at a table."""
MAX_PLAYERS = 30
"""The hard ceiling of ``max_players``: no table seats more (RULES.md §8)."""
DEFAULT_MAX_PLAYERS = 12
"""Seats at a table unless its rules say otherwise (the customary 12)."""
MAX_RANKED_LINES = 50
"""Lines in a ranked prize list (each line may stand for many prizes)."""
MAX_PRIZE_NAME = 40
"""Characters in a prize's name (it is printed on table cards and shown on a phone)."""
MAX_PRIZE_VALUE = 1_000_000_000
"""The highest value of one prize or cake, in money (any real prize is far below it)."""
MAX_ROUNDS = 200
"""The most rounds a ranked session may set: a full table (``MAX_PLAYERS``) playing them all
writes 30 × 200 throws × 2 events = 12,000 events, inside a table's log (the server's
``Limits.max_events``, 20,000), and 200 rounds keep a small table's whole evening possible."""

MAX_SETS = 3
"""The most sets (一二会, RULES.md §10.2) one table plays one after another: the 一会 and 二会
of the seed, and a third for a family that bought three; each set is a whole game."""


@dataclass(frozen=True)
class RuleSet:
    """Every switch of RULES.md §5, §8 and §9. Build with :func:`load_rules`; validated on
    creation."""

    zhuangyuan_order: tuple[Hand, ...]
    wuzi_compare: WuziCompare = WuziCompare.KICKER
    sijin_bonus: bool = False
    wuzi_bonus: bool = False
    chajinhua_duitang: ChajinhuaDuitang = ChajinhuaDuitang.IMMEDIATE
    chajinhua_lugu: ChajinhuaLugu = ChajinhuaLugu.EXEMPT
    standing: Standing = Standing.LATEST
    liubohong: LiubohongEffect = LiubohongEffect.TAKE_ALL_END
    liubohong_spares_chajinhua: bool = False
    liubohong_duitang: LiubohongDuitang = LiubohongDuitang.NONE
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
    zhuangyuan_cake: ZhuangyuanCake = ZhuangyuanCake.WINNER
    money: Money = Money.RECEIVE
    values: tuple[tuple[Tier, int | float], ...] | None = None
    """With ``money`` = ``pay``: what each tier's cake costs its holder, TIERS order."""
    sets: int = 1
    """一二会 (RULES.md §10.2): games played one after another by the same seats (cakes only)."""
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

    def value_of(self, tier: Tier) -> int | float:
        """What one cake of ``tier`` costs its holder under ``money`` = ``pay`` (0 unpriced)."""
        for priced, value in self.values or ():
            if priced is tier:
                return value
        return 0

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
        """Every switch as the JSON of a rule file (a complete override of its preset),
        derived from the dataclass fields: a new switch is serialized without a line here."""
        out: dict[str, Any] = {"preset": self.preset}
        for name in SWITCHES:
            value = getattr(self, name)
            if name == "prizes":
                out[name] = {str(t): n for t, n in self.prize_map.items()}
            elif name == "values":
                out[name] = None if value is None else {str(t): v for t, v in value}
            else:
                out[name] = _json_of(value)
        return out

    def overrides(self) -> dict[str, Any]:
        """Only the switches that differ from this rule set's preset (compact rule files)."""
        base = PRESET_BASES[self.preset].to_json()
        mine = self.to_json()
        diff: dict[str, Any] = {"preset": self.preset}
        for key, value in mine.items():
            if key != "preset" and base[key] != value:
                diff[key] = value
        return diff


PRESET_BASES: dict[str, RuleSet] = {}
"""The named rule sets that :meth:`RuleSet.overrides` compares against, by preset id.

Filled by :mod:`bobing.engine.presets` (:func:`register_preset`): this module defines what a
rule set is and needs no preset to do so.
"""


def register_preset(rules: RuleSet) -> RuleSet:
    """Make ``rules`` the base of every rule set that names its preset."""
    PRESET_BASES[rules.preset] = rules
    return rules


SWITCHES: tuple[str, ...] = tuple(f.name for f in fields(RuleSet) if f.name != "preset")
"""Every switch name a rule file may set, in RULES.md order."""

_SWITCH_TYPES: dict[str, Any] = {
    name: hint for name, hint in get_type_hints(RuleSet).items() if name in SWITCHES
}
_ENUM_SWITCHES: dict[str, type[StrEnum]] = {
    name: hint
    for name, hint in _SWITCH_TYPES.items()
    if isinstance(hint, type) and issubclass(hint, StrEnum)
}
"""The switches whose value is one of an enum's, from the field types."""
_BOOL_SWITCHES: tuple[str, ...] = tuple(n for n, hint in _SWITCH_TYPES.items() if hint is bool)
"""The on/off switches, from the field types."""


def _json_of(value: Any) -> Any:
    """A switch value as rule-file JSON: enums by value, tuples as lists, parts by to_json."""
    if isinstance(value, StrEnum):
        return str(value)
    if isinstance(value, tuple):
        return [_json_of(v) for v in value]
    to_json = getattr(value, "to_json", None)
    return to_json() if to_json is not None else value


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
    if switch == "sets":
        return [f"1-{MAX_SETS}"]
    if switch == "ranked_prizes":
        return ["null", '[{"name": ..., "count": N, "value": X}, ...]']
    if switch == "chase":
        return [
            "null",
            '{"tiers": [...], "from": "nearest_before" | "latest", "until": "others_left" | "end"}',
        ]
    if switch == "values":
        return ["null", '{"zhuangyuan": X, "duitang": X, ...} (a number >= 0 per tier)']
    if switch == "zhuangyuan_order":
        return [str(h) for h in _RANKABLE]
    if switch == "prizes":
        return [str(t) for t in TIERS]
    if switch == "duitang_patterns":
        return ["six digits 1-6, e.g. 123456 or 334455"]
    raise RulesError(f"unknown switch {switch!r}", code="unknown_switch", switch=switch)


def choice_switches() -> dict[str, list[str] | list[bool] | list[int]]:
    """Every switch that takes one of a few values, in RULES.md order, with its values.

    >>> choice_switches()["wuzi_bonus"], choice_switches()["standing"], choice_switches()["sets"]
    ([False, True], ['latest', 'best'], [1, 2, 3])
    """
    out: dict[str, list[str] | list[bool] | list[int]] = {}
    for name in SWITCHES:
        if name in _ENUM_SWITCHES:
            out[name] = [str(v) for v in _ENUM_SWITCHES[name]]
        elif name in _BOOL_SWITCHES:
            out[name] = [False, True]
        elif name == "sets":
            out[name] = list(range(1, MAX_SETS + 1))
    return out


_APPLIES_WHEN: dict[str, tuple[str, str]] = {
    "biandijin": ("six_ones", "biandijin"),
    "liubohong_spares_chajinhua": ("liubohong", "take_all_end"),
    "liubohong_duitang": ("liubohong", "zhuangyuan"),
    "values": ("money", "pay"),
}
"""Switches that only matter when another switch has a value (RULES.md §5)."""


def switch_applies(rules: RuleSet, switch: str) -> bool:
    """Whether ``switch`` has any effect under the other switches of ``rules``.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> switch_applies(TRADITIONAL, "biandijin"), switch_applies(TRADITIONAL, "standing")
    (False, True)
    """
    if switch not in _APPLIES_WHEN:
        return True
    other, value = _APPLIES_WHEN[switch]
    return str(getattr(rules, other)) == value


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
    return zhuangyuan_hands_for(rules.liubohei, rules.six_ones, rules.biandijin)


def zhuangyuan_hands_for(
    liubohei: LiuboheiEffect, six_ones: SixOnes, biandijin: BiandijinEffect
) -> set[Hand]:
    """The 状元 hands under these three switches (the only ones that change the set)."""
    required = set(ALWAYS_ZHUANGYUAN) | {Hand.LIUBOHONG}
    if liubohei in (LiuboheiEffect.ZHUANGYUAN_END_SHARE, LiuboheiEffect.ZHUANGYUAN):
        required.add(Hand.LIUBOHEI)
    if six_ones is SixOnes.BIANDIJIN and biandijin in (
        BiandijinEffect.ZHUANGYUAN,
        BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END,
    ):
        required.add(Hand.BIANDIJIN)
    return required


def fit_zhuangyuan_order(order: Sequence[Hand], required: set[Hand]) -> tuple[Hand, ...]:
    """``order`` with the hands no longer 状元 hands dropped and new ones put in place.

    A new hand goes just above the first listed hand below it in precedence (RULES.md §1).

    >>> fit_zhuangyuan_order([Hand.CHAJINHUA, Hand.SIHONG], {Hand.CHAJINHUA, Hand.WUHONG})
    (<Hand.CHAJINHUA: 'chajinhua'>, <Hand.WUHONG: 'wuhong'>)
    """
    fitted: list[Hand] = []
    for hand in order:
        if hand in required and hand not in fitted:
            fitted.append(hand)
    for hand in _RANKABLE:
        if hand in required and hand not in fitted:
            below = [i for i, h in enumerate(fitted) if _RANKABLE.index(h) > _RANKABLE.index(hand)]
            fitted.insert(below[0] if below else len(fitted), hand)
    return tuple(fitted)


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
    _check_section9(rules)
    if rules.prizes[0] != 1:
        raise RulesError(
            f"prizes.zhuangyuan must be 1 (one 状元 cake), not {rules.prizes[0]}",
            code="zhuangyuan_prize_not_one",
            key="prizes.zhuangyuan",
            value=rules.prizes[0],
        )


def _check_whole(key: str, value: int, minimum: int, maximum: int) -> None:
    """A whole-number switch within its bounds, else ``invalid_whole_number`` naming them."""
    if not minimum <= value <= maximum:
        raise RulesError(
            f"invalid value {value!r} for {key}: a whole number {minimum}-{maximum}",
            code="invalid_whole_number",
            key=key,
            value=value,
            minimum=minimum,
            maximum=maximum,
        )


def _check_award(rules: RuleSet) -> None:
    """``ranked_prizes`` and ``rounds`` belong to ranked mode, which needs a prize list."""
    _check_whole("max_players", rules.max_players, MIN_PLAYERS, MAX_PLAYERS)
    if rules.rounds is not None:
        _check_whole("rounds", rules.rounds, 1, MAX_ROUNDS)
    _check_whole("sets", rules.sets, 1, MAX_SETS)
    ranked = rules.award is Award.RANKED
    if ranked and rules.sets > 1:
        raise RulesError(
            f'sets {rules.sets} needs award "cakes" (award is ranked: one prize per person, '
            "there is no second set of cakes to play for)",
            code="sets_with_ranked",
            key="sets",
            other="award",
            value=rules.sets,
        )
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


def _check_section9(rules: RuleSet) -> None:
    """RULES.md §9.3: each switch that needs another names both when it lacks it."""
    ranked = rules.award is Award.RANKED
    if (
        rules.liubohong_duitang is not LiubohongDuitang.NONE
        and rules.liubohong is not LiubohongEffect.ZHUANGYUAN
    ):
        raise RulesError(
            'liubohong_duitang at_end needs liubohong "zhuangyuan" '
            f"(liubohong is {rules.liubohong!s}: a 六勃红 that ends the game takes its cakes "
            "at once)",
            code="liubohong_duitang_without_zhuangyuan",
            key="liubohong_duitang",
            other="liubohong",
            value=str(rules.liubohong),
        )
    if ranked and rules.zhuangyuan_cake is ZhuangyuanCake.SHARED:
        raise RulesError(
            'zhuangyuan_cake "shared" needs award "cakes" (award is ranked: there is no 状元 '
            "cake to share)",
            code="shared_without_cakes",
            key="zhuangyuan_cake",
            other="award",
        )
    pay = rules.money is Money.PAY
    if rules.values is not None and not pay:
        raise RulesError(
            'values needs money "pay" (money is receive: nobody pays for a cake)',
            code="values_without_pay",
            key="values",
            other="money",
        )
    if rules.values is not None and ranked:
        raise RulesError(
            'values prices cakes, but award is ranked: give each of ranked_prizes a "value"',
            code="values_with_ranked",
            key="values",
            other="award",
        )
    if not pay:
        return
    if ranked:
        missing_value = [p.name for p in rules.ranked_prizes or () if p.value is None]
        if missing_value:
            raise RulesError(
                'money is pay, so every one of ranked_prizes needs a "value" (missing: '
                + ", ".join(missing_value)
                + ")",
                code="pay_without_prize_values",
                key="ranked_prizes",
                other="money",
                value=missing_value,
            )
        return
    if rules.values is None:
        raise RulesError(
            'money is pay, so values must say what each cake costs, e.g. {"zhuangyuan": 100, '
            '"duitang": 50, ...}',
            code="pay_without_values",
            key="values",
            other="money",
        )
    priced = {t for t, _ in rules.values}
    unpriced = [str(t) for t, n in rules.prize_map.items() if n and t not in priced]
    if unpriced:
        raise RulesError(
            "money is pay, so values must price every tier that has cakes (missing: "
            + ", ".join(unpriced)
            + ")",
            code="values_missing_tiers",
            key="values",
            other="money",
            value=unpriced,
        )
