"""A rule set explained in one language, as the browser shows it: every throw, the 状元 order
and every switch with its meaning.

The browser holds no rule of its own (docs/architecture.md, "Adding a rule switch"): it renders
what :func:`rulebook` computed here from the engine, so a new switch needs no JavaScript.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bobing.engine.hands import MULTISETS, ORDINARY_TIERS, Classification, Tier
from bobing.engine.ranking import zhuangyuan_level, zhuangyuan_ranking
from bobing.engine.switches import (
    SWITCHES,
    ChaseFrom,
    ChaseUntil,
    RuleSet,
    choice_switches,
    switch_applies,
)
from bobing.i18n import normalize_lang, t
from bobing.i18n.names import (
    effect,
    explain,
    generic_hand_name,
    hand_name,
    ranking_lines,
    switch_meaning,
    tier_name,
)


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
                "value": _value(rules, name),
                "options": [
                    {"value": v, "label": t(f"rules.option.{name}.{_word(v)}", lang)}
                    for v in values
                ],
                "meaning": switch_sentence(rules, name, lang),
                "applies": switch_applies(rules, name),
            }
        )
    return out


def _word(value: str | bool | int) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def rulebook(
    rules: RuleSet, lang: str | None = None, *, between: Callable[[], None] | None = None
) -> dict[str, Any]:
    """Everything the browser shows about ``rules`` in ``lang``.

    ``rules`` (the complete rule object), ``throws`` (all 462 multisets by their sorted dice,
    each :func:`throw_json`), ``levels`` (how many 状元 levels), ``ranking`` (the 状元 order in
    words, one line per hand), ``order`` (the order as one line), ``switches``
    (:func:`switch_schema`), ``lines`` (every switch that applies as ``[label, meaning]``),
    ``labels`` and ``meanings`` (by switch name) and ``chase`` (the tiers that may chase and
    whom from, in words). ``between`` is called after each throw (a worker thread gives the
    event loop its turn there).
    """
    lang = normalize_lang(lang)
    throws = {}
    for multiset in MULTISETS:
        c = rules.classify(multiset)
        throws[c.dice_text] = throw_json(c, rules, lang)
        if between is not None:
            between()
    return {
        "rules": rules.to_json(),
        "throws": throws,
        "levels": len(zhuangyuan_ranking(rules)),
        "ranking": ranking_lines(rules, lang),
        "order": order_line(rules, lang),
        "switches": switch_schema(rules, lang),
        "lines": _lines(rules, lang),
        "labels": {name: t(f"rules.label.{name}", lang) for name in _LABELLED},
        "meanings": {name: switch_sentence(rules, name, lang) for name in SWITCHES},
        "chase": {
            "tiers": [str(tier) for tier in ORDINARY_TIERS],
            "from": [
                {"value": str(v), "label": t(f"rules.meaning.chase.from.{v}", lang)}
                for v in ChaseFrom
            ],
            "until": [
                {"value": str(v), "label": t(f"rules.option.chase.until.{v}", lang)}
                for v in ChaseUntil
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
        lines.append([t(f"rules.label.{name}", lang), switch_sentence(rules, name, lang)])
    return lines


def switch_sentence(rules: RuleSet, switch: str, lang: str | None = None) -> str:
    """What a switch's value means under ``rules``, as a sentence that stands on its own (the
    browser's; :func:`bobing.i18n.names.switch_meaning` is the command line's, after a label).

    >>> from bobing.engine.presets import TRADITIONAL
    >>> switch_sentence(TRADITIONAL, "standing", "en").startswith("lugu:")
    True
    """
    lang = normalize_lang(lang)
    if switch == "zhuangyuan_order":
        return order_line(rules, lang)
    if switch == "duitang_patterns":
        return t("rules.meaning.duitang_patterns", lang, patterns=" ".join(rules.duitang_patterns))
    if switch == "max_players":
        return t("rules.meaning.max_players", lang, n=rules.max_players)
    if switch == "rounds":
        if rules.rounds is None:
            return t("rules.meaning.rounds.null", lang)
        return t("rules.meaning.rounds", lang, n=rules.rounds)
    if switch == "chase":
        if rules.chase is None:
            return t("rules.meaning.chase.null", lang)
        return t(
            "rules.meaning.chase.on",
            lang,
            tiers=t("list.sep", lang).join(tier_name(tier, lang) for tier in rules.chase.tiers),
            source=t(f"rules.meaning.chase.from.{rules.chase.source}", lang),
        ) + (
            t("rules.meaning.chase.until.end", lang) if rules.chase.until is ChaseUntil.END else ""
        )
    if switch in _BY_VALUE:
        return t(f"rules.meaning.{switch}.{_word(_value(rules, switch))}", lang)
    return switch_meaning(rules, switch, lang)


_BY_VALUE = frozenset(choice_switches())


def _value(rules: RuleSet, switch: str) -> str | bool | int:
    value = getattr(rules, switch)
    return value if isinstance(value, (bool, int)) else str(value)


def order_line(rules: RuleSet, lang: str | None = None) -> str:
    """The 状元 order as one line of full hand names, best first.

    >>> from bobing.engine.presets import MODERN
    >>> order_line(MODERN, "en").split(" > ")[0]
    'Six reds (liubohong)'
    """
    return " > ".join(generic_hand_name(h, lang) for h in rules.zhuangyuan_order)


def draft_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A rule object being edited, with its 状元 order brought in line with its effects.

    An editor changes one switch at a time; a change that makes a hand a 状元 hand (or no
    longer one) would otherwise be refused until the order is edited too.
    """
    from bobing.engine.rules import fit_order

    return fit_order(spec)
