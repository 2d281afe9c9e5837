"""Terminal output for every CLI module: the only module that imports Rich.

Commands build plain data (headers and rows of strings, dicts for JSON) and hand it here.
``--json`` output never goes through Rich: it is plain JSON text on stdout, no markup, no colour.
Also here: the options several commands share (``--rules``, ``--lang``, ``--json``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Annotated, Any, Literal

import typer
from rich import box
from rich.console import Console
from rich.table import Table

from bobing.cli.click_i18n import cli_lang
from bobing.engine.rules import RuleSet, load_rules
from bobing.i18n import lang_from_env, parse_lang, t

Align = Literal["left", "right", "center"]

# -- shared options --------------------------------------------------------------------------

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page

RulesOption = Annotated[
    str | None,
    typer.Option("--rules", "-r", metavar="PRESET|FILE", help=t("cli.help.opt.rules", _HELP_LANG)),
]
"""``--rules PRESET|FILE.json``; pass the value to :func:`rules_from_option`."""

LangOption = Annotated[
    str | None,
    typer.Option("--lang", metavar="zh-Hans|zh-Hant|en", help=t("cli.help.opt.lang", _HELP_LANG)),
]
"""``--lang``; pass the value to :func:`lang_from_option`."""

JsonOption = Annotated[bool, typer.Option("--json", help=t("cli.help.opt.json", _HELP_LANG))]
"""``--json``: print plain JSON with :func:`print_json` instead of tables."""


def rules_from_option(value: str | None) -> RuleSet:
    """The rules named by ``--rules`` (a preset, an alias or a JSON file); default traditional."""
    return load_rules(value)


def lang_from_option(value: str | None) -> str:
    """The output language: ``--lang``, else ``BOBING_LANG``, else zh-Hans (never the locale)."""
    return parse_lang(value) if value is not None else lang_from_env()


# -- output ----------------------------------------------------------------------------------


def console(*, stderr: bool = False) -> Console:
    """A console on the current stdout/stderr (found at call time, so tests can capture it)."""
    return Console(stderr=stderr, highlight=False, markup=False, emoji=False, soft_wrap=False)


def print_json(data: Any, *, indent: int | None = None) -> None:
    """Plain JSON on stdout, UTF-8 text as is (``ensure_ascii=False``), one trailing newline."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=indent) + "\n")
    sys.stdout.flush()


def print_text(*lines: str) -> None:
    """Plain lines on stdout (no markup is interpreted)."""
    out = console()
    for line in lines:
        out.print(line, soft_wrap=True)


def print_error(message: str) -> None:
    """One line on stderr, e.g. ``bobing: error: ...``."""
    console(stderr=True).print(message, overflow="fold")


def print_table(
    headers: Sequence[str] | None,
    rows: Sequence[Sequence[str]],
    *,
    title: str | None = None,
    align: Sequence[Align] = (),
    no_wrap: Sequence[int] = (),
) -> None:
    """A table from header strings and rows of cell strings.

    ``headers=None`` prints a borderless two-or-more-column listing (label, value ...).
    ``align`` gives each column's alignment (default left); columns listed in ``no_wrap``
    are never wrapped.
    """
    ncols = len(headers) if headers is not None else max((len(r) for r in rows), default=0)
    table = Table(
        title=title,
        title_justify="left",
        show_header=headers is not None,
        box=box.SIMPLE_HEAD if headers is not None else None,
        padding=(0, 1) if headers is not None else (0, 2, 0, 0),
        header_style="bold",
        title_style="bold",
        pad_edge=headers is not None,
    )
    for i in range(ncols):
        table.add_column(
            headers[i] if headers is not None else "",
            justify=align[i] if i < len(align) else "left",
            no_wrap=i in no_wrap,
            overflow="fold",
        )
    for row in rows:
        table.add_row(*row)
    out = console()
    with out.capture() as captured:
        out.print(table)
    # Rich pads every cell to its column's width; drop the padding at the ends of lines.
    text = "\n".join(line.rstrip() for line in captured.get().splitlines())
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


__all__ = [
    "JsonOption",
    "LangOption",
    "RulesOption",
    "console",
    "lang_from_option",
    "print_error",
    "print_json",
    "print_table",
    "print_text",
    "rules_from_option",
]
