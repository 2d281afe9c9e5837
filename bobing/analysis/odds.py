"""Exact odds of one throw under any rule set: per hand, per tier, and the 状元 kickers.

Every count is a number of ordered throws out of 6**6 = 46656. They are computed from the 462
multisets, each weighted by how many orders it has (6! / the product of its face counts'
factorials), which is exact and takes a couple of milliseconds; the tests check the result
against a full enumeration. Standard library only, so the web app can call it freely.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import factorial
from typing import Any

from bobing.engine.hands import ORDERED_THROWS, Classification, Hand, Tier
from bobing.engine.ranking import zhuangyuan_ranking
from bobing.engine.rules import RuleSet

TOTAL_THROWS = 6**6
"""Ordered throws of six dice: 46656."""

_SWEEPS = {"take_all_end", "take_remaining_end"}


def orderings(dice: tuple[int, ...]) -> int:
    """How many ordered throws show this multiset.

    >>> orderings((1, 2, 3, 4, 5, 6)), orderings((4, 4, 4, 4, 1, 2)), orderings((4,) * 6)
    (720, 30, 1)
    """
    weight = factorial(len(dice))
    for count in Counter(dice).values():
        weight //= factorial(count)
    return weight


@dataclass(frozen=True, slots=True)
class Share:
    """A number of ordered throws out of :data:`TOTAL_THROWS`."""

    count: int

    @property
    def probability(self) -> float:
        """The chance of one throw, 0..1."""
        return self.count / TOTAL_THROWS

    @property
    def one_in(self) -> float | None:
        """``N`` of "1 in N" (None when the count is 0)."""
        return TOTAL_THROWS / self.count if self.count else None

    def to_json(self) -> dict[str, Any]:
        """``{"count": .., "probability": .., "one_in": ..}``."""
        return {"count": self.count, "probability": self.probability, "one_in": self.one_in}


@dataclass(frozen=True, slots=True)
class TierOdds:
    """The throws that win a cake of one tier at the start of a game, and which hands they are."""

    tier: Tier
    share: Share
    sources: dict[Hand, int]

    def to_json(self) -> dict[str, Any]:
        """The share plus ``"sources": {hand: count}``."""
        return {**self.share.to_json(), "sources": {str(h): n for h, n in self.sources.items()}}


@dataclass(frozen=True, slots=True)
class ZhuangyuanLevel:
    """One level of the 状元 order (highest first) and how many throws reach it."""

    rank: int
    hand: Hand
    kicker: int | None
    dice: tuple[str, ...]
    count: int


@dataclass(frozen=True, slots=True)
class Odds:
    """The exact distribution of one throw under ``rules``."""

    rules: RuleSet
    hands: dict[Hand, int]
    """Throws per hand, in precedence order: every hand the rules can produce, and ``none``."""
    tiers: dict[Tier, TierOdds]
    """Per tier, highest first: throws that win a cake of it at the start of a game."""
    kickers: dict[Hand, dict[int, int]]
    """For 状元 hands with a kicker: throws per kicker, best kicker first."""
    sijin_by_fours: dict[int, int]
    """四进 throws by how many red 4s come with them (0, 1, 2)."""
    zhuangyuan_levels: tuple[ZhuangyuanLevel, ...]
    """The whole 状元 order with the throws at each level."""
    total: int = TOTAL_THROWS

    def share(self, hand: Hand) -> Share:
        """The share of one hand (zero when the rules never produce it)."""
        return Share(self.hands.get(hand, 0))

    @property
    def zhuangyuan_count(self) -> int:
        """Throws of any 状元 hand."""
        return sum(level.count for level in self.zhuangyuan_levels)

    def to_json(self) -> dict[str, Any]:
        """The ``bobing odds --json`` object (keys are RULES.md ids; counts are integers)."""
        return {
            "rules": self.rules.overrides(),
            "total": self.total,
            "hands": {str(h): n for h, n in self.hands.items()},
            "hand_odds": {str(h): Share(n).to_json() for h, n in self.hands.items()},
            "tiers": {str(t): odds.to_json() for t, odds in self.tiers.items()},
            "zhuangyuan": {
                **Share(self.zhuangyuan_count).to_json(),
                "levels": [
                    {
                        "rank": level.rank,
                        "hand": str(level.hand),
                        "kicker": level.kicker,
                        "dice": list(level.dice),
                        "count": level.count,
                    }
                    for level in self.zhuangyuan_levels
                ],
            },
            "kickers": {
                str(h): {str(k): n for k, n in dist.items()} for h, dist in self.kickers.items()
            },
            "sijin_by_fours": {str(k): n for k, n in self.sijin_by_fours.items()},
        }


def tiers_won(c: Classification, rules: RuleSet) -> tuple[Tier, ...]:
    """The tiers of which this throw wins a cake at the start of a game (full pool).

    状元 hands count for ``zhuangyuan`` (they claim the 状元 cake, decided at the end); a sweep
    (六勃红 ``take_all_end``/``take_remaining_end``, 遍地锦 ``take_remaining_end``) counts for
    every tier; 六勃黑 under ``grab_end`` counts for none (the grab is not the thrower's win).

    >>> from bobing.engine.presets import MODERN as r
    >>> [str(t) for t in tiers_won(r.classify("333341"), r)]
    ['sijin', 'yixiu']
    """
    won: list[Tier] = []
    switch = {Hand.LIUBOHONG: rules.liubohong, Hand.BIANDIJIN: rules.biandijin}.get(c.hand)
    if switch is not None and str(switch) in _SWEEPS:
        won = list(Tier)
    elif rules.is_zhuangyuan_hand(c.hand):
        won = [Tier.ZHUANGYUAN]
        if c.hand is Hand.CHAJINHUA and str(rules.chajinhua_duitang) == "immediate":
            won.append(Tier.DUITANG)
    else:
        tier = rules.tier_of(c.hand)
        if tier is not None:
            won = [tier, *c.bonus]
    return tuple(t for t in won if rules.prize_count(t) > 0)


def odds(rules: RuleSet) -> Odds:
    """The exact odds of one throw under ``rules``.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> o = odds(TRADITIONAL)
    >>> o.hands[Hand.YIXIU], o.tiers[Tier.ZHUANGYUAN].share.count
    (17400, 556)
    """
    hands: Counter[Hand] = Counter()
    tier_sources: dict[Tier, Counter[Hand]] = {tier: Counter() for tier in Tier}
    sijin_by_fours: Counter[int] = Counter()
    for dice, c in rules.classifier.multisets.items():
        weight = orderings(dice)
        hands[c.hand] += weight
        for tier in tiers_won(c, rules):
            tier_sources[tier][c.hand] += weight
        if c.hand is Hand.SIJIN:
            sijin_by_fours[dice.count(4)] += weight

    levels: list[ZhuangyuanLevel] = []
    kickers: dict[Hand, dict[int, int]] = {}
    for rank, level in enumerate(zhuangyuan_ranking(rules), start=1):
        count = sum(orderings(c.dice) for c in level)
        head = level[0]
        levels.append(
            ZhuangyuanLevel(rank, head.hand, head.kicker, tuple(c.dice_text for c in level), count)
        )
    for c in (c for level in zhuangyuan_ranking(rules) for c in level):
        if c.kicker is not None:
            dist = kickers.setdefault(c.hand, {})
            dist[c.kicker] = dist.get(c.kicker, 0) + orderings(c.dice)
    for hand, dist in kickers.items():
        # Best kicker first, as in the ranking (face_then_kicker visits kickers per face).
        kickers[hand] = dict(sorted(dist.items(), reverse=True))

    shown = {hand: n for hand in Hand if (n := hands[hand]) or hand is Hand.NONE}
    return Odds(
        rules=rules,
        hands=shown,
        tiers={
            tier: TierOdds(tier, Share(sum(src.values())), dict(_by_precedence(src)))
            for tier, src in tier_sources.items()
        },
        kickers=kickers,
        sijin_by_fours={k: sijin_by_fours[k] for k in (0, 1, 2)},
        zhuangyuan_levels=tuple(levels),
    )


def _by_precedence(counts: Counter[Hand]) -> list[tuple[Hand, int]]:
    return [(hand, counts[hand]) for hand in Hand if counts[hand]]


def enumerate_hands(rules: RuleSet) -> Counter[Hand]:
    """Hand counts by classifying every one of the 46656 ordered throws (slow path, for checks)."""
    classifier = rules.classifier
    return Counter(classifier(throw).hand for throw in ORDERED_THROWS)


__all__ = [
    "TOTAL_THROWS",
    "Odds",
    "Share",
    "TierOdds",
    "ZhuangyuanLevel",
    "enumerate_hands",
    "odds",
    "orderings",
    "tiers_won",
]
