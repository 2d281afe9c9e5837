"""The pure 博饼 engine: standard library only. Rules, hands, games and records."""

from __future__ import annotations

from bobing.engine.dice import Dice, DiceSource, GivenDice, SeededDice, SystemDice, parse_dice
from bobing.engine.errors import (
    BobingError,
    DiceError,
    IllegalAction,
    InputError,
    RecordError,
    RulesError,
)
from bobing.engine.hands import HANDS, TIERS, Classification, Hand, Tier, classify
from bobing.engine.presets import DEFAULT_RULES, PRESETS, find_preset
from bobing.engine.rules import RuleSet, load_rules, rules_from_json

__all__ = [
    "DEFAULT_RULES",
    "HANDS",
    "PRESETS",
    "TIERS",
    "BobingError",
    "Classification",
    "Dice",
    "DiceError",
    "DiceSource",
    "GivenDice",
    "Hand",
    "IllegalAction",
    "InputError",
    "RecordError",
    "RuleSet",
    "RulesError",
    "SeededDice",
    "SystemDice",
    "Tier",
    "classify",
    "find_preset",
    "load_rules",
    "parse_dice",
    "rules_from_json",
]
