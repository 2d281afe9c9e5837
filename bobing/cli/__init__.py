"""The ``bobing`` command: a thin Typer layer over the library; errors become exit code 2."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module
from typing import Any

import typer

from bobing.cli.click_i18n import cli_lang, click_package, install, usage_message
from bobing.engine.errors import BobingError
from bobing.i18n import t
from bobing.i18n.errors import localize

# One language per help page and usage error: --lang, else BOBING_LANG (Click's own words too).
HELP_LANG = cli_lang()
install(HELP_LANG)
click = import_module(click_package())
_UsageError: type[Exception] = click.exceptions.UsageError
_ClickException: type[Exception] = click.exceptions.ClickException
_Abort: type[BaseException] = getattr(
    click.exceptions, "Abort", getattr(import_module("typer"), "Abort", KeyboardInterrupt)
)

app = typer.Typer(
    name="bobing",
    help=t("cli.help.app", HELP_LANG),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def error_lang(argv: Sequence[str] | None = None) -> str:
    """The language of an error report: ``--lang``, else ``BOBING_LANG``, else zh-Hans.

    The command line is read directly (:func:`bobing.cli.click_i18n.cli_lang`) because the
    error may come before (or instead of) the command's own parsing of ``--lang``.
    """
    return cli_lang(argv)


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
    for name in ("game_cmds", "serve_cmds", "analysis_cmds", "vision_cmds"):
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

    The message is in the reader's language (see :func:`error_line`) and goes to stderr; so
    are Click's usage errors (a missing argument, an unknown option), which are reported here
    rather than by Typer so that every word is in that language.
    """
    install(error_lang())  # the words of Click and Typer, in this run's language
    try:
        code = app(standalone_mode=False)
    except BobingError as exc:
        typer.echo(error_line(exc), err=True)
        sys.exit(2)
    except _UsageError as exc:
        sys.exit(usage_error(exc))
    except _Abort:
        typer.echo(t("cli.click.aborted", error_lang()), err=True)
        sys.exit(1)
    except _ClickException as exc:
        exc.show()  # type: ignore[attr-defined]
        sys.exit(exc.exit_code)  # type: ignore[attr-defined]
    sys.exit(code if isinstance(code, int) else 0)


def usage_error(exc: Any) -> int:
    """Report a usage error in the reader's language: usage, where to get help, what is wrong."""
    ctx = exc.ctx
    if type(exc).__name__ == "NoArgsIsHelpError" and ctx is not None:
        typer.echo(ctx.get_help(), err=True)
        return int(exc.exit_code)
    if ctx is not None:
        typer.echo(ctx.get_usage(), err=True)  # "Usage:" translated by install()
        if ctx.command.get_help_option(ctx) is not None:
            hint = t("cli.click.try_help", error_lang())
            typer.echo(
                hint.format(command=ctx.command_path, option=ctx.help_option_names[0]), err=True
            )
        typer.echo("", err=True)
    lang = error_lang()
    message = t("cli.click.error", lang).format(message=usage_message(exc.format_message(), lang))
    typer.echo(message, err=True)
    return int(exc.exit_code)
