"""RULES.md §9 records through the real command: `bobing adjudicate RECORD --json` exactly as
tests/golden/section9_outputs.json says, and the §9 self-contradictions as clear errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bobing.engine.record import adjudicate, load_record
from tests.cli.clitools import run

GOLDEN = Path(__file__).parent.parent / "golden"
OUTPUTS: dict[str, Any] = json.loads(
    (GOLDEN / "section9_outputs.json").read_text(encoding="utf-8")
)["outputs"]


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_adjudicate_json_is_exactly_the_golden_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    path = GOLDEN / "records" / name
    code, out, err = run(capsys, monkeypatch, "adjudicate", str(path), "--json")
    assert code == 0, err
    assert json.loads(out) == OUTPUTS[name]
    assert adjudicate(load_record(path)) == OUTPUTS[name]


def test_the_section_9_1_example() -> None:
    result = OUTPUTS["s9_1_chajinhua_rises.json"]
    assert result["zhuangyuan"] == {
        "player": "A",
        "hand": "liubohong",
        "dice": "444444",
        "throw": 4,
    }
    assert result["holdings"]["A"] == {"zhuangyuan": 1, "duitang": 2}


def test_new_keys_are_absent_when_off() -> None:
    old = adjudicate(load_record(GOLDEN / "records" / "closed.json"))
    assert "zhuangyuan_cake" not in old and "payments" not in old
    assert "payments" not in OUTPUTS["s9_3_shared.json"]
    assert "zhuangyuan_cake" not in OUTPUTS["s9_3_money_pay.json"]


BAD_RULES = {
    "liubohong_duitang": ({"liubohong_duitang": "at_end"}, ("liubohong_duitang", "liubohong")),
    "pay": ({"money": "pay"}, ("money", "values")),
    "values": ({"values": {"zhuangyuan": 1}}, ("values", "money")),
    "shared-ranked": (
        {"award": "ranked", "ranked_prizes": [{"name": "一等奖"}], "zhuangyuan_cake": "shared"},
        ("zhuangyuan_cake", "award"),
    ),
}


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
@pytest.mark.parametrize("case", sorted(BAD_RULES))
def test_a_contradiction_is_an_error_naming_both_switches(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    case: str,
    lang: str,
) -> None:
    rules, names = BAD_RULES[case]
    record = tmp_path / "bad.json"
    record.write_text(
        json.dumps({"rules": {"preset": "traditional", **rules}, "players": ["甲", "乙"]}),
        encoding="utf-8",
    )
    code, out, err = run(capsys, monkeypatch, "adjudicate", str(record), "--json", "--lang", lang)
    assert code != 0 and out == ""
    assert "Traceback" not in err
    for name in names:
        assert name in err, (name, err)


def test_play_at_the_terminal_says_who_pays_and_that_the_cake_is_shared(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = tmp_path / "pay.json"
    values = {"zhuangyuan": 88, "duitang": 20, "sanhong": 10, "sijin": 5, "erju": 2, "yixiu": 1}
    spec = {"preset": "traditional", "money": "pay", "values": values, "zhuangyuan_cake": "shared"}
    rules.write_text(json.dumps(spec), encoding="utf-8")
    # the start dice (1 + 1: 甲 counts himself first, then 乙 starts), 乙 对堂, 甲 六勃红 sweeps
    code, out, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙",
        "--physical",
        "--rules",
        str(rules),
        "--lang",
        "zh-Hans",
        stdin="11\n123456\n444444\n",
    )
    assert code == 0, err
    assert "状元饼由全桌 2 人均分共享（分状元）" in out
    # 甲 holds every cake but the shared 状元: 2×20 + 4×10 + 8×5 + 16×2 + 32×1 = 184
    assert "应付（反向博钱）：" in out and "共交入公款 184" in out
