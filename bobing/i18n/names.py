"""Display names of hands and throws in every language (the engine stays language-free)."""

from __future__ import annotations

import json

from bobing.engine.hands import Classification, Hand, Tier
from bobing.engine.ranked import rank_key
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
    if c.hand is Hand.WUZI and c.bonus:
        bonus = t(f"tier.{c.bonus[0]}", lang).split(" (")[0]
        return t("why.wuzi.bonus", lang, face=c.face, bonus=bonus)
    return t(f"why.{c.hand}", lang, face=c.face, kicker=c.kicker, pattern=c.dice_text, fours=fours)


_KICKER_WHAT = {
    Hand.SIHONG: "sum",
    Hand.WUHONG: "odd",
    Hand.WUZI: "odd",
    Hand.LIUBOHEI: "face",
}


def kicker_text(c: Classification, lang: str | None = None) -> str:
    """The kicker with what it counts, e.g. ``8（另两颗之和）``; empty when the hand has none.

    >>> from bobing.engine import classify
    >>> kicker_text(classify("444426"), "en")
    '8 (sum of the other two dice)'
    """
    if c.kicker is None or c.hand not in _KICKER_WHAT:
        return ""
    return t(f"kicker.{_KICKER_WHAT[c.hand]}", lang, kicker=c.kicker)


def tier_name(tier: Tier | str, lang: str | None = None) -> str:
    """A tier's short name: 状元, 对堂 ... in Chinese, ``duitang`` style words in English.

    >>> tier_name("duitang"), tier_name("duitang", "en")
    ('对堂', 'Duitang')
    """
    return t(f"tier.{tier}", lang).split(" (")[0]


def generic_hand_name(hand: Hand | str, lang: str | None = None) -> str:
    """A hand's name without its kicker: 四红, 五子登科, ``Four reds (sihong)``."""
    return t(f"hand.{hand}", lang)


def preset_name(preset: str, lang: str | None = None) -> str:
    """A preset's display name, e.g. 厦门传统 for ``traditional``."""
    return t(f"rules.preset.{preset}", lang)


def effect(c: Classification, rules: RuleSet, lang: str | None = None) -> str:
    """What the throw wins under ``rules``, in words.

    >>> from bobing.engine.presets import TRADITIONAL as r
    >>> effect(r.classify("555555"), r)
    '不算状元，关灯抢饼，桌上剩下的饼（含状元饼）大家抢，游戏结束'
    >>> effect(r.classify("333341"), r, "en")
    'one Sijin cake, while any is left'
    """
    lang = normalize_lang(lang)
    if str(rules.award) == "ranked":
        from bobing.engine.ranked import rank_levels

        levels = rank_levels(rules)
        rank = levels.index(rank_key(rules, c)) + 1
        prizes = rules.ranked_prizes or ()
        if sum(p.count for p in prizes) == 1:
            # one prize for the best throw (a 状元王中王): nobody else takes anything
            return t("effect.ranked.one", lang, prize=prizes[0].name, rank=rank, ranks=len(levels))
        return t("effect.ranked", lang, rank=rank, ranks=len(levels))
    if c.hand in (Hand.LIUBOHONG, Hand.LIUBOHEI, Hand.BIANDIJIN):
        value = str(getattr(rules, str(c.hand)))
        if value != "zhuangyuan":
            return t(f"rules.value.{c.hand}.{value}", lang)
    if rules.is_zhuangyuan_hand(c.hand):
        from bobing.engine.ranking import zhuangyuan_level, zhuangyuan_ranking

        text = t(
            "effect.zhuangyuan",
            lang,
            level=zhuangyuan_level(rules, c),
            levels=len(zhuangyuan_ranking(rules)),
        )
        if c.hand is Hand.CHAJINHUA and str(rules.chajinhua_duitang) == "immediate":
            text += t("effect.chajinhua.duitang", lang)
        if c.hand is Hand.CHAJINHUA and str(rules.chajinhua_duitang) == "at_end":
            text += t("effect.chajinhua.at_end", lang)
        for bonus in c.bonus:
            text += t("effect.bonus", lang, bonus=tier_name(bonus, lang))
        return text
    tier = rules.tier_of(c.hand)
    if tier is None:
        return t("effect.none", lang)
    if c.bonus:
        return t(
            "effect.tier.bonus",
            lang,
            tier=tier_name(tier, lang),
            bonus=tier_name(c.bonus[0], lang),
        )
    return t("effect.tier", lang, tier=tier_name(tier, lang))


def ranking_lines(rules: RuleSet, lang: str | None = None) -> list[str]:
    """The 状元 order from highest to lowest, one line per hand (四红，比另两颗之和：12 > … > 3).

    >>> from bobing.engine.presets import TRADITIONAL
    >>> ranking_lines(TRADITIONAL)[2]
    '五红，比另一颗：6 > 5 > 3 > 2 > 1'
    """
    from bobing.engine.ranking import zhuangyuan_ranking

    lang = normalize_lang(lang)
    levels = zhuangyuan_ranking(rules)
    lines: list[str] = []
    for hand in rules.zhuangyuan_order:
        name = generic_hand_name(hand, lang).split(" (")[0]
        mine = [level[0] for level in levels if level[0].hand is hand]
        if hand in (Hand.LIUBOHONG, Hand.CHAJINHUA, Hand.BIANDIJIN) or not mine:
            dice = mine[0].dice_text if mine else ""
            lines.append(t("rank.plain", lang, name=name, dice=dice))
            continue
        if hand is Hand.WUZI and str(rules.wuzi_compare) == "face_then_kicker":
            faces: list[int] = []
            for c in mine:
                if c.face is not None and c.face not in faces:
                    faces.append(c.face)
            lines.append(
                t("rank.wuzi.face_then_kicker", lang, name=name, faces=" > ".join(map(str, faces)))
            )
            continue
        seq = " > ".join(str(c.kicker) for c in mine)
        key = "rank.wuzi.kicker" if hand is Hand.WUZI else f"rank.{hand}"
        lines.append(t(key, lang, name=name, seq=seq))
    return lines


def switch_value(rules: RuleSet, switch: str) -> str:
    """A switch's value as written in a rule file (compact JSON for lists and objects)."""
    value = rules.to_json()[switch]
    if isinstance(value, str):
        return value
    if switch == "ranked_prizes" and value is not None:
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        if switch == "chase":
            until = f" until {value['until']}" if "until" in value else ""
            return f"{', '.join(value['tiers'])} ← {value['from']}{until}"
        return ", ".join(f"{k} {v}" for k, v in value.items())
    return json.dumps(value)


def switch_meaning(rules: RuleSet, switch: str, lang: str | None = None) -> str:
    """What a switch's value means under ``rules``, in one line.

    >>> from bobing.engine.presets import MODERN
    >>> switch_meaning(MODERN, "sijin_bonus", "en")
    'a 4-of-a-kind with one red 4 also wins a Yixiu cake, with two red 4s an Erju cake'
    """
    lang = normalize_lang(lang)
    value = rules.to_json()[switch]
    if switch == "zhuangyuan_order":
        return " > ".join(generic_hand_name(h, lang).split(" (")[0] for h in rules.zhuangyuan_order)
    if switch == "duitang_patterns":
        return t("rules.value.duitang_patterns", lang, patterns=" ".join(value))
    if switch == "prizes":
        prizes = t("list.sep", lang).join(
            f"{tier_name(tier, lang)} {n}" for tier, n in rules.prize_map.items()
        )
        return t("rules.value.prizes", lang, prizes=prizes, total=rules.total_cakes)
    if switch == "max_players":
        return t("rules.value.max_players", lang, count=rules.max_players)
    if switch == "sets":
        return t("rules.value.sets", lang, count=rules.sets)
    if switch == "rounds":
        if rules.rounds is None:
            return t("rules.value.rounds.null", lang)
        return t("rules.value.rounds.count", lang, count=rules.rounds)
    if switch == "ranked_prizes":
        if rules.ranked_prizes is None:
            return t("rules.value.ranked_prizes.null", lang)
        items = [
            t("rules.value.ranked_prizes.item", lang, name=p.name, count=p.count)
            if p.value is None
            else t(
                "rules.value.ranked_prizes.value",
                lang,
                name=p.name,
                count=p.count,
                value=f"{p.value:g}",
            )
            for p in rules.ranked_prizes
        ]
        return t(
            "rules.value.ranked_prizes.list",
            lang,
            prizes=t("list.sep", lang).join(items),
            count=sum(p.count for p in rules.ranked_prizes),
        )
    if switch == "chase":
        if rules.chase is None:
            return t("rules.value.chase.null", lang)
        tiers = t("list.sep", lang).join(tier_name(tier, lang) for tier in rules.chase.tiers)
        source = t(f"rules.value.chase.from.{rules.chase.source}", lang)
        text = t("rules.value.chase.on", lang, tiers=tiers, source=source)
        if str(rules.chase.until) == "end":
            text += t("rules.value.chase.until.end", lang)
        return text
    if switch == "values":
        if rules.values is None:
            return t("rules.value.values.null", lang)
        priced = t("list.sep", lang).join(
            f"{tier_name(tier, lang)} {v:g}" for tier, v in rules.values
        )
        return t("rules.value.values.list", lang, values=priced)
    if isinstance(value, bool):
        value = "true" if value else "false"
    return t(f"rules.value.{switch}.{value}", lang)
