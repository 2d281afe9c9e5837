"""What a table exports: the RULES.md §6 record with its fairness block, and results as CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from bobing.engine.hands import TIERS
from bobing.i18n import t
from bobing.i18n.names import hand_name
from bobing.tables.runtime import Runtime
from bobing.tables.state import (
    game_result,
    revealed_seed,
)


def record_of(runtime: Runtime) -> dict[str, Any]:
    """RULES.md §6 record plus ``table`` and ``fairness`` (the seed only once over), and at a
    ``keep_photos`` table ``photos``: the throws a photo was kept for (an extra key, kept and
    ignored by ``bobing adjudicate``)."""
    record = _record(runtime)
    if runtime.info.settings.get("keep_photos"):
        record["photos"] = {
            "kept": True,
            "throws": [
                {"throw": number, "seq": seq} for number, seq in sorted(runtime.photos.items())
            ],
        }
    return record


def _record(runtime: Runtime) -> dict[str, Any]:
    fairness = {
        "commitment": runtime.info.commitment,
        "server_seed": revealed_seed(runtime),
        "table_id": runtime.code,
        "start": None
        if runtime.start_dice is None or runtime.start_dice.get("nonce") is None
        else {
            "thrower": runtime.start_dice["thrower"],
            "dice": runtime.start_dice["dice"],
            "nonce": runtime.start_dice["nonce"],
        },
        "throws": list(runtime.fair_throws),
    }
    if runtime.disputes:
        fairness["disputes"] = [dict(d) for d in runtime.disputes]
    table = {"code": runtime.code, "name": runtime.info.name, "mode": runtime.info.mode}
    game = runtime.game
    if game is not None:
        if game.state.ranked:
            # The standings as they are (final once over): RULES.md §8.2's ``ranking``.
            ranking = [entry.to_json() for entry in game.ranking()]
            return game.to_record(table=table, fairness=fairness, ranking=ranking)
        return game.to_record(table=table, fairness=fairness)
    rules = runtime.rules.overrides()
    return {
        "rules": runtime.rules.preset if len(rules) == 1 else rules,
        "players": runtime.names,
        "throws": [],
        "table": table,
        "fairness": fairness,
    }


CSV_COLUMNS = ["seat", "player", *(str(t) for t in TIERS), "cakes", "value", "zhuangyuan_hand"]


RANKED_CSV_COLUMNS = [
    "rank",
    "seat",
    "player",
    "best_hand",
    "best_dice",
    "best_throw",
    "prize",
    "value",
]


def results_csv(runtime: Runtime, lang: str | None = None) -> str:
    """One row per seat: cakes per tier, total, value of named prizes, the 状元 hand; at a
    ranked table one row per person in rank order: best throw, prize and its value.

    Without ``lang`` the columns and the hand are the stable ids (``zhuangyuan``,
    ``sihong``) for programs; with it, headers and the hand's name are in that language
    (四红带三, "Four reds with 3") for people opening the file in a spreadsheet.
    """
    if runtime.game is not None and runtime.game.state.ranked:
        return ranked_csv(runtime)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    pays = _payments(runtime)
    headers = CSV_COLUMNS if lang is None else _headers(lang)
    result = game_result(runtime.game) if runtime.game is not None else None
    if result is not None and "set" in result:
        # 一二会 (RULES.md §10.2): a set column, each set's rows, then each person's sum.
        writer.writerow([_set_header(lang), *headers, *_pays_header(pays, lang)])
        owed: dict[str, int | float] = {}
        for number, one in enumerate([*result["sets"], result], start=1):
            paid = one.get("payments")
            for seat, row in zip(runtime.seats, _seat_rows(runtime, one, lang), strict=True):
                cell = _pays_cell(paid, seat.name) if pays is not None else []
                owed[seat.name] = owed.get(seat.name, 0) + sum(cell)
                writer.writerow([number, *row, *cell])
        totals = {"holdings": result["totals"], "status": "in_progress"}
        total = "total" if lang is None else t("server.csv.total", lang)
        for seat, row in zip(runtime.seats, _seat_rows(runtime, totals, lang), strict=True):
            cell = [] if pays is None else [_amount(owed.get(seat.name, 0))]
            writer.writerow([total, *row, *cell])
        if pays is not None:
            kitty = {"kitty": _amount(sum(owed.values()))}
            _kitty_row(writer, kitty, len(CSV_COLUMNS) + 1, lang)
        return "\ufeff" + buffer.getvalue()
    writer.writerow([*headers, *_pays_header(pays, lang)])
    for seat, row in zip(runtime.seats, _seat_rows(runtime, result, lang), strict=True):
        writer.writerow([*row, *_pays_cell(pays, seat.name)])
    _kitty_row(writer, pays, len(CSV_COLUMNS), lang)
    return "\ufeff" + buffer.getvalue()


def _amount(value: int | float) -> int | float:
    """A sum of payments as the other cells show amounts: whole where whole, else to 0.01."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else round(value, 2)
    return value


def _set_header(lang: str | None) -> str:
    return "set" if lang is None else t("server.csv.set", lang)


def _seat_rows(
    runtime: Runtime, result: dict[str, Any] | None, lang: str | None
) -> list[list[Any]]:
    """One row per seat of one game's (or set's) result: cakes per tier, total, value of the
    named prizes, the 状元 hand once over."""
    named = runtime.info.settings.get("named_prizes") or {}
    winner = (result or {}).get("zhuangyuan") or {}
    over = result is not None and result["status"] == "over"
    rows: list[list[Any]] = []
    for seat in runtime.seats:
        holdings = (result or {}).get("holdings", {}).get(seat.name, {})
        counts = [int(holdings.get(str(t), 0)) for t in TIERS]
        value = sum(counts[i] * named.get(str(t), {}).get("value", 0) for i, t in enumerate(TIERS))
        hand = winner.get("hand") if over and winner.get("player") == seat.name else None
        if hand and lang is not None:
            dice = winner.get("dice")
            hand = (
                hand_name(runtime.rules.classify(dice), lang) if dice else t(f"hand.{hand}", lang)
            )
        rows.append([seat.seat, _csv_safe(seat.name), *counts, sum(counts), value, hand or ""])
    return rows


def _payments(runtime: Runtime) -> dict[str, Any] | None:
    """反向博钱 (RULES.md §9.3): who pays what into the kitty; None when winners receive."""
    return None if runtime.game is None else runtime.game.state.payments()


def _pays_header(pays: dict[str, Any] | None, lang: str | None) -> list[str]:
    if pays is None:
        return []  # old columns only: a table where winners receive reads as before
    return ["pays" if lang is None else t("server.csv.pays", lang)]


def _pays_cell(pays: dict[str, Any] | None, name: str) -> list[Any]:
    return [] if pays is None else [pays["players"].get(name, 0)]


def _kitty_row(writer: Any, pays: dict[str, Any] | None, width: int, lang: str | None) -> None:
    """The kitty's total under the 应付 (pays) column, on a row of its own."""
    if pays is None:
        return
    label = "kitty" if lang is None else t("server.csv.kitty", lang)
    writer.writerow(["", label, *([""] * (width - 2)), pays["kitty"]])


def _headers(lang: str) -> list[str]:
    tiers = [t(f"tier.{tier}", lang).split(" (")[0] for tier in TIERS]
    words = [t(f"server.csv.{key}", lang) for key in ("seat", "player")]
    tail = [t(f"server.csv.{key}", lang) for key in ("cakes", "value", "zhuangyuan_hand")]
    return [*words, *tiers, *tail]


def ranked_csv(runtime: Runtime) -> str:
    """The ranking of a ranked table (RULES.md §8.2) as CSV, best first."""
    game = runtime.game
    assert game is not None
    units = [p for p in runtime.rules.ranked_prizes or () for _ in range(p.count)]
    seat_of = {seat.name: seat.seat for seat in runtime.seats}
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    pays = _payments(runtime)
    writer.writerow([*RANKED_CSV_COLUMNS, *_pays_header(pays, None)])
    for rank, entry in enumerate(game.ranking(), start=1):
        row = entry.to_json()
        unit = units[rank - 1] if row["prize"] is not None and rank <= len(units) else None
        value = "" if unit is None or unit.value is None else unit.value
        writer.writerow(
            [
                rank,
                seat_of.get(row["player"], ""),
                _csv_safe(row["player"]),
                row["hand"] or "",
                row["dice"] or "",
                row["throw"] or "",
                _csv_safe(row["prize"] or ""),
                value,
                *_pays_cell(pays, row["player"]),
            ]
        )
    _kitty_row(writer, pays, len(RANKED_CSV_COLUMNS), None)
    return "\ufeff" + buffer.getvalue()


def _csv_safe(text: str) -> str:
    # Spreadsheet formula injection: a leading = + - @ would be evaluated.
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text
