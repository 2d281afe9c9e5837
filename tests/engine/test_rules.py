"""Rule sets: the presets of RULES.md §5, rule files, and errors that name what is wrong."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bobing.engine import (
    DEFAULT_RULES,
    PRESETS,
    BobingError,
    Hand,
    RulesError,
    RuleSet,
    Tier,
    find_preset,
    load_rules,
    rules_from_json,
)
from bobing.engine.rules import SWITCHES, allowed_values

PRIZES = {"zhuangyuan": 1, "duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16, "yixiu": 32}

# RULES.md §5, column by column, typed from the table.
TRADITIONAL = {
    "zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"],
    "wuzi_compare": "kicker",
    "sijin_bonus": False,
    "wuzi_bonus": False,
    "chajinhua_duitang": "immediate",
    "chajinhua_lugu": "exempt",
    "standing": "latest",
    "liubohong": "take_all_end",
    "liubohong_spares_chajinhua": False,
    "liubohong_duitang": "none",  # RULES.md §9.3, as every §9 switch: the old behaviour
    "liubohei": "grab_end",
    "six_ones": "liubohei",
    "biandijin": "take_remaining_end",
    "chase": None,
    "tiaohou": "void_skip_next",
    "direction": "clockwise",
    "start_count": "from_thrower",
    "end": "finish_round",
    "duitang_patterns": ["123456"],
    "prizes": PRIZES,
    # RULES.md §8: every new switch keeps the old behaviour in every preset.
    "max_players": 12,
    "award": "cakes",
    "ranked_prizes": None,
    "rounds": None,
    "zhuangyuan_cake": "winner",
    "money": "receive",
    "values": None,
    "sets": 1,  # RULES.md §10.2: one set, as before
}
MODERN = TRADITIONAL | {
    "zhuangyuan_order": ["liubohong", "liubohei", "chajinhua", "wuhong", "wuzi", "sihong"],
    "sijin_bonus": True,
    "chajinhua_lugu": "keeps_duitang",
    "liubohong": "take_remaining_end",
    "liubohei": "zhuangyuan_end_share",
    "tiaohou": "void",
    "direction": "counterclockwise",
}
JINHUA = MODERN | {
    "zhuangyuan_order": ["chajinhua", "liubohong", "liubohei", "wuhong", "wuzi", "sihong"],
}


@pytest.mark.parametrize(
    ("preset", "table"),
    [("traditional", TRADITIONAL), ("modern", MODERN), ("jinhua", JINHUA)],
)
def test_presets_match_rules_md(preset: str, table: dict[str, Any]) -> None:
    assert PRESETS[preset].to_json() == {"preset": preset, **table}
    assert list(table) == list(SWITCHES)


def test_default_is_traditional() -> None:
    assert DEFAULT_RULES is PRESETS["traditional"]
    assert load_rules() is DEFAULT_RULES
    assert load_rules(None) is DEFAULT_RULES


@pytest.mark.parametrize(
    ("name", "preset"),
    [
        ("traditional", "traditional"),
        ("Traditional", "traditional"),
        (" modern ", "modern"),
        ("JINHUA", "jinhua"),
        ("传统", "traditional"),
        ("傳統", "traditional"),
        ("厦门传统", "traditional"),
        ("通行", "modern"),
        ("现代", "modern"),
        ("金花", "jinhua"),
        ("插金花", "jinhua"),
    ],
)
def test_find_preset_and_aliases(name: str, preset: str) -> None:
    assert find_preset(name) is PRESETS[preset]
    assert load_rules(name) is PRESETS[preset]
    assert rules_from_json(name) is PRESETS[preset]
    assert rules_from_json({"preset": name}) == PRESETS[preset]


@pytest.mark.parametrize("name", ["xiamen", "", "traditional.yaml", "六勃红"])
def test_unknown_preset_names_it_and_lists_allowed(name: str) -> None:
    with pytest.raises(RulesError) as info:
        find_preset(name)
    message = str(info.value)
    assert f"unknown preset {name!r}" in message
    for allowed in ("traditional", "modern", "jinhua", "传统", "通行", "金花", ".json"):
        assert allowed in message
    assert info.value.code == "unknown_preset"
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, BobingError)


# -- rule files ------------------------------------------------------------------------------


def write(tmp_path: Path, content: str | bytes, name: str = "rules.json") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def test_rule_file_round_trip(tmp_path: Path) -> None:
    data = {"preset": "modern", "chase": {"tiers": ["duitang"], "from": "latest"}}
    path = write(tmp_path, json.dumps(data))
    for spec in (path, str(path)):
        rules = load_rules(spec)
        assert rules.preset == "modern"
        assert rules.chase is not None and rules.chase.tiers == (Tier.DUITANG,)
        assert rules.overrides() == data
    full = load_rules(str(path)).to_json()
    assert rules_from_json(full) == load_rules(path)
    assert rules_from_json(json.loads(json.dumps(full))).to_json() == full


def test_rule_file_without_json_suffix_in_current_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, '{"preset": "jinhua", "standing": "best"}', name="myrules")
    monkeypatch.chdir(tmp_path)
    assert load_rules("myrules").standing.value == "best"
    # A preset name wins over a file of the same name.
    write(tmp_path, '{"preset": "jinhua"}', name="modern")
    assert load_rules("modern") is PRESETS["modern"]


def test_rule_file_preset_defaults_to_traditional() -> None:
    assert rules_from_json({"standing": "best"}).preset == "traditional"
    assert rules_from_json({}) == DEFAULT_RULES


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"preset": "modern",', "is not valid JSON: Expecting"),
        ("", "is not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('"modern"', "must hold a JSON object"),
        (b"\xff\xfe\x00{", "is not UTF-8 text"),
    ],
)
def test_bad_rule_files(tmp_path: Path, content: str | bytes, message: str) -> None:
    path = write(tmp_path, content)
    with pytest.raises(RulesError) as info:
        load_rules(str(path))
    assert message in str(info.value)
    assert repr(str(path)) in str(info.value)


def test_missing_rule_file_and_directory(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match=r"cannot read rule file .*nope\.json.*No such file"):
        load_rules(str(tmp_path / "nope.json"))
    with pytest.raises(RulesError, match="cannot read rule file"):
        load_rules(str(tmp_path) + "/")


# -- every way a rule object can be wrong ----------------------------------------------------

ENUM_SWITCHES = [
    s
    for s in SWITCHES
    if s
    not in (
        "zhuangyuan_order",
        "sijin_bonus",
        "chase",
        "duitang_patterns",
        "prizes",
        "wuzi_bonus",
        "liubohong_spares_chajinhua",
        "max_players",
        "ranked_prizes",
        "rounds",
        "values",
        "sets",
    )
]


@pytest.mark.parametrize("switch", ENUM_SWITCHES)
@pytest.mark.parametrize("value", ["nonsense", 3, None, True, ["kicker"]])
def test_bad_enum_value_names_switch_and_allowed(switch: str, value: Any) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_json({"preset": "traditional", switch: value})
    message = str(info.value)
    assert f"invalid value {value!r} for {switch}" in message
    for allowed in allowed_values(switch):
        assert allowed in message
    assert info.value.params["key"] == switch


@pytest.mark.parametrize("switch", ENUM_SWITCHES)
def test_every_allowed_enum_value_is_accepted_or_contradiction(switch: str) -> None:
    for value in allowed_values(switch):
        try:
            rules = rules_from_json({"preset": "traditional", switch: value})
        except RulesError as exc:
            # Only a 状元 hand that zhuangyuan_order must then list (or must not) may fail,
            # and ranked mode without its prize list.
            # §9.3: liubohong_duitang needs liubohong zhuangyuan, money pay needs values.
            assert exc.params["key"] in (
                "zhuangyuan_order",
                "ranked_prizes",
                "liubohong_duitang",
                "values",
            )
        else:
            assert rules.to_json()[switch] == value


@pytest.mark.parametrize("key", ["foo", "Preset", "six-ones", "zhuangyuan", "rules"])
def test_unknown_switch_names_it_and_lists_all(key: str) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_json({"preset": "modern", key: 1})
    message = str(info.value)
    assert f"unknown rule switch {key!r}" in message
    for switch in SWITCHES:
        assert switch in message


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"sijin_bonus": "yes"}, "invalid value 'yes' for sijin_bonus; allowed: true, false"),
        ({"sijin_bonus": 1}, "invalid value 1 for sijin_bonus"),
        ({"zhuangyuan_order": "sihong"}, "zhuangyuan_order must be a non-empty list"),
        ({"zhuangyuan_order": []}, "zhuangyuan_order must be a non-empty list"),
        ({"zhuangyuan_order": ["sihong", "yixiu"]}, "invalid hand 'yixiu' in zhuangyuan_order"),
        ({"zhuangyuan_order": ["sihong", 4]}, "invalid hand 4 in zhuangyuan_order"),
        (
            {"zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong", "wuzi"]},
            "zhuangyuan_order lists wuzi twice",
        ),
        (
            {"zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi"]},
            "zhuangyuan_order must list sihong",
        ),
        (
            {
                "zhuangyuan_order": [
                    "liubohong",
                    "liubohei",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ]
            },
            "must not list liubohei: liubohei is grab_end",
        ),
        ({"liubohei": "zhuangyuan"}, "zhuangyuan_order must list liubohei"),
        (
            {
                "zhuangyuan_order": [
                    "liubohong",
                    "biandijin",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ]
            },
            "six_ones is liubohei, so 遍地锦 never occurs",
        ),
        (
            {
                "six_ones": "biandijin",
                "zhuangyuan_order": [
                    "liubohong",
                    "biandijin",
                    "chajinhua",
                    "wuhong",
                    "wuzi",
                    "sihong",
                ],
            },
            "biandijin is take_remaining_end, not a 状元 hand",
        ),
        ({"six_ones": "biandijin", "biandijin": "zhuangyuan"}, "must list biandijin"),
        ({"chase": "on"}, "chase must be null or"),
        ({"chase": {"tiers": ["duitang"], "to": "x"}}, "unknown key 'to' in chase"),
        ({"chase": {"tiers": "duitang"}}, "chase.tiers must be a list"),
        ({"chase": {"tiers": []}}, "chase.tiers must name at least one tier"),
        ({"chase": {"tiers": ["zhuangyuan"]}}, "invalid tier 'zhuangyuan' in chase.tiers"),
        ({"chase": {"tiers": ["duitang"], "from": "nearest"}}, "invalid value 'nearest' for chase"),
        ({"chase": {"tiers": ["duitang"], "from": ["latest"]}}, "invalid value ['latest'] for"),
        ({"duitang_patterns": "123456"}, "duitang_patterns must be a non-empty list"),
        ({"duitang_patterns": []}, "duitang_patterns must be a non-empty list"),
        ({"duitang_patterns": ["12345"]}, "invalid pattern '12345' in duitang_patterns"),
        ({"duitang_patterns": ["123457"]}, "invalid pattern '123457'"),
        ({"duitang_patterns": [123456]}, "invalid pattern 123456"),
        ({"prizes": [1, 2, 4]}, "prizes must be an object of tier counts"),
        ({"prizes": {"bangyan": 2}}, "unknown tier 'bangyan' in prizes; allowed: zhuangyuan"),
        ({"prizes": {"yixiu": -1}}, "invalid count -1 for prizes.yixiu"),
        ({"prizes": {"yixiu": 1000}}, "invalid count 1000 for prizes.yixiu"),
        ({"prizes": {"yixiu": 2.5}}, "invalid count 2.5 for prizes.yixiu"),
        ({"prizes": {"yixiu": True}}, "invalid count True for prizes.yixiu"),
        ({"prizes": {"zhuangyuan": 2}}, "prizes.zhuangyuan must be 1"),
        ({"sets": 4}, "invalid value 4 for sets: a whole number 1-3"),
        ({"sets": 0}, "invalid value 0 for sets: a whole number 1-3"),
        ({"sets": "2"}, "invalid value '2' for sets"),
        ({"sets": True}, "invalid value True for sets"),
        (
            {"sets": 2, "award": "ranked", "ranked_prizes": [{"name": "一等奖"}]},
            'sets 2 needs award "cakes"',
        ),
        ({"preset": 3}, "preset must be a name, not 3"),
        ({"preset": "nope"}, "unknown preset 'nope'"),
    ],
)
def test_bad_rule_objects(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError) as info:
        rules_from_json({"preset": "traditional"} | overrides)
    assert message in str(info.value)


@pytest.mark.parametrize("value", [3, None, ["modern"], 2.5])
def test_rules_must_be_a_name_or_object(value: Any) -> None:
    with pytest.raises(RulesError, match="rules must be a preset name or an object"):
        rules_from_json(value)


def test_overrides_that_are_valid() -> None:
    rules = rules_from_json(
        {
            "preset": "traditional",
            "liubohei": "zhuangyuan",
            "zhuangyuan_order": ["liubohong", "chajinhua", "liubohei", "wuhong", "wuzi", "sihong"],
            "duitang_patterns": ["654321", "553344", "334455"],
            "prizes": {"duitang": 4, "yixiu": 0},
            "chase": {"tiers": ["sanhong", "duitang", "sanhong"]},
        }
    )
    assert rules.duitang_patterns == ("123456", "334455")
    assert rules.prize_map[Tier.DUITANG] == 4 and rules.prize_map[Tier.YIXIU] == 0
    assert rules.total_cakes == 1 + 4 + 4 + 8 + 16
    assert rules.chase is not None and rules.chase.tiers == (Tier.SANHONG, Tier.DUITANG)
    assert str(rules.chase.source) == "nearest_before"
    assert rules.tier_of(Hand.LIUBOHEI) is Tier.ZHUANGYUAN
    assert rules_from_json(rules.to_json()) == rules
    assert rules_from_json(rules.overrides()) == rules


def test_tier_of() -> None:
    traditional, modern = PRESETS["traditional"], PRESETS["modern"]
    assert traditional.tier_of(Hand.LIUBOHEI) is None
    assert modern.tier_of(Hand.LIUBOHEI) is Tier.ZHUANGYUAN
    assert traditional.tier_of(Hand.NONE) is None
    assert traditional.tier_of(Hand.BIANDIJIN) is None
    for hand in ("duitang", "sanhong", "sijin", "erju", "yixiu"):
        assert traditional.tier_of(Hand(hand)) is Tier(hand)
    for hand in ("liubohong", "chajinhua", "wuhong", "wuzi", "sihong"):
        assert traditional.tier_of(Hand(hand)) is Tier.ZHUANGYUAN


def test_allowed_values_unknown_switch() -> None:
    with pytest.raises(RulesError, match="unknown switch 'nope'"):
        allowed_values("nope")


# -- property: any override either builds a consistent rule set or fails cleanly -------------

VALUES: dict[str, list[Any]] = {
    switch: [
        *(v for v in allowed_values(switch)),
        "bogus",
        None,
    ]
    for switch in ENUM_SWITCHES
}
VALUES["sijin_bonus"] = [True, False, "true", 0]
VALUES["zhuangyuan_order"] = [
    ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"],
    ["liubohong", "liubohei", "chajinhua", "wuhong", "wuzi", "sihong"],
    ["sihong", "wuzi", "wuhong", "chajinhua", "liubohei", "biandijin", "liubohong"],
    ["sihong"],
    "wuzi",
]
VALUES["chase"] = [None, {"tiers": ["duitang"]}, {"tiers": ["erju"], "from": "latest"}, {}, 1]
VALUES["duitang_patterns"] = [["123456"], ["334455", "112233"], ["1234567"], []]
VALUES["prizes"] = [{"yixiu": 3}, {"zhuangyuan": 0}, {"erju": "many"}, {}]


@settings(deadline=None)  # wall-clock limits make tests flaky on a busy machine
@given(
    preset=st.sampled_from(["traditional", "modern", "jinhua", "传统"]),
    overrides=st.dictionaries(st.sampled_from(list(VALUES)), st.none(), max_size=6).flatmap(
        lambda keys: st.fixed_dictionaries({k: st.sampled_from(VALUES[k]) for k in keys})
    ),
)
def test_any_rule_object_builds_or_fails_cleanly(preset: str, overrides: dict[str, Any]) -> None:
    try:
        rules = rules_from_json({"preset": preset, **overrides})
    except RulesError as exc:
        assert str(exc)
        return
    assert isinstance(rules, RuleSet)
    assert rules_from_json(rules.to_json()) == rules
    for hand in rules.zhuangyuan_order:
        assert rules.tier_of(hand) is Tier.ZHUANGYUAN


# -- documentation ---------------------------------------------------------------------------

DOCS = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def test_every_switch_value_and_hand_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for switch in SWITCHES:
        assert f"### `{switch}`" in text, switch
        if switch in ENUM_SWITCHES:
            for value in allowed_values(switch):
                assert f"| `{value}` |" in text, (switch, value)
    for hand in Hand:
        assert f"| `{hand}` |" in text, hand
    for tier in Tier:
        assert f"| `{tier}` |" in text, tier
    for preset in PRESETS:
        assert f"**{preset}**" in text, preset


def test_every_rule_file_shown_in_the_docs_loads() -> None:
    import re

    blocks = re.findall(r"```json\n(.*?)```", DOCS.read_text(encoding="utf-8"), re.S)
    assert len(blocks) >= 2
    for block in blocks:
        assert isinstance(rules_from_json(json.loads(block)), RuleSet)
