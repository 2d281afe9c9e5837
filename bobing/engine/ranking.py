"""The total order on 状元 hands under a rule set (RULES.md §3), as levels from the highest.

The game engine compares standings with :meth:`RuleSet.zhuangyuan_key`; this module lists the
whole order so that it can be shown, counted and pinned by a digest in the tests.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from bobing.engine.errors import RulesError
from bobing.engine.hands import Classification
from bobing.engine.switches import RuleSet


def zhuangyuan_ranking(rules: RuleSet) -> list[list[Classification]]:
    """Every 状元 multiset, grouped into levels of equal rank, highest level first.

    Within a level the multisets tie (the earlier throw wins) and are listed by their dice.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> levels = zhuangyuan_ranking(TRADITIONAL)
    >>> len(levels), levels[0][0].dice_text, [c.dice_text for c in levels[-1]]
    (23, '444444', ['124444'])
    """
    return [list(level) for level in _levels(rules)]


@lru_cache(maxsize=32)
def _levels(rules: RuleSet) -> tuple[tuple[Classification, ...], ...]:
    hands = [c for c in rules.classifier.multisets.values() if rules.is_zhuangyuan_hand(c.hand)]
    hands.sort(key=lambda c: (rules.zhuangyuan_key(c), c.dice), reverse=True)
    levels: list[list[Classification]] = []
    last_key: tuple[int, int, int] | None = None
    for c in hands:
        key = rules.zhuangyuan_key(c)
        if key != last_key:
            levels.append([])
            last_key = key
        levels[-1].append(c)
    return tuple(tuple(sorted(level, key=lambda c: c.dice)) for level in levels)


def zhuangyuan_level(rules: RuleSet, c: Classification) -> int:
    """The 1-based level of a 状元 hand (1 is the best), raising :class:`RulesError` otherwise.

    >>> from bobing.engine.presets import TRADITIONAL as r
    >>> zhuangyuan_level(r, r.classify("444444")), zhuangyuan_level(r, r.classify("444412"))
    (1, 23)
    """
    key = rules.zhuangyuan_key(c)
    for index, level in enumerate(_levels(rules), start=1):
        if rules.zhuangyuan_key(level[0]) == key:
            return index
    raise RulesError(  # pragma: no cover
        f"{c.dice_text} is not a 状元 hand under these rules",
        code="not_zhuangyuan_throw",
        dice=c.dice_text,
    )


def compare_zhuangyuan(rules: RuleSet, a: Classification, b: Classification) -> int:
    """``1`` if ``a`` ranks above ``b``, ``-1`` if below, ``0`` if they tie (earlier throw wins).

    >>> from bobing.engine.presets import TRADITIONAL as r
    >>> compare_zhuangyuan(r, r.classify("222226"), r.classify("333331"))
    1
    >>> compare_zhuangyuan(r, r.classify("444426"), r.classify("444435"))
    0
    """
    ka, kb = rules.zhuangyuan_key(a), rules.zhuangyuan_key(b)
    return (ka > kb) - (ka < kb)


def ranking_text(rules: RuleSet) -> str:
    """The ranking as text: one line per level, the level's sorted dice separated by spaces.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> ranking_text(TRADITIONAL).splitlines()[:3]
    ['444444', '114444', '444446']
    """
    return "\n".join(" ".join(c.dice_text for c in level) for level in _levels(rules)) + "\n"


def ranking_digest(rules: RuleSet) -> str:
    """The SHA-256 of :func:`ranking_text`, pinning the whole order in golden files."""
    return hashlib.sha256(ranking_text(rules).encode("ascii")).hexdigest()


__all__ = [
    "compare_zhuangyuan",
    "ranking_digest",
    "ranking_text",
    "zhuangyuan_level",
    "zhuangyuan_ranking",
]
