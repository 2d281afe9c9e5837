"""Exact odds: checked against full enumeration, RULES.md §2 and research §4."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from bobing.analysis.odds import TOTAL_THROWS, Share, enumerate_hands, odds, orderings, tiers_won
from bobing.engine import Hand, RuleSet, Tier, load_rules
from bobing.engine.hands import ORDERED_THROWS
from bobing.engine.presets import PRESETS

RULES_COUNTS = {
    Hand.LIUBOHONG: 1,
    Hand.LIUBOHEI: 5,
    Hand.CHAJINHUA: 15,
    Hand.WUHONG: 30,
    Hand.WUZI: 150,
    Hand.SIHONG: 360,
    Hand.DUITANG: 720,
    Hand.SANHONG: 2500,
    Hand.SIJIN: 1875,
    Hand.ERJU: 9300,
    Hand.YIXIU: 17400,
    Hand.NONE: 14300,
}

VARIANTS: list[RuleSet] = [
    *PRESETS.values(),
    load_rules({"six_ones": "biandijin"}),
    load_rules({"preset": "modern", "six_ones": "biandijin", "duitang_patterns": ["334455"]}),
    load_rules({"preset": "jinhua", "wuzi_compare": "face_then_kicker"}),
    load_rules(
        {
            "preset": "modern",
            "liubohei": "ignore",
            "liubohong": "zhuangyuan",
            "chajinhua_duitang": "none",
            "zhuangyuan_order": ["liubohong", "chajinhua", "wuhong", "wuzi", "sihong"],
            "prizes": {"sijin": 0},
        }
    ),
]


def test_orderings_sum_to_all_throws() -> None:
    multisets = {tuple(sorted(t)) for t in ORDERED_THROWS}
    assert sum(orderings(ms) for ms in multisets) == TOTAL_THROWS == 46656
    assert Counter(tuple(sorted(t)) for t in ORDERED_THROWS) == {
        ms: orderings(ms) for ms in multisets
    }


@pytest.mark.parametrize("preset", list(PRESETS))
def test_hand_counts_match_rules_md(preset: str) -> None:
    result = odds(PRESETS[preset])
    assert result.hands == RULES_COUNTS
    assert list(result.hands) == list(RULES_COUNTS)  # precedence order
    assert sum(result.hands.values()) == result.total == 46656


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: json.dumps(r.overrides()))
def test_counts_equal_full_enumeration(rules: RuleSet) -> None:
    result = odds(rules)
    enumerated = enumerate_hands(rules)
    assert {h: n for h, n in result.hands.items() if n} == dict(enumerated)
    # Tier counts by brute force over every ordered throw.
    tiers: Counter[Tier] = Counter()
    for throw in ORDERED_THROWS:
        tiers.update(tiers_won(rules.classifier(throw), rules))
    assert {t: o.share.count for t, o in result.tiers.items()} == {t: tiers[t] for t in Tier}
    for tier_odds in result.tiers.values():
        assert sum(tier_odds.sources.values()) == tier_odds.share.count


def test_only_producible_hands_are_listed() -> None:
    assert Hand.BIANDIJIN not in odds(PRESETS["traditional"]).hands
    with_biandijin = odds(load_rules({"six_ones": "biandijin"}))
    assert with_biandijin.hands[Hand.BIANDIJIN] == 1
    assert with_biandijin.hands[Hand.LIUBOHEI] == 4
    # "none" is always listed, even when patterns make every would-be-none throw a 对堂.
    assert odds(PRESETS["modern"]).hands[Hand.NONE] == 14300


def test_kicker_distributions_match_research() -> None:
    result = odds(PRESETS["traditional"])
    assert result.kickers[Hand.SIHONG] == {
        12: 15,
        11: 30,
        10: 15,
        9: 30,
        8: 60,
        7: 60,
        6: 45,
        5: 30,
        4: 45,
        3: 30,
    }
    assert result.kickers[Hand.WUHONG] == {6: 6, 5: 6, 3: 6, 2: 6, 1: 6}
    assert result.kickers[Hand.WUZI] == {6: 24, 5: 24, 4: 30, 3: 24, 2: 24, 1: 24}
    assert Hand.LIUBOHEI not in result.kickers  # not a 状元 hand under grab_end
    assert odds(PRESETS["modern"]).kickers[Hand.LIUBOHEI] == {6: 1, 5: 1, 3: 1, 2: 1, 1: 1}
    assert result.sijin_by_fours == {0: 1200, 1: 600, 2: 75}


def test_tiers_per_preset() -> None:
    # Hand-computed: 状元 hands; 对堂 + 插金花's 对堂 + the 六勃红 sweep; 四进 bonuses.
    traditional = {t: o.share.count for t, o in odds(PRESETS["traditional"]).tiers.items()}
    assert traditional == {
        Tier.ZHUANGYUAN: 1 + 15 + 30 + 150 + 360,
        Tier.DUITANG: 720 + 15 + 1,
        Tier.SANHONG: 2500 + 1,
        Tier.SIJIN: 1875 + 1,
        Tier.ERJU: 9300 + 1,
        Tier.YIXIU: 17400 + 1,
    }
    modern = {t: o.share.count for t, o in odds(PRESETS["modern"]).tiers.items()}
    assert modern == traditional | {
        Tier.ZHUANGYUAN: 556 + 5,
        Tier.ERJU: 9300 + 75 + 1,
        Tier.YIXIU: 17400 + 600 + 1,
    }
    assert odds(PRESETS["jinhua"]).tiers == odds(PRESETS["modern"]).tiers
    last = {t: o.share.count for t, o in odds(VARIANTS[-1]).tiers.items()}
    assert last == {
        Tier.ZHUANGYUAN: 556,
        Tier.DUITANG: 720,
        Tier.SANHONG: 2500,
        Tier.SIJIN: 0,  # no 四进 cakes, but the bonus cakes of a 四进 still count
        Tier.ERJU: 9300 + 75,
        Tier.YIXIU: 17400 + 600,
    }


def test_zhuangyuan_levels() -> None:
    result = odds(PRESETS["traditional"])
    assert len(result.zhuangyuan_levels) == 23
    assert result.zhuangyuan_count == 556
    top, bottom = result.zhuangyuan_levels[0], result.zhuangyuan_levels[-1]
    assert (top.rank, top.hand, top.dice, top.count) == (1, Hand.LIUBOHONG, ("444444",), 1)
    assert (bottom.rank, bottom.hand, bottom.kicker, bottom.count) == (23, Hand.SIHONG, 3, 30)


def test_seed_001_table_and_its_misprints() -> None:
    result = odds(PRESETS["traditional"])
    # 一秀: the seed prints 14700; its own 37.29 % is 17400 / 46656.
    assert result.hands[Hand.YIXIU] == 17400
    assert f"{Share(17400).probability:.2%}" == "37.29%"
    assert f"{Share(14700).probability:.2%}" == "31.51%"
    # 五子登科: the seed's 系数 180 is 五红 + 五子, which is 0.386 %, not the printed 0.26 %.
    wuzi_row = result.hands[Hand.WUHONG] + result.hands[Hand.WUZI]
    assert wuzi_row == 180
    assert f"{Share(wuzi_row).probability:.3%}" == "0.386%"
    assert f"{Share(120).probability:.2%}" == "0.26%"
    # The rows the seed does print, with its percentages.
    seed = {
        Hand.LIUBOHONG: (1, "0.002%"),
        Hand.CHAJINHUA: (15, "0.032%"),
        Hand.SIHONG: (360, "0.77%"),
        Hand.DUITANG: (720, "1.54%"),
        Hand.SANHONG: (2500, "5.36%"),
        Hand.SIJIN: (1875, "4.02%"),
        Hand.ERJU: (9300, "19.93%"),
        Hand.NONE: (14300, None),
    }
    for hand, (count, percent) in seed.items():
        assert result.hands[hand] == count
        if percent is not None:
            decimals = len(percent.split(".")[1]) - 1
            assert f"{Share(count).probability * 100:.{decimals}f}%" == percent


def test_to_json() -> None:
    data = odds(PRESETS["traditional"]).to_json()
    assert data["total"] == 46656
    assert data["hands"] == {str(h): n for h, n in RULES_COUNTS.items()}
    assert set(data["tiers"]) == {str(t) for t in Tier}
    assert data["tiers"]["zhuangyuan"]["count"] == 556
    assert data["tiers"]["zhuangyuan"]["probability"] == 556 / 46656
    assert data["kickers"]["sihong"]["12"] == 15
    assert data["sijin_by_fours"] == {"0": 1200, "1": 600, "2": 75}
    assert data["zhuangyuan"]["levels"][0] == {
        "rank": 1,
        "hand": "liubohong",
        "kicker": None,
        "dice": ["444444"],
        "count": 1,
    }
    assert json.loads(json.dumps(data)) == data


def test_share() -> None:
    assert Share(0).one_in is None
    assert Share(46656).probability == 1.0
    assert Share(720).one_in == pytest.approx(64.8)


def test_every_variant_sums_to_all_throws() -> None:
    for rules in VARIANTS:
        assert sum(odds(rules).hands.values()) == 46656
