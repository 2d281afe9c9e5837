"""The ``bobing`` command: a thin Typer layer over the library; errors become exit code 2."""

from __future__ import annotations

import sys

import typer

from bobing.engine.errors import BobingError

app = typer.Typer(
    name="bobing",
    help="博饼 (Bo Bing): classify throws, judge games, play, serve a table, and run the numbers.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


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
    """Console-script entry point: run the app, turning bobing errors into a clean exit 2."""
    try:
        app()
    except BobingError as exc:
        typer.echo(f"bobing: error: {exc}", err=True)
        sys.exit(2)
