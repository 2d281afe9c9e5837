"""``bobing adjudicate`` and ``bobing play``: judge a game record, or play at the terminal.

Each command is a module of its own (:mod:`bobing.cli.adjudicate_cmd`,
:mod:`bobing.cli.play_cmd`), the text both print is :mod:`bobing.cli.narrator`; this module
adds them to the app, and keeps the names it always had.
"""

from __future__ import annotations

import typer

from bobing.cli.adjudicate_cmd import adjudicate_command
from bobing.cli.click_i18n import cli_lang
from bobing.cli.narrator import Narrator
from bobing.cli.play_cmd import play_command, split_names
from bobing.i18n import t

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page


def register(app: typer.Typer) -> None:
    """Add ``adjudicate`` and ``play`` to ``app``."""
    app.command(
        "adjudicate",
        help=t("game.help.adjudicate", _HELP_LANG),
        short_help=t("game.help.adjudicate.short", _HELP_LANG),
    )(adjudicate_command)
    app.command(
        "play",
        help=t("game.help.play", _HELP_LANG),
        short_help=t("game.help.play.short", _HELP_LANG),
    )(play_command)


__all__ = ["Narrator", "register", "split_names"]
