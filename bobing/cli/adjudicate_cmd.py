"""``bobing adjudicate``: judge a game record (RULES.md §6) and print the result."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from bobing.cli import narrator as game_text
from bobing.cli.click_i18n import cli_lang
from bobing.cli.exits import errors_exit_2
from bobing.cli.render import (
    JsonOption,
    LangOption,
    RulesOption,
    lang_from_option,
    print_json,
    print_text,
    rules_from_option,
)
from bobing.engine.errors import RecordError
from bobing.engine.events import (
    Thrown,
)
from bobing.engine.game import Game
from bobing.engine.record import (
    Judgement,
    judge_record,
    load_record,
    parse_record,
)
from bobing.i18n import t

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page


# -- adjudicate ------------------------------------------------------------------------------


def adjudicate_command(
    record: Annotated[
        str, typer.Argument(metavar="RECORD.json", help=t("game.help.arg.record", _HELP_LANG))
    ],
    rules: RulesOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Judge a game record (RULES.md §6) and print the result (§7 with ``--json``)."""
    with errors_exit_2():
        language = lang_from_option(lang)
        ruleset = rules_from_option(rules) if rules is not None else None
        data = _read_record(record)
        judged = judge_record(data, ruleset)
        renumbered = judged.rejudged and _throws(judge_record(data).game) != _throws(judged.game)
        result = judged.game.result()
        if judged.rejudged:
            result["rejudged"] = True
            result["unused_throws"] = judged.unused_throws
    # Everything is decided, and the text rendered, before the first line is printed: on any
    # error nothing at all reaches stdout.
    if json_output:
        print_json(result)
        return
    with errors_exit_2():
        text = game_text.rendered(
            lambda: _print_judgement(judged.game, judged, language, renumbered)
        )
    sys.stdout.write(text)
    sys.stdout.flush()


def _throws(game: Game) -> list[tuple[int, str, str | None]]:
    """Each throw as (number, player, dice): to tell whether re-judging renumbered them."""
    return [(e.throw, e.player, e.dice) for e in game.events if isinstance(e, Thrown)]


def _print_judgement(
    game: Game, judged: Judgement, language: str, renumbered: bool = False
) -> None:
    header = [game_text.game_title(game, language)]
    if judged.rejudged:
        key = "game.rejudged" if judged.unused_throws else "game.rejudged.all"
        header.append(
            t(
                key,
                language,
                rules=game_text.rules_label(game.rules, language),
                unused=judged.unused_throws,
            )
        )
    if renumbered:
        # the same dice, but other turns: say why the numbers differ from the record's
        header.append(t("game.rejudged.renumbered", language))
    header += game_text.set_lines(game, language)
    header.append(game_text.game_status(game, language))
    print_text(*header)
    if game.state.ranked:
        game_text.print_ranking(game, language)
        print_text("")
    else:
        game_text.print_holdings(game, language)
        game_text.print_standings(game, language)
        print_text(
            *game_text.zhuangyuan_lines(game, language), game_text.pool_line(game.state, language)
        )
    print_text(*game_text.section9_lines(game, language))
    game_text.print_totals(game, language)
    print_text("")
    print_text(t("game.log.title", language))
    narrator = game_text.Narrator(game.rules, language, game.players)
    print_text(*(f"  {line}" for line in narrator.lines(game.events)))


def _read_record(source: str) -> dict[str, Any]:
    if source == "-":
        raw = getattr(sys.stdin, "buffer", None)
        try:
            text = raw.read().decode("utf-8-sig") if raw is not None else sys.stdin.read()
        except UnicodeDecodeError:
            raise RecordError("standard input is not UTF-8 text") from None
        return parse_record(text, "<stdin>")
    return load_record(source)
