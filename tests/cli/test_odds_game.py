"""``bobing odds --game``: the exact whole-game expectations beside the per-throw odds."""

from __future__ import annotations

import json

import pytest

from bobing.analysis.markov import expected_game_length
from bobing.engine.presets import MODERN, TRADITIONAL
from tests.cli.clitools import run as run_cli


def run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str
) -> tuple[int, str, str]:
    """The command in its default language (no ``BOBING_LANG``)."""
    monkeypatch.delenv("BOBING_LANG", raising=False)
    return run_cli(capsys, monkeypatch, *args)


def test_json_carries_the_markov_answer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, monkeypatch, "odds", "--game", "--players", "8", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["total"] == 46656
    assert data["game"] == json.loads(json.dumps(expected_game_length(TRADITIONAL, 8).to_json()))
    # Research §3: about 230 throws a game, about 0.5 % end by 六勃红.
    assert 200 < data["game"]["throws_mean"] < 260
    assert 0.003 < data["game"]["ended_by"]["liubohong"] < 0.007


def test_rules_change_the_answer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds", "--game", "--rules", "modern", "--json")
    assert code == 0
    game = json.loads(out)["game"]
    assert game["players"] == 10
    assert game["throws_mean"] == pytest.approx(expected_game_length(MODERN, 10).throws_mean)
    assert game["throws_mean"] != pytest.approx(expected_game_length(TRADITIONAL, 10).throws_mean)


def test_text_in_chinese_and_english(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds", "--game", "--players", "10")
    assert code == 0
    mean = expected_game_length(TRADITIONAL, 10).throws_mean
    assert "一整局的精确期望（10 人" in out and f"{mean:.2f}" in out
    code, out, _ = run(capsys, monkeypatch, "odds", "--game", "--lang", "en")
    assert code == 0 and "A whole game, exactly (10 players" in out


def test_plain_odds_has_no_game_section(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds", "--json")
    assert code == 0 and "game" not in json.loads(out)


@pytest.mark.parametrize("players", ["1", "0", "x"])
def test_bad_player_count_is_a_clean_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, players: str
) -> None:
    code, out, err = run(capsys, monkeypatch, "odds", "--game", "--players", players)
    assert code == 2 and out == "" and "Traceback" not in err
