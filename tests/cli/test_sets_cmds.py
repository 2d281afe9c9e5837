"""一二会 (RULES.md §10.2) through the real commands: `bobing adjudicate` of a two-set record,
`bobing play` under `sets` = 2 played to the end, and `bobing rules` naming the switch."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bobing.engine.record import adjudicate, load_record
from tests.cli.clitools import run

GOLDEN = Path(__file__).parent.parent / "golden"
SCENARIOS: list[dict[str, Any]] = json.loads(
    (GOLDEN / "scenarios_v4.json").read_text(encoding="utf-8")
)["scenarios"]


def test_adjudicate_a_two_set_record(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(SCENARIOS[0]["record"], ensure_ascii=False), encoding="utf-8")
    code, out, err = run(capsys, monkeypatch, "adjudicate", str(path), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["set"] == 2 and [s["ended_by"] for s in data["sets"]] == ["liubohong"]
    assert data == adjudicate(load_record(path))
    code, text, err = run(capsys, monkeypatch, "adjudicate", str(path), "--lang", "en")
    assert code == 0, err
    assert "Set 2 of 2" in text and "Set 1: zhuangyuan B" in text
    assert "What each takes home over the sets:" in text
    assert "Set 2 begins with a full set of cakes: C throws first" in text
    # B: all 63 of set 1 and set 2's 对堂, 64 cakes to take home
    assert any(line.split()[:1] == ["B"] and line.split()[-1] == "64" for line in text.splitlines())


def test_sets_with_ranked_is_an_error_in_each_language(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = {
        "preset": "traditional",
        "sets": 2,
        "award": "ranked",
        "ranked_prizes": [{"name": "一等奖"}],
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"rules": rules, "players": ["甲", "乙"]}), encoding="utf-8")
    for lang in ("en", "zh-Hans", "zh-Hant"):
        code, out, err = run(capsys, monkeypatch, "adjudicate", str(path), "--lang", lang)
        assert code != 0 and out == "" and "Traceback" not in err
        assert "sets" in err and "award" in err and "cakes" in err


def test_play_two_sets_to_the_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"preset": "traditional", "sets": 2}), encoding="utf-8")
    save = tmp_path / "game.json"
    args = ["play", "-p", "甲,乙,丙", "--seed", "4", "--rules", str(rules), "--save", str(save)]
    code, out, err = run(capsys, monkeypatch, *args, stdin="\n" * 6000)
    assert code == 0, err
    assert "Set 2 begins with a full set of cakes" in out
    assert "What each takes home over the sets:" in out
    result = adjudicate(load_record(save))
    assert result["status"] == "over" and result["set"] == 2 and len(result["sets"]) == 1


def test_rules_lists_the_sets_switch(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"preset": "traditional", "sets": 2}), encoding="utf-8")
    code, out, err = run(capsys, monkeypatch, "rules", str(rules), "--lang", "en")
    assert code == 0, err
    assert "2 set(s) played one after another" in out


def test_simulate_says_its_numbers_are_per_set(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = tmp_path / "rules.json"
    rules.write_text(json.dumps({"preset": "traditional", "sets": 3}), encoding="utf-8")
    args = ["simulate", "--rules", str(rules), "--games", "50", "--seed", "1", "--no-exact"]
    code, out, err = run(capsys, monkeypatch, *args, "--lang", "en", "--workers", "1")
    assert code == 0, err
    assert "The rules play 3 sets one after another" in out
    code, out, err = run(capsys, monkeypatch, *args[:2], "traditional", *args[3:], "--lang", "en")
    assert code == 0, err
    assert "sets one after another" not in out
