"""The ``events`` frame on the wire (docs/protocol.md, "events"): its encoding and decoding.

A throw at a table of ten used to send every phone the whole table state (about 2.4 KB) with
its events. Now a frame carries the events in a compact form and, in place of the state, a
*patch* from the state the phone already holds; the whole state goes out only when a phone
joins or resyncs. A frame is encoded once per table and written to every socket as the same
bytes.

The compact events: ``seq`` is given once for the frame (the first event's; events in a frame
are consecutive) and ``common`` holds the fields that every event of the frame has with the
same value (``at``, and ``throw`` and ``player`` when all share them), so each event lists only
the rest. :func:`expand_events` gives back exactly the events of the log.

A patch is a list of ``[key, …, key, value]`` entries: set ``value`` at that path of the state
(objects are walked, created where missing; lists and other values are replaced whole). An
object that lost a key is sent whole, so no entry ever deletes. It applies to the state after
event ``seq - 1``, which a client checks (``state.last_seq``); on a mismatch it resyncs with
``?after=``. Before the patch, a client sets what the events themselves say of the state
(:func:`implied_state`): ``last_seq`` is the last event's, and a ``thrown`` event is the new
``last_throw``, ``throw_count`` and ``turn`` (one more). The patch is the difference from that,
so it corrects whatever else happened (the game ending, an undo).

Encoding is the server's (:func:`events_frame`, :func:`state_patch`); :func:`decode_events` and
:func:`apply_patch` are for Python clients (the bench, the tests). ``static/js/frames.js`` is the
browser's decoder, held to this one by ``tests/web/test_frames.py``.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from bobing.engine.json_text import compact

encode = compact
"""JSON text exactly as :func:`~bobing.tables.protocol.dumps` writes it, faster."""

HOISTED = ("at", "throw", "player")
"""Event fields written once in ``common`` when every event of a frame has the same value."""


def compact_events(events: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(common, events)``: the fields every event shares, and each event without them (and
    without its ``seq``)."""
    common: dict[str, Any] = {}
    if not events:
        return common, []
    first = events[0]
    for key in HOISTED:
        if key in first:
            value = first[key]
            for e in events:
                if key not in e or e[key] != value:
                    break
            else:
                common[key] = value
    skip = {"seq", *common}
    return common, [{k: v for k, v in e.items() if k not in skip} for e in events]


def events_frame(
    events: Sequence[dict[str, Any]],
    *,
    after: int,
    state_json: str | None = None,
    patch_json: str | None = None,
) -> str:
    """The ``events`` frame as text: the events after ``after`` (consecutive, as the log has
    them: ``StoredEvent.to_json``) and either the state (already encoded), a patch from the
    state after ``after`` (already encoded), or neither (a page of a long resync)."""
    common, rest = compact_events(events)
    frame: dict[str, Any] = {"type": "events", "seq": after + 1}
    if common:
        frame["common"] = common
    frame["events"] = rest
    head = encode(frame)  # one encoding for all but the state or patch (already text)
    if state_json is not None:
        return head[:-1] + ',"state":' + state_json + "}"
    if patch_json is not None:
        return head[:-1] + ',"patch":' + patch_json + "}"
    return head


def state_patch(old: dict[str, Any], new: dict[str, Any]) -> list[list[Any]]:
    """The entries that turn ``old`` into ``new`` (both JSON objects; ``new`` has every key of
    ``old``, as every state does)."""
    entries: list[list[Any]] = []
    _diff(old, new, [], entries)
    return entries


def implied_state(state: dict[str, Any], events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``state`` with what ``events`` (as the log has them) say of it, before any patch: the
    last ``seq``, and the last ``thrown`` event as ``last_throw``, ``throw_count`` and ``turn``.
    A new object sharing the rest with ``state``."""
    if not events:
        return state
    out = {**state, "last_seq": events[-1]["seq"]}
    for event in events:
        if event["type"] == "thrown":
            throw = event["throw"]
            out["last_throw"] = {key: event.get(key) for key in THROWN_FIELDS}
            out["throw_count"] = throw
            out["turn"] = throw + 1
    return out


THROWN_FIELDS = ("throw", "player", "dice", "hand")
"""A ``thrown`` event's fields that are the state's ``last_throw``."""


def _diff(old: dict[str, Any], new: dict[str, Any], path: list[str], out: list[list[Any]]) -> None:
    # ``is`` first: the state reuses what did not change (``tables.state``), so most of it is
    # the very object it was, and the same object is the same JSON (no NaN in a state).
    get = old.get
    for key, value in new.items():
        before = get(key, _ABSENT)
        if before is value:
            continue
        if before is not _ABSENT:
            if before == value and _same(before, value):
                continue
            if (
                isinstance(before, dict)
                and isinstance(value, dict)
                and before.keys() <= value.keys()
            ):
                _diff(before, value, [*path, key], out)
                continue
        out.append([*path, key, value])


_ABSENT = object()


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same JSON: Python's ``==`` holds ``False == 0`` and
    ``1 == 1.0``, at any depth, and the page would keep the old one. Asked once ``a == b``."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        for k, v in a.items():  # the keys are equal: a == b
            w = b[k]
            if v is not w and (
                type(v) is not type(w) or (isinstance(v, (dict, list)) and not _same(v, w))
            ):
                return False
    elif isinstance(a, list):
        for v, w in zip(a, b, strict=True):  # the lengths are equal: a == b
            if v is not w and (
                type(v) is not type(w) or (isinstance(v, (dict, list)) and not _same(v, w))
            ):
                return False
    return True


def apply_patch(state: dict[str, Any], patch: Sequence[Sequence[Any]]) -> None:
    """Apply a patch to ``state`` in place (a Python client keeps its own copy)."""
    for entry in patch:
        *path, key, value = entry
        target = state
        for step in path:
            inner = target.get(step)
            if not isinstance(inner, dict):
                inner = target[step] = {}
            target = inner
        target[key] = copy.deepcopy(value)


def expand_events(frame: dict[str, Any]) -> list[dict[str, Any]]:
    """The frame's events as the log has them (``seq``, ``type``, ``at``, the rest)."""
    first = int(frame.get("seq", 0))
    common = frame.get("common") or {}
    return [
        {"seq": first + i, "type": e["type"], **common, **e}
        for i, e in enumerate(frame.get("events") or [])
    ]


class StaleBase(Exception):
    """A patch that does not follow the state held (a lost frame): resync with ``?after=``."""


def decode_events(
    frame: dict[str, Any], state: dict[str, Any] | None
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """``(events, state after them)`` of an ``events`` frame, given the state held before it
    (None: none yet). The state returned is a new object (None for a page without state);
    :class:`StaleBase` when the frame's patch does not apply to ``state``."""
    events = expand_events(frame)
    if "state" in frame:
        return events, frame["state"]
    if "patch" in frame:
        if state is None or state.get("last_seq") != int(frame["seq"]) - 1:
            raise StaleBase(
                f"a patch after seq {int(frame['seq']) - 1} does not apply to the state held"
                f" (after {None if state is None else state.get('last_seq')})"
            )
        after = copy.deepcopy(implied_state(state, events))
        apply_patch(after, frame["patch"])
        return events, after
    return events, None
