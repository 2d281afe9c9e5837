"""Click's and Typer's own words (``Usage:``, ``Options``, ``Missing argument`` …) in the
reader's language, so that a help page or a usage error is in one language throughout.

Click and Typer pass every message through :func:`gettext.gettext`, bound at import as each
module's ``_`` (and ``ngettext``). :func:`install` rebinds those names in the modules that
print help and usage errors to a lookup in ``bobing/i18n/<lang>/cli.json``; English, and any
message without a translation, stays Click's own text.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any

from bobing.engine.errors import InputError
from bobing.i18n import lang_from_env, parse_lang, t

MESSAGES: dict[str, str] = {
    "Usage:": "usage",
    "Options": "options",
    "Arguments": "arguments",
    "Commands": "commands",
    "Show this message and exit.": "help_option",
    "Try '{command} {option}' for help.": "try_help",
    "Error: {message}": "error",
    "Missing argument": "missing_argument",
    "Missing option": "missing_option",
    "Missing parameter": "missing_parameter",
    "Missing {param_type}": "missing_type",
    "Missing parameter: {param_name}": "missing_named",
    "Missing command.": "missing_command",
    "No such option {name!r}.": "no_such_option",
    "No such command {name!r}.": "no_such_command",
    "Invalid value for {param_hint}: {message}": "invalid_value_for",
    "Invalid value: {message}": "invalid_value",
    "Option {name!r} does not take a value.": "takes_no_value",
    "Aborted!": "aborted",
    "required": "required",
    "default: {default}": "default",
    "Did you mean {possibility}?": "did_you_mean",
    "(Possible options: {possibilities})": "possible_options",
    "{value!r} is not a valid {number_type}.": "not_number",
}
"""Click's message ids → keys ``cli.click.<key>`` of the catalogue."""

PLURALS: dict[str, str] = {
    "Got unexpected extra argument ({args})": "extra_arguments",
    "Option {name!r} requires an argument.": "needs_argument",
    "{value!r} is not {choice}.": "not_one_of",
}


def click_package() -> str:
    """Where Typer's Click lives: recent Typer vendors its own copy (``typer._click``)."""
    try:
        import_module("typer._click")
    except ImportError:
        return "click"
    return "typer._click"


MODULES = tuple(
    f"{click_package()}.{name}"
    for name in ("core", "exceptions", "formatting", "parser", "types", "decorators", "utils")
) + ("typer.core",)


def cli_lang(argv: Sequence[str] | None = None) -> str:
    """The reader's language: the last ``--lang`` on the command line, else ``BOBING_LANG``.

    The command line is read directly: help texts are built, and usage errors reported,
    before (or instead of) the command's own parsing of ``--lang``; an unknown ``--lang``
    (itself the error being reported) is passed over.
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


def translator(lang: str) -> tuple[Callable[[str], str], Callable[[str, str, int], str]]:
    """``gettext`` and ``ngettext`` replacements for one language (templates, unformatted)."""

    def gettext(message: str) -> str:
        key = MESSAGES.get(message)
        return message if key is None or lang == "en" else t(f"cli.click.{key}", lang)

    def ngettext(singular: str, plural: str, n: int) -> str:
        key = PLURALS.get(singular)
        if key is None or lang == "en":
            return singular if n == 1 else plural
        return t(f"cli.click.{key}", lang)

    return gettext, ngettext


USAGE_ERRORS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.DOTALL), key)
    for pattern, key in (
        (r"Missing argument (?P<name>.+?)\.(?: (?P<extra>.*))?", "missing_argument_named"),
        (r"Missing option (?P<name>.+?)\.(?: (?P<extra>.*))?", "missing_option_named"),
        (r"No such option: (?P<name>\S+?)(?: Did you mean (?P<possibility>.+)\?)?", "no_option"),
        (r"Got unexpected extra argument(?:s|\(s\))? \((?P<args>.*)\)", "extra_arguments"),
        (r"Option '(?P<name>[^']*)' requires (?P<what>.*)", "needs_argument"),
        (r"Invalid value for (?P<param_hint>.+?): (?P<message>.*)", "invalid_value_for"),
        (r"Invalid value: (?P<message>.*)", "invalid_value"),
        (r"Input should be a valid integer.*", "not_integer"),
        (r"Input should be a valid number.*", "not_number_plain"),
        (r"(?P<head>.+?)\.? Did you mean (?P<possibility>.+)\?", "with_suggestion"),
    )
)
"""Usage errors whose English is built in by Typer's copy of Click (no gettext there)."""


def usage_message(message: str, lang: str) -> str:
    """A usage error's message in ``lang`` (an unknown shape stays as Click wrote it)."""
    if lang == "en":
        return message
    for pattern, key in USAGE_ERRORS:
        found = pattern.fullmatch(message.strip())
        if found is None:
            continue
        parts = {k: v for k, v in found.groupdict().items() if v is not None}
        for inner in ("message", "extra", "head"):
            if inner in parts:
                parts[inner] = usage_message(parts[inner], lang)
        text = t(f"cli.click.{key}", lang, **{k: parts.get(k, "") for k in _FIELDS[key]})
        if key == "with_suggestion" and not parts["head"].endswith(("。", ".", "?", "？")):
            parts["head"] += t("cli.click.full_stop", lang)
            text = t(f"cli.click.{key}", lang, head=parts["head"], possibility=parts["possibility"])
        if key == "no_option" and "possibility" in parts:
            text += t("cli.click.did_you_mean", lang, possibility=parts["possibility"])
        if parts.get("extra") and key.startswith("missing"):
            text += " " + parts["extra"]
        return text
    return message


_FIELDS: dict[str, tuple[str, ...]] = {
    "missing_argument_named": ("name",),
    "missing_option_named": ("name",),
    "no_option": ("name",),
    "extra_arguments": ("args",),
    "needs_argument": ("name",),
    "invalid_value_for": ("param_hint", "message"),
    "invalid_value": ("message",),
    "not_integer": (),
    "not_number_plain": (),
    "with_suggestion": ("head", "possibility"),
}


_LANG = {"current": "en"}
"""The language :func:`install` last chose (the patched methods read it at call time)."""
_PATCHED: set[str] = set()


def _usage_prefix(package: str) -> None:
    # Typer's copy of Click writes "Usage: " and the --help text literally: wrap the two
    # methods once; they translate into the language of the latest install().
    if package in _PATCHED:
        return
    _PATCHED.add(package)
    try:
        formatting = import_module(f"{package}.formatting")
        core = import_module(f"{package}.core")
    except ImportError:
        return
    write_usage = formatting.HelpFormatter.write_usage

    def translated_usage(self: Any, prog: str, args: str = "", prefix: str | None = None) -> None:
        if prefix is None:
            prefix = f"{translator(_LANG['current'])[0]('Usage:')} "
        write_usage(self, prog, args, prefix)

    formatting.HelpFormatter.write_usage = translated_usage
    get_help_option = core.Command.get_help_option

    def translated_help_option(self: Any, ctx: Any) -> Any:
        option = get_help_option(self, ctx)
        if option is not None:
            option.help = translator(_LANG["current"])[0]("Show this message and exit.")
        return option

    core.Command.get_help_option = translated_help_option


def install(lang: str) -> None:
    """Make Click and Typer speak ``lang`` in help pages and usage errors."""
    _LANG["current"] = lang
    _usage_prefix(click_package())
    gettext, ngettext = translator(lang)
    for name in MODULES:
        try:
            module = import_module(name)
        except ImportError:  # a module this Click (or Typer's copy of it) does not have
            continue
        if hasattr(module, "_"):
            module._ = gettext  # type: ignore[attr-defined]
        if hasattr(module, "ngettext"):
            module.ngettext = ngettext  # type: ignore[attr-defined]
