"""The ``bobing`` command: a thin Typer layer over the library; errors become exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import typer

from bobing.engine.errors import BobingError, InputError
from bobing.i18n import lang_from_env, parse_lang, t
from bobing.i18n.errors import localize

app = typer.Typer(
    name="bobing",
    help="博饼 (Bo Bing): classify throws, judge games, play, serve a table, and run the numbers.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def error_lang(argv: Sequence[str] | None = None) -> str:
    """The language of an error report: ``--lang``, else ``BOBING_LANG``, else zh-Hans.

    The command line is read directly because the error may come before (or instead of) the
    command's own parsing of ``--lang``; like Click, the last ``--lang`` wins, and an unknown
    one (itself the error being reported) is passed over.
    """
    args = sys.argv[1:] if argv is None else argv
    chosen: str | None = None
    for index, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and index + 1 < len(args):
            chosen = args[index + 1]
        elif arg.startswith("--lang="):
            chosen = arg.removeprefix("--lang=")
    if chosen is not None:
        try:
            return parse_lang(chosen)
        except InputError:
            pass
    return lang_from_env()


def error_line(exc: BobingError, lang: str | None = None) -> str:
    """The one stderr line for a bobing error, e.g. ``bobing: 错误：骰子 '44441' 无效：...``.

    ``lang`` defaults to :func:`error_lang`; command modules that catch errors themselves
    should print this line too, so that every error reads the same.
    """
    language = error_lang() if lang is None else lang
    return t("errors.line", language, message=localize(exc, language))


def _register() -> None:
    # Each command module adds its commands to ``app``; the order here is the order in --help.
    from bobing.cli import rules_cmds

    rules_cmds.register(app)
    for name in ("game_cmds", "serve_cmds", "analysis_cmds"):
        try:
            module = __import__(f"bobing.cli.{name}", fromlist=["register"])
        except ModuleNotFoundError as exc:
            if exc.name != f"bobing.cli.{name}":
                raise
            continue
        module.register(app)


_register()


def main() -> None:
    """Console-script entry point: run the app, turning bobing errors into a clean exit 2.

    The message is in the reader's language (see :func:`error_line`) and goes to stderr.
    """
    try:
        app()
    except BobingError as exc:
        typer.echo(error_line(exc), err=True)
        sys.exit(2)
