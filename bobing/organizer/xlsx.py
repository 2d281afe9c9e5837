"""A small reader and writer of XLSX workbooks (Office Open XML), standard library only.

Rosters and prize-desk lists need one sheet of text and numbers, not a spreadsheet engine:
a dependency such as openpyxl would be a 10 MB install for two functions, and reading a
hostile upload is easier to bound here. Every part's uncompressed size is checked before it
is read; every part is read by expat with handlers that refuse a document type declaration
(entity expansion, external entities) at the parser, whatever the part's encoding; the sheet
is read as a stream into a sparse map of the cells present (a row or column number is checked
against the limits before it is used, and nothing is allocated for the cells between); and a
broken archive (a member failing its CRC, an unsupported compression) is a ``bad_xlsx`` input
error, never a crash.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from collections.abc import Callable, Sequence
from xml.parsers import expat
from xml.sax.saxutils import escape

from bobing.engine.errors import InputError

MAX_PART_BYTES = 8_000_000
"""The largest uncompressed part (sheet, shared strings) read from an upload."""
MAX_ROWS = 5000
"""The highest row number a read sheet may use for a cell that holds text."""
MAX_COLUMNS = 16_384
"""Columns A to XFD, as in Excel: a cell reference past them is refused."""
MAX_CELLS = 50_000
"""Cells holding text (and shared strings) read from one workbook at most."""
MAX_ELEMENTS = 200_000
"""Elements (rows, cells, values …) read from one worksheet at most, empty ones included."""
MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
PKG_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_CELL_REF = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")
_ROW_NUMBER = re.compile(r"[0-9]{1,7}")
_ROW, _CELL = f"{MAIN} row", f"{MAIN} c"
_CELL_TEXT = ([f"{MAIN} v"], [f"{MAIN} is", f"{MAIN} t"], [f"{MAIN} is", f"{MAIN} r", f"{MAIN} t"])
"""What is read of a cell: its value, an inline string's text and its runs' text."""
_SHARED = f"{MAIN} si"
_SHARED_TEXT = [_SHARED, f"{MAIN} t"]
_SHARED_RUN_TEXT = [_SHARED, f"{MAIN} r", f"{MAIN} t"]

Cell = str | int | float | None
SparseRow = dict[int, str]
"""The cells of a row that hold text, by column index (0 is column A)."""

_BROKEN_ZIP = (zipfile.BadZipFile, zlib.error, NotImplementedError, EOFError, OSError, RuntimeError)
"""What reading a malformed member raises: a failed CRC, deflate64 or another unsupported
compression, a truncated stream, an encrypted member."""


def read_xlsx_rows(data: bytes) -> list[SparseRow]:
    """The first worksheet's rows that hold text, in row order, each a sparse map of its
    cells: the cost follows the cells present, never the span their references name."""
    return [cells for _, cells in read_xlsx_rows_numbered(data)]


def read_xlsx(data: bytes) -> list[list[str]]:
    """The first worksheet's rows as text (empty cells are ``""``; trailing ones dropped).

    A dense view for reading small sheets (the exports); a hostile upload goes through
    :func:`read_xlsx_rows`, whose cost follows the cells present.
    """
    rows = read_xlsx_rows_numbered(data)
    out: list[list[str]] = []
    for number, cells in rows:
        out.extend([] for _ in range(number - 1 - len(out)))
        out.append([cells.get(i, "") for i in range(max(cells, default=-1) + 1)])
    return out


def read_xlsx_rows_numbered(data: bytes) -> list[tuple[int, SparseRow]]:
    """:func:`read_xlsx_rows` with each row's number (1 is the first row)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (*_BROKEN_ZIP, ValueError):
        raise InputError(
            "the file is not an XLSX workbook (not a zip archive)", code="bad_xlsx"
        ) from None
    with archive:
        sheet = _first_sheet(archive)
        shared = _shared_strings(archive)
        sheet_data = _member(archive, sheet)
    if sheet_data is None:
        raise InputError(f"the workbook has no part {sheet!r}", code="bad_xlsx")
    reader = _SheetReader(shared)
    _parse(sheet_data, sheet, reader.start, reader.end, reader.text)
    return sorted(reader.rows.items())


class _SheetReader:
    """expat handlers that keep the cells holding text, by row and column number."""

    def __init__(self, shared: list[str]) -> None:
        self.shared = shared
        self.rows: dict[int, SparseRow] = {}
        self.cells = 0
        self.elements = 0
        self.inner: list[str] | None = None
        """The elements open inside the current cell (None: not in a cell)."""
        self.row = 0
        self.column = -1
        self.ref = ""
        self.kind = "n"
        self.buffer: list[str] | None = None
        self.parts: list[str] = []

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.elements += 1
        if self.elements > MAX_ELEMENTS:
            raise InputError(
                f"the worksheet has more than {MAX_ELEMENTS} elements",
                code="roster_too_large",
                limit=MAX_ELEMENTS,
            )
        if self.inner is not None:
            # A value, or the text of an inline string (its runs too, never its phonetic runs).
            self.inner.append(tag)
            if self.inner in _CELL_TEXT:
                self.buffer = self.parts
        elif tag == _ROW:
            self.row = self._row_number(attrs.get("r"))
            self.column = -1
        elif tag == _CELL:
            self.ref = attrs.get("r", "")
            self.column = self._column_of(self.ref)
            self.kind = attrs.get("t", "n")
            self.parts = []
            self.inner = []

    def text(self, data: str) -> None:
        if self.buffer is not None:
            self.buffer.append(data)

    def end(self, tag: str) -> None:
        self.buffer = None
        if self.inner:
            self.inner.pop()
        elif self.inner is not None:
            self.inner = None
            value = self._value("".join(self.parts))
            if value.strip():
                if self.row > MAX_ROWS:
                    raise InputError(
                        f"the workbook has text in row {self.row}; at most {MAX_ROWS} rows",
                        code="roster_too_large",
                        limit=MAX_ROWS,
                    )
                self.cells += 1
                if self.cells > MAX_CELLS:
                    raise InputError(
                        f"the workbook has more than {MAX_CELLS} cells with text",
                        code="roster_too_large",
                        limit=MAX_CELLS,
                    )
                self.rows.setdefault(self.row, {})[self.column] = value

    def _row_number(self, text: str | None) -> int:
        if text is None:
            return self.row + 1
        if not _ROW_NUMBER.fullmatch(text) or int(text) < 1:
            raise InputError(
                f"the workbook has a row numbered {text[:20]!r}: not a row number",
                code="bad_xlsx",
            )
        return int(text)

    def _column_of(self, ref: str) -> int:
        if not ref:
            return self.column + 1
        found = _CELL_REF.fullmatch(ref)
        column = _column(found.group(1)) if found else MAX_COLUMNS
        if column >= MAX_COLUMNS:
            raise InputError(
                f"the workbook has a cell reference {ref[:20]!r}: not a cell of columns "
                f"A to {_letters(MAX_COLUMNS - 1)}",
                code="bad_xlsx",
            )
        return column

    def _value(self, text: str) -> str:
        if self.kind == "s":
            try:
                if not text.isascii() or not text.isdigit() or len(text) > 9:
                    raise IndexError(text)
                return self.shared[int(text)]
            except IndexError:
                raise InputError(
                    f"cell {self.ref[:20] or '?'} names a missing shared string {text[:20]!r}",
                    code="bad_xlsx",
                ) from None
        if self.kind == "n" and re.fullmatch(r"-?[0-9]+\.0+", text):
            return text.split(".")[0]
        return text


def _column(letters: str) -> int:
    index = 0
    for letter in letters:
        index = index * 26 + (ord(letter) - ord("A") + 1)
    return index - 1


def _refuse_dtd(*_: object) -> int:
    raise InputError("the workbook part declares a DOCTYPE", code="bad_xlsx")


def _parse(
    data: bytes,
    name: str,
    start: Callable[[str, dict[str, str]], None],
    end: Callable[[str], None],
    text: Callable[[str], None],
) -> None:
    """Read ``data`` with expat: namespaced tags as ``"URI local"``; any document type
    declaration (and so any entity) is refused by the parser, in any encoding."""
    parser = expat.ParserCreate(namespace_separator=" ")
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = _refuse_dtd
    parser.EntityDeclHandler = _refuse_dtd
    parser.ExternalEntityRefHandler = _refuse_dtd
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = text
    parser.buffer_text = True
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise InputError(
            f"the workbook part {name!r} is not XML: {expat.ErrorString(exc.code)}",
            code="bad_xlsx",
        ) from None
    except InputError as exc:
        if exc.message == "the workbook part declares a DOCTYPE":
            raise InputError(
                f"the workbook part {name!r} declares a DOCTYPE", code="bad_xlsx"
            ) from None
        raise


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
    try:
        with archive.open(info) as handle:
            data = handle.read(MAX_PART_BYTES + 1)
    except _BROKEN_ZIP as exc:
        raise InputError(
            f"the workbook part {name!r} cannot be unpacked: {str(exc)[:80]}", code="bad_xlsx"
        ) from None
    if len(data) > MAX_PART_BYTES:
        raise InputError(f"the workbook part {name!r} is too large", code="roster_too_large")
    return data


class _Attributes:
    """The attributes of the first element named ``tag`` (and of each ``also`` element)."""

    def __init__(self, tag: str, also: str = "") -> None:
        self.tag, self.also = tag, also
        self.found: list[dict[str, str]] = []

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        if tag in (self.tag, self.also):
            self.found.append(attrs)

    def end(self, tag: str) -> None:
        """Nothing to do at an end tag."""

    def text(self, data: str) -> None:
        """Text is not read."""


def _elements(archive: zipfile.ZipFile, name: str, tag: str) -> list[dict[str, str]]:
    data = _member(archive, name)
    if data is None:
        raise InputError(f"the workbook has no part {name!r}", code="bad_xlsx")
    reader = _Attributes(tag)
    _parse(data, name, reader.start, reader.end, reader.text)
    return reader.found


def _first_sheet(archive: zipfile.ZipFile) -> str:
    sheets = _elements(archive, "xl/workbook.xml", f"{MAIN} sheet")
    if not sheets:
        raise InputError("the workbook has no worksheet", code="bad_xlsx")
    rel_id = sheets[0].get(f"{REL} id")
    for rel in _elements(archive, "xl/_rels/workbook.xml.rels", f"{PKG_REL} Relationship"):
        if rel.get("Id") == rel_id:
            target = rel.get("Target", "")
            return target.lstrip("/") if target.startswith("/") else "xl/" + target
    raise InputError("the workbook's first sheet has no part", code="bad_xlsx")


class _SharedStrings:
    """expat handlers that keep each ``si``'s text: its ``t``, or its runs' ``r/t`` (never the
    phonetic runs ``rPh``, so 张三 is not read as 张三ZhangSan)."""

    def __init__(self) -> None:
        self.strings: list[str] = []
        self.path: list[str] = []
        self.parts: list[str] = []
        self.collecting = False

    def start(self, tag: str, attrs: dict[str, str]) -> None:
        self.path.append(tag)
        if tag == _SHARED:
            self.parts = []
        self.collecting = self.path[-2:] == _SHARED_TEXT or self.path[-3:] == _SHARED_RUN_TEXT

    def text(self, data: str) -> None:
        if self.collecting:
            self.parts.append(data)

    def end(self, tag: str) -> None:
        self.path.pop()
        self.collecting = False
        if tag == _SHARED:
            self.strings.append("".join(self.parts))
            if len(self.strings) > MAX_CELLS:
                raise InputError(
                    f"the workbook has more than {MAX_CELLS} shared strings",
                    code="roster_too_large",
                    limit=MAX_CELLS,
                )


def _shared_strings(archive: zipfile.ZipFile) -> list[str]:
    name = "xl/sharedStrings.xml"
    data = _member(archive, name)
    if data is None:
        return []
    reader = _SharedStrings()
    _parse(data, name, reader.start, reader.end, reader.text)
    return reader.strings


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
