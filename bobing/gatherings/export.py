"""An event's results as a prize-desk list: CSV (one sheet) and XLSX (by table, by name).

The rows are the results page's: a person's prizes counted (:func:`prize_counts`), in the
page's order (:func:`bobing.gatherings.collation.by_name` for the by-name list).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import Any

from bobing.gatherings.collation import by_name as name_order
from bobing.i18n import t
from bobing.organizer.results import prize_counts
from bobing.organizer.xlsx import Cell, write_xlsx

COLUMNS = ("table", "name", "group", "tier", "prize", "count", "unit_value", "value")
"""The prize-desk list's columns: one row per person and kind of prize, ``count`` pieces of
``unit_value`` each, ``value`` in all."""


def _tier(tier: str | None, lang: str) -> str:
    if tier is None:
        return t("event.export.ranked", lang)
    if tier == "wangzhongwang":
        return t("event.export.wangzhongwang", lang)
    return t(f"tier.{tier}", lang)


def desk_rows(results: Mapping[str, Any], lang: str, *, by_name: bool = False) -> list[list[Cell]]:
    """One row per person and kind of prize (a person with none gets one empty row), in the
    results page's order: by table in seat order, or by name (:mod:`~.collation`). Under
    反向博钱 (RULES.md §9.3) each person's first row says what they pay (应付) and a last row
    the kitty's total; under 分状元 each table's shared goods follow, held by nobody."""
    people = name_order(results["people"]) if by_name else results["people"]
    paying = any("pays" in person for person in people)
    # an evening in sessions (RULES.md §10.2): a 场次 column names each prize's session
    sessions = {s["index"]: s["name"] for s in results.get("sessions") or []}
    head: list[Cell] = [t(f"event.export.{c}", lang) for c in COLUMNS]
    if sessions:
        head.append(t("event.export.session", lang))
    rows: list[list[Cell]] = [[*head, t("event.export.pays", lang)] if paying else head]
    for person in people:
        first = len(rows)
        base: list[Cell] = [
            person["table"],
            person["name"],
            person.get("group") or "",
        ]
        counted = _counted(person["prizes"], sessions)
        if not counted:
            rows.append(
                [*base, "", t("event.export.nothing", lang), 0, 0, 0, *([""] if sessions else [])]
            )
        for session, prize in counted:
            value = prize["value"] or 0
            rows.append(
                [
                    *base,
                    _tier(prize["tier"], lang),
                    prize["name"] or _tier(prize["tier"], lang),
                    prize["count"],
                    value,
                    round(value * prize["count"], 2),  # 0.1 元 × 3 is 0.3, not 0.30000000000000004
                    *([session] if sessions else []),
                ]
            )
        if paying:
            for index in range(first, len(rows)):
                rows[index].append(person.get("pays", 0) if index == first else "")
    for table in results.get("tables", []):
        for good in table.get("shared") or []:
            value = good["value"] or 0
            rows.append(
                [
                    table["number"],
                    t("event.export.shared", lang, n=good["players"]),
                    "",
                    _tier(good["tier"], lang),
                    good["name"] or _tier(good["tier"], lang),
                    good["count"],
                    value,
                    round(value * good["count"], 2),
                    *([""] if sessions else []),
                    *([""] if paying else []),
                ]
            )
    if paying:
        kitty = (results.get("money") or {}).get("kitty", 0)
        blank = len(COLUMNS) - 2 + bool(sessions)
        rows.append(["", t("event.export.kitty", lang), *[""] * blank, kitty])
    return rows


def _counted(
    prizes: list[dict[str, Any]], sessions: Mapping[int, str]
) -> list[tuple[str, dict[str, Any]]]:
    """A person's prizes counted (:func:`prize_counts`), each with its session's name; with
    sessions, counted within each session, in the programme's order (the 王中王's last)."""
    if not sessions:
        return [("", row) for row in prize_counts(prizes)]
    order = [*sessions, None]
    out: list[tuple[str, dict[str, Any]]] = []
    for index in order:
        mine = [p for p in prizes if p.get("session") == index]
        out.extend(
            (sessions.get(index, "") if index is not None else "", row)
            for row in prize_counts(mine)
        )
    return out


def winner_rows(results: Mapping[str, Any], lang: str) -> list[list[Cell]]:
    """Each table's 状元 and the 王中王."""
    rows: list[list[Cell]] = [
        [t(f"event.export.{c}", lang) for c in ("table", "name", "hand", "dice")]
    ]
    for table in results["tables"]:
        winner = table.get("zhuangyuan") or {}
        hand = winner.get("hand")
        rows.append(
            [
                table["number"],
                winner.get("player") or "",
                t(f"hand.{hand}", lang) if hand else "",
                winner.get("dice") or "",
            ]
        )
    champion = results.get("wangzhongwang")
    if champion:
        rows.append(
            [
                t("event.export.wangzhongwang", lang),
                champion["player"],
                t(f"hand.{champion['hand']}", lang),
                champion.get("dice") or "",
            ]
        )
    return rows


def money_rows(results: Mapping[str, Any], lang: str) -> list[list[Cell]]:
    """RULES.md §9.4's money: who paid and did not come, each refund, the donated prize sets
    (empty when the event uses none of them)."""
    money = results.get("money") or {}
    rows: list[list[Cell]] = []
    sections = (  # (results key, section title, column, field)
        ("no_shows", "no_shows", "paid", "paid"),
        ("refunds", "refund", "value", "amount"),
        ("donated_sets", "donated", "sets", "sets"),
    )
    for key, title, column, field in sections:
        entries = money.get(key) or []
        if not entries:
            continue
        rows.append([t(f"event.export.{title}", lang)])
        rows.append([t("event.export.name", lang), t(f"event.export.{column}", lang)])
        rows.extend([e["name"], e[field]] for e in entries)
    return rows


def results_csv(results: Mapping[str, Any], lang: str) -> str:
    """The prize-desk list by table, then the money rows after an empty line (UTF-8 with BOM,
    so Excel reads the Chinese)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerows([[_safe(c) for c in row] for row in desk_rows(results, lang)])
    money = money_rows(results, lang)
    if money:
        writer.writerow([])
        writer.writerows([[_safe(c) for c in row] for row in money])
    return "\ufeff" + buffer.getvalue()


def results_xlsx(results: Mapping[str, Any], lang: str) -> bytes:
    """Sheets by table, by name, the winners, and the money where §9.4 has some; text is
    written as text cells (inline strings), so a name starting with ``=`` is shown as typed
    and never evaluated."""
    money = money_rows(results, lang)
    return write_xlsx(
        [
            (t("event.export.sheet.by_table", lang), desk_rows(results, lang)),
            (t("event.export.sheet.by_name", lang), desk_rows(results, lang, by_name=True)),
            (t("event.export.sheet.winners", lang), winner_rows(results, lang)),
            *([(t("event.export.sheet.money", lang), money)] if money else []),
        ]
    )


def _safe(cell: Cell) -> Cell:
    # Formula injection: a CSV cell has no type, so a leading = + - @ would be evaluated when
    # the file is opened in a spreadsheet. (The XLSX export types its text cells instead.)
    if isinstance(cell, str) and cell[:1] in ("=", "+", "-", "@"):
        return "'" + cell
    return cell
