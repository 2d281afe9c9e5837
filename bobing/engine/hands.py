"""Hands and tiers, and classification of a throw by a precomputed table over the 462 multisets."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Protocol

from bobing.engine.dice import FACES, parse_dice


class Tier(StrEnum):
    """The six prize tiers, highest first."""

    ZHUANGYUAN = "zhuangyuan"
    DUITANG = "duitang"
    SANHONG = "sanhong"
    SIJIN = "sijin"
    ERJU = "erju"
    YIXIU = "yixiu"


TIERS: tuple[Tier, ...] = tuple(Tier)
ORDINARY_TIERS: tuple[Tier, ...] = TIERS[1:]


class Hand(StrEnum):
    """What a throw is (RULES.md §1), highest-precedence first."""

    LIUBOHONG = "liubohong"
    BIANDIJIN = "biandijin"
    LIUBOHEI = "liubohei"
    CHAJINHUA = "chajinhua"
    WUHONG = "wuhong"
    WUZI = "wuzi"
    SIHONG = "sihong"
    DUITANG = "duitang"
    SANHONG = "sanhong"
    SIJIN = "sijin"
    ERJU = "erju"
    YIXIU = "yixiu"
    NONE = "none"


HANDS: tuple[Hand, ...] = tuple(Hand)
ALWAYS_ZHUANGYUAN: frozenset[Hand] = frozenset(
    {Hand.CHAJINHUA, Hand.WUHONG, Hand.WUZI, Hand.SIHONG}
)
ORDINARY_HAND_TIER: dict[Hand, Tier] = {
    Hand.DUITANG: Tier.DUITANG,
    Hand.SANHONG: Tier.SANHONG,
    Hand.SIJIN: Tier.SIJIN,
    Hand.ERJU: Tier.ERJU,
    Hand.YIXIU: Tier.YIXIU,
}

Multiset = tuple[int, int, int, int, int, int]
"""Six faces in ascending order."""


@dataclass(frozen=True, slots=True)
class Classification:
    """What a multiset of six dice is: its hand, kicker, bonus tiers and the repeated face."""

    dice: Multiset
    hand: Hand
    kicker: int | None = None
    bonus: tuple[Tier, ...] = ()
    face: int | None = None

    @property
    def dice_text(self) -> str:
        """The sorted faces as a six-digit string."""
        return "".join(map(str, self.dice))


def classify_multiset(
    dice: Sequence[int],
    *,
    six_ones: str = "liubohei",
    duitang_patterns: frozenset[Multiset] = frozenset({(1, 2, 3, 4, 5, 6)}),
    sijin_bonus: bool = False,
    wuzi_bonus: bool = False,
) -> Classification:
    """Classify by RULES.md §2 directly (the table below is built from this).

    >>> classify_multiset((4, 4, 4, 4, 1, 2)).hand
    <Hand.SIHONG: 'sihong'>
    """
    ms: Multiset = tuple(sorted(dice))  # type: ignore[assignment]
    count = Counter(ms)
    fours = count[4]
    top_face, top = max(count.items(), key=lambda item: (item[1], item[0]))
    if fours == 6:
        return Classification(ms, Hand.LIUBOHONG)
    if count[1] == 6 and six_ones == "biandijin":
        return Classification(ms, Hand.BIANDIJIN)
    if top == 6:
        return Classification(ms, Hand.LIUBOHEI, kicker=top_face, face=top_face)
    if fours == 4 and count[1] == 2:
        return Classification(ms, Hand.CHAJINHUA, face=4)
    odd = [face for face in ms if face != top_face]
    if fours == 5:
        return Classification(ms, Hand.WUHONG, kicker=odd[0], face=4)
    if top == 5:
        # 五子带一秀: the odd die is a red 4 (003附『6』).
        extra: tuple[Tier, ...] = (Tier.YIXIU,) if wuzi_bonus and odd[0] == 4 else ()
        return Classification(ms, Hand.WUZI, kicker=odd[0], bonus=extra, face=top_face)
    if fours == 4:
        return Classification(ms, Hand.SIHONG, kicker=sum(odd), face=4)
    if ms in duitang_patterns:
        return Classification(ms, Hand.DUITANG)
    if fours == 3:
        return Classification(ms, Hand.SANHONG)
    if top == 4:
        bonus: tuple[Tier, ...] = ()
        if sijin_bonus and fours == 1:
            bonus = (Tier.YIXIU,)
        elif sijin_bonus and fours == 2:
            bonus = (Tier.ERJU,)
        return Classification(ms, Hand.SIJIN, bonus=bonus, face=top_face)
    if fours == 2:
        return Classification(ms, Hand.ERJU)
    if fours == 1:
        return Classification(ms, Hand.YIXIU)
    return Classification(ms, Hand.NONE)


MULTISETS: tuple[Multiset, ...] = tuple(
    itertools.combinations_with_replacement(FACES, 6)  # type: ignore[arg-type]
)
"""All 462 multisets of six dice."""

ORDERED_THROWS: tuple[tuple[int, ...], ...] = tuple(itertools.product(FACES, repeat=6))
"""All 46656 ordered throws."""


class Classifier:
    """A lookup table from every ordered throw (and every multiset) to its classification."""

    __slots__ = ("_by_multiset", "_table")

    def __init__(
        self,
        six_ones: str,
        duitang_patterns: frozenset[Multiset],
        sijin_bonus: bool,
        wuzi_bonus: bool = False,
    ) -> None:
        self._by_multiset: dict[Multiset, Classification] = {
            ms: classify_multiset(
                ms,
                six_ones=six_ones,
                duitang_patterns=duitang_patterns,
                sijin_bonus=sijin_bonus,
                wuzi_bonus=wuzi_bonus,
            )
            for ms in MULTISETS
        }

    def __getattr__(self, name: str) -> dict[tuple[int, ...], Classification]:
        # The ordered-throw table (46656 entries, ~50 ms) is built on first use, so that code
        # needing only the 462 multisets (odds, rankings, the CLI) does not pay for it.
        if name != "_table":
            raise AttributeError(name)
        by_multiset = self._by_multiset
        table: dict[tuple[int, ...], Classification] = {
            throw: by_multiset[tuple(sorted(throw))]  # type: ignore[index]
            for throw in ORDERED_THROWS
        }
        self._table = table
        return table

    def __call__(self, dice: tuple[int, ...]) -> Classification:
        """Classify six faces given as a tuple in any order (one dictionary lookup)."""
        return self._table[dice]

    def get(self, dice: tuple[int, ...]) -> Classification | None:
        """The classification of six valid faces, or None when ``dice`` is not such a tuple."""
        return self._table.get(dice)

    def classify(self, dice: str | Sequence[int]) -> Classification:
        """Classify dice in any accepted spelling, raising :class:`DiceError` when invalid."""
        return self._table[parse_dice(dice)]

    @property
    def multisets(self) -> dict[Multiset, Classification]:
        """The 462 multisets and their classifications."""
        return dict(self._by_multiset)


@lru_cache(maxsize=32)
def classifier_for(
    six_ones: str,
    duitang_patterns: frozenset[Multiset],
    sijin_bonus: bool,
    wuzi_bonus: bool = False,
) -> Classifier:
    """A cached classifier for the switches that change classification."""
    return Classifier(six_ones, duitang_patterns, sijin_bonus, wuzi_bonus)


class HasClassifier(Protocol):
    """Anything that knows how to classify (a :class:`~bobing.engine.switches.RuleSet`)."""

    @property
    def classifier(self) -> Classifier:
        """The lookup table for its classification switches."""
        ...


STANDARD_PATTERNS: frozenset[Multiset] = frozenset({(1, 2, 3, 4, 5, 6)})


def classify(dice: str | Sequence[int], rules: HasClassifier | None = None) -> Classification:
    """Classify a throw under ``rules`` (default: the standard classification of every preset:
    six 1s are 六勃黑, 123456 is 对堂, no bonus cakes).

    >>> classify("414144").hand
    <Hand.CHAJINHUA: 'chajinhua'>
    >>> classify("444426").kicker
    8
    """
    table = (
        rules.classifier
        if rules is not None
        else classifier_for("liubohei", STANDARD_PATTERNS, False)
    )
    return table.classify(dice)
