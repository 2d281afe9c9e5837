"""Display names of hands and throws in every language (the engine stays language-free)."""

from __future__ import annotations

from bobing.engine.hands import Classification, Hand
from bobing.engine.rules import RuleSet
from bobing.i18n import normalize_lang, number, t


def hand_name(c: Classification, lang: str | None = None) -> str:
    """The name people call a throw, e.g. 四红带十二, 五子带六, 状元插金花.

    >>> from bobing.engine import classify
    >>> hand_name(classify("444466")), hand_name(classify("222226"), "en")
    ('四红带十二', 'Five of a kind with 6')
    """
    lang = normalize_lang(lang)
    if c.hand in (Hand.SIHONG, Hand.WUZI, Hand.WUHONG) and c.kicker is not None:
        return t(f"hand.{c.hand}.kicker", lang, kicker=number(c.kicker, lang))
    if c.hand is Hand.SIJIN and c.bonus:
        return t("hand.sijin.bonus", lang, bonus=t(f"tier.{c.bonus[0]}", lang).split(" (")[0])
    return t(f"hand.{c.hand}", lang)


def explain(c: Classification, rules: RuleSet | None = None, lang: str | None = None) -> str:
    """Why the dice make this hand, in words.

    >>> from bobing.engine import classify
    >>> explain(classify("444426"))
    '四颗红四，另两颗合计8点'
    """
    lang = normalize_lang(lang)
    fours = c.dice.count(4)
    if c.hand is Hand.SIJIN and c.bonus:
        bonus = t(f"tier.{c.bonus[0]}", lang).split(" (")[0]
        return t("why.sijin.bonus", lang, face=c.face, fours=fours, bonus=bonus)
    return t(
        f"why.{c.hand}", lang, face=c.face, kicker=c.kicker, pattern=c.dice_text, fours=fours
    )
