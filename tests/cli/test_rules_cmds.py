"""``bobing classify``, ``bobing odds``, ``bobing rules``: output contracts and bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bobing.engine.presets import PRESETS
from bobing.engine.rules import SWITCHES
from tests.cli.clitools import run

BOBING = Path(sys.executable).parent / "bobing"


@pytest.fixture(autouse=True)
def _plain_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BOBING_LANG", raising=False)
    monkeypatch.setenv("COLUMNS", "100")


def run_console(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the installed console script, as a user would."""
    assert BOBING.exists(), f"console script missing: {BOBING}"
    environ = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"} | (env or {})
    return subprocess.run(
        [str(BOBING), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=environ,
        timeout=60,
        check=False,
    )


# -- through the console script --------------------------------------------------------------


def test_console_classify_json_is_the_rules_md_object() -> None:
    done = run_console("classify", "444412", "--json", env={"FORCE_COLOR": "1"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("\n") == 1 and "\x1b" not in done.stdout
    data = json.loads(done.stdout)
    expected = {"dice": "444412", "hand": "sihong", "tier": "zhuangyuan", "kicker": 3, "bonus": []}
    assert {k: data[k] for k in expected} == expected
    assert data["name"] == "四红带三"


def test_console_classify_six_arguments() -> None:
    done = run_console("classify", "4", "4", "4", "4", "1", "2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("444412  四红带三\n")
    assert "四颗红四，另两颗合计3点" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["classify", "44441"], "bobing: error: invalid dice '44441': 5 dice given"),
        (["classify", "444412", "--rules", "nope"], "bobing: error: unknown preset 'nope'"),
    ],
)
def test_console_bad_input(args: list[str], message: str) -> None:
    done = run_console(*args, env={"BOBING_LANG": "en"})
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(message)
    assert "Traceback" not in done.stderr


def test_console_odds_json() -> None:
    done = run_console("odds", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["total"] == 46656
    assert data["hands"]["yixiu"] == 17400


# -- classify --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["444412"], ("sihong", "zhuangyuan", 3, [])),
        (["4 4 4 4 1 2"], ("sihong", "zhuangyuan", 3, [])),
        (["4,4,4,4,1,2"], ("sihong", "zhuangyuan", 3, [])),
        (["4", "4", "4", "4", "1", "2"], ("sihong", "zhuangyuan", 3, [])),
        (["4,4,4", "4,1,2"], ("sihong", "zhuangyuan", 3, [])),
        (["414144"], ("chajinhua", "zhuangyuan", None, [])),
        (["555555"], ("liubohei", None, 5, [])),
        (["555555", "--rules", "modern"], ("liubohei", "zhuangyuan", 5, [])),
        (["555555", "--rules", "通行"], ("liubohei", "zhuangyuan", 5, [])),
        (["222226"], ("wuzi", "zhuangyuan", 6, [])),
        (["333341"], ("sijin", "sijin", None, [])),
        (["333341", "--rules", "modern"], ("sijin", "sijin", None, ["yixiu"])),
        (["222244", "-r", "jinhua"], ("sijin", "sijin", None, ["erju"])),
        (["635142"], ("duitang", "duitang", None, [])),
        (["235566"], ("none", None, None, [])),
    ],
)
def test_classify_json(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    expected: tuple[object, ...],
) -> None:
    code, out, err = run(capsys, monkeypatch, "classify", *args, "--json")
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert (data["hand"], data["tier"], data["kicker"], data["bonus"]) == expected
    assert len(data["dice"]) == 6


def test_classify_json_keeps_the_thrown_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "classify", "4 1 4 1 4 4", "--json")
    assert code == 0
    assert json.loads(out) == {
        "dice": "414144",
        "hand": "chajinhua",
        "tier": "zhuangyuan",
        "kicker": None,
        "bonus": [],
        "name": "状元插金花",
        "rank": 2,
    }


@pytest.mark.parametrize(
    ("args", "lines"),
    [
        (
            ["444466"],
            ["444466  四红带十二", "四红 (sihong)", "状元 (zhuangyuan)", "12（另两颗之和）"],
        ),
        (["222226"], ["222226  五子带六", "五颗2点，另一颗是6点"]),
        (["414144"], ["414144  状元插金花", "对堂饼"]),
        (["555555"], ["555555  六勃黑", "不算奖级", "关灯抢饼"]),
        (["333341", "--rules", "modern"], ["333341  四进带一秀", "一秀 (yixiu)", "通行 (modern)"]),
        (["444466", "--lang", "zh-Hant"], ["444466  四紅帶十二", "獎級"]),
        (["444466", "--lang", "en"], ["444466  Four reds with 12 (四红带十二)", "Why"]),
    ],
)
def test_classify_text(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    lines: list[str],
) -> None:
    code, out, err = run(capsys, monkeypatch, "classify", *args)
    assert (code, err) == (0, "")
    for line in lines:
        assert line in out
    assert all(line == line.rstrip() for line in out.splitlines())


def test_bobing_lang_environment(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    assert "四红带十二" in run(capsys, monkeypatch, "classify", "444466")[1]
    monkeypatch.setenv("BOBING_LANG", "en")
    assert "Four reds with 12" in run(capsys, monkeypatch, "classify", "444466")[1]
    assert "四紅帶十二" in run(capsys, monkeypatch, "classify", "444466", "--lang", "zh-TW")[1]


# -- bad input: exit code 2, a clear message on stderr, nothing on stdout, no traceback -------


@pytest.fixture
def bad_files(tmp_path: Path) -> dict[str, str]:
    files = {
        "syntax": '{"preset": "modern",',
        "switch": '{"preset": "modern", "six-ones": "biandijin"}',
        "value": '{"liubohei": "lights_off"}',
        "contradiction": '{"preset": "traditional", "liubohei": "zhuangyuan"}',
        "array": "[]",
    }
    paths = {}
    for name, text in files.items():
        path = tmp_path / f"{name}.json"
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    paths["missing"] = str(tmp_path / "missing.json")
    return paths


BAD_INPUT = [
    (["classify", "44441"], "invalid dice '44441': 5 dice given, a throw has exactly 6"),
    (["classify", "4444121"], "invalid dice '4444121': 7 dice given"),
    (["classify", "4", "4", "4", "4", "1"], "invalid dice '4 4 4 4 1': 5 dice given"),
    (["classify", "444417"], "invalid dice '444417': 7 is not a face 1-6"),
    (["classify", "444410"], "invalid dice '444410': 0 is not a face 1-6"),
    (["classify", "abcdef"], "invalid dice 'abcdef': 'a' is not a face 1-6"),
    (["classify", "四四四四一二"], "invalid dice '四四四四一二'"),
    (["classify", ""], "no dice given: expected six digits 1-6"),
    (["classify", " "], "no dice given"),
    (["classify", "444412", "--rules", "nope"], "unknown preset 'nope'; allowed: traditional"),
    (["classify", "444412", "--lang", "fr"], "unknown language 'fr'; allowed: zh-Hans"),
    (["classify", "444412", "--rules", "@syntax"], "is not valid JSON: Expecting"),
    (["classify", "444412", "--rules", "@switch"], "unknown rule switch 'six-ones'; allowed:"),
    (["odds", "--rules", "@value"], "invalid value 'lights_off' for liubohei; allowed: grab_end"),
    (["odds", "--rules", "@contradiction"], "zhuangyuan_order must list liubohei"),
    (["odds", "--rules", "@array"], "must hold a JSON object"),
    (["odds", "--rules", "@missing"], "cannot read rule file"),
    (["rules", "nope"], "unknown preset 'nope'"),
    (["rules", "@switch"], "unknown rule switch 'six-ones'"),
    (["rules", "modern", "--rules", "jinhua"], "two rule sets given: 'modern' and --rules"),
    (["rules", "--lang", "xx"], "unknown language 'xx'"),
]


@pytest.mark.parametrize(("args", "message"), BAD_INPUT, ids=lambda v: str(v)[:40])
@pytest.mark.usefixtures("english")
def test_bad_input(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    bad_files: dict[str, str],
    args: list[str],
    message: str,
) -> None:
    args = [bad_files[a[1:]] if a.startswith("@") else a for a in args]
    code, out, err = run(capsys, monkeypatch, *args)
    assert code == 2
    assert out == ""
    assert err.startswith("bobing: error: ")
    assert message in err
    assert err.count("\n") == 1
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "english", "chinese"),
    [
        (["classify"], "Missing argument 'DICE'.", "缺少参数 'DICE'。"),
        (["classify", "444412", "--bogus"], "No such option", "没有这个选项：--bogus"),
        (["odds", "extra"], "unexpected extra argument", "多出了参数（extra）"),
        (["classify", "-1", "2", "3", "4", "5", "6"], "No such option", "没有这个选项：-1"),
        (
            ["simulate", "-n", "abc"],
            "Invalid value for",
            "'--players' / '-n' 的值无效：应当是一个整数",
        ),
        (["clasify"], "Did you mean 'classify'?", "你是不是想用 'classify'？"),
    ],
)
def test_usage_errors_in_the_readers_language(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    english: str,
    chinese: str,
) -> None:
    code, out, err = run(capsys, monkeypatch, *args, "--lang", "en")
    assert code == 2
    assert out == ""
    assert english in err
    assert err.splitlines()[0].startswith("Usage: ")
    assert "Traceback" not in err
    code, out, err = run(capsys, monkeypatch, *args)
    assert code == 2
    assert chinese in err
    assert err.splitlines()[0].startswith("用法：")
    assert "错误：" in err and "Error" not in err and "Usage" not in err
    assert "Try" not in err


@pytest.mark.parametrize("command", [[], ["classify"], ["simulate"], ["play"]])
def test_help_is_in_one_language(command: list[str]) -> None:
    # a real process: help texts are built when the command starts, in its language
    bobing = str(Path(sys.executable).with_name("bobing"))

    def helps(*args: str, env_lang: str) -> str:
        env = dict(os.environ, BOBING_LANG=env_lang, COLUMNS="100")
        done = subprocess.run(
            [bobing, *command, "--help", *args], capture_output=True, text=True, env=env, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    english = helps(env_lang="en")
    # (example names like 甲,乙,丙 may appear; the words around them are English)
    assert "Usage:" in english and "Show this message and exit." in english
    assert not re.search("用法|选项|選項|参数|參數|显示|顯示", english), english
    chinese = [helps(env_lang="zh-Hant")]
    if command:  # --lang on the command line wins over BOBING_LANG
        chinese.append(helps("--lang", "zh-Hant", env_lang="en"))
    for out in chinese:
        for word in ("Usage", "Options", "Show this message", "Commands", "Arguments", "default:"):
            assert word not in out, (word, out)
        assert "選項" in out


# -- odds ------------------------------------------------------------------------------------


def test_odds_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["total"] == 46656
    assert data["hands"] == {
        "liubohong": 1,
        "liubohei": 5,
        "chajinhua": 15,
        "wuhong": 30,
        "wuzi": 150,
        "sihong": 360,
        "duitang": 720,
        "sanhong": 2500,
        "sijin": 1875,
        "erju": 9300,
        "yixiu": 17400,
        "none": 14300,
    }
    assert set(data["tiers"]) == {"zhuangyuan", "duitang", "sanhong", "sijin", "erju", "yixiu"}
    assert data["tiers"]["zhuangyuan"]["count"] == 556
    assert data["tiers"]["yixiu"]["probability"] == pytest.approx(17401 / 46656)
    assert data["kickers"]["sihong"]["8"] == 60


def test_odds_json_with_biandijin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "b.json"
    path.write_text('{"preset": "modern", "six_ones": "biandijin"}', encoding="utf-8")
    code, out, _ = run(capsys, monkeypatch, "odds", "--rules", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["hands"]["biandijin"] == 1 and data["hands"]["liubohei"] == 4
    assert data["tiers"]["yixiu"]["count"] == 17400 + 600 + 1 + 1
    assert data["rules"] == {"preset": "modern", "six_ones": "biandijin"}


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        ("zh-Hans", ["全部 46,656 种有序掷法", "一秀", "17,400", "37.2942%", "四红", "12:15"]),
        ("zh-Hant", ["全部 46,656 種有序擲法", "一秀", "四紅"]),
        ("en", ["Exact odds over all 46,656 ordered throws", "One red (yixiu)", "1 in"]),
    ],
)
def test_odds_text(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    lang: str,
    words: list[str],
) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds", "--lang", lang)
    assert code == 0
    for word in words:
        assert word in out
    assert "\x1b" not in out


# -- rules -----------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_rules_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, preset: str
) -> None:
    code, out, _ = run(capsys, monkeypatch, "rules", preset, "--json")
    assert code == 0
    assert json.loads(out) == PRESETS[preset].to_json()


def test_rules_text_lists_every_switch_and_the_order(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "rules")
    assert code == 0
    for switch in SWITCHES:
        assert f"\n{switch} = " in out
    assert "liubohei = grab_end\n    六勃黑的效果：不算状元，关灯抢饼" in out
    assert out.index("1. 六勃红（444444）") < out.index("2. 状元插金花（114444）")
    assert "5. 四红，比另两颗之和：12 > 11" in out
    assert "同样大小，先博者胜。" in out


def test_rules_from_file_and_option(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "r.json"
    path.write_text(
        json.dumps({"preset": "jinhua", "chase": {"tiers": ["duitang"], "from": "latest"}}),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, monkeypatch, "rules", str(path), "--lang", "en")
    assert code == 0
    assert "Rules: Golden flowers on top (jinhua) (preset jinhua with changes)" in out
    assert "chase = duitang ← latest" in out
    assert "1. Zhuangyuan with golden flowers (114444)" in out
    same = run(capsys, monkeypatch, "rules", "--rules", str(path), "--lang", "en")
    assert same == (0, out, "")


def test_help_lists_the_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "--help")
    assert code == 0
    for command in ("classify", "odds", "rules"):
        assert command in out
    for command in ("classify", "odds", "rules"):
        code, out, _ = run(capsys, monkeypatch, command, "--help")
        assert code == 0
        assert "--lang" in out and "--json" in out


# -- the README shows real output ------------------------------------------------------------

README = Path(__file__).resolve().parents[2] / "README.md"


@pytest.mark.parametrize(
    "args",
    [
        ["classify", "444466"],
        ["classify", "222226", "--lang", "en"],
        ["classify", "555555"],
        ["classify", "4", "4", "4", "4", "1", "2", "--json"],
        ["classify", "555555", "--rules", "modern", "--json"],
        ["odds"],
    ],
    ids=" ".join,
)
def test_readme_output_is_real(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, args: list[str]
) -> None:
    code, out, _ = run(capsys, monkeypatch, *args)
    assert code == 0
    assert f"$ bobing {' '.join(args)}\n{out}" in README.read_text(encoding="utf-8")


def test_readme_quick_start() -> None:
    text = README.read_text(encoding="utf-8")
    assert "python3 dev.py run     # start the app\npython3 dev.py test    # run every test" in text
    assert "\n## More\n" in text and "docs/rules.md" in text


def test_docs_odds_table_is_real(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, _ = run(capsys, monkeypatch, "odds")
    assert code == 0
    docs = README.parent / "docs" / "rules.md"
    assert f"$ bobing odds\n{out}" in docs.read_text(encoding="utf-8")


@pytest.mark.parametrize(("lang", "jargon"), [("zh-Hans", "种子"), ("en", "seed")])
def test_rules_lead_with_plain_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, lang: str, jargon: str
) -> None:
    code, out, _ = run(capsys, monkeypatch, "rules", "--lang", lang)
    assert code == 0
    lines = [line for line in out.splitlines() if line.strip()]
    assert jargon not in "\n".join(lines[:3])  # the opening is for people, not for sources
    assert ("状元从大到小" if lang != "en" else "highest first") in lines[1]
    assert jargon in lines[-1]  # where the rules come from, at the end


# -- RULES.md §8 -------------------------------------------------------------------------------


def test_classify_reports_the_wuzi_bonus(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "wuzi.json"
    path.write_text('{"preset": "traditional", "wuzi_bonus": true}', encoding="utf-8")
    code, out, _ = run(capsys, monkeypatch, "classify", "222224", "--rules", str(path), "--json")
    assert code == 0
    data = json.loads(out)
    assert {k: data[k] for k in ("hand", "tier", "kicker", "bonus")} == {
        "hand": "wuzi",
        "tier": "zhuangyuan",
        "kicker": 4,
        "bonus": ["yixiu"],
    }
    code, out, _ = run(capsys, monkeypatch, "classify", "222224", "--rules", str(path))
    assert "另得    一秀 (yixiu)" in out and "五颗2点，另一颗是红四，同时得一秀" in out
    code, out, _ = run(capsys, monkeypatch, "classify", "222224", "--json")
    assert json.loads(out)["bonus"] == []  # off by default: every preset keeps its behaviour
    code, out, _ = run(capsys, monkeypatch, "classify", "222225", "--rules", str(path), "--json")
    assert json.loads(out)["bonus"] == []  # the odd die must be a red 4


def test_rules_shows_a_ranked_rule_file(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    path = tmp_path / "party.json"
    path.write_text(
        json.dumps(
            {
                "preset": "traditional",
                "award": "ranked",
                "max_players": 13,
                "rounds": 3,
                "liubohei": "take_one",
                "ranked_prizes": [
                    {"name": "一等奖", "count": 1, "value": 498},
                    {"name": "纪念奖", "count": 12},
                ],
            },
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    code, out, _ = run(capsys, monkeypatch, "rules", str(path))
    assert code == 0
    assert "award = ranked\n    博什么奖：排名发奖：每人只取博到的最高奖项，一人一份" in out
    assert "max_players = 13\n    一桌最多几人：最多 13 人" in out
    assert "rounds = 3\n    排名发奖时博几轮：博满 3 轮结束" in out
    assert "一等奖 ×1（每份价值 498）、纪念奖 ×12；共 13 份" in out
    assert "liubohei = take_one" in out
    assert "先是上面的状元顺序，然后 六勃黑 > 对堂 > 三红 > 四进 > 二举 > 一秀 > 无" in out
    code, out, _ = run(capsys, monkeypatch, "rules", str(path), "--json")
    data = json.loads(out)
    assert data["ranked_prizes"] == [
        {"name": "一等奖", "count": 1, "value": 498},
        {"name": "纪念奖", "count": 12},
    ]
    assert data["rounds"] == 3 and data["award"] == "ranked"


@pytest.mark.parametrize(
    ("overrides", "needle"),
    [
        (
            {
                "liubohei": "take_one",
                "zhuangyuan_order": [
                    "liubohong",
                    "liubohei",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ],
            },
            "zhuangyuan_order 不能列出 liubohei：liubohei 设为 take_one，六勃黑不算状元",
        ),
        (
            {"six_ones": "biandijin", "biandijin": "zhuangyuan_take_remaining_end"},
            "zhuangyuan_order 必须列出 biandijin",
        ),
        ({"ranked_prizes": [{"name": "一等奖"}]}, "ranked_prizes 只用于 award 为 ranked"),
        ({"rounds": 2}, "rounds 只用于 award 为 ranked"),
        ({"award": "ranked"}, "ranked_prizes 必须列出奖品"),
        (
            {"award": "ranked", "ranked_prizes": [{"name": "一等奖", "count": 1.5}]},
            "ranked_prizes 第 1 项：count 必须是 1-999 的整数，不能是 1.5",
        ),
        ({"max_players": 31}, "max_players 的值 31 无效：必须是 2-30 的整数"),
    ],
)
def test_self_contradicting_rule_files_exit_2(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    overrides: dict[str, object],
    needle: str,
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"preset": "traditional", **overrides}), encoding="utf-8")
    code, out, err = run(capsys, monkeypatch, "rules", str(path))
    assert code == 2 and out == ""
    assert needle in err
