"""``bobing read-dice PHOTO…``: the dice reader (``bobing.vision``) on the command line."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from bobing.cli.click_i18n import cli_lang
from bobing.cli.render import (
    JsonOption,
    LangOption,
    lang_from_option,
    print_json,
    print_text,
)
from bobing.engine.errors import BobingError
from bobing.i18n import t
from bobing.i18n.errors import localize
from bobing.vision import PhotoError, Reading, read_dice

_HELP_LANG = cli_lang()


def register(app: typer.Typer) -> None:
    """Add ``read-dice`` to ``app``."""
    app.command("read-dice", help=t("cli.help.read_dice", _HELP_LANG))(read_dice_command)


def read_dice_command(
    photos: Annotated[
        list[str],
        typer.Argument(metavar="PHOTO", help=t("cli.help.arg.photo", _HELP_LANG)),
    ],
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Read the top faces of the dice in each photo; exit 1 if any photo could not be read."""
    language = lang_from_option(lang)
    results: list[dict[str, object]] = []
    failed = False
    for path in photos:
        try:
            reading = read_dice(_read_bytes(Path(path)))
        except BobingError as exc:
            failed = True
            # The line names the photo: several may be read at once.
            message = t(
                "cli.read_dice.error", language, file=str(path), message=localize(exc, language)
            )
            typer.echo(t("errors.line", language, message=message), err=True)
            if json_output:
                results.append({"file": str(path), "error": exc.code, "dice": [], "warnings": []})
            continue
        if json_output:
            results.append({"file": str(path), **reading.as_json()})
        else:
            print_text(human_line(str(path), reading, language))
    if json_output:
        print_json({"photos": results})
    if failed:
        raise typer.Exit(1)


def _read_bytes(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PhotoError(
            f"cannot read photo {str(path)!r}: {exc.strerror or exc}",
            code="photo_unreadable",
            path=str(path),
            errno=exc.errno or 0,
            reason=exc.strerror or str(exc),
        ) from None


def human_line(name: str, reading: Reading, lang: str) -> str:
    """One photo's line: ``name: 6 dice: 4 4 1 2 3 6 (unsure: 3rd) — warnings``."""
    faces = " ".join(str(d.face) for d in reading.dice)
    line = t("cli.read_dice.line", lang, file=name, count=len(reading.dice), faces=faces or "–")
    unsure = [str(i + 1) for i, d in enumerate(reading.dice) if d.unsure]
    if unsure:
        line += t("cli.read_dice.unsure", lang, dice=", ".join(unsure))
    if reading.warnings:
        line += t(
            "cli.read_dice.warnings",
            lang,
            warnings=", ".join(warning_text(w, lang) for w in reading.warnings),
        )
    return line


def warning_text(code: str, lang: str) -> str:
    """A reader's warning (``blurred``, ``dice_seen:5`` …) in ``lang``."""
    key, _, count = code.partition(":")
    return t(f"vision.warning.{key}", lang, count=count)
