"""``bobing simulate``, ``bobing plan`` and ``bobing dice-check``: analytics on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bobing.analysis.bell import SECONDS_PER_THROW, Bell
from bobing.analysis.dice_check import DEGREES_OF_FREEDOM, FACES, NONE, DiceCheck, check_record
from bobing.analysis.planner import Plan, plan, read_prizes, read_ranked_prizes
from bobing.analysis.plots import FORMATS, write_plot
from bobing.analysis.ranked import RankedResult, simulate_ranked
from bobing.analysis.simulate import SimulationResult, simulate
from bobing.cli.click_i18n import cli_lang
from bobing.cli.render import (
    Align,
    JsonOption,
    LangOption,
    RulesOption,
    lang_from_option,
    print_json,
    print_table,
    print_text,
    rules_from_option,
)
from bobing.engine.errors import InputError
from bobing.engine.hands import TIERS
from bobing.engine.record_format import load_record
from bobing.engine.rules import Award, RuleSet
from bobing.i18n import t
from bobing.i18n.names import generic_hand_name, preset_name, tier_name
from bobing.tables.limits import ANALYSIS_PLAYERS

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page


def register(app: typer.Typer) -> None:
    """Add ``simulate``, ``plan`` and ``dice-check`` to ``app``."""
    app.command(
        "simulate",
        help=t("analysis.help.simulate", _HELP_LANG),
        short_help=t("analysis.help.simulate.short", _HELP_LANG),
    )(simulate_command)
    app.command("plan", help=t("analysis.help.plan", _HELP_LANG))(plan_command)
    app.command(
        "dice-check",
        help=t("analysis.help.dice_check", _HELP_LANG),
        short_help=t("analysis.help.dice_check.short", _HELP_LANG),
    )(dice_check_command)


def _help(key: str) -> str:
    return t(f"analysis.help.opt.{key}", _HELP_LANG)


# -- simulate --------------------------------------------------------------------------------


def simulate_command(
    players: Annotated[
        int, typer.Option("--players", "-n", help=_help("players"))
    ] = ANALYSIS_PLAYERS,
    games: Annotated[int, typer.Option("--games", "-g", help=_help("games"))] = 100_000,
    rules: RulesOption = None,
    seed: Annotated[int | None, typer.Option("--seed", help=_help("seed"))] = None,
    tiaohou: Annotated[float, typer.Option("--tiaohou", metavar="P", help=_help("tiaohou"))] = 0.0,
    workers: Annotated[int, typer.Option("--workers", help=_help("workers"))] = 0,
    exact: Annotated[bool, typer.Option("--exact/--no-exact", help=_help("exact"))] = True,
    minutes: Annotated[
        float | None, typer.Option("--minutes", metavar="M", help=_help("minutes"))
    ] = None,
    seconds_per_throw: Annotated[
        float, typer.Option("--seconds-per-throw", metavar="S", help=_help("sim_seconds"))
    ] = SECONDS_PER_THROW,
    start: Annotated[
        str, typer.Option("--start", metavar="first|dice", help=_help("start"))
    ] = "first",
    plot: Annotated[
        Path | None, typer.Option("--plot", metavar="FILE.png|svg", help=_help("plot"))
    ] = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Play many whole games and report their length, endings and seat fairness."""
    language = lang_from_option(lang)
    ruleset = rules_from_option(rules)
    _check_seed(seed)
    if workers < 0:
        raise InputError(f"invalid --workers {workers}: 0 (automatic) or more", value=workers)
    _check_plot(plot)
    bell = Bell(minutes, seconds_per_throw) if minutes is not None else None
    if ruleset.award is Award.RANKED:
        if plot is not None:
            raise InputError("--plot draws games for cakes; a ranked session has no picture yet")
        ranked = simulate_ranked(
            ruleset, players, games, seed=seed, tiaohou=tiaohou, bell=bell, start=start
        )
        if json_output:
            print_json(ranked.to_json(), indent=2)
        else:
            render_ranked(ranked, language)
        return
    result = simulate(
        ruleset,
        players,
        games,
        seed=seed,
        tiaohou=tiaohou,
        workers=workers or None,
        exact=exact,
        bell=bell,
        start=start,
    )
    if plot is not None:
        write_plot(result, plot, language)
    if json_output:
        print_json(result.to_json(), indent=2)
        return
    render_simulation(result, language)
    if plot is not None:
        print_text("", t("analysis.plot.written", language, path=str(plot)))


def _check_seed(seed: int | None) -> None:
    if seed is not None and seed < 0:
        raise InputError(f"invalid --seed {seed}: a whole number of at least 0", value=seed)


def _check_plot(plot: Path | None) -> None:
    if plot is not None and plot.suffix.lower().lstrip(".") not in FORMATS:
        raise InputError(
            f"invalid --plot {str(plot)!r}: the file name must end in .png or .svg",
            value=str(plot),
        )


def _rules_label(rules: RuleSet, lang: str) -> str:
    label = f"{preset_name(rules.preset, lang)} ({rules.preset})"
    if len(rules.overrides()) > 1:
        label += " " + t("analysis.rules_changed", lang)
    return label


def _pct(share: float) -> str:
    if share == 0:
        return "0%"
    if share < 0.001:
        return f"{share * 100:.3f}%"
    return f"{share * 100:.2f}%"


def render_simulation(result: SimulationResult, lang: str) -> None:
    """Print a simulation's tables in ``lang``."""
    print_text(
        t(
            "analysis.sim.title",
            lang,
            games=f"{result.games:,}",
            players=result.players,
            rules=_rules_label(result.rules, lang),
            seed=result.seed,
            tiaohou=_pct(result.tiaohou),
        ),
        *(
            [t("analysis.sim.per_set", lang, sets=result.rules.sets)]
            if result.rules.sets > 1  # 一二会 (RULES.md §10.2): every set is the same game
            else []
        ),
        "",
    )
    heads = [t("analysis.col.what", lang), t("analysis.col.mean", lang), "p50", "p90", "p99"]
    heads.append(t("analysis.col.max", lang))
    rows: list[list[str]] = []
    exact = result.exact
    for key, dist, exact_mean in (
        ("throws", result.throws, exact.throws_mean if exact else None),
        ("rounds", result.rounds, exact.rounds_mean if exact else None),
    ):
        s = dist.summary()
        rows.append(
            [t(f"analysis.sim.{key}", lang), f"{s['mean']:.2f}"]
            + [str(s[k]) for k in ("p50", "p90", "p99", "max")]
        )
        if exact_mean is not None:
            ci = 1.96 * dist.std / result.games**0.5
            rows.append(
                [f"  {t('analysis.sim.exact', lang)}", f"{exact_mean:.2f}"]
                + [t("analysis.sim.ci", lang, ci=f"{ci:.2f}"), "", "", ""]
            )
    print_table(heads, rows, title=t("analysis.sim.length", lang), align=("left",) + ("right",) * 5)
    end_rows = []
    for reason in result.ended_by:
        row = [t(f"analysis.ended.{reason}", lang), _pct(result.ended_by[reason])]
        row.append(_pct(exact.ended_by[reason]) if exact else "")
        end_rows.append(row)
    first = [t("analysis.sim.exhausted_first", lang), _pct(result.exhausted_first)]
    first.append(_pct(exact.exhausted_before_zhuangyuan) if exact else "")
    end_rows.append(first)
    print_table(
        [
            t("analysis.col.ending", lang),
            t("analysis.col.share", lang),
            t("analysis.col.exact", lang),
        ],
        end_rows,
        title=t("analysis.sim.endings", lang),
        align=("left", "right", "right"),
    )
    # The 状元 column is also the chance of winning it (there is one 状元 cake).
    seat_heads = [t("analysis.col.seat", lang), t("analysis.col.cakes", lang)]
    # English tier names are long; the pinyin ids are what English-speaking players learn.
    seat_heads += [str(tier) if lang == "en" else tier_name(tier, lang) for tier in TIERS]
    seat_rows = [
        [str(seat.seat), f"{seat.cakes_mean:.3f}"]
        + [f"{seat.cakes_by_tier[tier]:.3f}" for tier in TIERS]
        for seat in result.seats
    ]
    print_table(
        seat_heads,
        seat_rows,
        title=t(
            "analysis.sim.seats_dice" if result.start == "dice" else "analysis.sim.seats", lang
        ),
        align=["right"] * len(seat_heads),
        no_wrap=range(len(seat_heads)),
    )
    if result.bell is not None:
        _render_bell(result, lang)
    elif exact is None:
        print_text(t("analysis.sim.no_exact", lang))


def _render_bell(result: SimulationResult, lang: str) -> None:
    """How often the game beat the bell, how often cakes were left, and who holds the 状元."""
    bell = result.bell
    assert bell is not None
    print_text(
        "",
        t(
            "analysis.bell.title",
            lang,
            minutes=f"{bell.minutes:g}",
            seconds=f"{bell.seconds_per_throw:g}",
            throws=bell.throws,
        ),
        t("analysis.bell.over", lang, share=_pct(result.over_before_bell)),
        t("analysis.bell.claimed", lang, share=_pct(1.0 - result.ended_by["closed"])),
        t("analysis.bell.unawarded", lang, share=_pct(result.zhuangyuan_unawarded)),
    )


def render_ranked(result: RankedResult, lang: str) -> None:
    """Print a ranked session's simulation in ``lang``."""
    bell = result.bell
    rounds = result.rules.rounds
    lines = [
        t(
            "analysis.ranked.title",
            lang,
            games=f"{result.games:,}",
            players=result.players,
            rules=_rules_label(result.rules, lang),
            seed=result.seed,
            tiaohou=_pct(result.tiaohou),
        ),
        t("analysis.ranked.rounds", lang, rounds=rounds) if rounds else "",
        (
            t(
                "analysis.bell.title",
                lang,
                minutes=f"{bell.minutes:g}",
                seconds=f"{bell.seconds_per_throw:g}",
                throws=bell.throws,
            )
            if bell is not None
            else ""
        ),
        t(
            "analysis.ranked.length",
            lang,
            mean=f"{result.throws.mean:.1f}",
            min=result.throws.min,
            max=result.throws.max,
            closed=_pct(result.ended_by["closed"]),
        ),
    ]
    print_text(*(line for line in lines if line), "")
    prizes = result.prizes
    chances = result.prize_chances()
    values = result.expected_value()
    heads = [t("analysis.col.seat", lang)] + [p.name for p in prizes]
    heads += [t("analysis.ranked.col.none", lang), t("analysis.ranked.col.first", lang)]
    if values is not None:
        heads.append(t("analysis.ranked.col.value", lang))
    rows = []
    for seat in range(result.players):
        row = [str(seat + 1)] + [_pct(float(x)) for x in chances[seat]]
        row += [
            _pct(max(0.0, round(1.0 - float(chances[seat].sum()), 9))),
            _pct(float(result.first[seat])),
        ]
        if values is not None:
            row.append(f"{values[seat]:.2f}")
        rows.append(row)
    print_table(
        heads,
        rows,
        title=t(
            "analysis.ranked.seats_dice" if result.start == "dice" else "analysis.ranked.seats",
            lang,
        ),
        align=["right"] * len(heads),
    )
    hand_rows = []
    for line, dist in zip(prizes, result.hands_by_prize(), strict=True):
        top = sorted(dist.items(), key=lambda item: -item[1])[:4]
        hand_rows.append(
            [line.name, t("list.sep", lang).join(f"{_hand(h, lang)} {_pct(v)}" for h, v in top)]
        )
    winning = sorted(result.hands_at(0).items(), key=lambda item: -item[1])[:5]
    print_text(
        "",
        t(
            "analysis.ranked.winning",
            lang,
            hands=t("list.sep", lang).join(f"{_hand(h, lang)} {_pct(v)}" for h, v in winning),
        ),
    )
    print_table(
        [t("analysis.ranked.col.prize", lang), t("analysis.ranked.col.hands", lang)],
        hand_rows,
        title=t("analysis.ranked.hands", lang),
        align=("left", "left"),
    )


def _hand(hand: str | None, lang: str) -> str:
    if hand is None:
        return t("analysis.ranked.no_throw", lang)
    return str(hand) if lang == "en" else generic_hand_name(hand, lang)


# -- plan ------------------------------------------------------------------------------------


def plan_command(
    players: Annotated[int, typer.Option("--players", "-n", help=_help("plan_players"))],
    tables: Annotated[int, typer.Option("--tables", "-t", help=_help("tables"))] = 1,
    seconds_per_throw: Annotated[
        float, typer.Option("--seconds-per-throw", metavar="S", help=_help("seconds"))
    ] = SECONDS_PER_THROW,
    rules: RulesOption = None,
    prizes: Annotated[
        Path | None, typer.Option("--prizes", metavar="PRIZES.csv", help=_help("prizes"))
    ] = None,
    ranked: Annotated[bool, typer.Option("--ranked", help=_help("ranked"))] = False,
    rounds: Annotated[
        int | None, typer.Option("--rounds", metavar="N", help=_help("rounds"))
    ] = None,
    minutes: Annotated[
        float | None, typer.Option("--minutes", metavar="M", help=_help("plan_minutes"))
    ] = None,
    extra_cost: Annotated[
        str, typer.Option("--extra-cost", metavar="YUAN", help=_help("extra_cost"))
    ] = "0",
    contribution: Annotated[
        str | None, typer.Option("--contribution", metavar="YUAN", help=_help("contribution"))
    ] = None,
    games: Annotated[int, typer.Option("--games", "-g", help=_help("plan_games"))] = 20_000,
    seed: Annotated[int, typer.Option("--seed", help=_help("plan_seed"))] = 0,
    tiaohou: Annotated[float, typer.Option("--tiaohou", metavar="P", help=_help("tiaohou"))] = 0.0,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """How long an event's game takes, what each player can expect, and what it costs."""
    language = lang_from_option(lang)
    ruleset = rules_from_option(rules)
    _check_seed(seed)
    if ranked and prizes is None:
        raise InputError(
            "--ranked reads the --prizes list as ranked prizes: give --prizes PRIZES.csv",
            code="plan_ranked_without_list",
        )
    prize_list = read_prizes(prizes) if prizes is not None and not ranked else None
    ranked_list = read_ranked_prizes(prizes) if prizes is not None and ranked else None
    result = plan(
        ruleset,
        players,
        tables=tables,
        seconds_per_throw=seconds_per_throw,
        prizes=prize_list,
        extra_cost=extra_cost,
        contribution=contribution,
        games=games,
        seed=seed,
        tiaohou=tiaohou,
        ranked_prizes=ranked_list,
        rounds=rounds,
        minutes=minutes,
    )
    if json_output:
        print_json(result.to_json(), indent=2)
        return
    render_plan(result, language)


def _render_contribution(result: Plan, lang: str) -> None:
    """What was collected against what is spent: the surplus, the deficit, or neither."""
    assert result.contribution is not None and result.collected is not None
    balance = result.balance
    assert balance is not None
    outcome = "surplus" if balance > 0 else "deficit" if balance < 0 else "even"
    print_text(
        t(
            "analysis.plan.contribution",
            lang,
            each=f"{result.contribution:.2f}",
            players=result.players,
            collected=f"{result.collected:.2f}",
            total=f"{result.total_cost:.2f}",
        ),
        t(f"analysis.plan.{outcome}", lang, amount=f"{abs(balance):.2f}"),
    )


def _minutes(value: float) -> str:
    return f"{value:.0f}"


def render_plan(result: Plan, lang: str) -> None:
    """Print a plan in ``lang``."""
    sizes = [table.players for table in result.tables]
    sep = t("list.sep", lang)
    print_text(
        t(
            "analysis.plan.title",
            lang,
            players=result.players,
            tables=len(sizes),
            sizes=sep.join(str(s) for s in sizes),
            seconds=f"{result.seconds_per_throw:g}",
            rules=_rules_label(result.rules, lang),
        ),
        "",
    )
    span = result.minutes
    key = "analysis.plan.time" if len(sizes) == 1 else "analysis.plan.time_tables"
    print_text(
        t(
            key,
            lang,
            p50=_minutes(span.p50),
            p5=_minutes(span.p5),
            p95=_minutes(span.p95),
            mean=_minutes(span.mean),
        )
    )
    if len(sizes) > 1:
        rows = [
            [
                str(i),
                str(table.players),
                _minutes(table.minutes.p50),
                f"{_minutes(table.minutes.p5)}–{_minutes(table.minutes.p95)}",
                f"{table.result.throws.mean:.0f}",
            ]
            for i, table in enumerate(result.tables, start=1)
        ]
        heads = [t(f"analysis.plan.col.{c}", lang) for c in ("table", "players", "p50", "range")]
        heads.append(t("analysis.plan.col.throws", lang))
        print_table(heads, rows, align=("right",) * 5)
    if result.bell is not None:
        _render_plan_bell(result, lang)
    if result.ranked:
        _render_ranked_plan(result, lang)
    else:
        cakes = result.cakes_per_player
        print_text(
            "",
            t(
                "analysis.plan.cakes",
                lang,
                total=f"{sum(cakes.values()):.2f}",
                tiers=sep.join(f"{tier_name(tier, lang)} {v:.2f}" for tier, v in cakes.items()),
            ),
        )
    if result.prizes is not None and not result.ranked:
        prizes = result.prizes
        counts = sep.join(
            f"{tier_name(tier, lang)} {n}" for tier, n in zip(TIERS, prizes.counts, strict=True)
        )
        print_text(
            "",
            t(
                "analysis.plan.prizes",
                lang,
                source=prizes.source,
                items=sum(prizes.counts),
                counts=counts,
            ),
            t(
                "analysis.plan.set_cost",
                lang,
                cost=f"{prizes.cost:.2f}",
                sets=len(sizes),
                total=f"{result.prize_cost:.2f}",
            ),
        )
        value = result.value_per_player
        if value is not None:
            print_text(t("analysis.plan.value", lang, value=f"{value:.2f}"))
    if result.extra_cost:
        print_text(t("analysis.plan.extra", lang, extra=f"{result.extra_cost:.2f}"))
    if result.total_cost:
        print_text(
            t(
                "analysis.plan.aa",
                lang,
                total=f"{result.total_cost:.2f}",
                players=result.players,
                share=f"{result.per_person:.2f}",
            )
        )
    if result.contribution is not None:
        _render_contribution(result, lang)
    pays = result.pays_per_player
    if pays is not None:  # 反向博钱 (RULES.md §9.3)
        kitty = f"{pays * result.players:.2f}"
        print_text("", t("analysis.plan.pays", lang, pays=f"{pays:.2f}", kitty=kitty))
    seats = result.rules.max_players
    if max(sizes) > seats:
        print_text("", t("analysis.plan.big_table", lang, size=max(sizes), seats=seats))
    if not result.ranked:
        print_text("", t("analysis.plan.best_throw_note", lang))


def _render_plan_bell(result: Plan, lang: str) -> None:
    """The time limit: how often the game beats it, and what calling time leaves."""
    bell = result.bell
    assert bell is not None and result.over_before_bell is not None
    lines = []
    if result.ranked:
        largest = max(table.players for table in result.tables)
        lines.append(
            t(
                "analysis.plan.bell_ranked",
                lang,
                minutes=f"{bell.minutes:g}",
                throws=bell.throws,
                rounds=f"{bell.throws / largest:.1f}",
            )
        )
    if not result.ranked or result.rules.rounds:
        lines.append(
            t(
                "analysis.plan.bell",
                lang,
                minutes=f"{bell.minutes:g}",
                throws=bell.throws,
                share=_pct(result.over_before_bell),
            )
        )
    for i, table in enumerate(result.tables, start=1):
        game = table.result
        if isinstance(game, RankedResult):
            continue
        lines.append(
            t(
                "analysis.plan.bell_table",
                lang,
                table=i,
                players=table.players,
                over=_pct(game.over_before_bell),
                left=_pct(game.ended_by["closed"]),
                none=_pct(game.zhuangyuan_unawarded),
            )
        )
    print_text(*lines)


def _render_ranked_plan(result: Plan, lang: str) -> None:
    """One prize per person: the list, what a seat can expect, and the prizes left over."""
    sep = t("list.sep", lang)
    prizes = result.ranked_prizes
    units = sum(p.count for p in prizes)
    print_text(
        "",
        (
            t("analysis.plan.ranked", lang, rounds=result.rules.rounds)
            if result.rules.rounds
            else t("analysis.plan.ranked_timed", lang)
        ),
        t(
            "analysis.plan.ranked_list",
            lang,
            items=units,
            lines=sep.join(f"{p.name} ×{p.count}" for p in prizes),
        ),
        t(
            "analysis.plan.set_cost",
            lang,
            cost=f"{result.ranked_set_cost:.2f}",
            sets=len(result.tables),
            total=f"{result.prize_cost:.2f}",
        ),
    )
    value = result.value_per_player
    if value is not None:
        print_text(t("analysis.plan.value", lang, value=f"{value:.2f}"))
        first = result.tables[0].result
        assert isinstance(first, RankedResult)
        values = first.expected_value()
        if values is not None and len(values) > 1:
            print_text(
                t(
                    "analysis.plan.ranked_seats",
                    lang,
                    first=f"{values[0]:.2f}",
                    last=f"{values[-1]:.2f}",
                    seats=len(values),
                )
            )
    if result.unawarded:
        print_text(t("analysis.plan.unawarded", lang, count=result.unawarded))
    short = sum(max(0, table.players - units) for table in result.tables)
    if short:
        print_text(t("analysis.plan.no_prize", lang, count=short))


# -- dice-check ------------------------------------------------------------------------------


def dice_check_command(
    records: Annotated[
        list[str],
        typer.Argument(metavar="RECORD.json", help=_help("dice_check_records")),
    ],
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Are these dice fair? Every die of every throw of the records, tested (RULES.md §10.3)."""
    language = lang_from_option(lang)
    # every record is read before anything is printed: a bad one prints nothing but its error
    checks = [(path, check_record(load_record(path))) for path in records]
    total = sum((check for _, check in checks), NONE)
    if json_output:
        print_json(total.to_json())
        return
    if len(checks) > 1:
        print_table(
            None,
            [[path, check.sentence(language)] for path, check in checks],
            title=t("analysis.dice_check.records", language, count=len(checks)),
        )
    _print_dice_check(total, language)


_RIGHT: Align = "right"


def _print_dice_check(check: DiceCheck, lang: str) -> None:
    print_table(
        [t("analysis.col.face", lang), *(str(face) for face in FACES)],
        [[t("analysis.col.count", lang), *(f"{count:,}" for count in check.faces)]],
        title=t("analysis.dice_check.title", lang, throws=check.throws, dice=f"{check.dice:,}"),
        align=["left", *(_RIGHT for _ in FACES)],
    )
    if check.chi2 is not None and check.p is not None:
        print_text(
            t(
                "analysis.dice_check.test",
                lang,
                chi2=f"{check.chi2:.2f}",
                df=DEGREES_OF_FREEDOM,
                p=f"{check.p:.4g}",
            )
        )
    print_text(check.sentence(lang))
