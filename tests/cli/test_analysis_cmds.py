"""``bobing simulate`` and ``bobing plan``: output contracts, pictures and bad input."""

from __future__ import annotations

import json
import os
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer.main

from bobing.cli import app
from tests.cli.clitools import run

BOBING = Path(sys.executable).parent / "bobing"
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "2013-prizes.csv"


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOBING_LANG", raising=False)
    monkeypatch.setenv("COLUMNS", "120")


def test_simulate_json_contract(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "simulate", "--players", "10", "--games", "3000", "--seed", "1",
        "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["games"] == 3000 and data["players"] == 10 and data["seed"] == 1
    for key in ("throws", "rounds"):
        assert set(data[key]) >= {"mean", "p50", "p90", "p99", "max"}
    assert set(data["ended_by"]) == {"exhausted", "liubohong", "liubohei", "biandijin"}
    assert len(data["seats"]) == 10 and data["seats"][0]["seat"] == 1
    assert set(data["seats"][0]) >= {"seat", "cakes_mean", "zhuangyuan_rate", "cakes_by_tier"}
    exact = data["exact"]
    assert exact["throws_mean"] == pytest.approx(228.067, abs=0.01)
    # Same seed, same output.
    code, again, _ = run(
        capsys, monkeypatch, "simulate", "--players", "10", "--games", "3000", "--seed", "1",
        "--json",
    )  # fmt: skip
    assert again == out


def test_simulate_text_shows_the_exact_mean_beside_the_simulated_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "10", "-g", "2000", "--seed", "3", "--lang", "en"
    )
    assert code == 0, err
    assert "exact mean" in out and "228.07" in out
    assert "seed 3" in out and "zhuangyuan" in out
    code, out, _ = run(capsys, monkeypatch, "simulate", "-n", "6", "-g", "500", "--seed", "3")
    assert "精确平均" in out and "六勃黑" in out


def test_simulate_under_other_rules_and_tiaohou(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rule_file = tmp_path / "house.json"
    rule_file.write_text(json.dumps({"preset": "modern", "chase": {"tiers": ["duitang"]}}))
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "4", "-g", "1000", "--rules", str(rule_file),
        "--tiaohou", "0.1", "--seed", "2", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["rules"]["chase"] == {"tiers": ["duitang"], "from": "nearest_before"}
    assert data["tiaohou"] == 0.1 and data["exact"] is not None
    # Traditional 跳猴 skips the next turn: no exact chain, said plainly.
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "4", "-g", "500", "--tiaohou", "0.1",
        "--lang", "en",
    )  # fmt: skip
    assert code == 0, err
    assert "No exact value" in out


@pytest.mark.parametrize("suffix", ["png", "svg"])
def test_simulate_plot(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, suffix: str
) -> None:
    target = tmp_path / f"length.{suffix}"
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "5", "-g", "2000", "--seed", "1",
        "--plot", str(target),
    )  # fmt: skip
    assert code == 0, err
    data = target.read_bytes()
    if suffix == "png":
        assert data.startswith(b"\x89PNG")
    else:
        assert b"<svg" in data[:2000]
    assert str(target) in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "1"], "invalid number of players 1"),
        (["--players", "31"], "invalid number of players 31"),
        (["--games", "0"], "invalid number of games 0"),
        (["--tiaohou", "1.5"], "invalid 跳猴 probability 1.5"),
        (["--seed", "-4"], "invalid --seed -4"),
        (["--rules", "nonsense"], "unknown preset 'nonsense'"),
        (["--plot", "out.pdf"], "invalid --plot 'out.pdf'"),
        (["--workers", "-1"], "invalid --workers -1"),
        (["--minutes", "0"], "invalid time limit 0.0 minutes"),
        (["--minutes", "30", "--seconds-per-throw", "0"], "invalid seconds per throw 0.0"),
        (["--minutes", "0.05"], "leaves no time for a single throw"),
        (["--start", "nope"], "invalid start 'nope': first or dice"),
    ],
)
@pytest.mark.usefixtures("english")
def test_simulate_bad_input(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    code, out, err = run(capsys, monkeypatch, "simulate", "-g", "10", *args)
    assert code == 2
    assert err.startswith("bobing: error: ") and message in err
    assert "Traceback" not in err and out == ""


def test_simulate_per_listed_player_with_the_two_dice_start(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "10", "-g", "4000", "--seed", "2",
        "--start", "dice", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["start"] == "dice"
    assert sum(seat["zhuangyuan_rate"] for seat in data["seats"]) == pytest.approx(1, abs=1e-5)
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "10", "-g", "1000", "--seed", "2",
        "--start", "dice",
    )  # fmt: skip
    assert code == 0, err
    assert "按名单" in out and "掷两颗骰子" in out


def test_simulate_with_a_time_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "10", "-g", "3000", "--seed", "4",
        "--minutes", "30", "--seconds-per-throw", "8", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    bell = data["bell"]
    assert (bell["minutes"], bell["seconds_per_throw"], bell["throws"]) == (30, 8, 225)
    assert 0.35 < bell["over_before_bell"] < 0.65
    assert bell["all_cakes_claimed"] == pytest.approx(1 - data["ended_by"]["closed"], abs=1e-6)
    assert data["exact"] is None and data["throws"]["max"] <= 225 + 9
    zy = sum(seat["zhuangyuan_rate"] for seat in data["seats"])
    assert zy + bell["zhuangyuan_unawarded"] == pytest.approx(1.0, abs=1e-5)
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "10", "-g", "1000", "--seed", "4",
        "--minutes", "30", "--seconds-per-throw", "8",
    )  # fmt: skip
    assert code == 0, err
    assert "即第 225 掷之后叫停" in out and "铃响前就博完" in out and "时间到，还有饼没博走" in out


RANKED_2013: dict[str, Any] = {
    "award": "ranked",
    "rounds": 3,
    "max_players": 13,
    "ranked_prizes": [
        {"name": "一等奖", "count": 1, "value": 498},
        {"name": "二等奖", "count": 1, "value": 199},
        {"name": "三等奖", "count": 1, "value": 89},
        {"name": "四等奖", "count": 2, "value": 79},
        {"name": "五等奖", "count": 2, "value": 59},
        {"name": "六等奖", "count": 2, "value": 49},
        {"name": "七等奖", "count": 3, "value": 27},
        {"name": "安慰奖", "count": 1, "value": 29},
    ],
}


def test_simulate_a_ranked_session(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = tmp_path / "ranked.json"
    rules.write_text(json.dumps(RANKED_2013, ensure_ascii=False), encoding="utf-8")
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "13", "-g", "4000", "--seed", "13",
        "--rules", str(rules), "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["award"] == "ranked" and len(data["seats"]) == 13
    assert [p["name"] for p in data["prizes"]] == [p["name"] for p in RANKED_2013["ranked_prizes"]]
    assert sum(seat["first"] for seat in data["seats"]) == pytest.approx(1.0, abs=1e-5)
    assert sum(seat["expected_value"] for seat in data["seats"]) == pytest.approx(1270, abs=0.01)
    assert sum(data["winning_hand"].values()) == pytest.approx(1.0, abs=1e-5)
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "13", "-g", "2000", "--seed", "13",
        "--rules", str(rules), "--lang", "zh-Hant",
    )  # fmt: skip
    assert code == 0, err
    assert "排名博餅" in out and "每場博 3 整輪" in out and "一等奖" in out and "第一名" in out
    # Without rounds a session only ends at the bell: said in the reader's language.
    rules.write_text(
        json.dumps({k: v for k, v in RANKED_2013.items() if k != "rounds"}), encoding="utf-8"
    )
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "13", "-g", "100", "--rules", str(rules)
    )
    assert code == 2 and "只有叫停才结束" in err and out == ""
    code, out, err = run(
        capsys, monkeypatch, "simulate", "-n", "13", "-g", "500", "--seed", "1",
        "--rules", str(rules), "--minutes", "10", "--seconds-per-throw", "12", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["ended_by"]["closed"] == 1.0 and data["bell"]["throws"] == 50
    assert data["throws"]["max"] == 52  # the round of the 50th throw is finished


def test_plan_2013_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "plan", "--players", "13", "--prizes", str(EXAMPLE),
        "--extra-cost", "1362.6", "--games", "2000", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["prizes"]["set_cost"] == 1270.0
    assert data["total_cost"] == 2632.6 and data["per_person"] == 202.51
    assert data["tables"][0]["players"] == 13
    assert set(data["minutes"]) == {"mean", "p5", "p50", "p95"}
    assert set(data["cakes_per_player"]) == {"mean", "by_tier"}
    assert data["contribution"] is None
    code, out, err = run(
        capsys, monkeypatch, "plan", "--players", "13", "--prizes", str(EXAMPLE),
        "--extra-cost", "1362.6", "--contribution", "200", "--games", "500", "--lang", "en",
    )  # fmt: skip
    assert code == 0, err
    assert "200.00 yuan × 13 = 2600.00 yuan collected; spending 2632.60 yuan" in out
    assert "deficit 32.60 yuan" in out
    code, out, err = run(
        capsys, monkeypatch, "plan", "-n", "20", "--prizes", str(EXAMPLE),
        "--contribution", "70", "-g", "500", "--lang", "zh-Hant",
    )  # fmt: skip
    assert code == 0, err
    assert "結餘 130.00 元" in out


def test_plan_ranked_2013(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "plan", "-n", "13", "--prizes", str(EXAMPLE), "--ranked",
        "--rounds", "3", "--contribution", "100", "-g", "1000", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["award"] == "ranked" and data["rounds"] == 3
    assert data["prizes"]["set_cost"] == 1270.0
    assert data["contribution"] == {"per_person": 100.0, "collected": 1300.0, "balance": 30.0}
    assert data["value_per_player"] == pytest.approx(97.69, abs=0.01)
    code, out, err = run(
        capsys, monkeypatch, "plan", "-n", "15", "--prizes", str(EXAMPLE), "--ranked",
        "--rounds", "2", "-g", "500", "--lang", "en",
    )  # fmt: skip
    assert code == 0, err
    assert "one per person, by their best throw over 2 round(s)" in out
    assert "2 player(s) go home without a prize" in out and "use --ranked" not in out


def test_plan_with_a_time_limit(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "plan", "-n", "13", "--prizes", str(EXAMPLE), "--minutes", "30",
        "-g", "1000",
    )  # fmt: skip
    assert code == 0, err
    assert "限时 30 分钟（第 180 掷后叫停）" in out and "铃响前博完" in out
    code, out, err = run(
        capsys, monkeypatch, "plan", "-n", "13", "--prizes", str(EXAMPLE), "--ranked",
        "--minutes", "30", "-g", "500", "--json",
    )  # fmt: skip
    assert code == 0, err
    data = json.loads(out)
    assert data["bell"]["throws"] == 180 and data["rounds"] is None
    assert data["tables"][0]["ended_by"] == {"rounds": 0.0, "closed": 1.0}


def test_plan_text_with_tables(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(
        capsys, monkeypatch, "plan", "--players", "13", "--tables", "2", "--games", "1000",
        "--seconds-per-throw", "8", "--lang", "en",
    )  # fmt: skip
    assert code == 0, err
    assert "2 table(s) of 7, 6" in out and "slowest decides" in out
    assert "use --ranked" in out
    code, out, err = run(capsys, monkeypatch, "plan", "-n", "13", "-g", "500")
    assert code == 0, err
    assert "多于规则允许的 12 个座位" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "13", "--prizes", "missing.csv"], "cannot read prize list 'missing.csv'"),
        (["--players", "40"], "use --tables 2 or more"),
        (["--players", "8", "--seconds-per-throw", "0"], "invalid seconds per throw 0"),
        (["--players", "8", "--extra-cost", "abc"], "invalid extra cost 'abc'"),
        (["--players", "8", "--contribution", "-5"], "invalid contribution '-5'"),
        (["--players", "8", "--ranked"], "--ranked reads the --prizes list"),
        (["--players", "8", "--rounds", "3"], "rounds only apply to ranked prizes"),
    ],
)
@pytest.mark.usefixtures("english")
def test_plan_bad_input(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    code, out, err = run(capsys, monkeypatch, "plan", *args)
    assert code == 2
    assert err.startswith("bobing: error: ") and message in err
    assert out == ""


def test_console_script_lists_and_runs_the_commands() -> None:
    assert BOBING.exists(), f"console script missing: {BOBING}"
    environ = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
    done = subprocess.run(
        [str(BOBING), "--help"], capture_output=True, text=True, env=environ, timeout=60,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "simulate" in done.stdout and "plan" in done.stdout
    done = subprocess.run(
        [str(BOBING), "simulate", "-n", "3", "-g", "200", "--seed", "1", "--json", "--no-exact"],
        capture_output=True, text=True, env=environ, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["exact"] is None


def test_no_warning_reaches_the_user_under_rules_where_no_throw_ends_the_game(
    tmp_path: Path,
) -> None:
    # The exact chain once printed numpy's "divide by zero" RuntimeWarning for these rules.
    rules = tmp_path / "no-ending.json"
    rules.write_text(
        json.dumps(
            {
                "preset": "traditional",
                "liubohong": "zhuangyuan",
                "liubohei": "zhuangyuan",
                "chajinhua_duitang": "none",
                "zhuangyuan_order": [
                    "chajinhua",
                    "liubohong",
                    "liubohei",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ],
            }
        ),
        encoding="utf-8",
    )
    environ = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
    environ["PYTHONWARNINGS"] = "error"
    for args in (
        ["odds", "--game", "--players", "4", "--rules", str(rules), "--json"],
        ["simulate", "-n", "4", "-g", "2000", "--seed", "3", "--rules", str(rules), "--json"],
    ):
        done = subprocess.run(
            [str(BOBING), *args], capture_output=True, text=True, env=environ, timeout=120,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""
        data = json.loads(done.stdout)
        game = data["game"] if "game" in data else data["exact"]
        assert game["ended_by"]["exhausted"] == 1.0
        assert 200 < game["throws_mean"] < 260


ROOT = Path(__file__).resolve().parents[2]


def test_every_option_is_documented() -> None:
    docs = (ROOT / "docs" / "analytics.md").read_text(encoding="utf-8")
    commands = {c.name: c for c in app.registered_commands}
    for name in ("simulate", "plan"):
        command = commands[name]
        assert command.callback is not None
        click_command = typer.main.get_command_from_info(
            command, pretty_exceptions_short=True, rich_markup_mode=None
        )
        for param in click_command.params:
            for opt in param.opts:
                if opt.startswith("--"):
                    assert opt in docs, (name, opt)


def test_catalogues_agree_across_languages() -> None:
    folder = ROOT / "bobing" / "i18n"
    files = {
        lang: json.loads((folder / lang / "analysis.json").read_text(encoding="utf-8"))
        for lang in ("zh-Hans", "zh-Hant", "en")
    }
    reference = files["en"]

    def fields(text: str) -> set[str]:
        return {f for _, f, _, _ in string.Formatter().parse(text) if f}

    for lang, messages in files.items():
        assert set(messages) == set(reference), lang
        for key, text in messages.items():
            assert text.strip(), (lang, key)
            assert fields(text) == fields(reference[key]), (lang, key)
