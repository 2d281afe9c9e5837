"""Classifying many throws at once: an ``(N, 6)`` array of faces in, NumPy arrays out.

The engine classifies one throw at a time (:meth:`RuleSet.classify`, a dictionary lookup). For
millions of throws — a simulation, a research script, a bulk re-judging — this module compiles
the same answers into flat tables over the 46,656 ordered throws and looks a whole array up in
one vectorised step. It restates no rule: every table entry is the engine's own classification
of that throw under the rule set, so the two cannot disagree (``tests/analysis/test_batch.py``
checks every throw under every preset and every switch value).

>>> import numpy as np
>>> from bobing.engine.presets import TRADITIONAL
>>> out = classify_many(np.array([[4, 4, 4, 4, 1, 2], [1, 2, 3, 4, 5, 6]]), TRADITIONAL)
>>> [str(h) for h in out.hand_ids()], [str(t) for t in out.tier_ids()], out.kicker.tolist()
(['sihong', 'duitang'], ['zhuangyuan', 'duitang'], [3, -1])
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from bobing.engine.errors import DiceError
from bobing.engine.hands import HANDS, TIERS, Classifier, Hand, Tier
from bobing.engine.rules import RuleSet

Array = NDArray[Any]

NONE = -1
"""The code of "no tier", "no kicker" and "no bonus" in the result arrays."""
ORDERED = 6**6
_WEIGHTS = 6 ** np.arange(5, -1, -1, dtype=np.int64)
"""Die ``i`` (0-based, first die most significant) weighs ``6 ** (5 - i)`` in a throw's index."""


@dataclass(frozen=True, slots=True)
class BatchClassification:
    """The classifications of ``N`` throws, one entry per throw in the order given.

    Codes index the engine's own tuples, so they translate back without a table of our own:
    ``hand`` into :data:`bobing.engine.hands.HANDS`, ``tier`` and ``bonus`` into
    :data:`bobing.engine.hands.TIERS` (``-1``: none), ``kicker`` is the kicker itself (the sum
    for 四红, the odd die for 五红 and 五子, the face for 六勃黑; ``-1``: none).
    """

    hand: Array
    """``int8`` codes into ``HANDS``."""
    tier: Array
    """``int8`` codes into ``TIERS`` of the tier the hand wins under the rules, or -1."""
    kicker: Array
    """``int8`` kickers, or -1."""
    bonus: Array
    """``int8`` codes into ``TIERS`` of the bonus cake (四进带一秀/二举, 五子带一秀), or -1."""

    def __len__(self) -> int:
        return int(self.hand.shape[0])

    def hand_ids(self) -> list[Hand]:
        """The hands as the engine's :class:`Hand` values (for small batches and tests)."""
        return [HANDS[code] for code in self.hand.tolist()]

    def tier_ids(self) -> list[Tier | None]:
        """The tiers as :class:`Tier` values, None where the hand wins no tier."""
        return [None if code == NONE else TIERS[code] for code in self.tier.tolist()]

    def bonus_ids(self) -> list[Tier | None]:
        """The bonus tiers as :class:`Tier` values, None where there is none."""
        return [None if code == NONE else TIERS[code] for code in self.bonus.tolist()]


@dataclass(frozen=True, slots=True)
class _Tables:
    hand: Array
    tier: Array
    kicker: Array
    bonus: Array


_CACHE: dict[tuple[Classifier, tuple[Hand, ...]], _Tables] = {}
_CACHE_SIZE = 64


def _tables(rules: RuleSet) -> _Tables:
    """The four lookup tables over every ordered throw, from the engine's own answers.

    Cached by what they depend on: the rule set's classifier (its classification switches)
    and its 状元 order (which hands win the 状元 tier).
    """
    key = (rules.classifier, tuple(rules.zhuangyuan_order))
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    hand = np.empty(ORDERED, dtype=np.int8)
    tier = np.empty(ORDERED, dtype=np.int8)
    kicker = np.empty(ORDERED, dtype=np.int8)
    bonus = np.empty(ORDERED, dtype=np.int8)
    hand_code = {h: i for i, h in enumerate(HANDS)}
    tier_code = {t: i for i, t in enumerate(TIERS)}
    for index, throw in enumerate(itertools.product(range(1, 7), repeat=6)):
        c = rules.classifier(throw)
        hand[index] = hand_code[c.hand]
        won = rules.tier_of(c.hand)
        tier[index] = NONE if won is None else tier_code[won]
        kicker[index] = NONE if c.kicker is None else c.kicker
        if len(c.bonus) > 1:  # pragma: no cover - no rule gives two bonus cakes
            raise AssertionError(f"{throw}: more than one bonus tier {c.bonus}")
        bonus[index] = tier_code[c.bonus[0]] if c.bonus else NONE
    for table in (hand, tier, kicker, bonus):
        table.setflags(write=False)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = tables = _Tables(hand, tier, kicker, bonus)
    return tables


def throw_index(dice: ArrayLike) -> Array:
    """Each throw's index among the 46,656 ordered throws (first die most significant).

    ``dice`` is an ``(N, 6)`` array of integer faces 1–6; anything else is a :class:`DiceError`.
    """
    faces = np.asarray(dice)
    if faces.ndim != 2 or faces.shape[1] != 6:
        raise DiceError(
            f"expected an (N, 6) array of dice, got shape {faces.shape}", code="bad_shape"
        )
    if faces.size and not np.issubdtype(faces.dtype, np.integer):
        raise DiceError(f"dice must be integers, got {faces.dtype}", code="bad_dtype")
    if faces.size and (faces.min() < 1 or faces.max() > 6):
        bad = int(np.argmax((faces < 1).any(axis=1) | (faces > 6).any(axis=1)))
        raise DiceError(
            f"throw {bad}: every face must be 1–6, got {faces[bad].tolist()}", code="bad_face"
        )
    return (faces.astype(np.int64) - 1) @ _WEIGHTS


def classify_many(dice: ArrayLike, rules: RuleSet) -> BatchClassification:
    """Classify every throw of an ``(N, 6)`` array under ``rules`` in one vectorised lookup.

    Equal, throw for throw, to ``rules.classify`` and ``rules.tier_of`` (the tables are built
    from them once per rule set's classification switches and 状元 order, then cached).
    """
    index = throw_index(dice)
    tables = _tables(rules)
    return BatchClassification(
        hand=tables.hand[index],
        tier=tables.tier[index],
        kicker=tables.kicker[index],
        bonus=tables.bonus[index],
    )
