"""``bobing classify``, ``bobing odds`` and ``bobing rules``:
the rules engine on the command line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from bobing.analysis.odds import Odds, Share, odds
from bobing.cli.click_i18n import cli_lang
from bobing.cli.render import (
    JsonOption,
    LangOption,
    RulesOption,
    lang_from_option,
    print_json,
    print_table,
    print_text,
    rules_from_option,
)
from bobing.engine.dice import dice_text, parse_dice
from bobing.engine.errors import InputError
from bobing.engine.hands import Classification, Hand
from bobing.engine.rules import SWITCHES, RuleSet, load_rules
from bobing.i18n import t
from bobing.i18n.names import (
    effect,
    explain,
    generic_hand_name,
    hand_name,
    kicker_text,
    preset_name,
    ranking_lines,
    switch_meaning,
    switch_value,
    tier_name,
)
from bobing.i18n.rulebook import throw_json

if TYPE_CHECKING:
    from bobing.analysis.markov import GameLength

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page


def register(app: typer.Typer) -> None:
    """Add ``classify``, ``odds`` and ``rules`` to ``app``."""
    app.command("classify", help=t("cli.help.classify", _HELP_LANG))(classify_command)
    app.command("odds", help=t("cli.help.odds", _HELP_LANG))(odds_command)
    app.command("rules", help=t("cli.help.rules", _HELP_LANG))(rules_command)


# -- classify --------------------------------------------------------------------------------


def classify_command(
    dice: Annotated[
        list[str], typer.Argument(metavar="DICE", help=t("cli.help.arg.dice", _HELP_LANG))
    ],
    rules: RulesOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """What a throw is: hand, tier, kicker, bonus, its name, and why."""
    language = lang_from_option(lang)
    ruleset = rules_from_option(rules)
    throw = parse_dice(" ".join(dice))
    c = ruleset.classifier(throw)
    if json_output:
        print_json(classification_json(throw, c, ruleset, language))
        return
    name = hand_name(c, language).split(" (")[0]
    if language == "en":
        name += f" ({hand_name(c, 'zh-Hans')})"
    tier = ruleset.tier_of(c.hand)
    rows = [
        [t("cli.classify.hand", language), _labelled(generic_hand_name(c.hand, language), c.hand)],
        [
            t("cli.classify.tier", language),
            _labelled(tier_name(tier, language), tier)
            if tier is not None
            else t("cli.classify.no_tier", language),
        ],
    ]
    if c.kicker is not None:
        rows.append([t("cli.classify.kicker", language), kicker_text(c, language)])
    if c.bonus:
        bonus = t("list.sep", language).join(_labelled(tier_name(b, language), b) for b in c.bonus)
        rows.append([t("cli.classify.bonus", language), bonus])
    rows.append([t("cli.classify.why", language), explain(c, ruleset, language)])
    rows.append([t("cli.classify.effect", language), effect(c, ruleset, language)])
    rows.append([t("cli.classify.rules", language), _rules_label(ruleset, language)])
    print_text(f"{dice_text(throw)}  {name}")
    print_table(None, [[f"  {label}", value] for label, value in rows], no_wrap=(0,))


_CLASSIFY_KEYS = ("dice", "hand", "tier", "kicker", "bonus", "name", "rank")
"""The keys of ``classify --json`` (RULES.md §7, plus name and rank)."""


def classification_json(
    throw: tuple[int, ...], c: Classification, rules: RuleSet, lang: str
) -> dict[str, object]:
    """The ``classify --json`` object: the browser's view of the throw
    (:func:`bobing.i18n.rulebook.throw_json`) for the dice as thrown, without the sentences."""
    shown = {**throw_json(c, rules, lang), "dice": dice_text(throw)}
    return {key: shown[key] for key in _CLASSIFY_KEYS}


def _labelled(name: str, ident: object) -> str:
    text = str(ident)
    return name if f"({text})" in name else f"{name} ({text})"


def _rules_label(rules: RuleSet, lang: str) -> str:
    label = f"{preset_name(rules.preset, lang)} ({rules.preset})"
    if len(rules.overrides()) > 1:
        label += " " + t("cli.rules.file", lang, preset=rules.preset)
    return label


# -- odds ------------------------------------------------------------------------------------


def odds_command(
    rules: RulesOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
    game: Annotated[bool, typer.Option("--game", help=t("cli.help.opt.game", _HELP_LANG))] = False,
    players: Annotated[
        int,
        typer.Option("--players", metavar="N", help=t("cli.help.opt.players", _HELP_LANG)),
    ] = 10,
) -> None:
    """The exact odds of one throw: per hand, per tier, and the 状元 kickers."""
    language = lang_from_option(lang)
    ruleset = rules_from_option(rules)
    result = odds(ruleset)
    length = None
    if game:
        # NumPy is imported only when asked: plain ``bobing odds`` stays instant.
        from bobing.analysis.markov import expected_game_length

        length = expected_game_length(ruleset, players)
    if json_output:
        data = result.to_json()
        if length is not None:
            data["game"] = length.to_json()
        print_json(data, indent=2)
        return
    render_odds(result, language)
    if length is not None:
        render_game_length(length, language)


def render_game_length(length: GameLength, lang: str) -> None:
    """Print the exact expectations of a whole game (the Markov chain's answer)."""
    rows = [
        [t("cli.odds.game.throws", lang), f"{length.throws_mean:.2f}"],
        [t("cli.odds.game.rounds", lang), f"{length.rounds_mean:.2f}"],
        [
            t("cli.odds.game.dry", lang),
            f"{length.exhausted_before_zhuangyuan * 100:.2f}%",
        ],
    ]
    rows += [
        [t(f"cli.odds.game.ended_by.{reason}", lang), f"{share * 100:.2f}%"]
        for reason, share in length.ended_by.items()
        if share > 0
    ]
    print_table(
        [t("cli.odds.game.col.what", lang), t("cli.odds.game.col.value", lang)],
        rows,
        title=t("cli.odds.game.title", lang, players=length.players),
        align=("left", "right"),
    )


def _share_cells(share: Share) -> list[str]:
    one_in = share.one_in
    if one_in is None:
        n = "–"
    elif one_in >= 100:
        n = f"{one_in:,.0f}"
    else:
        n = f"{one_in:.2f}"
    return [f"{share.count:,}", f"{share.probability * 100:.4f}%", n]


def _short_name(hand: Hand, lang: str) -> str:
    # English hand names are long; the pinyin id is what English-speaking players learn.
    return str(hand) if lang == "en" else generic_hand_name(hand, lang)


def render_odds(result: Odds, lang: str) -> None:
    """Print the odds tables (hands, tiers, kickers) in ``lang``."""
    rules = result.rules
    cols = [t(f"cli.odds.col.{c}", lang) for c in ("count", "probability", "one_in")]
    print_text(
        t("cli.odds.title", lang, total=f"{result.total:,}", rules=_rules_label(rules, lang)), ""
    )
    hand_rows: list[list[str]] = []
    for hand, n in result.hands.items():
        hand_rows.append([generic_hand_name(hand, lang), *_share_cells(Share(n))])
        if hand is Hand.SIJIN:
            hand_rows.extend(
                [f"  · {t(f'cli.odds.sijin.{fours}', lang)}", *_share_cells(Share(count))]
                for fours, count in result.sijin_by_fours.items()
            )
    hand_rows.append(["Σ", *_share_cells(Share(sum(result.hands.values())))])
    print_table(
        [t("cli.odds.col.hand", lang), *cols],
        hand_rows,
        title=t("cli.odds.hands", lang),
        align=("left", "right", "right", "right"),
    )
    sep = t("list.sep", lang)
    tier_rows = [
        [
            tier_name(tier, lang),
            *_share_cells(tier_odds.share),
            sep.join(f"{_short_name(h, lang)} {n:,}" for h, n in tier_odds.sources.items()),
        ]
        for tier, tier_odds in result.tiers.items()
    ]
    print_table(
        [t("cli.odds.col.tier", lang), *cols, t("cli.odds.col.sources", lang)],
        tier_rows,
        title=t("cli.odds.tiers", lang),
        align=("left", "right", "right", "right", "left"),
        no_wrap=(0, 1, 2, 3),
    )
    kicker_rows = [
        [
            _short_name(hand, lang),
            f"{sum(dist.values()):,}",
            "  ".join(f"{k}:{n}" for k, n in dist.items()),
        ]
        for hand, dist in result.kickers.items()
    ]
    if kicker_rows:
        print_table(
            [t("cli.odds.col.hand", lang), cols[0], t("cli.odds.col.kicker", lang)],
            kicker_rows,
            title=t("cli.odds.kickers", lang),
            align=("left", "right", "left"),
            no_wrap=(0, 1),
        )


# -- rules -----------------------------------------------------------------------------------


def rules_command(
    spec: Annotated[
        str | None,
        typer.Argument(metavar="[PRESET|FILE]", help=t("cli.help.arg.rules", _HELP_LANG)),
    ] = None,
    rules: RulesOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Every switch of a rule set with its meaning, and the 状元 order."""
    language = lang_from_option(lang)
    if spec is not None and rules is not None and spec != rules:
        raise InputError(
            f"two rule sets given: {spec!r} and --rules {rules!r}; give one", code="two_rules"
        )
    ruleset = load_rules(spec if spec is not None else rules)
    if json_output:
        print_json(ruleset.to_json(), indent=2)
        return
    render_rules(ruleset, language)


def render_rules(rules: RuleSet, lang: str) -> None:
    """Print the switches with their meanings and the 状元 order in ``lang``."""
    source, summary = _about_parts(t(f"rules.preset.{rules.preset}.about", lang))
    order_words = " > ".join(generic_hand_name(h, lang) for h in rules.zhuangyuan_order)
    # plain words first (what the game is, the 状元 order); where the rules come from last
    print_text(
        t("cli.rules.title", lang, rules=_rules_label(rules, lang)),
        t("cli.rules.plain", lang, order=order_words),
        t("cli.rules.summary", lang, summary=summary) if summary else "",
    )
    lines: list[str] = [""]
    for switch in SWITCHES:
        lines.append(f"{switch} = {switch_value(rules, switch)}")
        lines.append(
            "    "
            + t(
                "cli.rules.meaning",
                lang,
                switch=t(f"rules.switch.{switch}", lang),
                value=switch_meaning(rules, switch, lang),
            )
        )
    print_text(*lines, "")
    order = [f"  {i}. {line}" for i, line in enumerate(ranking_lines(rules, lang), start=1)]
    print_text(t("cli.rules.order", lang), *order, "  " + t("rank.tie", lang))
    if str(rules.award) == "ranked":
        below = [
            hand
            for hand in (Hand.LIUBOHEI, Hand.BIANDIJIN)
            if hand not in rules.zhuangyuan_order
            and (hand is Hand.LIUBOHEI or str(rules.six_ones) == "biandijin")
        ]
        below += [Hand.DUITANG, Hand.SANHONG, Hand.SIJIN, Hand.ERJU, Hand.YIXIU, Hand.NONE]
        names = " > ".join(generic_hand_name(hand, lang).split(" (")[0] for hand in below)
        print_text("", t("cli.rules.ranked", lang, below=names))
    if source:
        print_text("", t("cli.rules.source", lang, source=source))


def _about_parts(about: str) -> tuple[str, str]:
    """A preset's note split into where it comes from and what it says ("seed 001 §1: …")."""
    for mark in ("：", ": "):
        head, found, tail = about.partition(mark)
        if found:
            return head.strip(), tail.strip()
    return "", about


__all__ = ["classification_json", "register", "render_odds", "render_rules"]
