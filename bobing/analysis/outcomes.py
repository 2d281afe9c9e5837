"""What a throw comes to under a rule set, and how one whole game went.

The 46 656 ordered throws fall into a handful of *outcome classes* under a rule set: throws
that win the same tiers, set the same 状元 key and have the same effect. The simulation kernel
(:mod:`bobing.analysis.kernel`) compiles its throw table from them and the Markov chain
(:mod:`bobing.analysis.markov`) its moves; both sit above this module and neither needs the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.engine.hands import ORDINARY_HAND_TIER, TIERS, Hand
from bobing.engine.rules import (
    BiandijinEffect,
    ChajinhuaDuitang,
    LiuboheiEffect,
    LiubohongEffect,
    RuleSet,
)

Array = NDArray[Any]

OUTCOMES = 6**6
"""Ordered throws of six dice; a throw is drawn as an index into :data:`ORDERED_THROWS`."""
JUMP = OUTCOMES
"""The throw index that stands for 跳猴 in given throw sequences."""
GAME_ENDINGS: tuple[str, ...] = ("exhausted", "liubohong", "liubohei", "biandijin")
"""The ways a game of cakes ends by itself (RULES.md §7 ``ended_by`` ids)."""
REASONS: tuple[str, ...] = (*GAME_ENDINGS, "closed")
"""``ended_by`` ids of a game of cakes, indexed by the kernel's reason codes: the ways it ends
by itself and a close (time called, RULES.md §8.1) with non-状元 cakes still unclaimed."""
CLOSED = REASONS.index("closed")

NO_TIER = 6
"""The tier index of "no tier" (the kernel's pool has a seventh, always empty column)."""


class Effect(IntEnum):
    """What a throw does beyond taking cakes and setting a standing."""

    NONE = 0
    SWEEP_ALL = 1  # 六勃红 take_all_end
    TAKE_REST = 2  # 六勃红 take_remaining_end (also a 状元 hand)
    GRAB = 3  # 六勃黑 grab_end
    END_SHARE = 4  # 六勃黑 zhuangyuan_end_share (also a 状元 hand)
    BIANDIJIN = 5  # 遍地锦 take_remaining_end
    FRIENDLY = 6  # 六勃红 friendly_end: the 状元 cake and the 对堂 left; the rest is shared
    TAKE_ONE = 7  # 六勃黑 take_one: the best ordinary cake left; play goes on
    BIANDIJIN_REST = 8  # 遍地锦 zhuangyuan_take_remaining_end (also a 状元 hand)
    FRIENDLY_SANHONG = 9  # 六勃红 friendly_end_sanhong: as FRIENDLY, and the 三红 left


@dataclass(frozen=True, slots=True)
class OutcomeClass:
    """Throws that act alike under a rule set (same tiers, same 状元 key, same effect)."""

    tier: int
    """TIERS index of the ordinary tier won (1..5), or 6 for none."""
    bonus: int
    """TIERS index of the bonus tier (四进's with ``sijin_bonus``, 五子带一秀's), or 6."""
    key: int
    """The 状元 key as one integer (larger is better), 0 when not a 状元 hand."""
    effect: Effect
    chajinhua_duitang: bool
    """插金花 taking up to two 对堂 cakes at once."""
    count: int = 0
    """Ordered throws (out of 46656) in this class."""

    @property
    def rare(self) -> bool:
        """Whether the kernel handles this class outside the plain "take one cake" path."""
        return bool(self.key or self.effect or self.bonus != NO_TIER or self.chajinhua_duitang)


def encode_key(key: tuple[int, int, int]) -> int:
    """One integer ordering 状元 keys like the tuples of :meth:`RuleSet.zhuangyuan_key`.

    >>> encode_key((5, 12, 0)) > encode_key((5, 11, 6)) > encode_key((4, 12, 12))
    True
    """
    level, a, b = key
    return (level << 8) | (a << 4) | b


@lru_cache(maxsize=1)
def multiset_index() -> tuple[Array, list[tuple[int, ...]]]:
    """For every ordered throw index, the index of its multiset in a list of the 462."""
    u = np.arange(OUTCOMES)
    digits = np.stack([(u // 6 ** (5 - i)) % 6 + 1 for i in range(6)], axis=1)
    digits.sort(axis=1)
    enc = digits @ (7 ** np.arange(5, -1, -1))
    _, first, inverse = np.unique(enc, return_index=True, return_inverse=True)
    multisets = [tuple(int(x) for x in digits[i]) for i in first]
    return inverse.astype(np.int64), multisets


def _outcome_class(rules: RuleSet, dice: tuple[int, ...]) -> OutcomeClass:
    c = rules.classifier(dice)
    hand = c.hand
    key = encode_key(rules.zhuangyuan_key(c)) if rules.is_zhuangyuan_hand(hand) else 0
    effect = Effect.NONE
    tier = NO_TIER
    bonus = NO_TIER
    chj = False
    if hand is Hand.LIUBOHONG:
        if rules.liubohong is LiubohongEffect.TAKE_ALL_END:
            effect, key = Effect.SWEEP_ALL, 0
        elif rules.liubohong is LiubohongEffect.TAKE_REMAINING_END:
            effect = Effect.TAKE_REST
        elif rules.liubohong is LiubohongEffect.FRIENDLY_END:
            effect, key = Effect.FRIENDLY, 0
        elif rules.liubohong is LiubohongEffect.FRIENDLY_END_SANHONG:
            effect, key = Effect.FRIENDLY_SANHONG, 0
    elif hand is Hand.BIANDIJIN:
        if rules.biandijin is BiandijinEffect.TAKE_REMAINING_END:
            effect, key = Effect.BIANDIJIN, 0
        elif rules.biandijin is BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END:
            effect = Effect.BIANDIJIN_REST
    elif hand is Hand.LIUBOHEI:
        if rules.liubohei is LiuboheiEffect.GRAB_END:
            effect, key = Effect.GRAB, 0
        elif rules.liubohei is LiuboheiEffect.ZHUANGYUAN_END_SHARE:
            effect = Effect.END_SHARE
        elif rules.liubohei is LiuboheiEffect.TAKE_ONE:
            effect, key = Effect.TAKE_ONE, 0
        elif rules.liubohei is LiuboheiEffect.IGNORE:
            key = 0
    elif hand is Hand.CHAJINHUA:
        chj = rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
    elif hand in ORDINARY_HAND_TIER:
        tier = TIERS.index(ORDINARY_HAND_TIER[hand])
    if c.bonus and (tier != NO_TIER or key):
        # 四进's bonus (sijin_bonus) or 五子带一秀 (wuzi_bonus): one cake, from the pool only.
        bonus = TIERS.index(c.bonus[0])
    return OutcomeClass(tier, bonus, key, effect, chj)


@lru_cache(maxsize=64)
def outcome_classes(rules: RuleSet) -> tuple[tuple[OutcomeClass, ...], Array]:
    """The distinct outcome classes under ``rules`` (with throw counts) and, for each of the
    46656 ordered throws, the index of its class."""
    inverse, multisets = multiset_index()
    classes: dict[OutcomeClass, int] = {}
    per_multiset = np.empty(len(multisets), np.int64)
    for i, ms in enumerate(multisets):
        oc = _outcome_class(rules, ms)
        per_multiset[i] = classes.setdefault(oc, len(classes))
    index = per_multiset[inverse]
    counts = np.bincount(index, minlength=len(classes))
    with_counts = tuple(
        OutcomeClass(oc.tier, oc.bonus, oc.key, oc.effect, oc.chajinhua_duitang, int(counts[i]))
        for oc, i in classes.items()
    )
    return with_counts, index


EFFECT_REASON = {
    Effect.SWEEP_ALL: 1,
    Effect.TAKE_REST: 1,
    Effect.GRAB: 2,
    Effect.END_SHARE: 2,
    Effect.BIANDIJIN: 3,
    Effect.FRIENDLY: 1,
    Effect.BIANDIJIN_REST: 3,
    Effect.FRIENDLY_SANHONG: 1,
}
"""The :data:`REASONS` index of the way each ending effect ends a game (``TAKE_ONE`` does not
end it)."""


@dataclass(frozen=True, slots=True)
class GameTrace:
    """How one game went, by seat in play order from the starter."""

    throws: int
    turns: int
    ended_by: str
    holdings: tuple[tuple[int, ...], ...]
    """Final cakes per seat and tier (TIERS order), grab included."""
    grabbed: tuple[tuple[int, ...], ...]
    """The part of ``holdings`` that came from the lights-off grab."""
    zhuangyuan: int
    """The seat holding the 状元 cake at the end (-1: nobody, after a close with no standing);
    with ``zhuangyuan_cake`` = ``shared`` the seat named 状元, though nobody holds the cake."""
    exhausted_first: bool
    """Every non-状元 cake was gone before anyone had a 状元 hand."""

    @property
    def rounds(self) -> int:
        """Rounds begun (the last may be partial)."""
        return (self.turns - 1) // len(self.holdings) + 1


__all__ = [
    "CLOSED",
    "EFFECT_REASON",
    "GAME_ENDINGS",
    "JUMP",
    "NO_TIER",
    "OUTCOMES",
    "REASONS",
    "Effect",
    "GameTrace",
    "OutcomeClass",
    "encode_key",
    "multiset_index",
    "outcome_classes",
]
