"""Bad input in a game command: one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import io
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Annotated, Any

import typer

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
from bobing.engine.dice import DiceSource, SeededDice, SystemDice, parse_dice
from bobing.engine.errors import BobingError, DiceError, InputError, RecordError
from bobing.engine.events import (
    Awarded,
    Closed,
    Event,
    FinalStarted,
    GameOver,
    GrabOpened,
    SkipNext,
    Skipped,
    StandingSet,
    Started,
    Thrown,
    ZhuangyuanWon,
)
from bobing.engine.game import Game, GameState, Phase
from bobing.engine.hands import TIERS, Hand
from bobing.engine.ranked import rank_key
from bobing.engine.record import (
    Judgement,
    dumps_record,
    judge_record,
    load_record,
    parse_record,
)
from bobing.engine.rules import RuleSet
from bobing.i18n import t
from bobing.i18n.errors import localize
from bobing.i18n.names import effect, explain, hand_name, preset_name, tier_name


@contextmanager
def _errors_exit_2() -> Iterator[None]:
    """Bad input becomes one line on stderr (``bobing: 错误：…``) and exit code 2, never a
    traceback: the same line as :func:`bobing.cli.main` prints."""
    try:
        yield
    except BobingError as exc:
        from bobing.cli import error_line  # the package imports this module

        typer.echo(error_line(exc), err=True)  # one line in the reader's language, never wrapped
        raise typer.Exit(2) from None
