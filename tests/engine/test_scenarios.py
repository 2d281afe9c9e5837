"""Scripted games per rule switch: tests/golden/scenarios.json (research S1-S9 and more)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bobing.engine.events import event_from_json
from bobing.engine.record import adjudicate, judge_record
from bobing.engine.rules import SWITCHES

GOLDEN = Path(__file__).parent.parent / "golden"
SCENARIO_FILES = (
    GOLDEN / "scenarios.json",
    GOLDEN / "scenarios_v2.json",  # v2: RULES.md §8
    GOLDEN / "scenarios_v3.json",  # v3: RULES.md §9
    GOLDEN / "scenarios_v4.json",  # v4: RULES.md §10.2 (一二会)
)
SCENARIOS: list[dict[str, Any]] = [
    scenario
    for path in SCENARIO_FILES
    for scenario in json.loads(path.read_text(encoding="utf-8"))["scenarios"]
]
EXACT = ("holdings", "pool")


def matches(expected: Any, actual: Any, path: str = "") -> list[str]:
    """Differences between an expected subset and the actual value (empty when it matches)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{path}: expected an object, got {actual!r}"]
        problems: list[str] = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else key
            if key not in actual:
                problems.append(f"{where}: missing")
            elif key in EXACT and not path:
                problems += _exact(key, value, actual[key])
            else:
                problems += matches(value, actual[key], where)
        return problems
    if isinstance(expected, list) and expected and isinstance(expected[0], dict):
        # An ordered subsequence of partial objects (events).
        position = 0
        for item in expected:
            while position < len(actual) and matches(item, actual[position]):
                position += 1
            if position == len(actual):
                return [f"{path}: no {item!r} in order in {actual!r}"]
            position += 1
        return []
    return [] if expected == actual else [f"{path}: expected {expected!r}, got {actual!r}"]


def _exact(key: str, expected: Any, actual: Any) -> list[str]:
    if key == "pool":
        return [] if expected == actual else [f"pool: expected {expected!r}, got {actual!r}"]
    return [
        f"holdings.{player}: expected {tiers!r}, got {actual.get(player)!r}"
        for player, tiers in expected.items()
        if actual.get(player) != tiers
    ]


def judge(record: dict[str, Any], variant: dict[str, Any] | None = None) -> dict[str, Any]:
    """The §7 object of a scenario or of one of its variants."""
    if variant is None:
        return adjudicate(record)
    if "record" in variant:
        return adjudicate({**record, **variant["record"]})
    return adjudicate(record, variant["rules"])


CASES = [pytest.param(s, None, id=s["name"].split(":")[0]) for s in SCENARIOS] + [
    pytest.param(s, v, id=f"{s['name'].split(':')[0]} / variant {i + 1}")
    for s in SCENARIOS
    for i, v in enumerate(s.get("variants", []))
]


@pytest.mark.parametrize(("scenario", "variant"), CASES)
def test_scenario(scenario: dict[str, Any], variant: dict[str, Any] | None) -> None:
    result = judge(scenario["record"], variant)
    expected = scenario["expect"] if variant is None else variant["expect"]
    assert matches(expected, result) == []
    # Every result conserves the cakes and its events read back.
    for tier, left in result["pool"].items():
        held = sum(h.get(tier, 0) for h in result["holdings"].values())
        # 分状元 (RULES.md §9.3): once over, the shared 状元 cake is in nobody's hands.
        shared = (
            tier == "zhuangyuan"
            and result.get("zhuangyuan_cake") == "shared"
            and result["status"] == "over"
        )
        assert left + held + shared == judged_prizes(scenario, variant)[tier]
    for event in result["events"]:
        assert event_from_json(event).to_json() == event


def judged_prizes(scenario: dict[str, Any], variant: dict[str, Any] | None) -> dict[str, int]:
    record = scenario["record"]
    rules = None
    if variant is not None:
        record = {**record, **variant.get("record", {})}
        rules = variant.get("rules")
    from bobing.engine.rules import load_rules

    game = judge_record(record, None if rules is None else load_rules(rules)).game
    return {str(t): n for t, n in game.rules.prize_map.items()}


@pytest.mark.parametrize(("scenario", "variant"), [c for c in CASES if c.values[1] is not None])
def test_variant_flips_the_outcome(scenario: dict[str, Any], variant: dict[str, Any]) -> None:
    """A variant's expectation must fail on the base game (else it shows nothing)."""
    differs = matches(variant["expect"], judge(scenario["record"])) != []
    assert differs != variant.get("same_outcome", False)


def test_every_switch_value_is_covered() -> None:
    covered = {c for s in SCENARIOS for c in s["covers"]}
    switches = {c.split("=")[0].split(".")[0] for c in covered}
    assert set(SWITCHES) <= switches
    from bobing.engine import rules as r

    for switch, enum in r._ENUM_SWITCHES.items():
        for value in enum:
            assert f"{switch}={value}" in covered, f"{switch}={value}"
    for value in ("true", "false"):
        for switch in ("sijin_bonus", "wuzi_bonus", "liubohong_spares_chajinhua"):
            assert f"{switch}={value}" in covered, f"{switch}={value}"
    for value in ("nearest_before", "latest"):
        assert f"chase.from={value}" in covered


def test_the_matcher_can_fail() -> None:
    actual = {"a": 1, "events": [{"type": "x", "n": 1}, {"type": "y"}], "pool": {"z": 1}}
    assert matches({"a": 1, "events": [{"type": "x"}, {"type": "y"}]}, actual) == []
    assert matches({"a": 2}, actual) != []
    assert matches({"events": [{"type": "y"}, {"type": "x"}]}, actual) != []
    assert matches({"pool": {}}, actual) != []
