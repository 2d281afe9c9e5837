"""Issue 16, low: the XLSX prize-desk list shows a name that starts with = + - @ as typed.

Before the fix the XLSX export, like the CSV, put a visible ``'`` before such names, although
its text cells are inline strings that a spreadsheet never evaluates. The CSV, which has no
cell types, keeps the quote.
"""

from __future__ import annotations

import io
import zipfile

from bobing.gatherings.export import results_csv, results_xlsx
from bobing.organizer.xlsx import read_xlsx

NAMES = ["=1+1", "+SUM(A1)", "-2", "@cmd", "张三"]
PRIZE = {"tier": "yixiu", "name": "@p", "value": 5}
RESULTS = {
    "code": "ABCD",
    "people": [
        {"table": 1, "name": n, "group": "=组", "prizes": [PRIZE]}
        for n in NAMES
    ],
    "tables": [{"number": 1, "zhuangyuan": {"player": "=1+1", "hand": "sihong", "dice": "444412"}}],
    "wangzhongwang": {"player": "-2", "hand": "sihong", "dice": "444456"},
}  # fmt: skip


def test_xlsx_text_cells_are_typed_and_shown_as_typed() -> None:
    data = results_xlsx(RESULTS, "en")
    by_table = read_xlsx(data)
    assert [row[1] for row in by_table[1:]] == NAMES
    assert {row[2] for row in by_table[1:]} == {"=组"} and {row[4] for row in by_table[1:]} == {
        "@p"
    }
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for name in archive.namelist():
            if name.startswith("xl/worksheets/"):
                sheet = archive.read(name).decode()
                assert "<f>" not in sheet and "'=" not in sheet and "'-" not in sheet
                assert '<t xml:space="preserve">=1+1</t>' in sheet or name.endswith("2.xml")


def test_csv_cells_keep_the_formula_guard() -> None:
    text = results_csv(RESULTS, "en")
    for name in NAMES[:4]:
        assert f"'{name}" in text
    assert "'张三" not in text and "'=组" in text and "'@p" in text
