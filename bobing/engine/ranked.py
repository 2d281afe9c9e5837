"""Ranked prizes (RULES.md §8.2): every throw gets a rank, each person their best, one prize each.

This module knows throws and prize lists, not games: the game keeps each player's best throw
(:class:`BestThrow`) in its state and asks :func:`rank_players` for the ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, NamedTuple

from bobing.engine.hands import Classification, Hand
from bobing.engine.switches import RankedPrize, RuleSet

# Below every 状元 hand: 六勃黑 and 遍地锦 when not listed, then the ordinary tiers, then nothing.
_BELOW_ZHUANGYUAN: dict[Hand, int] = {
    Hand.LIUBOHEI: 8,
    Hand.BIANDIJIN: 7,
    Hand.DUITANG: 6,
    Hand.SANHONG: 5,
    Hand.SIJIN: 4,
    Hand.ERJU: 3,
    Hand.YIXIU: 2,
    Hand.NONE: 1,
}

RankKey = tuple[int, int, int, int]
"""Larger is better; equal keys are equal throws (the earlier one ranks first)."""


def rank_key(rules: RuleSet, c: Classification) -> RankKey:
    """The rank of a throw in ranked mode (§8.2).

    >>> from bobing.engine.presets import TRADITIONAL as r
    >>> rank_key(r, r.classify("444412")) > rank_key(r, r.classify("555555"))
    True
    >>> rank_key(r, r.classify("333341")) == rank_key(r, r.classify("666641"))
    True
    """
    if c.hand in rules.zhuangyuan_order:
        level, first, second = rules.zhuangyuan_key(c)
        return (1, level, first, second)
    below = _BELOW_ZHUANGYUAN.get(c.hand, 0)
    face = (c.face or 0) if c.hand is Hand.LIUBOHEI else 0
    return (0, below, face, 0)


@lru_cache(maxsize=32)
def rank_levels(rules: RuleSet) -> tuple[RankKey, ...]:
    """Every distinct rank a throw can have under ``rules``, best first (for display).

    >>> from bobing.engine.presets import TRADITIONAL
    >>> len(rank_levels(TRADITIONAL))  # 23 状元 levels, 5 六勃黑 faces, 5 tiers, nothing
    34
    """
    keys = {rank_key(rules, c) for c in rules.classifier.multisets.values()}
    return tuple(sorted(keys, reverse=True))


class BestThrow(NamedTuple):
    """A player's best throw so far: its hand, dice, throw number and rank key."""

    hand: Hand
    dice: str
    throw: int
    key: RankKey


def better(rules: RuleSet, current: BestThrow | None, dice: str, throw: int) -> BestThrow | None:
    """The new best when ``dice`` is thrown at ``throw``, or None when ``current`` stays."""
    c = rules.classify(dice)
    key = rank_key(rules, c)
    if current is not None and key <= current.key:
        return None  # an equal throw does not replace the earlier one
    return BestThrow(c.hand, dice, throw, key)


@dataclass(frozen=True, slots=True)
class RankingEntry:
    """One line of the ranking: a player, their best throw (or None) and the prize it holds."""

    player: str
    hand: str | None
    dice: str | None
    throw: int | None
    prize: str | None
    value: int | float | None = None
    """The prize's ``value`` (what its winner pays under ``money`` = ``pay``); not in JSON."""

    def to_json(self) -> dict[str, Any]:
        """The ``ranking`` item of ``bobing adjudicate --json``."""
        return {
            "player": self.player,
            "hand": self.hand,
            "dice": self.dice,
            "throw": self.throw,
            "prize": self.prize,
        }


def prize_units(prizes: Sequence[RankedPrize] | None) -> list[RankedPrize]:
    """The prize list with one entry per unit of ``count``, best first.

    >>> [p.name for p in prize_units([RankedPrize("一等奖"), RankedPrize("二等奖", 2)])]
    ['一等奖', '二等奖', '二等奖']
    """
    return [prize for prize in prizes or () for _ in range(prize.count)]


def rank_players(
    rules: RuleSet,
    players: Sequence[str],
    play_order: Sequence[int],
    best: Sequence[BestThrow | None],
) -> tuple[RankingEntry, ...]:
    """Players by best throw (equal throws: the earlier first), then those with none in play
    order; the prizes of ``rules.ranked_prizes`` handed out in that order, one per person."""
    thrown = sorted(
        (seat for seat in play_order if best[seat] is not None),
        key=lambda seat: _order(best[seat]),
    )
    waiting = [seat for seat in play_order if best[seat] is None]
    units = prize_units(rules.ranked_prizes)
    out: list[RankingEntry] = []
    for place, seat in enumerate([*thrown, *waiting]):
        entry = best[seat]
        unit = units[place] if place < len(units) else None
        prize = None if unit is None else unit.name
        value = None if unit is None else unit.value
        if entry is None:
            out.append(RankingEntry(players[seat], None, None, None, prize, value))
        else:
            out.append(
                RankingEntry(players[seat], str(entry.hand), entry.dice, entry.throw, prize, value)
            )
    return tuple(out)


def _order(entry: BestThrow | None) -> tuple[tuple[int, ...], int]:
    assert entry is not None
    return (tuple(-k for k in entry.key), entry.throw)


__all__ = [
    "BestThrow",
    "RankingEntry",
    "better",
    "prize_units",
    "rank_key",
    "rank_levels",
    "rank_players",
]
