"""Issue 16: a hostile XLSX roster is refused before it can take the memory, never with a crash.

Each workbook here is a few hundred bytes to a few KB. Before the fix a row numbered 20,000,000
padded 20 million empty rows (+1.4 GB), one cell in column ZZZ on 4,998 rows built 90 million
empty cells, a 5,000-digit row number or a CRC failure raised past the input errors (a 500),
a UTF-16 part's internal entity was expanded, and phonetic runs were read into names.
"""

from __future__ import annotations

import contextlib
import tracemalloc
from collections.abc import Callable

import pytest
from xlsxtools import MAIN, inline, workbook

from bobing.engine.errors import InputError
from bobing.organizer import read_roster
from bobing.organizer.xlsx import read_xlsx_rows

MEMORY_BOUND = 20_000_000
"""Bytes a refused (or read) hostile roster may allocate at its peak: a few times the part."""


def peak_bytes(call: Callable[[], object]) -> int:
    """The peak of Python allocations while ``call`` runs (its error, if any, swallowed)."""
    tracemalloc.start()
    try:
        with contextlib.suppress(InputError):
            call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def refusal(data: bytes) -> InputError:
    with pytest.raises(InputError) as caught:
        read_roster(data, "xlsx")
    assert caught.value.code in ("bad_xlsx", "roster_too_large"), caught.value
    return caught.value


def test_a_far_row_number_is_refused_without_padding() -> None:
    for number in ("20000000", "1000000000"):
        data = workbook(f'<row r="{number}">{inline("A" + number, "张三")}</row>')
        assert len(data) < 1200
        assert peak_bytes(lambda data=data: read_roster(data, "xlsx")) < MEMORY_BOUND
        assert number in refusal(data).message or "row" in refusal(data).message


@pytest.mark.parametrize("number", ["9" * 5000, "x1", "-3", "0", "1e3", "٣"])
def test_a_row_number_that_is_not_one_is_bad_xlsx(number: str) -> None:
    data = workbook(f'<row r="{number}">{inline("A1", "张三")}</row>')
    assert refusal(data).code == "bad_xlsx"
    assert peak_bytes(lambda: read_roster(data, "xlsx")) < MEMORY_BOUND


@pytest.mark.parametrize("ref", ["ZZZZ1", "A" + "9" * 5000, "a1", "1A", "XFE1"])
def test_a_cell_reference_past_the_columns_is_bad_xlsx(ref: str) -> None:
    data = workbook(f'<row r="1">{inline(ref, "张三")}</row>')
    assert refusal(data).code == "bad_xlsx"


def test_far_columns_cost_only_the_cells_present() -> None:
    # One cell in column XFD on 4,998 rows, and the names in column A: 27 KB compressed
    # before; the rows were padded to the widest one (+1.44 GB for column ZZZ).
    rows = "".join(
        f'<row r="{r}">{inline(f"A{r}", f"人{r}") if r <= 600 else ""}'
        f"{inline(f'XFD{r}', 'x')}</row>"
        for r in range(1, 4999)
    )
    data = workbook(rows)
    assert peak_bytes(lambda: read_xlsx_rows(data)) < MEMORY_BOUND
    sheet = read_xlsx_rows(data)
    assert len(sheet) == 4998 and sheet[0] == {0: "人1", 16383: "x"}


def test_too_many_cells_are_refused() -> None:
    rows = "".join(
        f'<row r="{r}">' + "".join(f"<c><v>{c}</v></c>" for c in range(30)) + "</row>"
        for r in range(1, 4000)
    )
    error = refusal(workbook(rows))
    assert error.code == "roster_too_large"


def test_a_member_failing_its_crc_is_bad_xlsx() -> None:
    data = bytearray(workbook(inline("A1", "张三" * 50).join(["<row>", "</row>"])))
    # Flip one byte inside the stored sheet's compressed data: its CRC no longer matches.
    at = data.index(b"xl/worksheets/sheet1.xml") + len("xl/worksheets/sheet1.xml") + 10
    data[at] ^= 0xFF
    error = refusal(bytes(data))
    assert error.code == "bad_xlsx"


def test_an_unsupported_compression_is_bad_xlsx() -> None:
    data = bytearray(workbook(f'<row r="1">{inline("A1", "张三")}</row>'))
    # Mark every member deflate64 (method 9), in the local and the central headers.
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset : at + offset + 2] = (9).to_bytes(2, "little")
            at = data.find(signature, at + 4)
    error = refusal(bytes(data))
    assert error.code == "bad_xlsx"


def test_a_dtd_is_refused_in_every_encoding() -> None:
    entity = (
        '<?xml version="1.0" encoding="{enc}"?><!DOCTYPE worksheet [<!ENTITY who "ZhangSan">]>'
        f'<worksheet xmlns="{MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is>'
        "<t>&who;</t></is></c></row></sheetData></worksheet>"
    )
    for encoding, codec in (("UTF-8", "utf-8"), ("UTF-16", "utf-16"), ("UTF-16BE", "utf-16-be")):
        part = entity.replace("{enc}", encoding).encode(codec)
        if codec == "utf-16-be":
            part = b"\xfe\xff" + part
        assert b"<!DOCTYPE" not in part or codec == "utf-8"
        error = refusal(workbook(part))
        assert "DOCTYPE" in error.message, (encoding, error)


def test_phonetic_runs_are_not_read_into_names() -> None:
    shared = (
        f'<sst xmlns="{MAIN}"><si><t>张三</t><rPh sb="0" eb="2"><t>ZhangSan</t></rPh></si>'
        "<si><r><t>李</t></r><r><t>四</t></r><rPh><t>LiSi</t></rPh></si></sst>"
    )
    sheet = (
        '<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c></row>'
    )
    people = read_roster(workbook(sheet, shared), "xlsx")
    assert [p.name for p in people] == ["张三", "李四"]
    inline_phonetic = (
        '<row r="1"><c r="A1" t="inlineStr"><is><t>王五</t><rPh><t>WangWu</t></rPh></is></c></row>'
    )
    assert [p.name for p in read_roster(workbook(inline_phonetic), "xlsx")] == ["王五"]


def test_a_bad_shared_string_index_is_bad_xlsx() -> None:
    for index in ("7", "9" * 5000, "x"):
        sheet = f'<row r="1"><c r="A1" t="s"><v>{index}</v></c></row>'
        assert refusal(workbook(sheet, f'<sst xmlns="{MAIN}"><si><t>a</t></si></sst>')).code == (
            "bad_xlsx"
        )
