"""``bobing verify`` of an event record: every table's record and the playoff, checked whole.

Each table's dice must follow from its revealed seed (:func:`verify_record`) and its record
must replay under the engine; the playoff must be played by exactly the table winners the
replays give, in table order. An evening's earlier sessions (``earlier_sessions``, RULES.md
§10.2) are checked table by table as well; the playoff seats the last session's winners.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import RecordError
from bobing.engine.fairness import ThrowCheck, verify_record
from bobing.engine.record import judge_record
from bobing.organizer.playoff import playoff_field, table_winner


@dataclass(frozen=True, slots=True)
class TableCheck:
    """One verified table: its number (0 for the playoff), code, the checked server throws."""

    number: int
    code: str
    checks: tuple[ThrowCheck, ...]
    winner: str | None


def is_event_record(data: Mapping[str, Any]) -> bool:
    """Whether a JSON object is an event record (``GET /api/events/{code}/record``)."""
    return isinstance(data.get("event"), Mapping) and isinstance(data.get("tables"), list)


def _listed(table: Any, index: int, where: str, shape: str) -> tuple[TableCheck, dict[str, Any]]:
    """The ``index``-th (from 1) table of the record's list ``where``, checked: its check and
    its result; RecordError when it is not ``shape``."""
    if not isinstance(table, Mapping) or not isinstance(table.get("record"), Mapping):
        raise RecordError(
            f"{where}[{index - 1}] must be {shape}", code="event_record_table", table=index
        )
    number = int(table.get("number", index))
    check, result = _table(table["record"], number)
    return TableCheck(number, str(table.get("code", "")), check, _winner(result)), result


def verify_event(record: Mapping[str, Any]) -> list[TableCheck]:
    """Check an event record whole; RecordError naming the table that fails."""
    out: list[TableCheck] = []
    results: list[dict[str, Any] | None] = []
    for index, table in enumerate(record["tables"], start=1):
        checked, result = _listed(table, index, "tables", "{number, code, record}")
        out.append(checked)
        results.append(result)
    # an evening's earlier sessions (RULES.md §10.2): each table's dice and replay checked too
    for index, table in enumerate(record.get("earlier_sessions") or [], start=1):
        shape = "{session, number, code, record}"
        out.append(_listed(table, index, "earlier_sessions", shape)[0])
    playoff = record.get("playoff")
    if playoff is not None:
        if not isinstance(playoff, Mapping) or not isinstance(playoff.get("record"), Mapping):
            raise RecordError("playoff must be {code, record}", code="event_record_playoff")
        field = playoff_field(results)
        players = list(playoff["record"].get("players") or [])
        if players != field:
            raise RecordError(
                f"the playoff seats {players!r} but the table winners are {field!r}",
                code="event_playoff_field",
                players=players,
                field=field,
            )
        check, result = _table(playoff["record"], 0)
        out.append(TableCheck(0, str(playoff.get("code", "")), check, _winner(result)))
    return out


def _table(record: Mapping[str, Any], number: int) -> tuple[tuple[ThrowCheck, ...], dict[str, Any]]:
    try:
        checks = tuple(verify_record(record))
        result = judge_record(record).game.result(events=False)
    except RecordError as exc:
        label = "the playoff" if number == 0 else f"table {number}"
        raise RecordError(
            f"{label}: {exc.message}", code="event_record_table", table=number, inner=exc
        ) from None
    return checks, result


def _winner(result: Mapping[str, Any]) -> str | None:
    winner = table_winner(result)
    return None if winner is None else str(winner["player"])
