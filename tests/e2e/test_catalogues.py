"""The UI's catalogues (bobing/web/static/i18n/*.json): the same keys and fields in every
language, and every key the scripts ask for is there. No browser needed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bobing.engine.hands import HANDS, TIERS
from bobing.engine.rules import SWITCHES
from bobing.engine.switches import choice_switches
from bobing.i18n import LANGS as SERVER_LANGS
from bobing.i18n import catalogue as server_catalogue

STATIC = Path(__file__).resolve().parents[2] / "bobing" / "web" / "static"
LANGS = ("zh-Hans", "zh-Hant", "en")
FIELD = re.compile(r"\{(\w+)\}")


def catalogue(lang: str) -> dict[str, str]:
    data: dict[str, str] = json.loads((STATIC / "i18n" / f"{lang}.json").read_text("utf-8"))
    return data


def used_keys() -> set[str]:
    """Literal keys of t("...") calls, plus the families the scripts build from ids."""
    keys: set[str] = set()
    for path in (STATIC / "js").rglob("*.js"):
        text = path.read_text("utf-8")
        keys.update(re.findall(r"\bt\(\s*\"([^\"$]+)\"", text))
        for a, b in re.findall(r"\bt\(\s*\w+ \? \"([^\"]+)\" : \"([^\"]+)\"", text):
            keys.update((a, b))
    # Rule switches, hands' names with kickers, the 状元 order and "why" come from the server's
    # rulebook (bobing/i18n): test_every_switch_has_words_in_the_one_catalogue
    for hand in HANDS:
        keys.add(f"hand.{hand}")
    for tier in TIERS:
        keys.update((f"tier.{tier}", f"tier.{tier}.title", f"tier.short.{tier}"))
    for mode in ("online", "pass_and_play", "referee"):
        keys.update((f"mode.{mode}", f"mode.{mode}.hint"))
    keys.update(f"preset.{p}" for p in ("traditional", "modern", "jinhua"))
    for end in ("exhausted", "liubohong", "liubohei", "biandijin"):
        keys.update((f"end.by.{end}", f"log.game_over.{end}"))
    keys.update(f"conn.{c}" for c in ("open", "connecting", "reconnecting", "gone", "closed"))
    return keys


@pytest.mark.parametrize("lang", LANGS)
def test_every_used_key_is_translated(lang: str) -> None:
    cat = catalogue(lang)
    missing = sorted(k for k in used_keys() if k not in cat)
    assert not missing, f"{lang} lacks {missing}"


def test_same_keys_and_fields_in_every_language() -> None:
    base = catalogue("zh-Hans")
    for lang in LANGS[1:]:
        other = catalogue(lang)
        assert set(other) == set(base), lang
        for key, text in base.items():
            assert set(FIELD.findall(other[key])) == set(FIELD.findall(text)), (lang, key)


def test_traditional_catalogue_has_no_simplified_leftovers() -> None:
    simplified = set("饼红状掷开录为这个们来发后里对观测时")
    for key, text in catalogue("zh-Hant").items():
        assert not (set(text) & simplified), (key, text)


def test_every_protocol_error_code_has_a_sentence() -> None:
    protocol = (STATIC.parents[2] / "docs" / "protocol.md").read_text("utf-8")
    codes = set(re.findall(r"^\| `([a-z_]+)` \| \d{3} \|", protocol, re.MULTILINE))
    assert len(codes) > 20
    for lang in LANGS:
        cat = catalogue(lang)
        missing = sorted(c for c in codes if f"error.{c}" not in cat)
        assert not missing, f"{lang} lacks error sentences for {missing}"


def test_every_switch_has_words_in_the_one_catalogue() -> None:
    """Switch labels, option labels and meanings live in bobing/i18n only (the browser shows
    what the server's rulebook says), for every switch the engine has."""
    static = catalogue("en")
    assert not [k for k in static if k.split(".")[0] in ("rule", "val", "switch")]
    for lang in SERVER_LANGS:
        words = server_catalogue(lang)
        keys = [f"rules.label.{s}" for s in SWITCHES if s != "prizes"]
        for switch, values in choice_switches().items():
            for value in values:
                word = str(value).lower()
                keys += [f"rules.option.{switch}.{word}", f"rules.meaning.{switch}.{word}"]
        missing = [k for k in keys if k not in words]
        assert not missing, (lang, missing)
