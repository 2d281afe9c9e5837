"""Errors in the reader's language (standard library only).

A :class:`~bobing.engine.errors.BobingError` carries a stable ``code``, the values it quotes
(``params``) and an English ``message``. :func:`localize` renders the catalogue template
``error.<code>`` (``bobing/i18n/<lang>/errors.json``) with those params. Templates are
``str.format`` strings with three additions:

* a param that is itself a ``BobingError`` (e.g. ``inner`` of a record error wrapping the
  error of one throw) is localized first, so "throw 5: ..." becomes "第 5 掷：..." all through;
* a list or tuple is joined, by default with ", " (``{allowed}``); the format spec, if any,
  is the separator (``{allowed:、}``); items that are errors are localized;
* the spec ``tier`` or ``hand`` names a tier or hand id in the reader's language
  (``{tier:tier}`` → 对堂);
* the spec ``os`` explains an ``errno`` (``{errno:os}`` → 没有这个文件 from ``errors.os.ENOENT``),
  or shows the error's English ``reason`` for an errno the catalogue does not know.

``message`` (the English text) is available to a template that does not find it in params:
generic codes (``invalid_input`` ...) and codes raised with several English wordings use it.
A template that needs a field the error does not carry falls back to the English message,
so a missing or out-of-date translation never hides what went wrong.
"""

from __future__ import annotations

import errno as errnos
import string
from collections.abc import Mapping
from typing import Any

from bobing.engine.errors import BobingError
from bobing.i18n import catalogue, normalize_lang, t

__all__ = ["error_template", "localize", "render"]


class _Formatter(string.Formatter):
    def __init__(self, lang: str, params: Mapping[str, Any]) -> None:
        super().__init__()
        self.lang = lang
        self.params = params

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, BobingError):
            return localize(value, self.lang)
        if isinstance(value, list | tuple):
            items = [self.format_field(item, "") for item in value]
            return (format_spec or ", ").join(items)
        if format_spec in ("tier", "hand"):
            return t(f"{format_spec}.{value}", self.lang)
        if format_spec == "os":
            name = errnos.errorcode.get(value, "") if isinstance(value, int) else ""
            text = catalogue(self.lang).get(f"errors.os.{name}")
            return str(text) if isinstance(text, str) else str(self.params.get("reason", value))
        return str(super().format_field(value, format_spec))

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        # ``{value!r}`` quotes the input; an error is never quoted, it is rendered.
        if isinstance(value, BobingError):
            return value
        return super().convert_field(value, conversion)


def _roots(template: str) -> set[str]:
    """The top-level names a template's fields use (``{a.b!r:x}`` → ``a``)."""
    names: set[str] = set()
    for _, field, spec, _ in string.Formatter().parse(template):
        if field is not None:
            if not field or field[0].isdigit():
                raise ValueError(f"positional field in {template!r}")
            names.add(field.split(".")[0].split("[")[0])
        if spec:
            names |= _roots(spec)
    return names


def error_template(code: str, lang: str | None = None) -> str | None:
    """The catalogue template for ``code`` in ``lang`` (no English fallback), or None.

    >>> error_template("dice_too_few", "en")
    'invalid dice {value}: {count} dice given, a throw has exactly 6'
    """
    template = catalogue(normalize_lang(lang)).get(f"error.{code}")
    return template if isinstance(template, str) else None


def render(exc: BobingError, lang: str | None = None) -> str | None:
    """``exc`` rendered from its ``lang`` template, or None when there is none that fits.

    None means :func:`localize` shows the English message: no template for the code, or the
    template needs a field that ``exc.params`` lacks (or cannot format a value it got).
    """
    lang = normalize_lang(lang)
    template = error_template(exc.code, lang)
    if template is None:
        return None
    params: Mapping[str, Any] = exc.params
    try:
        needed = _roots(template)
    except ValueError:
        return None
    values: dict[str, Any] = {}
    for name in needed:
        if name in params:
            values[name] = params[name]
        elif name == "message":
            values[name] = exc.message
        else:
            return None
    try:
        return _Formatter(lang, params).format(template, **values)
    except (AttributeError, IndexError, KeyError, TypeError, ValueError):
        return None


def localize(exc: BaseException, lang: str | None = None) -> str:
    """The error as a person reading ``lang`` should see it, quoting the bad input.

    >>> from bobing.engine.dice import parse_dice
    >>> try:
    ...     parse_dice("44441")
    ... except BobingError as exc:
    ...     print(localize(exc, "zh-Hans"))
    ...     print(localize(exc, "en"))
    骰子 '44441' 无效：只有 5 颗，一掷必须正好 6 颗
    invalid dice '44441': 5 dice given, a throw has exactly 6
    """
    if not isinstance(exc, BobingError):
        return str(exc)
    text = render(exc, lang)
    return str(exc) if text is None else text
