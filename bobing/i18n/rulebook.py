"""A rule set explained in one language, as the browser shows it: every throw, the 状元 order
and every switch with its meaning.

The browser holds no rule of its own (docs/architecture.md, "Adding a rule switch"): it renders
what :func:`rulebook` computed here from the engine, so a new switch needs no JavaScript.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bobing.engine.hands import MULTISETS, ORDINARY_TIERS, Classification, Tier
from bobing.engine.ranking import zhuangyuan_level, zhuangyuan_ranking
from bobing.engine.switches import SWITCHES, ChaseFrom, RuleSet, choice_switches, switch_applies
from bobing.i18n import normalize_lang, t
from bobing.i18n.names import effect, explain, hand_name, ranking_lines, switch_meaning


def throw_json(c: Classification, rules: RuleSet, lang: str | None = None) -> dict[str, Any]:
    """One throw as ``bobing classify --json`` and the browser show it (RULES.md §7).

    >>> from bobing.engine.presets import MODERN
    >>> from dataclasses import replace
    >>> r = replace(MODERN, wuzi_bonus=True)
    >>> throw_json(r.classify("455555"), r, "en")["bonus"]
    ['yixiu']
    """
    lang = normalize_lang(lang)
    tier: Tier | None = rules.tier_of(c.hand)
    return {
        "dice": c.dice_text,
        "hand": str(c.hand),
        "tier": str(tier) if tier is not None else None,
        "kicker": c.kicker,
        "bonus": [str(b) for b in c.bonus],
        "face": c.face,
        "name": hand_name(c, lang),
        "why": explain(c, rules, lang),
        "effect": effect(c, rules, lang),
        "rank": zhuangyuan_level(rules, c) if rules.is_zhuangyuan_hand(c.hand) else None,
    }


def switch_schema(rules: RuleSet, lang: str | None = None) -> list[dict[str, Any]]:
    """Every switch that takes one of a few values, in RULES.md order, with its words.

    ``options`` are the allowed values (``true``/``false`` for the yes-no switches) each with
    its short label; ``meaning`` is the current value in a sentence; ``applies`` is false for a
    switch that has no effect under the other switches (the editor hides it).
    """
    lang = normalize_lang(lang)
    out: list[dict[str, Any]] = []
    for name, values in choice_switches().items():
        out.append(
            {
                "name": name,
                "label": t(f"rules.label.{name}", lang),
                "value": getattr(rules, name)
                if isinstance(values[0], bool)
                else str(getattr(rules, name)),
                "options": [
                    {"value": v, "label": t(f"rules.option.{name}.{_word(v)}", lang)}
                    for v in values
                ],
                "meaning": switch_meaning(rules, name, lang),
                "applies": switch_applies(rules, name),
            }
        )
    return out


def _word(value: str | bool) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def rulebook(rules: RuleSet, lang: str | None = None) -> dict[str, Any]:
    """Everything the browser shows about ``rules`` in ``lang``.

    ``rules`` (the complete rule object), ``throws`` (all 462 multisets by their sorted dice,
    each :func:`throw_json`), ``levels`` (how many 状元 levels), ``ranking`` (the 状元 order in
    words, one line per hand), ``order`` (the order as one line), ``switches``
    (:func:`switch_schema`), ``lines`` (every switch that applies as ``[label, meaning]``),
    ``labels`` and ``meanings`` (by switch name) and ``chase`` (the tiers that may chase and
    whom from, in words).
    """
    lang = normalize_lang(lang)
    throws = {}
    for multiset in MULTISETS:
        c = rules.classify(multiset)
        throws[c.dice_text] = throw_json(c, rules, lang)
    return {
        "rules": rules.to_json(),
        "throws": throws,
        "levels": len(zhuangyuan_ranking(rules)),
        "ranking": ranking_lines(rules, lang),
        "order": switch_meaning(rules, "zhuangyuan_order", lang),
        "switches": switch_schema(rules, lang),
        "lines": _lines(rules, lang),
        "labels": {name: t(f"rules.label.{name}", lang) for name in _LABELLED},
        "meanings": {name: switch_meaning(rules, name, lang) for name in SWITCHES},
        "chase": {
            "tiers": [str(tier) for tier in ORDINARY_TIERS],
            "from": [
                {"value": str(v), "label": t(f"rules.value.chase.from.{v}", lang)}
                for v in ChaseFrom
            ],
        },
    }


_LABELLED = tuple(name for name in SWITCHES if name != "prizes")
"""Switches with a short label (the prize counts are edited as a table of their own)."""

_LISTED_APART = ("prizes", "ranked_prizes")
"""Switches the rules page shows in tables of their own, not as a line."""


def _lines(rules: RuleSet, lang: str) -> list[list[str]]:
    applying = {s["name"]: s["applies"] for s in switch_schema(rules, lang)}
    lines: list[list[str]] = []
    for name in rules.to_json():
        if name == "preset" or name in _LISTED_APART or not applying.get(name, True):
            continue
        if name == "rounds" and str(rules.award) != "ranked":
            continue
        lines.append([t(f"rules.label.{name}", lang), switch_meaning(rules, name, lang)])
    return lines


def draft_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A rule object being edited, with its 状元 order brought in line with its effects.

    An editor changes one switch at a time; a change that makes a hand a 状元 hand (or no
    longer one) would otherwise be refused until the order is edited too.
    """
    from bobing.engine.rules import fit_order

    return fit_order(spec)
