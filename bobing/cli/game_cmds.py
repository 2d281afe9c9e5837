"""``bobing adjudicate`` and ``bobing play``: judge a game record, or play at the terminal."""

from __future__ import annotations

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
