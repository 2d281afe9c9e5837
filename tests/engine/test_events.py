"""Events: frozen facts, JSON in and out, a versioned log."""

from __future__ import annotations

import dataclasses
import doctest
import importlib
import json

import pytest

from bobing.engine.errors import RecordError
from bobing.engine.events import (
    EVENT_TYPES,
    EVENT_VERSION,
    Awarded,
    Closed,
    Event,
    FinalStarted,
    GameOver,
    GrabOpened,
    SetStarted,
    SkipNext,
    Skipped,
    StandingSet,
    Started,
    Thrown,
    ZhuangyuanWon,
    event_from_json,
    event_to_json,
    events_from_json,
    events_to_json,
)

EXAMPLES: list[Event] = [
    Started("甲"),
    Started("庚", "甲", (3, 4)),
    Thrown(1, "甲", "444412", "sihong"),
    Thrown(2, "乙", None, None),
    Skipped("乙", 5),
    Awarded(3, "甲", "yixiu", 1, None, "hand"),
    Awarded(9, "丁", "duitang", 1, "乙", "chase"),
    Awarded(None, "甲", "yixiu", 2, None, "grab"),
    StandingSet(1, "甲", "sihong", "444412"),
    SkipNext(2, "乙"),
    FinalStarted(40, 49),
    GrabOpened(12),
    Closed(7, 8),
    Closed(None, -1),
    GameOver(60, "exhausted"),
    GameOver(20, "closed"),
    GameOver(30, "rounds"),
    GameOver(None, "liubohei"),
    ZhuangyuanWon("甲", "sihong", "444412", 1),
    ZhuangyuanWon("丙", None, None, None),
    SetStarted(2, "乙", 31),
]


def test_every_event_type_has_an_example() -> None:
    assert {type(e) for e in EXAMPLES} == set(EVENT_TYPES.values())


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.type)
def test_json_round_trip(event: Event) -> None:
    data = event_to_json(event)
    assert next(iter(data)) == "type" and data["type"] == event.type
    text = json.dumps(data, ensure_ascii=False)
    assert event_from_json(json.loads(text)) == event
    assert event.to_json() == data


@pytest.mark.parametrize("event", EXAMPLES, ids=lambda e: e.type)
def test_events_are_frozen(event: Event) -> None:
    field = dataclasses.fields(event)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(event, field, None)
    hash(event)


def test_source_is_from_in_json() -> None:
    data = event_to_json(Awarded(9, "丁", "duitang", 1, "乙", "chase"))
    assert data == {
        "type": "awarded",
        "throw": 9,
        "player": "丁",
        "tier": "duitang",
        "count": 1,
        "from": "乙",
        "reason": "chase",
    }
    assert "source" not in data


def test_started_dice_become_a_list() -> None:
    assert event_to_json(Started("庚", "甲", (3, 4)))["dice"] == [3, 4]


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"type": "dance"}, "unknown event type 'dance'"),
        ({}, "unknown event type None"),
        ({"type": "started", "starter": "甲", "colour": 1}, "unknown key 'colour'"),
        ({"type": "thrown", "throw": 1}, "malformed thrown event"),
        ({"type": "awarded", "source": "乙"}, "unknown key 'source'"),
        (["started"], "must be an object"),
    ],
)
def test_malformed_events_are_record_errors(data: object, needle: str) -> None:
    with pytest.raises(RecordError) as info:
        event_from_json(data)  # type: ignore[arg-type]
    assert needle in str(info.value)


def test_versioned_log() -> None:
    log = events_to_json(EXAMPLES)
    assert log["event_version"] == EVENT_VERSION == 1
    assert events_from_json(json.loads(json.dumps(log, ensure_ascii=False))) == EXAMPLES
    with pytest.raises(RecordError, match="unsupported event_version 2"):
        events_from_json({"event_version": EVENT_VERSION + 1, "events": []})
    with pytest.raises(RecordError, match="unsupported event_version None"):
        events_from_json({"events": []})
    with pytest.raises(RecordError, match="event log"):
        events_from_json([])


@pytest.mark.parametrize(
    "name",
    ["bobing.engine.events", "bobing.engine.game", "bobing.engine.record", "bobing.cli.play_cmd"],
)
def test_doctests(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
