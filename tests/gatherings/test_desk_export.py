"""The prize-desk downloads (bobing/gatherings/export.py) and the name order they share with the
results page (bobing/gatherings/collation.py): one row per person and kind of prize with its
count, never one row per cake; the by-name sheet in the page's order."""

from __future__ import annotations

import csv
import io
import zipfile
from typing import Any

from bobing.engine.game import Game
from bobing.engine.rules import rules_from_json
from bobing.gatherings.collation import by_name, name_key
from bobing.gatherings.export import COLUMNS, desk_rows, results_csv, results_xlsx
from bobing.organizer.prizes import parse_prize_set
from bobing.organizer.results import event_results, prize_counts
from bobing.organizer.xlsx import read_xlsx

PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [{"name": "洗发水", "count": 2, "value": 40}],
    "sanhong": [{"name": "杯子", "count": 1, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 1, "value": 5}],
    "erju": [{"name": "饼干", "count": 3, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 8, "value": 2}],
}
# seat order at the table; in pinyin order 李四 (li) comes before 王五 (wang), 张三 (zhang)
PLAYERS = ["张三", "王五", "李四", "Ann", "阿杰"]


def played() -> dict[str, Any]:
    """One table played to its end: 张三 throws four 一秀s, 王五 the 二举s and a 对堂 …"""
    prizes = parse_prize_set(PRIZES)
    game = Game(rules_from_json({"preset": "traditional", "prizes": prizes.counts()}), PLAYERS)
    game.start(starter=PLAYERS[0])
    rounds = [
        ["412235", "441235", "112235", "112235", "112235"],
        ["412235", "441235", "123456", "112235", "112235"],
        ["412235", "441235", "444456", "412235", "112235"],
        ["412235", "123456", "412235", "412235", "412235"],
        ["444123", "222213", "112235", "112235", "112235"],
    ]
    for dice in (d for throws in rounds for d in throws):
        game.throw(dice)
    result = game.result(events=False)
    assert result["status"] == "over", result["status"]
    tables = [{"number": 1, "code": "AAAAAA", "players": PLAYERS, "result": result}]
    out = event_results(tables, prizes)
    for person in out["people"]:
        person["group"] = None
    return out


def test_a_persons_cakes_are_counted_in_the_order_they_are_handed_over() -> None:
    cola = {"tier": "yixiu", "name": "可乐", "value": 2}
    biscuit = {"tier": "erju", "name": "饼干", "value": 3}
    other_cola = {"tier": "yixiu", "name": "可乐", "value": 1}
    counted = prize_counts([biscuit, cola, cola, other_cola, cola])
    assert counted == [
        {**biscuit, "count": 1},
        {**cola, "count": 3},
        {**other_cola, "count": 1},
    ]
    assert prize_counts([]) == []
    results = played()
    for person in results["people"]:
        assert person["prize_counts"] == prize_counts(person["prizes"])


def test_the_desk_list_has_one_row_per_person_and_prize_with_its_count() -> None:
    results = played()
    rows = desk_rows(results, "zh-Hans")
    assert rows[0] == ["桌号", "姓名", "组别", "奖级", "奖品", "数量", "单价", "价值"]
    assert len(rows[0]) == len(COLUMNS)
    body = rows[1:]
    zhang = [r for r in body if r[1] == "张三"]
    # 张三 threw four 一秀s: one row of four colas, not four rows
    assert ["一秀", "可乐", 4, 2, 8] in [r[3:] for r in zhang]
    keys = [(r[1], r[3], r[4]) for r in body]
    assert len(keys) == len(set(keys)), "a person's kind of prize is one row"
    cakes = sum(len(p["prizes"]) for p in results["people"])
    assert sum(int(r[5] or 0) for r in body) == cakes == 1 + 2 + 1 + 1 + 3 + 8
    assert sum(float(r[7] or 0) for r in body) == 65 + 2 * 40 + 20 + 5 + 3 * 3 + 8 * 2
    # by table: seat order, as the page lists a table
    assert list(dict.fromkeys(r[1] for r in body)) == PLAYERS


def test_one_name_order_for_the_page_and_every_download() -> None:
    assert [p["name"] for p in by_name({"name": n} for n in PLAYERS)] == [
        "阿杰", "李四", "王五", "张三", "Ann",
    ]  # fmt: skip
    assert sorted(["同学10", "同学02", "曾国藩", "吕布", "卢", "lu", "Lu"], key=name_key) == [
        "曾国藩", "卢", "吕布", "同学02", "同学10", "lu", "Lu",
    ]  # fmt: skip
    results = played()
    page_order = [p["name"] for p in by_name(results["people"])]
    rows = desk_rows(results, "en", by_name=True)
    assert list(dict.fromkeys(r[1] for r in rows[1:])) == page_order
    # the XLSX's by-name sheet is that list; the CSV (by table) has the same rows
    book = results_xlsx(results, "en")
    assert [r[1] for r in xlsx_sheet(book, 2)[1:]] == [str(r[1]) for r in rows[1:]]
    text = results_csv(results, "en").lstrip("\ufeff")
    csv_rows = list(csv.reader(io.StringIO(text)))
    assert csv_rows == [[str(c) for c in row] for row in desk_rows(results, "en")]


def xlsx_sheet(data: bytes, number: int) -> list[list[str]]:
    """Sheet ``number`` of a workbook (read_xlsx reads the first): that sheet put first."""
    source = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with source, zipfile.ZipFile(out, "w") as copy:
        for item in source.infolist():
            body = source.read(item.filename)
            if item.filename == "xl/worksheets/sheet1.xml":
                body = source.read(f"xl/worksheets/sheet{number}.xml")
            copy.writestr(item, body)
    return read_xlsx(out.getvalue())


def test_a_rows_value_is_its_count_times_one_pieces_value_to_the_fen() -> None:
    sweet = {"tier": "yixiu", "name": "糖", "value": 0.1}
    results = {"people": [{"table": 1, "name": "甲", "prizes": [sweet] * 3}]}
    assert desk_rows(results, "en")[1][3:] == ["Yixiu (one red)", "糖", 3, 0.1, 0.3]
