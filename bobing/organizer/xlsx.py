"""A small reader and writer of XLSX workbooks (Office Open XML), standard library only.

Rosters and prize-desk lists need one sheet of text and numbers, not a spreadsheet engine:
a dependency such as openpyxl would be a 10 MB install for two functions, and reading a
hostile upload is easier to bound here (every part's uncompressed size is checked before it
is read, and documents with a DOCTYPE — entity expansion — are refused).
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Sequence
from xml.etree import ElementTree
from xml.sax.saxutils import escape

from bobing.engine.errors import InputError

MAX_PART_BYTES = 8_000_000
"""The largest uncompressed part (sheet, shared strings) read from an upload."""
MAX_ROWS = 5000
MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
PKG_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]+)")

Cell = str | int | float | None


def read_xlsx(data: bytes) -> list[list[str]]:
    """The first worksheet's rows as text (empty cells are ``""``; trailing ones dropped)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError):
        raise InputError(
            "the file is not an XLSX workbook (not a zip archive)", code="bad_xlsx"
        ) from None
    with archive:
        sheet = _first_sheet(archive)
        shared = _shared_strings(archive)
        root = _xml(archive, sheet)
    rows: list[list[str]] = []
    for row in root.iter(f"{MAIN}row"):
        cells: dict[int, str] = {}
        for position, cell in enumerate(row.iter(f"{MAIN}c")):
            ref = _CELL_REF.fullmatch(cell.get("r", ""))
            column = _column(ref.group(1)) if ref else position
            cells[column] = _cell_text(cell, shared)
        number = int(row.get("r", len(rows) + 1))
        while len(rows) < number - 1:
            rows.append([])
        if len(rows) >= MAX_ROWS:
            raise InputError(f"the workbook has more than {MAX_ROWS} rows", code="roster_too_large")
        width = max(cells, default=-1) + 1
        rows.append([cells.get(i, "") for i in range(width)])
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    return rows


def _column(letters: str) -> int:
    index = 0
    for letter in letters:
        index = index * 26 + (ord(letter) - ord("A") + 1)
    return index - 1


def _cell_text(cell: ElementTree.Element, shared: list[str]) -> str:
    kind = cell.get("t", "n")
    if kind == "inlineStr":
        return "".join(t.text or "" for t in cell.iter(f"{MAIN}t"))
    value = cell.find(f"{MAIN}v")
    text = "" if value is None or value.text is None else value.text
    if kind == "s":
        try:
            return shared[int(text)]
        except (ValueError, IndexError):
            raise InputError(
                f"cell {cell.get('r', '?')} names a missing shared string {text!r}",
                code="bad_xlsx",
            ) from None
    if kind == "n" and re.fullmatch(r"-?[0-9]+\.0+", text):
        return text.split(".")[0]
    return text


def _member(archive: zipfile.ZipFile, name: str) -> bytes | None:
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    if info.file_size > MAX_PART_BYTES:
        raise InputError(
            f"the workbook part {name!r} unpacks to {info.file_size} bytes; "
            f"at most {MAX_PART_BYTES}",
            code="roster_too_large",
        )
    with archive.open(info) as handle:
        data = handle.read(MAX_PART_BYTES + 1)
    if len(data) > MAX_PART_BYTES:
        raise InputError(f"the workbook part {name!r} is too large", code="roster_too_large")
    return data


def _xml(archive: zipfile.ZipFile, name: str) -> ElementTree.Element:
    data = _member(archive, name)
    if data is None:
        raise InputError(f"the workbook has no part {name!r}", code="bad_xlsx")
    if b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise InputError(f"the workbook part {name!r} declares a DOCTYPE", code="bad_xlsx")
    try:
        return ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise InputError(f"the workbook part {name!r} is not XML: {exc}", code="bad_xlsx") from None


def _first_sheet(archive: zipfile.ZipFile) -> str:
    workbook = _xml(archive, "xl/workbook.xml")
    first = workbook.find(f"{MAIN}sheets/{MAIN}sheet")
    if first is None:
        raise InputError("the workbook has no worksheet", code="bad_xlsx")
    rel_id = first.get(f"{REL}id")
    rels = _xml(archive, "xl/_rels/workbook.xml.rels")
    for rel in rels.iter(f"{PKG_REL}Relationship"):
        if rel.get("Id") == rel_id:
            target = rel.get("Target", "")
            return target.lstrip("/") if target.startswith("/") else "xl/" + target
    raise InputError("the workbook's first sheet has no part", code="bad_xlsx")


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    if _member(archive, "xl/sharedStrings.xml") is None:
        return []
    root = _xml(archive, "xl/sharedStrings.xml")
    return ["".join(t.text or "" for t in si.iter(f"{MAIN}t")) for si in root.iter(f"{MAIN}si")]


# -- writing ----------------------------------------------------------------------------------


def write_xlsx(sheets: Sequence[tuple[str, Sequence[Sequence[Cell]]]]) -> bytes:
    """A workbook with one worksheet per ``(title, rows)``; text as inline strings."""
    if not sheets:
        raise ValueError("a workbook needs at least one sheet")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        overrides = "".join(
            f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
            for i in range(1, len(sheets) + 1)
        )
        archive.writestr(
            "[Content_Types].xml",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" ContentType="application/'
            'vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            f"{overrides}</Types>",
        )
        archive.writestr(
            "_rels/.rels",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/'
            '2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>',
        )
        entries = "".join(
            f'<sheet name="{_attr(_sheet_title(title, i))}" sheetId="{i}" r:id="rId{i}"/>'
            for i, (title, _) in enumerate(sheets, start=1)
        )
        archive.writestr(
            "xl/workbook.xml",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" '
            'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
            f"<sheets>{entries}</sheets></workbook>",
        )
        rels = "".join(
            f'<Relationship Id="rId{i}" Type="http://schemas.openxmlformats.org/'
            f'officeDocument/2006/relationships/worksheet" Target="worksheets/sheet{i}.xml"/>'
            for i in range(1, len(sheets) + 1)
        )
        archive.writestr(
            "xl/_rels/workbook.xml.rels",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f"{rels}</Relationships>",
        )
        for i, (_, rows) in enumerate(sheets, start=1):
            archive.writestr(f"xl/worksheets/sheet{i}.xml", _sheet_xml(rows))
    return buffer.getvalue()


def _sheet_title(title: str, index: int) -> str:
    # Excel: at most 31 characters, none of : \ / ? * [ ]
    clean = re.sub(r"[:\\/?*\[\]]", " ", title).strip()[:31]
    return clean or f"Sheet{index}"


def _attr(text: str) -> str:
    return escape(text, {'"': "&quot;"})


def _letters(index: int) -> str:
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def _sheet_xml(rows: Sequence[Sequence[Cell]]) -> str:
    parts = [
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
        "<sheetData>"
    ]
    for r, row in enumerate(rows, start=1):
        parts.append(f'<row r="{r}">')
        for c, value in enumerate(row):
            ref = f"{_letters(c)}{r}"
            if value is None or value == "":
                continue
            if isinstance(value, bool):
                value = str(value).lower()
            if isinstance(value, int | float):
                parts.append(f'<c r="{ref}"><v>{value}</v></c>')
            else:
                text = escape(_xml_safe(str(value)))
                parts.append(
                    f'<c r="{ref}" t="inlineStr"><is><t xml:space="preserve">{text}</t></is></c>'
                )
        parts.append("</row>")
    parts.append("</sheetData></worksheet>")
    return "".join(parts)


def _xml_safe(text: str) -> str:
    # XML 1.0 cannot carry most control characters.
    return "".join(c for c in text if c in "\t\n\r" or ord(c) >= 0x20)
