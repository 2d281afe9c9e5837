"""The three presets of RULES.md §5, found by name or alias."""

from __future__ import annotations

from bobing.engine.errors import RulesError
from bobing.engine.hands import Hand
from bobing.engine.switches import ChajinhuaLugu as Lugu
from bobing.engine.switches import (
    Direction,
    LiuboheiEffect,
    LiubohongEffect,
    RuleSet,
    Tiaohou,
    register_preset,
)

TRADITIONAL = RuleSet(
    zhuangyuan_order=(Hand.LIUBOHONG, Hand.CHAJINHUA, Hand.WUHONG, Hand.WUZI, Hand.SIHONG),
    preset="traditional",
)
"""厦门传统 (seed 001 §一): 六勃红 takes everything, 六勃黑 is the lights-off grab, 禄骨."""

MODERN = RuleSet(
    zhuangyuan_order=(
        Hand.LIUBOHONG,
        Hand.LIUBOHEI,
        Hand.CHAJINHUA,
        Hand.WUHONG,
        Hand.WUZI,
        Hand.SIHONG,
    ),
    sijin_bonus=True,
    chajinhua_lugu=Lugu.KEEPS_DUITANG,
    liubohong=LiubohongEffect.TAKE_REMAINING_END,
    liubohei=LiuboheiEffect.ZHUANGYUAN_END_SHARE,
    tiaohou=Tiaohou.VOID,
    direction=Direction.COUNTERCLOCKWISE,
    preset="modern",
)
"""通行 (seed 001 规则详解, 003『肆』): both 六勃 end the game, 四进 carries a bonus."""

JINHUA = RuleSet(
    zhuangyuan_order=(
        Hand.CHAJINHUA,
        Hand.LIUBOHONG,
        Hand.LIUBOHEI,
        Hand.WUHONG,
        Hand.WUZI,
        Hand.SIHONG,
    ),
    sijin_bonus=True,
    chajinhua_lugu=Lugu.KEEPS_DUITANG,
    liubohong=LiubohongEffect.TAKE_REMAINING_END,
    liubohei=LiuboheiEffect.ZHUANGYUAN_END_SHARE,
    tiaohou=Tiaohou.VOID,
    direction=Direction.COUNTERCLOCKWISE,
    preset="jinhua",
)
"""插金花最大 (seed 002 order 1): as modern, but 状元插金花 is the top hand."""

PRESETS: dict[str, RuleSet] = {
    "traditional": TRADITIONAL,
    "modern": MODERN,
    "jinhua": JINHUA,
}

ALIASES: dict[str, str] = {
    "传统": "traditional",
    "傳統": "traditional",
    "厦门传统": "traditional",
    "廈門傳統": "traditional",
    "通行": "modern",
    "现代": "modern",
    "現代": "modern",
    "金花": "jinhua",
    "插金花": "jinhua",
}

for _preset in PRESETS.values():
    register_preset(_preset)

DEFAULT_RULES = TRADITIONAL


def find_preset(name: str) -> RuleSet:
    """A preset by id or alias, case-insensitive.

    >>> find_preset("金花").preset
    'jinhua'
    """
    key = name.strip()
    key = ALIASES.get(key, key.lower())
    try:
        return PRESETS[key]
    except KeyError:
        choices = [
            f"{pid} ({'/'.join(a for a, p in ALIASES.items() if p == pid)})" for pid in PRESETS
        ]
        allowed = ", ".join(choices)
        raise RulesError(
            f"unknown preset {name!r}; allowed: {allowed}, or a rule file ending in .json",
            code="unknown_preset",
            key="preset",
            value=name,
            allowed=choices,
        ) from None
