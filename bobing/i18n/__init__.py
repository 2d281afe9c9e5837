"""One message catalogue per language (standard library only).

Each language is a folder of JSON files (``engine.json``, ``cli.json``, ``server.json`` ...)
merged into one flat ``key -> template`` map; templates use ``str.format`` fields.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from typing import Any

LANGS: tuple[str, ...] = ("zh-Hans", "zh-Hant", "en")
DEFAULT_LANG = "zh-Hans"

_LANG_ALIASES = {
    "zh": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-sg": "zh-Hans",
    "zh-hans": "zh-Hans",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "zh-mo": "zh-Hant",
    "zh-hant": "zh-Hant",
    "en": "en",
}


def normalize_lang(lang: str | None) -> str:
    """Map a language tag (``zh-TW``, ``en-US``, ``zh_Hans``) to one of :data:`LANGS`.

    >>> normalize_lang("zh-TW"), normalize_lang("en-GB"), normalize_lang(None)
    ('zh-Hant', 'en', 'zh-Hans')
    """
    if not lang:
        return DEFAULT_LANG
    tag = lang.strip().replace("_", "-").lower()
    if tag in _LANG_ALIASES:
        return _LANG_ALIASES[tag]
    head = tag.split("-")[0]
    if head == "zh":
        return "zh-Hant" if any(p in tag for p in ("hant", "tw", "hk", "mo")) else "zh-Hans"
    return _LANG_ALIASES.get(head, "en" if head.isalpha() else DEFAULT_LANG)


def request_language(asked: str | None, accept_language: str | None) -> str:
    """The language of a request: ``asked`` (``?lang=``) if given, else the first tag of the
    ``Accept-Language`` header, normalized (the one reading of that header for every route).

    >>> request_language(None, "zh-TW,zh;q=0.9,en;q=0.8"), request_language("en", "zh-TW")
    ('zh-Hant', 'en')
    """
    wanted = asked or accept_language or ""
    return normalize_lang(wanted.split(",")[0].split(";")[0] if wanted else None)


def parse_lang(value: str) -> str:
    """A language the user asked for by name (``--lang``), strictly: unknown tags are errors.

    >>> parse_lang("zh-TW"), parse_lang("EN")
    ('zh-Hant', 'en')
    """
    tag = value.strip().replace("_", "-").lower()
    head = tag.split("-")[0]
    if tag and (tag in _LANG_ALIASES or head in ("zh", "en")):
        return normalize_lang(tag)
    from bobing.engine.errors import InputError

    raise InputError(
        f"unknown language {value!r}; allowed: {', '.join(LANGS)}", code="unknown_lang", value=value
    )


def lang_from_env(*, use_locale: bool = False) -> str:
    """The language asked for by ``BOBING_LANG``, else zh-Hans.

    The locale (``LC_ALL``/``LC_MESSAGES``/``LANG``) is consulted only with ``use_locale``:
    博饼 players read Chinese by default, and ``LANG=en_US.UTF-8`` or ``C.UTF-8`` on a server
    or a developer's machine says little about the reader.
    """
    names = ("BOBING_LANG", "LC_ALL", "LC_MESSAGES", "LANG") if use_locale else ("BOBING_LANG",)
    for var in names:
        value = os.environ.get(var, "")
        if value and value not in ("C", "POSIX") and not value.startswith("C."):
            return normalize_lang(value.split(".")[0])
    return DEFAULT_LANG


@cache
def catalogue(lang: str) -> dict[str, Any]:
    """Every message of one language, merged from its JSON files."""
    lang = normalize_lang(lang)
    merged: dict[str, Any] = {}
    folder = resources.files("bobing.i18n").joinpath(lang)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            merged.update(json.loads(entry.read_text(encoding="utf-8")))
    return merged


def t(key: str, lang: str | None = None, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` (falling back to English, then the key itself).

    >>> t("tier.duitang", "zh-Hans"), t("tier.duitang", "en")
    ('对堂', 'Duitang (second prize)')
    """
    lang = normalize_lang(lang)
    template = catalogue(lang).get(key)
    if template is None:
        template = catalogue("en").get(key, key)
    if params:
        try:
            return str(template).format(**params)
        except (KeyError, IndexError, ValueError):
            return str(template)
    return str(template)


def number(n: int, lang: str | None = None) -> str:
    """A small number as people say it: 十二 in Chinese, 12 in English.

    >>> number(12, "zh-Hans"), number(3, "en")
    ('十二', '3')
    """
    if normalize_lang(lang) == "en" or not 0 <= n <= 99:
        return str(n)
    digits = "零一二三四五六七八九"
    if n < 10:
        return digits[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else digits[tens]) + "十" + (digits[ones] if ones else "")
