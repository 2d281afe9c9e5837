"""The people of an event: typed or pasted names, a CSV or an XLSX roster (optional group).

A roster is a list of :class:`Person` with distinct names. The first row of a file is a
header when its first cell is a known column name (``name``, ``姓名`` …); a group column is
found by its header (``group``, ``组``, ``部门``, ``班级`` …) or is the second column.
Three optional columns, found by their header only (RULES.md §9.4): ``paid`` (已交费: who paid
before the evening), ``elder`` (长辈: who may throw a table's start dice) and ``leader`` (组长).
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError
from bobing.engine.game import MAX_NAME_LENGTH
from bobing.organizer.text import display_text
from bobing.organizer.xlsx import SparseRow, read_xlsx_rows

MAX_PEOPLE = 600
"""People at one event (50 tables of 12)."""
MAX_ROSTER_BYTES = 1_000_000
"""The largest roster file or pasted text accepted."""
MAX_GROUP_LENGTH = 40

NAME_HEADERS = frozenset(
    {"name", "names", "player", "person", "姓名", "名字", "名称", "名稱", "人", "玩家"}
)
GROUP_HEADERS = frozenset(
    {
        "group", "team", "department", "class", "组", "组别", "小组", "分组", "部门", "班级",
        "班", "組", "組別", "小組", "分組", "部門", "班級",
    }
)  # fmt: skip
PAID_HEADERS = frozenset({"paid", "已交费", "交费", "已付", "已缴费", "已交費", "交費", "已繳費"})
ELDER_HEADERS = frozenset({"elder", "长辈", "年长", "長輩", "年長"})
LEADER_HEADERS = frozenset({"leader", "组长", "組長"})
_NO = frozenset({"", "0", "n", "no", "false", "否", "未交", "未付", "没有", "沒有", "×", "-"})
FORMATS = ("text", "csv", "xlsx")
PERSON_KEYS = ("name", "group", "paid", "elder", "leader")
_NAME_SEPARATORS = re.compile(r"[、，,;；]")


@dataclass(frozen=True, slots=True)
class Person:
    """Someone at the event, with the group they came with (a class, a department) if any."""

    name: str
    group: str | None = None
    paid: bool | None = None
    """Paid before the evening (the roster's ``paid`` column); None: the roster has no such
    column, and everyone counts as paying."""
    elder: bool = False
    """Marked in the roster's ``elder`` column (may throw the start dice, 003)."""
    leader: bool = False
    """Marked in the roster's ``leader`` column: a table's 组长."""

    def to_json(self) -> dict[str, Any]:
        """``{"name", "group"}``, plus ``paid``, ``elder``, ``leader`` where the roster says."""
        out: dict[str, Any] = {"name": self.name, "group": self.group}
        if self.paid is not None:
            out["paid"] = self.paid
        if self.elder:
            out["elder"] = True
        if self.leader:
            out["leader"] = True
        return out


def parse_people(value: Any) -> tuple[Person, ...]:
    """The ``people`` of a request: names, or ``{"name", "group"}`` objects; distinct names."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise InputError("people must be a list of names", code="bad_people", key="people")
    if len(value) > MAX_PEOPLE:
        raise InputError(
            f"an event has at most {MAX_PEOPLE} people, not {len(value)}",
            code="too_many_people",
            key="people",
            count=len(value),
            limit=MAX_PEOPLE,
        )
    people: list[Person] = []
    for index, item in enumerate(value):
        key = f"people[{index}]"
        if isinstance(item, dict):
            extra = set(item) - set(PERSON_KEYS)
            if extra:
                raise InputError(
                    f"{key} has unknown keys {sorted(extra)!r}; allowed: " + ", ".join(PERSON_KEYS),
                    code="bad_people",
                    key=key,
                )
            for flag in ("paid", "elder", "leader"):
                if item.get(flag) is not None and not isinstance(item[flag], bool):
                    raise InputError(
                        f"{key}.{flag} must be true or false, not {item[flag]!r}"[:200],
                        code="bad_people",
                        key=f"{key}.{flag}",
                    )
            person = _person(item.get("name"), item.get("group"), key)
            person = Person(
                person.name,
                person.group,
                item.get("paid"),
                bool(item.get("elder")),
                bool(item.get("leader")),
            )
        else:
            person = _person(item, None, key)
        people.append(person)
    return _distinct(people)


def _person(name: Any, group: Any, key: str) -> Person:
    clean = display_text(name, key=key, limit=MAX_NAME_LENGTH)
    if group is None or (isinstance(group, str) and not group.strip()):
        return Person(clean)
    return Person(clean, display_text(group, key=f"{key}.group", limit=MAX_GROUP_LENGTH))


def _mark(cell: str) -> bool:
    """A roster tick: 是, ✓, yes, 1, an amount paid … (empty, 0, 否, no: not ticked)."""
    return cell.strip().lower() not in _NO


def _distinct(people: Iterable[Person]) -> tuple[Person, ...]:
    seen: set[str] = set()
    out: list[Person] = []
    for person in people:
        if person.name in seen:
            raise InputError(
                f"{person.name!r} is on the roster twice; names at an event must differ "
                "(add a surname or a number)",
                code="duplicate_person",
                name=person.name,
            )
        seen.add(person.name)
        out.append(person)
    if len(out) > MAX_PEOPLE:
        raise InputError(
            f"an event has at most {MAX_PEOPLE} people, not {len(out)}",
            code="too_many_people",
            count=len(out),
            limit=MAX_PEOPLE,
        )
    return tuple(out)


def read_roster(data: bytes, fmt: str) -> tuple[Person, ...]:
    """People from a roster in ``fmt``: ``text`` (one name a line), ``csv`` or ``xlsx``."""
    if len(data) > MAX_ROSTER_BYTES:
        raise InputError(
            f"the roster has {len(data)} bytes; at most {MAX_ROSTER_BYTES}",
            code="roster_too_large",
            size=len(data),
            limit=MAX_ROSTER_BYTES,
        )
    if fmt == "xlsx":
        return _from_rows(read_xlsx_rows(data))
    if fmt not in FORMATS:
        raise InputError(
            f"unknown roster format {fmt!r}; allowed: " + ", ".join(FORMATS),
            code="bad_roster_format",
            value=fmt,
        )
    text = _decode(data)
    if fmt == "csv":
        return _from_rows(_sparse(_csv_rows(text)))
    return _from_rows(_sparse(_text_rows(text)))


def _decode(data: bytes) -> str:
    # Excel in a Chinese locale saves CSV as GB18030 (GBK); everything else is UTF-8.
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return data.decode("gb18030")
    except UnicodeDecodeError:
        raise InputError(
            "the roster is neither UTF-8 nor GB18030 text", code="bad_roster_encoding"
        ) from None


def _csv_rows(text: str) -> list[list[str]]:
    sample = text[:4096]
    delimiter = "\t" if sample.count("\t") > sample.count(",") else ","
    if sample.count(";") > sample.count(delimiter):
        delimiter = ";"
    try:
        return list(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as exc:
        raise InputError(f"the CSV roster cannot be read: {exc}", code="bad_csv") from None


def _text_rows(text: str) -> list[list[str]]:
    """Typed or pasted: one person a line; a tab (pasted cells) or a comma starts the group;
    、 ， ; separate several names on one line."""
    rows: list[list[str]] = []
    for line in text.splitlines():
        if "\t" in line:
            rows.append(line.split("\t"))
        elif any(sep in line for sep in "、，;；"):
            rows.extend([name] for name in _NAME_SEPARATORS.split(line))
        else:
            rows.append(line.split(",", 1))
    return rows


def _sparse(rows: list[list[str]]) -> list[SparseRow]:
    return [{i: cell for i, cell in enumerate(row) if cell} for row in rows]


def _from_rows(rows: Sequence[SparseRow]) -> tuple[Person, ...]:
    """People from rows of cells by column index (a sparse row: its cells that hold text)."""
    rows = [{i: c.strip() for i, c in row.items() if c.strip()} for row in rows]
    rows = [row for row in rows if row]
    if not rows:
        raise InputError("the roster names nobody", code="empty_roster")
    name_col, group_col = 0, 1 if any(r.get(1) for r in rows) else None
    header = {i: cell.lower() for i, cell in rows[0].items()}
    flags: dict[str, int] = {}
    if any(cell in NAME_HEADERS for cell in header.values()):
        name_col = min(i for i, cell in header.items() if cell in NAME_HEADERS)
        group_col = min((i for i, cell in header.items() if cell in GROUP_HEADERS), default=None)
        columns = (("paid", PAID_HEADERS), ("elder", ELDER_HEADERS), ("leader", LEADER_HEADERS))
        for flag, names in columns:
            found = min((i for i, cell in header.items() if cell in names), default=None)
            if found is not None:
                flags[flag] = found
        rows = rows[1:]
    if len(rows) > MAX_PEOPLE:
        raise InputError(
            f"an event has at most {MAX_PEOPLE} people, not {len(rows)}",
            code="too_many_people",
            count=len(rows),
            limit=MAX_PEOPLE,
        )
    people: list[Person] = []
    for number, row in enumerate(rows, start=1):
        name = row.get(name_col, "")
        if not name:
            continue
        group = row.get(group_col) if group_col is not None else None
        person = _person(name, group, f"row {number}")
        marks = {f: _mark(row.get(i, "")) for f, i in flags.items()}
        people.append(
            Person(
                person.name,
                person.group,
                marks.get("paid") if "paid" in flags else None,
                marks.get("elder", False),
                marks.get("leader", False),
            )
        )
    if not people:
        raise InputError("the roster names nobody", code="empty_roster")
    return _distinct(people)
