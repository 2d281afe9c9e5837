"""The organiser's customs (RULES.md §9.4): who throws each table's start dice, who came, the
surplus handed back, and what next year's event takes from this one.

- **Start thrower** (001: 由上届状元或者组织者; 003: 一般是本桌年长位高者): ``start_thrower`` is
  one value or a list; a value is ``first_seat``, ``leader`` (the table's 组长, the roster's
  ``leader`` column), ``elder`` (the roster's ``elder`` column) or a person's name. Each table
  resolves it on its own: a named person who sits at the table throws there (last year's 状元
  at their own table); otherwise the list's first mode, and where that mode marks nobody at
  the table, the first seat.
- **Refund** (000: 多还少不补): a surplus returned in equal shares to the fen, summing exactly.
- **Donated prize sets** (001, 003『贰』): next year's 会饼 given by this year's 状元, one set
  each, two for a family with a new son; they cost the budget nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError
from bobing.organizer.roster import Person
from bobing.organizer.text import display_text

START_MODES = ("first_seat", "leader", "elder")
SURPLUS_USES = ("fund", "refund")
MAX_NAMED = 30
"""Names in a ``start_thrower`` list, organisers and donors: at most one a table."""


def parse_start_thrower(value: Any, roster: Sequence[Person]) -> str | list[str] | None:
    """``start_thrower`` checked: None, one value, or a list of values (names on the roster,
    at most one mode). Returned in the shape given, so old events read the same."""
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    if not items or len(items) > MAX_NAMED:
        raise InputError(
            f"start_thrower must be a name, a mode or a list of 1-{MAX_NAMED} of them",
            code="bad_start_thrower",
            key="start_thrower",
            value=str(value)[:40],
        )
    names = {p.name for p in roster}
    modes = 0
    for item in items:
        if item in START_MODES:
            modes += 1
        elif not isinstance(item, str) or item not in names:
            raise InputError(
                f"start_thrower {str(item)[:40]!r} is neither on the roster nor one of "
                + ", ".join(START_MODES),
                code="bad_start_thrower",
                key="start_thrower",
                value=str(item)[:40],
                allowed=list(START_MODES),
            )
    if modes > 1:
        raise InputError(
            "start_thrower names at most one of " + ", ".join(START_MODES),
            code="bad_start_thrower",
            key="start_thrower",
            value=str(value)[:40],
            allowed=list(START_MODES),
        )
    return list(items) if isinstance(value, list) else str(value)


def table_start_thrower(value: str | list[str] | None, members: Sequence[Person]) -> str:
    """Who throws the start dice at a table seated ``members`` (in seat order).

    >>> seats = [Person("甲"), Person("乙", elder=True), Person("丙", leader=True)]
    >>> [table_start_thrower(v, seats) for v in (None, "leader", "elder", ["丁", "丙"])]
    ['甲', '丙', '乙', '丙']
    """
    items = [] if value is None else value if isinstance(value, list) else [value]
    seated = {p.name for p in members}
    for item in items:
        if item not in START_MODES and item in seated:
            return item
    mode = next((item for item in items if item in START_MODES), "first_seat")
    if mode == "leader":
        marked = [p.name for p in members if p.leader]
    elif mode == "elder":
        marked = [p.name for p in members if p.elder]
    else:
        marked = []
    return marked[0] if marked else members[0].name


def refund_shares(total: float, names: Sequence[str]) -> list[dict[str, Any]]:
    """``total`` 元 returned to ``names`` in equal shares to the fen, summing exactly: the fen
    that do not divide go one each to the first names (roster order).

    >>> [s["amount"] for s in refund_shares(10, ["甲", "乙", "丙"])]
    [3.34, 3.33, 3.33]
    """
    if not names:
        return []
    fen = round(total * 100)
    base, extra = divmod(fen, len(names))
    return [
        {"name": name, "amount": _yuan(base + (1 if index < extra else 0))}
        for index, name in enumerate(names)
    ]


def _yuan(fen: int) -> float | int:
    return fen // 100 if fen % 100 == 0 else fen / 100


def parse_surplus(value: Any) -> str:
    """The budget's ``surplus``: ``fund`` (kept, the default) or ``refund`` (多还)."""
    if value is None:
        return "fund"
    if value not in SURPLUS_USES:
        raise InputError(
            f"budget.surplus must be one of {', '.join(SURPLUS_USES)}, not {str(value)[:20]!r}",
            code="bad_surplus",
            key="budget.surplus",
            value=str(value)[:20],
            allowed=list(SURPLUS_USES),
        )
    return str(value)


@dataclass(frozen=True, slots=True)
class DonatedSet:
    """Next year's 会饼 given by last year's 状元: one set, two for a family with a new son."""

    name: str
    new_son: bool = False

    @property
    def sets(self) -> int:
        """Prize sets given."""
        return 2 if self.new_son else 1

    def to_json(self) -> dict[str, Any]:
        """``{"name", "new_son", "sets"}``."""
        return {"name": self.name, "new_son": self.new_son, "sets": self.sets}


def parse_donated_sets(value: Any) -> tuple[DonatedSet, ...]:
    """``donated_sets``: ``[{"name", "new_son"}]`` (``sets`` may be echoed back, and is derived)."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_NAMED:
        raise InputError(
            f"donated_sets must be a list of at most {MAX_NAMED} {{name, new_son}}",
            code="bad_donated_sets",
            key="donated_sets",
        )
    out: list[DonatedSet] = []
    for index, item in enumerate(value):
        key = f"donated_sets[{index}]"
        if not isinstance(item, Mapping) or set(item) - {"name", "new_son", "sets"}:
            raise InputError(f"{key} must be {{name, new_son}}", code="bad_donated_sets", key=key)
        new_son = item.get("new_son", False)
        if not isinstance(new_son, bool):
            raise InputError(
                f"{key}.new_son must be true or false", code="bad_donated_sets", key=key
            )
        out.append(DonatedSet(display_text(item.get("name"), key=f"{key}.name", limit=64), new_son))
    return tuple(out)


def parse_organizers(value: Any) -> list[str]:
    """``organizers``: the names of whoever organises (next year: this year's 状元)."""
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > MAX_NAMED:
        raise InputError(
            f"organizers must be a list of at most {MAX_NAMED} names",
            code="bad_organizers",
            key="organizers",
        )
    return [display_text(v, key=f"organizers[{i}]", limit=64) for i, v in enumerate(value)]


def champions(
    tables: Sequence[Mapping[str, Any]], playoff: Mapping[str, Any] | None
) -> list[str] | None:
    """This year's 状元 who shape next year: the 王中王, or every table's 状元 when there was no
    playoff (table order). None while a table or the playoff is still playing.

    ``tables``: ``[{"status", "zhuangyuan"}]``; ``playoff``: None or ``{"status", "winner"}``.
    """
    if any(t["status"] != "over" for t in tables):
        return None
    if playoff is not None:
        if playoff["status"] != "over":
            return None
        return [playoff["winner"]] if playoff.get("winner") else []
    return [t["zhuangyuan"]["player"] for t in tables if t.get("zhuangyuan")]
