"""``bobing adjudicate`` and ``bobing play``: output contracts, bad records, piped play."""

from __future__ import annotations

import io
import json
import os
import string
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import bobing.i18n
from bobing.cli import main
from bobing.cli.game_cmds import split_names
from bobing.engine.record import adjudicate, load_record
from bobing.i18n import LANGS
from tests.cli.clitools import run

BOBING = Path(sys.executable).parent / "bobing"
GOLDEN = Path(__file__).parent.parent / "golden"
EXAMPLE = GOLDEN / "records" / "example.json"
SMALL = {"duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOBING_LANG", raising=False)
    monkeypatch.setenv("COLUMNS", "100")


def write(tmp_path: Path, record: Any, name: str = "game.json") -> str:
    path = tmp_path / name
    text = record if isinstance(record, str) else json.dumps(record, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    return str(path)


# -- adjudicate --json -----------------------------------------------------------------------


def test_json_is_the_rules_md_object(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, monkeypatch, "adjudicate", str(EXAMPLE), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data == adjudicate(load_record(EXAMPLE))
    assert {"status", "ended_by", "next", "zhuangyuan", "holdings", "pool", "events"} <= set(data)
    assert data["zhuangyuan"] == {"player": "丙", "hand": "sihong", "dice": "444466", "throw": 5}
    assert data["holdings"] == {"甲": {}, "乙": {"erju": 1}, "丙": {"duitang": 1, "sijin": 1}}
    assert data["status"] == "in_progress" and data["next"] == "乙"


def test_json_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    text = EXAMPLE.read_text(encoding="utf-8")
    code, out, _ = run(capsys, monkeypatch, "adjudicate", "-", "--json", stdin=text)
    assert code == 0
    assert json.loads(out) == adjudicate(load_record(EXAMPLE))


def test_rules_rejudge_what_if_we_had_played_chase(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = {
        "rules": "traditional",
        "players": ["甲", "乙", "丙", "丁", "戊"],
        "throws": [
            "235566",
            "123456",
            "235566",
            "235566",
            "654321",
            "235566",
            "235566",
            "235566",
            "162534",
        ],
    }
    path = write(tmp_path, record)
    rules = write(tmp_path, {"preset": "traditional", "chase": {"tiers": ["duitang"]}}, "r.json")
    _, plain, _ = run(capsys, monkeypatch, "adjudicate", path, "--json")
    code, chased, err = run(capsys, monkeypatch, "adjudicate", path, "--rules", rules, "--json")
    assert code == 0, err
    before, after = json.loads(plain), json.loads(chased)
    assert before["holdings"]["丁"] == {} and "rejudged" not in before
    assert after["holdings"]["丁"] == {"duitang": 1} and after["holdings"]["乙"] == {}
    assert after["rejudged"] is True and after["unused_throws"] == 0
    code, text, _ = run(capsys, monkeypatch, "adjudicate", path, "--rules", rules)
    assert code == 0 and "重判" in text and "追：从 乙 那里拿走对堂" in text


# -- adjudicate text -------------------------------------------------------------------------


def test_text_output_zh_hans(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, monkeypatch, "adjudicate", str(EXAMPLE))
    assert code == 0, err
    assert "规则：厦门传统 (traditional) · 3 人 · 已博 8 掷" in out
    assert "进行中：第 4 轮，轮到 乙" in out
    for header in ("玩家", "状元", "对堂", "三红", "四进", "二举", "一秀", "合计"):
        assert header in out
    assert "目前领先：丙，四红带十二（444466，第 5 掷）" in out
    assert "比 乙 的四红带八（第 1 掷）大" in out
    assert "剩下的饼：状元 1、对堂 1、三红 4、四进 7、二举 15、一秀 32（共 60 个）" in out
    assert "甲 掷两颗骰子 2+3=5，数到 乙 起博，甲 收尾" in out
    assert "第 3 掷 甲：跳猴，本掷作废 → 下一轮停博" in out
    assert "甲 停博一次（之前跳猴）" in out
    assert "第 7 掷 丙：333341 四进 → 得四进" in out
    lines = out.splitlines()
    row = next(line for line in lines if line.strip().startswith("丙") and "2" in line)
    assert row.split()[1:] == ["·", "1", "·", "1", "·", "·", "2"]


def test_text_output_other_languages(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, en, _ = run(capsys, monkeypatch, "adjudicate", str(EXAMPLE), "--lang", "en")
    assert "Leading: 丙, Four reds with 12 (444466, throw 5)" in en
    assert "Throw 3, 甲: a die left the bowl (tiaohou), the throw is void" in en
    _, hant, _ = run(capsys, monkeypatch, "adjudicate", str(EXAMPLE), "--lang", "zh-TW")
    assert "四紅帶十二" in hant and "剩下的餅" in hant


def test_text_of_a_finished_game_says_who_won_and_why(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = {
        "rules": {"preset": "traditional", "prizes": SMALL},
        "players": ["甲", "乙", "丙"],
        "throws": ["444435", "444426", "123455"],
    }
    code, out, _ = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record))
    assert code == 0
    assert "已结束：饼博完了，最后一轮也博完了" in out
    assert "状元：甲，四红带八（444435，第 1 掷）" in out
    assert "和 乙 的四红带八一样大，但先博出" in out
    assert "剩下的饼：没有了" in out
    assert "状元饼归 甲" in out


def test_text_log_of_special_events(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = {
        "players": ["甲", "乙", "丙"],
        "throws": ["444411", "444466", "444446", "444412", "444455", "123456", "235566", "444444"],
    }
    code, out, _ = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record))
    assert code == 0
    assert "第 1 掷 甲：444411 状元插金花 → 状元候选 → 兼得对堂×2" in out
    assert "第 4 掷 甲：444412 四红带三 → 不计，保留原来的状元插金花" in out
    assert "第 5 掷 乙：444455 四红带十 → 禄骨：换掉自己原来的四红带十二" in out
    assert "第 6 掷 丙：123456 对堂 → 对堂已博完，没有奖" in out
    assert "第 8 掷 乙：444444 六勃红 → 收走 甲 的对堂×2 → 收走桌上的三红×4" in out
    assert "收走 甲 的对堂×2" in out and "收走桌上的一秀×32" in out
    assert "不计" not in out.split("第 8 掷 乙：")[-1]
    assert "游戏结束（六勃红）" in out
    grab = {
        "players": ["甲", "乙"],
        "throws": ["555555"],
        "grab": {
            "甲": {"zhuangyuan": 1, "yixiu": 32},
            "乙": {"duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16},
        },
    }
    code, out, _ = run(capsys, monkeypatch, "adjudicate", write(tmp_path, grab, "g.json"))
    assert code == 0
    assert "六勃黑！关灯抢饼" in out and "乙 抢到 对堂 2、三红 4、四进 8、二举 16" in out
    assert "状元饼：甲（关灯抢到的）" in out


# -- bad records: exit 2, the message names the throw or key, nothing on stdout ---------------

BAD_RECORDS: list[tuple[str, Any, str]] = [
    ("malformed JSON", '{"players": ["甲", "乙"], "throws": [', "not valid JSON"),
    ("not an object", "[1, 2, 3]", "JSON object"),
    ("five digits", {"players": ["甲", "乙"], "throws": ["444412", "44441"]}, "throw 2"),
    ("seven digits", {"players": ["甲", "乙"], "throws": ["4444123"]}, "throw 1"),
    ("a 0", {"players": ["甲", "乙"], "throws": ["123455", "444402"]}, "throw 2: '444402' has a 0"),
    ("a 7", {"players": ["甲", "乙"], "throws": ["123457"]}, "throw 1: '123457' has a 7"),
    (
        "duplicate names",
        {"players": ["甲", "乙", "甲"], "throws": []},
        "duplicate player name '甲'",
    ),
    (
        "unknown name",
        {"players": ["甲", "乙"], "throws": [{"player": "丙", "dice": "123456"}]},
        "throw 1: unknown player '丙'",
    ),
    (
        "not their turn",
        {"players": ["甲", "乙"], "throws": ["123455", {"player": "甲", "dice": "123456"}]},
        "throw 2: it is 乙's turn, not 甲's",
    ),
    (
        "after the end",
        {
            "rules": {"preset": "traditional", "prizes": SMALL},
            "players": ["甲", "乙"],
            "throws": ["444412", "123455", "235566", "235566"],
        },
        "throw 3: the game is already over",
    ),
    ("unknown preset", {"rules": "nosuch", "players": ["甲", "乙"]}, "'nosuch'"),
    (
        "unknown switch",
        {"rules": {"preset": "traditional", "colour": 1}, "players": ["甲", "乙"]},
        "'colour'",
    ),
    (
        "unknown value",
        {"rules": {"preset": "traditional", "end": "never"}, "players": ["甲", "乙"]},
        "'never' for end",
    ),
    (
        "grab not exact",
        {"players": ["甲", "乙"], "throws": ["555555"], "grab": {"甲": {"zhuangyuan": 1}}},
        "grab must allocate exactly",
    ),
    (
        "grab unknown player",
        {"players": ["甲", "乙"], "throws": ["555555"], "grab": {"丙": {}}},
        "grab: unknown player '丙'",
    ),
    ("grab without a grab", {"players": ["甲", "乙"], "throws": [], "grab": {"甲": {}}}, "grab"),
    ("no players", {"throws": []}, "players"),
    (
        "bad start",
        {"players": ["甲", "乙"], "start": {"thrower": "甲", "dice": [3, 9]}},
        "start.dice",
    ),
]


@pytest.mark.usefixtures("english")
@pytest.mark.parametrize(
    ("record", "needle"),
    [(r, n) for _, r, n in BAD_RECORDS],
    ids=[name for name, _, _ in BAD_RECORDS],
)
@pytest.mark.parametrize("json_flag", [True, False], ids=["json", "text"])
def test_bad_records_exit_2_naming_the_problem(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    record: Any,
    needle: str,
    json_flag: bool,
) -> None:
    args = ["adjudicate", write(tmp_path, record)] + (["--json"] if json_flag else [])
    code, out, err = run(capsys, monkeypatch, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("bobing: error: ") and needle in err, err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.usefixtures("english")
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["adjudicate", "missing.json"], "cannot read record 'missing.json'"),
        (["adjudicate", str(EXAMPLE), "--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["adjudicate", str(EXAMPLE), "--rules", "missing.json"], "missing.json"),
        (["adjudicate", str(EXAMPLE), "--lang", "xx"], "unknown language 'xx'"),
    ],
)
def test_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needle: str,
) -> None:
    code, out, err = run(capsys, monkeypatch, *args)
    assert (code, out) == (2, "")
    assert needle in err


@pytest.mark.usefixtures("english")
def test_bad_stdin(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, err = run(capsys, monkeypatch, "adjudicate", "-", stdin="not json")
    assert (code, out) == (2, "") and "'<stdin>' is not valid JSON" in err


# -- play ------------------------------------------------------------------------------------


def test_play_random_to_the_end_with_piped_enters(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "game.json"
    args = ["play", "--players", "甲,乙、丙，丁", "--seed", "11", "--save", str(save)]
    code, out, err = run(capsys, monkeypatch, *args, stdin="\n" * 3000)
    assert code == 0, err
    assert "博饼 · 厦门传统 (traditional) · 甲、乙、丙、丁 · 随机种子 11" in out
    assert "甲 掷两颗骰子" in out
    assert "剩下的饼：" in out and "目前领先" in out
    assert "结果：" in out and "\n状元：" in out
    assert f"记录已存到 {save}" in out
    record = load_record(save)
    assert record["players"] == ["甲", "乙", "丙", "丁"] and record["seed"] == 11
    result = adjudicate(record)
    assert result["status"] == "over"
    assert f"状元：{result['zhuangyuan']['player']}" in out
    # The same seed plays the same game.
    code, again, _ = run(capsys, monkeypatch, *args, stdin="\n" * 3000)
    assert code == 0 and again == out


def test_play_eof_saves_what_was_played(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "partial.json"
    code, out, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙",
        "--seed",
        "2",
        "--save",
        str(save),
        stdin="\n\n\n\n",
    )
    assert code == 0, err
    assert "输入结束：游戏停在第 3 掷之后。" in out
    record = load_record(save)
    assert len(record["throws"]) == 3 and "start" in record
    assert adjudicate(record)["status"] == "in_progress"


def test_play_q_stops(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, monkeypatch, "play", "-p", "甲,乙", "--seed", "2", stdin="\nq\n")
    assert code == 0 and "不博了：游戏停在第 0 掷之后。" in out


def test_play_physical_typed_dice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "real.json"
    typed = ["9", "3 4", "44441", "444412", "t", "跳猴", "４４４４６６", "abc", "1,2,3,4,5,6"]
    code, out, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙,丙",
        "--physical",
        "--save",
        str(save),
        stdin="\n".join(typed) + "\n",
    )
    assert code == 0, err
    assert "“9”不是两颗骰子" in out
    assert "“44441”不是六颗骰子：请输入六个 1–6 的数字，如 444412；跳猴输入 t" in out
    assert "“abc”不是六颗骰子" in out
    assert "第 2 掷 乙：跳猴，本掷作废 → 下一轮停博" in out
    assert "第 4 掷 甲：444466 四红带十二" in out
    assert "第 5 掷 甲：123456 对堂 → 得对堂" in out
    record = load_record(save)
    assert record["start"] == {"thrower": "甲", "dice": [3, 4]}
    assert [t.get("dice", "t") for t in record["throws"]] == [
        "444412",
        "t",
        "t",
        "444466",
        "123456",
    ]


def test_play_physical_lights_off_grab_is_settled_at_random(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "grab.json"
    code, out, _ = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙",
        "--physical",
        "--seed",
        "4",
        "--save",
        str(save),
        stdin="11\n123455\n555555\n",
    )
    assert code == 0
    assert "六勃黑！关灯抢饼" in out and "关灯了，饼随机分给大家" in out
    assert "结果：" in out
    record = load_record(save)
    result = adjudicate(record)
    assert result["status"] == "over" and result["ended_by"] == "liubohei"
    assert sum(sum(h.values()) for h in result["holdings"].values()) == 63
    assert "grab" in record


def test_play_asks_for_names_when_none_are_given(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "play", "--seed", "1", stdin="甲\n甲,乙\n\nq\n")
    assert code == 0
    assert "名字不行：" in out and "1" in out.split("名字不行：")[1].splitlines()[0]
    assert "博饼 · 厦门传统 (traditional) · 甲、乙" in out
    code, out, _ = run(capsys, monkeypatch, "play", stdin="")
    assert code == 0 and "输入结束" in out


def test_play_names_from_a_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    names = tmp_path / "names.txt"
    names.write_text("阿明\n阿华\n\n小芳、老陈\n", encoding="utf-8")
    code, out, _ = run(
        capsys, monkeypatch, "play", "--players-file", str(names), "--lang", "en", stdin="q\n"
    )
    assert code == 0
    assert "Bobing · Xiamen traditional (traditional) · 阿明, 阿华, 小芳, 老陈" in out
    assert "阿明 throws two dice to choose who starts" in out


@pytest.mark.usefixtures("english")
@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["-p", "甲"], "2 to 12 players, not 1"),
        (["-p", ",".join(f"p{i}" for i in range(13))], "13 players, but max_players is 12"),
        (["-p", "甲,乙,甲"], "duplicate player name '甲'"),
        (["-p", "甲,乙", "--players-file", "x.txt"], "not both"),
        (["--players-file", "missing.txt"], "cannot read players file 'missing.txt'"),
        (["-p", "甲,乙", "--rules", "nosuch"], "unknown preset 'nosuch'"),
        (["-p", "甲,乙", "--lang", "xx"], "unknown language 'xx'"),
    ],
)
def test_play_bad_arguments_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    needle: str,
) -> None:
    code, out, err = run(capsys, monkeypatch, "play", *args, stdin="\n" * 10)
    assert code == 2 and out == ""
    assert needle in err


@pytest.mark.usefixtures("english")
def test_play_cannot_save(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    target = tmp_path / "no" / "such" / "dir" / "g.json"
    code, _, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙",
        "--seed",
        "1",
        "--save",
        str(target),
        stdin="\nq\n",
    )
    assert code == 2 and "cannot save the record" in err


def test_split_names() -> None:
    assert split_names(" 甲 ,乙、丙，丁,, ") == ["甲", "乙", "丙", "丁"]


# -- the console script, as a user runs it -----------------------------------------------------


def run_console(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    assert BOBING.exists(), f"console script missing: {BOBING}"
    environ = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
    return subprocess.run(
        [str(BOBING), *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environ,
        timeout=120,
        check=False,
    )


def test_console_play_and_adjudicate(tmp_path: Path) -> None:
    save = tmp_path / "g.json"
    done = run_console(
        "play", "--players", "甲,乙,丙", "--seed", "8", "--save", str(save), stdin="\n" * 3000
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout  # no animation or colour on a pipe
    judged = run_console("adjudicate", str(save), "--json")
    assert judged.returncode == 0
    assert json.loads(judged.stdout)["status"] == "over"
    bad = run_console("adjudicate", "-", stdin='{"players": ["甲", "乙"], "throws": ["4444"]}')
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr == "bobing: 错误：第 1 掷：'4444' 不是六个 1-6 的数字（有 4 个字符）\n"


# -- the catalogue of this area --------------------------------------------------------------


def test_game_catalogue_is_complete_in_every_language() -> None:
    root = Path(bobing.i18n.__file__).parent

    def fields(template: str) -> set[str]:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name}

    reference = json.loads((root / "en" / "game.json").read_text(encoding="utf-8"))
    for lang in LANGS:
        messages = json.loads((root / lang / "game.json").read_text(encoding="utf-8"))
        assert set(messages) == set(reference), lang
        for key, template in messages.items():
            assert template.strip() and fields(template) == fields(reference[key]), (lang, key)


@pytest.mark.usefixtures("english")
def test_stdin_bytes_bom_and_bad_utf8(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def with_bytes(data: bytes) -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "argv", ["bobing", "adjudicate", "-", "--json"])
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
        code: Any = 0
        try:
            main()
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code or 0, out, err

    record = '{"players": ["甲", "乙"], "throws": ["444412"]}'.encode()
    code, out, _ = with_bytes(b"\xef\xbb\xbf" + record)
    assert code == 0 and json.loads(out)["zhuangyuan"]["player"] == "甲"
    code, out, err = with_bytes(b"\xff{")
    assert (code, out) == (2, "") and "not UTF-8" in err


def test_a_record_file_with_a_bom(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + EXAMPLE.read_bytes())
    code, out, _ = run(capsys, monkeypatch, "adjudicate", str(path), "--json")
    assert code == 0 and json.loads(out)["status"] == "in_progress"


def test_docs_show_real_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "records.md").read_text(encoding="utf-8")
    monkeypatch.chdir(root)
    code, out, _ = run(capsys, monkeypatch, "adjudicate", "tests/golden/records/example.json")
    assert code == 0
    assert f"$ bobing adjudicate tests/golden/records/example.json\n{out}```" in docs
    for option in (
        "--players",
        "--players-file",
        "--rules",
        "--physical",
        "--seed",
        "--save",
        "--lang",
        "--json",
    ):
        assert option in docs
    for args in (
        ["tests/golden/records/closed.json", "--lang", "en"],
        ["tests/golden/records/ranked_2013.json"],
    ):
        code, out, _ = run(capsys, monkeypatch, "adjudicate", *args)
        assert code == 0
        assert f"$ bobing adjudicate {' '.join(args)}\n{out}```" in docs


# -- RULES.md §8: closes and ranked sessions -----------------------------------------------------

RANKED_2013 = GOLDEN / "records" / "ranked_2013.json"
CLOSED = GOLDEN / "records" / "closed.json"


def test_ranked_json_has_the_ranking(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "adjudicate", str(RANKED_2013), "--json")
    assert code == 0
    result = json.loads(out)
    assert result["ended_by"] == "rounds" and result["zhuangyuan"] is None
    assert result["pool"] == {} and set(result["holdings"]) == set(
        load_record(RANKED_2013)["players"]
    )
    # Worked by hand: 插金花 > 五子 > the two 四红带八 (甲 threw first) > the 对堂s ... and 丙,
    # whose only throw was a 跳猴, comes last with the last prize (13 prizes for 13 people).
    assert [(e["player"], e["prize"]) for e in result["ranking"]] == [
        ("辛", "一等奖"),
        ("癸", "二等奖"),
        ("甲", "三等奖"),
        ("戊", "四等奖"),
        ("乙", "四等奖"),
        ("庚", "五等奖"),
        ("丑", "五等奖"),
        ("己", "六等奖"),
        ("寅", "六等奖"),
        ("壬", "七等奖"),
        ("子", "七等奖"),
        ("丁", "七等奖"),
        ("丙", "安慰奖"),
    ]
    assert result["ranking"][-1] == {
        "player": "丙",
        "hand": None,
        "dice": None,
        "throw": None,
        "prize": "安慰奖",
    }


def test_ranked_text_shows_the_ranking_not_cakes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "adjudicate", str(RANKED_2013), "--lang", "en")
    assert code == 0
    assert "Over: every round was played" in out
    assert "Ranking (each person: the prize of their best throw):" in out
    assert "no counted throw yet" in out
    assert "Zhuangyuan   Duitang" not in out  # no cake table
    assert "Throw 8, 辛: 114444" in out and "辛's best so far" in out


def test_closed_text_and_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "adjudicate", str(CLOSED), "--json")
    result = json.loads(out)
    assert code == 0 and result["ended_by"] == "closed" and result["closed"] is True
    assert result["holdings"] == {
        "甲": {"duitang": 1},
        "乙": {},
        "丙": {"zhuangyuan": 1, "duitang": 1},
    }
    code, out, _ = run(capsys, monkeypatch, "adjudicate", str(CLOSED))
    assert "宣布结束：博到第 1 轮 乙 为止" in out
    assert "已结束：主持人宣布结束" in out
    assert "丙（插金花）另拿走没人博走的对堂×1" in out


def test_a_close_with_a_second_close_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = {"players": ["甲", "乙"], "throws": ["123456", {"close": True}, {"close": True}]}
    code, out, err = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record))
    assert code == 2 and out == ""
    assert "第 1 掷之后的结束：已经宣布过结束" in err
    code, out, err = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record), "--lang", "en")
    assert "close after throw 1: time was already called" in err


def test_play_e_calls_time_and_the_round_is_finished(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    save = tmp_path / "closed.json"
    typed = ["11", "444412", "e", "e", "123456", "235566"]
    code, out, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙,丙",
        "--physical",
        "--save",
        str(save),
        stdin="\n".join(typed) + "\n",
    )
    assert code == 0, err
    # 1+1 counted from 甲 makes 乙 the starter: 乙, 丙, 甲; time is called after 乙's throw.
    assert "已宣布结束。" in out and "宣布结束：博到第 1 轮 甲 为止" in out
    assert "现在不能宣布结束：已经宣布过结束了" in out
    assert "游戏结束（主持人宣布结束）" in out
    record = load_record(save)
    assert record["throws"][1] == {"close": True}
    assert adjudicate(record)["ended_by"] == "closed"


def test_play_a_ranked_session_shows_the_ranking(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = write(
        tmp_path,
        {
            "preset": "traditional",
            "award": "ranked",
            "rounds": 1,
            "ranked_prizes": [{"name": "一等奖"}],
        },
        "ranked.json",
    )
    code, out, err = run(
        capsys,
        monkeypatch,
        "play",
        "-p",
        "甲,乙",
        "--physical",
        "--rules",
        rules,
        stdin="11\n123456\n444412\n",
    )
    assert code == 0, err
    assert "排名（每人只取博到的最高奖项）：" in out
    assert "目前第一：乙，对堂（123456，第 1 掷）——一等奖" in out  # 1+1 from 甲: 乙 starts
    table = out.split("排名（每人只取博到的最高奖项）：")[1]
    lines = [line for line in table.splitlines() if "一等奖" in line]
    assert len(lines) == 1 and "444412" in lines[0] and "甲" in lines[0]


def test_play_thirteen_players_with_max_players(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules = write(tmp_path, {"preset": "traditional", "max_players": 13}, "13.json")
    names = ",".join(f"p{i}" for i in range(13))
    code, out, err = run(
        capsys, monkeypatch, "play", "-p", names, "--rules", rules, "--seed", "1", stdin="q\n"
    )
    assert code == 0, err
    code, out, err = run(capsys, monkeypatch, "play", "--rules", rules, stdin="")
    assert "玩家名字（2–13 人" in out


def test_docs_ranked_json_is_real() -> None:
    root = Path(__file__).resolve().parents[2]
    docs = (root / "docs" / "records.md").read_text(encoding="utf-8")
    block = docs.split("and the same with `--json` (events left out here):\n\n```json\n")[1]
    shown = json.loads(block.split("```")[0])
    result = adjudicate(load_record(root / "tests" / "golden" / "records" / "ranked_2013.json"))
    assert shown == {key: result[key] for key in shown}
    assert set(shown) == {"status", "ended_by", "zhuangyuan", "pool", "ranking"}


def test_text_status_while_time_is_called(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    record = {"players": ["甲", "乙", "丙"], "throws": ["444412", {"close": True}]}
    code, out, _ = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record))
    assert code == 0
    assert "进行中，已宣布结束：第 1 轮，轮到 乙（博到 丙 为止）" in out
    code, out, _ = run(capsys, monkeypatch, "adjudicate", write(tmp_path, record), "--json")
    result = json.loads(out)
    assert result["status"] == "in_progress" and result["closed"] is True


def test_rejudging_says_why_throws_are_renumbered(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    golden = Path(__file__).parents[1] / "golden" / "records"
    # traditional → modern: a 跳猴 no longer costs a turn, so the turns (and numbers) move
    code, out, _ = run(
        capsys,
        monkeypatch,
        "adjudicate",
        str(golden / "example.json"),
        "--rules",
        "modern",
        "--lang",
        "en",
    )
    assert code == 0
    assert "throw numbers and who threw when differ from the record" in out
    # jinhua → modern changes no turn: nothing to explain
    code, out, _ = run(
        capsys,
        monkeypatch,
        "adjudicate",
        str(golden / "jinhua_in_progress.json"),
        "--rules",
        "modern",
        "--lang",
        "en",
    )
    assert code == 0
    assert "re-judged under" in out and "differ from the record" not in out


@pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")
def test_enter_during_the_roll_leaves_no_frames_and_is_not_a_throw() -> None:
    import contextlib
    import pty
    import select
    import time

    bobing = str(Path(sys.executable).with_name("bobing"))
    env = dict(os.environ, BOBING_LANG="en", COLUMNS="100", TERM="xterm")
    main, child = pty.openpty()
    proc = subprocess.Popen(
        [bobing, "play", "--players", "甲,乙", "--seed", "7"],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        close_fds=True,
    )
    os.close(child)
    seen = b""

    def read_until(marker: bytes, timeout: float = 60.0) -> None:
        nonlocal seen
        deadline = time.monotonic() + timeout
        while marker not in seen and time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.2)
            if ready:
                try:
                    seen += os.read(main, 4096)
                except OSError:
                    break
        assert marker in seen, seen.decode("utf-8", "replace")[-500:]

    try:
        read_until(b"who starts")
        os.write(main, b"\r")  # the start dice
        read_until("Throw 1 · 甲".encode())  # the first throw's prompt
        start = len(seen)
        os.write(main, b"\r")  # throw 1 ...
        time.sleep(0.1)
        os.write(main, b"\r\r")  # ... and Enter twice more while the dice tumble
        read_until("Throw 2 · 乙".encode())
        time.sleep(1.5)  # time enough for the two keys to throw, were they taken
        with contextlib.suppress(OSError):
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                seen += os.read(main, 65536)
        after = seen[start:].decode("utf-8", "replace")
        # one throw only: the keys pressed during the roll were dropped
        assert "Throw 1, 甲" in after and "Throw 2, 乙" not in after, after
        # every frame was drawn over the one before: no echoed Enter broke the line
        tumble = after.split("Throw 1, 甲")[0]
        assert tumble.count("\n") == 2, repr(tumble)
    finally:
        with contextlib.suppress(OSError):
            os.write(main, b"q")
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        os.close(main)
