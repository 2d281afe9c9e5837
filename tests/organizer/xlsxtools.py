"""Hand-made XLSX workbooks for the reader's tests (hostile ones included)."""

from __future__ import annotations

import io
import zipfile

MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"


def workbook(sheet: str | bytes, shared: str | bytes | None = None) -> bytes:
    """A minimal workbook whose first sheet is ``sheet`` (the XML of ``<sheetData>``'s
    content, or a whole part as bytes)."""
    part = sheet if isinstance(sheet, bytes) else (
        f'<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="{MAIN}">'
        f"<sheetData>{sheet}</sheetData></worksheet>"
    ).encode()  # fmt: skip
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(
            "xl/workbook.xml",
            f'<workbook xmlns="{MAIN}" xmlns:r="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships"><sheets><sheet name="S" sheetId="1" '
            'r:id="rId1"/></sheets></workbook>',
        )
        archive.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Type="worksheet" '
            'Target="worksheets/sheet1.xml"/></Relationships>',
        )
        archive.writestr("xl/worksheets/sheet1.xml", part)
        if shared is not None:
            archive.writestr("xl/sharedStrings.xml", shared)
    return buffer.getvalue()


def inline(ref: str, text: str) -> str:
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'
