"""Issue 28: every limit once. Each served limit (``GET /api/limits``) is one constant in one
home module; no other Python module assigns its name, and no JavaScript file writes its number
where a bound goes (the browser reads ``limits.js``). The undo's voided events come from the
server too. The rounds a ranked table may play are one number for the engine and ``bobing
rules`` (the server and the forms: tests/web/test_limits_route.py, tests/e2e/test_rounds_limit.py).
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import string
import subprocess
import sys
from pathlib import Path

import pytest

import bobing
from bobing.engine.errors import RulesError
from bobing.engine.rules import rules_from_json
from bobing.engine.switches import MAX_PLAYERS, MAX_ROUNDS, allowed_values
from bobing.tables.limits import SERVED, UNDO_VOIDS, Limits
from bobing.tables.tokens import CODE_ALPHABET

PACKAGE = Path(bobing.__file__).parent
STATIC_JS = PACKAGE / "web" / "static" / "js"
BOBING = Path(sys.executable).parent / "bobing"

HOMES: dict[str, tuple[str, str]] = {
    "min_players": ("bobing.engine.switches", "MIN_PLAYERS"),
    "max_players": ("bobing.engine.switches", "MAX_PLAYERS"),
    "default_players": ("bobing.engine.switches", "DEFAULT_MAX_PLAYERS"),
    "max_name_length": ("bobing.engine.state", "MAX_NAME_LENGTH"),
    "max_prize_name": ("bobing.engine.switches", "MAX_PRIZE_NAME"),
    "max_prize_value": ("bobing.engine.switches", "MAX_PRIZE_VALUE"),
    "max_rounds": ("bobing.engine.switches", "MAX_ROUNDS"),
    "max_table_name": ("bobing.tables.limits", "MAX_TABLE_NAME"),
    "max_time_limit": ("bobing.tables.limits", "MAX_TIME_LIMIT"),
    "max_table_prize_lines": ("bobing.tables.limits", "MAX_TABLE_PRIZE_LINES"),
    "max_table_prize_count": ("bobing.tables.limits", "MAX_TABLE_PRIZE_COUNT"),
    "max_event_name": ("bobing.tables.limits", "MAX_EVENT_NAME"),
    "max_event_tables": ("bobing.tables.limits", "MAX_EVENT_TABLES"),
    "max_cost_name": ("bobing.organizer.budget", "MAX_COST_NAME"),
    "max_roster_bytes": ("bobing.organizer.roster", "MAX_ROSTER_BYTES"),
    "max_playoff_throws": ("bobing.organizer.playoff", "MAX_PLAYOFF_THROWS"),
    "max_sessions": ("bobing.organizer.programme", "MAX_SESSIONS"),
    "max_session_name": ("bobing.organizer.programme", "MAX_SESSION_NAME"),
    "max_session_minutes": ("bobing.organizer.programme", "MAX_SESSION_MINUTES"),
    "code_length": ("bobing.tables.tokens", "CODE_LENGTH"),
    "analysis_players": ("bobing.tables.limits", "ANALYSIS_PLAYERS"),
}
"""Each served limit's one home: the module and the constant that holds it."""

UNSERVED: dict[str, str] = {
    "MAX_RANKED_LINES": "bobing.engine.switches",
    "MAX_PRIZE_COUNT": "bobing.engine.switches",
    "MAX_SETS": "bobing.engine.switches",  # the editor's choices come from the switch schema
    "MAX_SIMULATED_ROUNDS": "bobing.analysis.ranked",
    "CODE_ALPHABET": "bobing.tables.tokens",
    "MAX_PHOTO_BYTES": "bobing.vision.limits",
    "MAX_PHOTO_PIXELS": "bobing.vision.limits",
    "UNSURE": "bobing.vision.limits",
}
"""Limits no form needs (the server's stricter ones are served; the simulator's own ceiling;
a photo's bytes and pixels, which the server refuses), the code alphabet (served apart, as
``code_alphabet``) and the unsure confidence (served apart, as ``photo_unsure_below``), still
written once."""

RETIRED = (
    "MAX_RANKED_ENTRIES",
    "MAX_TABLES",
    "VOIDABLE",
    "NAME_MAX",
    "TABLE_NAME_MAX",
    "DEFAULT_PLAYERS",
)
"""Names that held a copy before issue 28; none comes back, in Python or JavaScript."""

JS_ALLOWED: dict[tuple[str, str], str] = {
    ("device_store.js", "const MAX_RECENT = 12;"): "tables this device lists as recent",
    ("event.js", "const MAX_FEED = 40;"): "lines of the dashboard's feed this page keeps",
    ("reactions.js", "const MAX_FLOATING = 12;"): "emoji floating on the screen at once",
    ("views/event_new.js", "maxlength: 200"): "several names typed in one box; each is checked",
    ("views/tv.js", ".length > 12"): "the big screen's layout: a crowd gets the compact board",
    ("rulebook.js", ".length !== 6"): "six dice a throw (the engine's, not a served limit)",
    ("referee.js", ".length === 6"): "the pad: all six dice of a throw entered",
    ("referee.js", ".length === 2"): "the pad: both dice of the start throw entered",
}
"""Numbers in JavaScript that equal a served limit by chance, each with what it is instead."""

JS_BOUND = re.compile(
    r"\b(?:max|min|maxlength|minlength|limit|maximum|minimum)\s*:\s*(\d[\d_]*)\b"  # attributes
    r"|\bconst\s+(?:[A-Z0-9]+_)*(?:MAX|MIN|LIMIT|SEATS|PLAYERS|ROUNDS)(?:_[A-Z0-9]+)*"
    r"\s*=\s*(\d[\d_]*)\s*;"  # constants named as bounds
    r"|\.length\s*(?:[<>]=?|[!=]==?)\s*(\d+)\b"  # counts held to a bound
    r"|(?:\|\||\?\?)\s*(\d+)\b"  # defaults
)


def python_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def js_files() -> list[Path]:
    return sorted(STATIC_JS.rglob("*.js"))


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def assigned_names(path: Path) -> set[str]:
    """Every name a module binds by assignment, at any depth."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        for target in targets:
            names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


def test_every_served_limit_names_its_home() -> None:
    assert set(HOMES) == set(SERVED), "a served limit without a home here, or a home unserved"
    for name, (module, constant) in HOMES.items():
        assert getattr(importlib.import_module(module), constant) == SERVED[name], name


def test_no_python_module_redefines_a_limit() -> None:
    homes = {constant: module for module, constant in HOMES.values()} | UNSERVED
    found: list[str] = []
    for path in python_modules():
        here = module_name(path)
        for name in assigned_names(path):
            if name in homes and homes[name] != here:
                found.append(f"{here} assigns {name} (its home is {homes[name]})")
            if name in RETIRED:
                found.append(f"{here} brings back {name}")
    assert not found, "\n".join(found)


def test_no_javascript_file_writes_a_served_number() -> None:
    served = {value for value in SERVED.values() if value > 1}
    found: list[str] = []
    for path in js_files():
        where = path.relative_to(STATIC_JS).as_posix()
        text = path.read_text("utf-8")
        for retired in RETIRED:
            if re.search(rf"\b{retired}\b", text):
                found.append(f"{where} names {retired}")
        for _module, constant in HOMES.values():
            if re.search(rf"\b(?:const|let|var)\s+{constant}\b", text):
                found.append(f"{where} defines {constant} (served as limits().<name>)")
        for number, line in enumerate(text.splitlines(), start=1):
            for match in JS_BOUND.finditer(line):
                value = int(next(g for g in match.groups() if g is not None).replace("_", ""))
                if value in served and (where, match.group(0)) not in JS_ALLOWED:
                    found.append(f"{where}:{number}: {match.group(0)!r} is a served limit")
    assert not found, "\n".join(found) + "\n(read it from limits.js: limits().<name>)"


def test_no_javascript_file_lists_what_an_undo_voids() -> None:
    for path in js_files():
        for listed in re.finditer(r"\[([^\[\]]*)\]", path.read_text("utf-8")):
            voided = set(re.findall(r'"([a-z_]+)"', listed.group(1))) & UNDO_VOIDS
            assert len(voided) < 3, f"{path.name} lists undo_voids {sorted(voided)}: use limits.js"


def test_no_javascript_file_holds_the_code_alphabet() -> None:
    """The join form checks a code against the served ``code_alphabet``; a copy (whole, or a
    run of it, as a string or a character class) would drift when the server's changes."""
    plain = string.digits + string.ascii_uppercase
    # runs of six that skip a character left out (0, 1, I, L, O): the alphabet's own shape
    runs = {CODE_ALPHABET[i : i + 6] for i in range(len(CODE_ALPHABET) - 5)}
    telling = sorted(run for run in runs if run not in plain) + ["A-HJ-NP-Z"]
    found: list[str] = []
    for path in js_files():
        text = path.read_text("utf-8")
        for run in telling:
            if run in text:
                found.append(f"{path.relative_to(STATIC_JS).as_posix()} holds {run!r}")
    assert not found, "\n".join(found) + "\n(read it from limits.js: codeAlphabet())"


def test_the_allowances_are_still_needed() -> None:
    for where, snippet in JS_ALLOWED:
        assert snippet in (STATIC_JS / where).read_text("utf-8"), (where, snippet)


def test_a_full_tables_longest_ranked_game_fits_its_log() -> None:
    # a ranked throw is two events in the log (the dice, the engine's thrown)
    assert Limits().max_events * 0.75 >= MAX_ROUNDS * MAX_PLAYERS * 2


def test_the_docs_quote_the_limits() -> None:
    docs = PACKAGE.parent / "docs"
    assert f"a whole number 1-{MAX_ROUNDS}, only with" in (docs / "rules.md").read_text("utf-8")
    protocol = (docs / "protocol.md").read_text("utf-8")
    assert f"`rounds` (1–{MAX_ROUNDS})" in protocol
    assert json.dumps(dict(SERVED))[1:-1].replace('"', "") in protocol.replace('"', "")


@pytest.mark.parametrize("rounds", [MAX_ROUNDS, MAX_ROUNDS + 1])
def test_the_engine_and_bobing_rules_agree_on_rounds(rounds: int, tmp_path: Path) -> None:
    assert allowed_values("rounds") == ["null", f"1-{MAX_ROUNDS}"]
    rules = {
        "preset": "traditional",
        "award": "ranked",
        "ranked_prizes": [{"name": "一等奖", "count": 1}],
        "rounds": rounds,
    }
    path = tmp_path / "rules.json"
    path.write_text(json.dumps(rules, ensure_ascii=False), "utf-8")
    done = subprocess.run(
        [str(BOBING), "rules", str(path), "--json", "--lang", "en"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if rounds <= MAX_ROUNDS:
        assert rules_from_json(rules).rounds == rounds
        assert done.returncode == 0 and json.loads(done.stdout)["rounds"] == rounds, done.stderr
        return
    with pytest.raises(RulesError, match=f"for rounds: a whole number 1-{MAX_ROUNDS}") as caught:
        rules_from_json(rules)
    assert caught.value.params["maximum"] == MAX_ROUNDS
    assert done.returncode != 0 and f"1-{MAX_ROUNDS}" in done.stderr, done.stderr
