"""Rosters: typed, pasted, CSV (UTF-8 and GB18030), XLSX; limits and duplicates."""

from __future__ import annotations

import io
import zipfile

import pytest

from bobing.engine.errors import BobingError, InputError
from bobing.organizer import MAX_PEOPLE, MAX_ROSTER_BYTES, Person, parse_people, read_roster
from bobing.organizer.xlsx import read_xlsx, write_xlsx


def test_typed_names_one_a_line_and_several_with_dunhao() -> None:
    people = read_roster("张三\n李四、王五，赵六\n\n  钱七  \n".encode(), "text")
    assert [p.name for p in people] == ["张三", "李四", "王五", "赵六", "钱七"]
    assert all(p.group is None for p in people)


def test_pasted_cells_carry_the_group() -> None:
    people = read_roster("姓名\t班级\n张三\t一班\n李四\t二班\n".encode(), "text")
    assert people == (Person("张三", "一班"), Person("李四", "二班"))


def test_csv_with_header_finds_the_group_column_by_name() -> None:
    data = "学号,姓名,部门\n1,张三,销售\n2,李四,研发\n".encode()
    assert read_roster(data, "csv") == (Person("张三", "销售"), Person("李四", "研发"))


def test_csv_from_chinese_excel_is_gb18030() -> None:
    data = "姓名,组\r\n张三,甲\r\n李四,乙\r\n".encode("gb18030")
    assert read_roster(data, "csv") == (Person("张三", "甲"), Person("李四", "乙"))


def test_xlsx_roundtrip_through_our_writer() -> None:
    data = write_xlsx([("名单", [["姓名", "组别"], ["张三", "一组"], ["李四", None], [7, "三组"]])])
    assert read_xlsx(data)[0] == ["姓名", "组别"]
    assert read_roster(data, "xlsx") == (
        Person("张三", "一组"),
        Person("李四"),
        Person("7", "三组"),
    )


def test_xlsx_with_shared_strings_as_excel_writes_them() -> None:
    buffer = io.BytesIO()
    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr(
            "xl/workbook.xml",
            f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>'
            '<sheet name="S" sheetId="1" r:id="rId7"/></sheets></workbook>',
        )
        z.writestr(
            "xl/_rels/workbook.xml.rels",
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            '<Relationship Id="rId7" Target="worksheets/sheet9.xml" Type="x"/></Relationships>',
        )
        z.writestr(
            "xl/sharedStrings.xml",
            f'<sst xmlns="{main}"><si><t>Name</t></si><si><r><t>Li </t></r><r><t>Wei</t></r></si>'
            "<si><t>Ann</t></si></sst>",
        )
        z.writestr(
            "xl/worksheets/sheet9.xml",
            f'<worksheet xmlns="{main}"><sheetData>'
            '<row r="1"><c r="A1" t="s"><v>0</v></c>'
            '<c r="B1" t="inlineStr"><is><t>Group</t></is></c></row>'
            '<row r="3"><c r="B3" t="s"><v>1</v></c><c r="A3" t="s"><v>2</v></c></row>'
            "</sheetData></worksheet>",
        )
    # A3 comes after B3 in the file: cells are placed by reference, not by position.
    assert read_roster(buffer.getvalue(), "xlsx") == (Person("Ann", "Li Wei"),)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (b"not a zip", "bad_xlsx"),
        (write_xlsx([("S", [[None]])]), "empty_roster"),
    ],
)
def test_bad_xlsx_is_an_input_error(data: bytes, code: str) -> None:
    with pytest.raises(InputError) as caught:
        read_roster(data, "xlsx")
    assert caught.value.code == code


def test_xlsx_entity_expansion_is_refused() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("xl/workbook.xml", '<!DOCTYPE x [<!ENTITY a "aaaa">]><workbook/>')
    with pytest.raises(InputError, match="DOCTYPE"):
        read_roster(buffer.getvalue(), "xlsx")


def test_duplicate_names_are_named() -> None:
    with pytest.raises(InputError, match="'张三' is on the roster twice") as caught:
        read_roster("张三\n李四\n张三\n".encode(), "text")
    assert caught.value.code == "duplicate_person"


def test_limits() -> None:
    with pytest.raises(InputError) as caught:
        read_roster(b"x" * (MAX_ROSTER_BYTES + 1), "text")
    assert caught.value.code == "roster_too_large"
    many = "\n".join(f"p{i}" for i in range(MAX_PEOPLE + 1)).encode()
    with pytest.raises(InputError) as caught:
        read_roster(many, "text")
    assert caught.value.code == "too_many_people"
    with pytest.raises(InputError, match="unknown roster format 'pdf'"):
        read_roster(b"x", "pdf")


def test_people_from_json() -> None:
    people = parse_people(["甲", {"name": " 乙 ", "group": "二组"}, {"name": "丙", "group": ""}])
    assert people == (Person("甲"), Person("乙", "二组"), Person("丙"))
    for bad in ("甲乙", [1], [{"name": "甲", "age": 3}], ["<b>"], ["x" * 25]):
        with pytest.raises(BobingError):
            parse_people(bad)
