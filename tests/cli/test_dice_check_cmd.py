"""``bobing dice-check RECORD… [--json]`` (RULES.md §10.3) on records of whole games."""

from __future__ import annotations

import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from bobing.cli import main
from bobing.engine.game import Game
from bobing.engine.presets import TRADITIONAL


class WeightedDice:
    """Dice whose faces fall with ``weights`` (all six equal: fair dice), seeded."""

    def __init__(self, weights: list[float], seed: int) -> None:
        self._random = random.Random(seed)
        self._weights = weights

    def roll(self, count: int = 6) -> tuple[int, ...]:
        return tuple(self._random.choices(range(1, 7), self._weights, k=count))


def records(tmp_path: Path, weights: list[float], throws: int, seed: int = 1) -> list[str]:
    """Whole games played through the engine with these dice until ``throws`` throws in all
    (the last game stops there), each saved as a RULES.md §6 record."""
    dice = WeightedDice(weights, seed)
    paths: list[str] = []
    left = throws
    while left:
        game = Game(TRADITIONAL, ["甲", "乙", "丙", "丁", "戊", "己"])
        game.start()
        while left and not game.is_over and game.next_player is not None:
            game.roll(dice)
            left -= 1
        path = tmp_path / f"game-{len(paths) + 1}.json"
        path.write_text(json.dumps(game.to_record(), ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    return paths


def run(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *args: str) -> Any:
    monkeypatch.setattr(sys, "argv", ["bobing", "dice-check", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exited:
        main()
    out, err = capsys.readouterr()
    return exited.value.code, out, err


def test_seeded_fair_dice_over_600_throws_are_fair(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = records(tmp_path, [1] * 6, 600)
    assert len(paths) > 1  # several evenings' records, counted together
    code, out, err = run(capsys, monkeypatch, *paths, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"faces", "dice", "chi2", "p", "verdict"}
    assert list(data["faces"]) == ["1", "2", "3", "4", "5", "6"]
    assert data["dice"] == 3600 == sum(data["faces"].values())
    assert data["verdict"] == "fair" and data["p"] >= 0.01 and data["chi2"] >= 0
    code, out, err = run(capsys, monkeypatch, *paths)
    assert code == 0, err
    assert "600 throws, 3,600 dice" in out
    assert "these dice look fair (p = " in out and "3,600 dice)" in out


def test_a_loaded_die_is_suspect(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = records(tmp_path, [3, 3, 3, 5, 3, 3], 600)  # 4 at 1/4, the rest 3/20 each
    code, out, err = run(capsys, monkeypatch, *paths, "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["verdict"] == "suspect" and data["p"] < 0.01
    assert data["faces"]["4"] == max(data["faces"].values())
    code, out, _ = run(capsys, monkeypatch, *paths, "--lang", "zh-Hans")
    assert "4 点出现得比公平的骰子多（p < 0.001）" in out


def test_thirty_throws_are_too_few(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = records(tmp_path, [1] * 6, 30)
    code, out, err = run(capsys, monkeypatch, *paths, "--json")
    assert code == 0, err
    assert json.loads(out)["verdict"] == "too_few" and json.loads(out)["dice"] == 180
    _, out, _ = run(capsys, monkeypatch, *paths)
    assert "too few throws to tell (30 throws; at least 60 are needed)" in out


def test_a_bad_record_prints_one_error_and_nothing_else(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    good = records(tmp_path, [1] * 6, 10)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"players": ["甲"], "throws": ["444412", "44441"]}))
    code, out, err = run(capsys, monkeypatch, *good, str(bad))
    assert code == 2 and out == ""
    assert err.strip().startswith("bobing: error: throw 2:") and "Traceback" not in err
