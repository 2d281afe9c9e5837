"""Bad input in a game command: one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer

from bobing.engine.errors import BobingError


@contextmanager
def errors_exit_2() -> Iterator[None]:
    """Bad input becomes one line on stderr (``bobing: 错误：…``) and exit code 2, never a
    traceback: the same line as :func:`bobing.cli.main` prints."""
    try:
        yield
    except BobingError as exc:
        from bobing.cli import error_line  # the package imports this module

        typer.echo(error_line(exc), err=True)  # one line in the reader's language, never wrapped
        raise typer.Exit(2) from None
