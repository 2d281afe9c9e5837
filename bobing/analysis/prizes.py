"""Prize lists and sums of money: what people type into a spreadsheet, read strictly.

A prize list is a CSV with a header row: ``name, tier, count, unit price`` for prizes won per
throw (the counts per tier become the game's ``prizes``), or ``name, count, unit price`` in rank
order for ranked prizes (RULES.md §8.2). Chinese headers, currency marks, a BOM and GB18030
(as Excel saves it on Chinese Windows) are understood; every error names the line and quotes
the cell.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from bobing.engine.errors import InputError, RulesError
from bobing.engine.hands import TIERS, Tier
from bobing.engine.rules import RankedPrize, RuleSet, load_rules
from bobing.i18n import catalogue

_COLUMNS: dict[str, tuple[str, ...]] = {
    "name": ("name", "item", "prize", "名称", "名稱", "奖品", "獎品", "奖项", "獎項", "品名"),
    "tier": ("tier", "level", "档次", "檔次", "奖级", "獎級", "级别", "級別", "等级", "等級"),
    "count": ("count", "qty", "quantity", "number", "数量", "數量", "件数", "件數", "个数"),
    "unit_price": (
        "unit_price",
        "unit price",
        "price",
        "value",
        "单价",
        "單價",
        "价格",
        "價格",
        "价值",
        "價值",
    ),
}
_RANKED_COLUMNS = ("name", "count", "unit_price")  # a ranked list needs no tier: order is rank


def tier_from_text(text: str) -> Tier:
    """A tier from its id, its Chinese name or title (简/繁), or its English name.

    >>> tier_from_text("一秀"), tier_from_text("榜眼"), tier_from_text("ZHUANGYUAN")
    (<Tier.YIXIU: 'yixiu'>, <Tier.DUITANG: 'duitang'>, <Tier.ZHUANGYUAN: 'zhuangyuan'>)
    """
    key = text.strip()
    names = _tier_names()
    found = names.get(key) or names.get(key.lower())
    if found is None:
        raise InputError(
            f"unknown tier {text!r}; use a tier id ({', '.join(str(t) for t in TIERS)}) "
            "or its Chinese name (状元, 对堂, 三红, 四进, 二举, 一秀)",
            value=text,
        )
    return found


def _tier_names() -> dict[str, Tier]:
    names: dict[str, Tier] = {}
    for tier in TIERS:
        names[str(tier)] = tier
        for lang in ("zh-Hans", "zh-Hant", "en"):
            messages = catalogue(lang)
            for key in (f"tier.{tier}", f"tier.{tier}.title"):
                value = messages.get(key)
                if isinstance(value, str):
                    names.setdefault(value.split(" (")[0].strip().lower(), tier)
    return names


@dataclass(frozen=True)
class Prize:
    """One line of a prize list."""

    name: str
    tier: Tier
    count: int
    unit_price: Decimal

    @property
    def cost(self) -> Decimal:
        """count × unit price."""
        return self.count * self.unit_price


@dataclass(frozen=True)
class PrizeList:
    """The prizes one table plays for."""

    items: tuple[Prize, ...]
    source: str = ""

    @property
    def counts(self) -> tuple[int, int, int, int, int, int]:
        """Prizes per tier, TIERS order (the ``prizes`` of the game)."""
        c = [sum(p.count for p in self.items if p.tier is tier) for tier in TIERS]
        return (c[0], c[1], c[2], c[3], c[4], c[5])

    @property
    def cost(self) -> Decimal:
        """What one set costs."""
        return sum((p.cost for p in self.items), Decimal(0))

    def tier_cost(self, tier: Tier) -> Decimal:
        """What the prizes of one tier cost together."""
        return sum((p.cost for p in self.items if p.tier is tier), Decimal(0))

    def apply_to(self, rules: RuleSet) -> RuleSet:
        """``rules`` with this list's counts as the prizes."""
        counts = self.counts
        if counts[0] != 1:
            raise InputError(
                f"the prize list {self.source or ''} has {counts[0]} zhuangyuan (状元) prizes; "
                "it needs exactly one: the single top prize, decided at the end".replace("  ", " "),
                value=counts[0],
            )
        if sum(counts[1:]) == 0:
            raise InputError(
                f"the prize list {self.source or ''} has no prize below the 状元".replace("  ", " ")
            )
        try:
            return replace(rules, prizes=counts)
        except RulesError as exc:  # pragma: no cover - the checks above cover the rules
            raise InputError(f"the prize list does not fit the rules: {exc}") from None

    def to_json(self) -> dict[str, Any]:
        """The list with per-tier counts and the set's cost."""
        return {
            "items": [
                {
                    "name": p.name,
                    "tier": str(p.tier),
                    "count": p.count,
                    "unit_price": money(p.unit_price),
                }
                for p in self.items
            ],
            "counts": {str(t): n for t, n in zip(TIERS, self.counts, strict=True)},
            "set_cost": money(self.cost),
        }


def money(value: Decimal) -> float:
    return float(value.quantize(Decimal("0.01")))


def _header_map(
    row: list[str], source: str, needed: tuple[str, ...] = tuple(_COLUMNS)
) -> dict[str, int]:
    found: dict[str, int] = {}
    for i, cell in enumerate(row):
        label = " ".join(cell.strip().lower().replace("_", " ").split())
        for column, aliases in _COLUMNS.items():
            if label in {" ".join(a.replace("_", " ").split()) for a in aliases}:
                found.setdefault(column, i)
    missing = [c for c in needed if c not in found]
    if missing:
        raise InputError(
            f"prize list {source}: the first row must name the columns "
            f"{', '.join(needed).replace('_', ' ')} (missing: "
            f"{', '.join(missing).replace('_', ' ')}; got {row!r})",
            value=row,
        )
    return found


def _without_currency(text: str) -> str:
    """``"1,270 元"`` → ``"1270"``: the currency marks and thousands separators people type."""
    cleaned = text.strip()
    for mark in ("元", "¥", "￥", "RMB", "CNY"):
        cleaned = cleaned.replace(mark, "")
    return cleaned.replace(",", "").strip()


def _price(text: str, where: str) -> Decimal:
    cleaned = _without_currency(text)
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise InputError(f"{where}: invalid unit price {text!r}: a number such as 49.9") from None
    if not value.is_finite() or value < 0:
        raise InputError(f"{where}: invalid unit price {text!r}: a number of at least 0")
    return value


def _count(text: str, where: str) -> int:
    cleaned = text.strip()
    if not cleaned.isdigit() or not cleaned.isascii():
        raise InputError(f"{where}: invalid count {text!r}: a whole number such as 2")
    return int(cleaned)


def parse_prizes(text: str, source: str = "<text>") -> PrizeList:
    """Read a prize list from CSV text (a header row, then one prize per row).

    >>> parse_prizes("name,tier,count,unit price\\n音响,状元,1,498\\n电饭煲,对堂,1,199").counts
    (1, 1, 0, 0, 0, 0)
    """
    rows = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff"))) if any(c.strip() for c in r)]
    if not rows:
        raise InputError(f"prize list {source} is empty: expected name,tier,count,unit price")
    header = _header_map(rows[0], source)
    items: list[Prize] = []
    for number, row in enumerate(rows[1:], start=2):
        where = f"prize list {source}, line {number}"
        cells = {c: (row[i] if i < len(row) else "") for c, i in header.items()}
        name = cells["name"].strip()
        if not name:
            raise InputError(f"{where}: the prize has no name ({row!r})")
        try:
            tier = tier_from_text(cells["tier"])
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None
        items.append(
            Prize(name, tier, _count(cells["count"], where), _price(cells["unit_price"], where))
        )
    if not items:
        raise InputError(f"prize list {source} lists no prizes, only the header")
    return PrizeList(tuple(items), source)


def parse_ranked_prizes(text: str, source: str = "<text>") -> tuple[RankedPrize, ...]:
    """Read a ranked prize list (RULES.md §8.2) from CSV: a header row, then one line per
    prize, best first (name, count, unit price; a tier column, if any, is ignored).

    >>> [(p.name, p.count, p.value) for p in parse_ranked_prizes(
    ...     "name,count,unit price\\n一等奖,1,498\\n二等奖,2,199.5")]
    [('一等奖', 1, 498), ('二等奖', 2, 199.5)]
    """
    rows = [r for r in csv.reader(io.StringIO(text.lstrip("\ufeff"))) if any(c.strip() for c in r)]
    if not rows:
        raise InputError(f"prize list {source} is empty: expected name,count,unit price")
    header = _header_map(rows[0], source, _RANKED_COLUMNS)
    items: list[RankedPrize] = []
    for number, row in enumerate(rows[1:], start=2):
        where = f"prize list {source}, line {number}"
        cells = {c: (row[i] if i < len(row) else "") for c, i in header.items()}
        name = cells["name"].strip()
        if not name:
            raise InputError(f"{where}: the prize has no name ({row!r})")
        count = _count(cells["count"], where)
        if count < 1:
            raise InputError(f"{where}: invalid count {cells['count']!r}: at least 1")
        price = _price(cells["unit_price"], where)
        value = int(price) if price == price.to_integral_value() else float(price)
        items.append(RankedPrize(name, count, value))
    if not items:
        raise InputError(f"prize list {source} lists no prizes, only the header")
    try:
        return (
            load_rules(
                {"award": "ranked", "rounds": 1, "ranked_prizes": [p.to_json() for p in items]}
            ).ranked_prizes
            or ()
        )
    except RulesError as exc:  # the engine's limits: length of names, number of lines ...
        raise InputError(f"prize list {source}: {exc}") from None


def read_ranked_prizes(path: str | Path) -> tuple[RankedPrize, ...]:
    """Read a ranked prize list file (UTF-8 or GB18030)."""
    return parse_ranked_prizes(_read_text(path), repr(str(path)))


def read_prizes(path: str | Path) -> PrizeList:
    """Read a prize list file (UTF-8, with or without a BOM)."""
    return parse_prizes(_read_text(path), repr(str(path)))


def _read_text(path: str | Path) -> str:
    """A prize list file's text: UTF-8 (with or without a BOM) or GB18030."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read prize list {str(path)!r}: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        try:
            text = raw.decode("gb18030")  # spreadsheets saved on Chinese Windows
        except UnicodeDecodeError:
            raise InputError(f"prize list {str(path)!r} is neither UTF-8 nor GB18030") from None
    return text


MAX_AMOUNT = Decimal(10) ** 9
"""The largest sum of money the planner accepts (a billion yuan)."""


def amount(value: Decimal | float | str, what: str) -> Decimal:
    """A sum of money from 0 to :data:`MAX_AMOUNT` (``what``: "extra cost", "contribution")."""
    try:
        amount: Decimal | None = Decimal(_without_currency(str(value)))
    except InvalidOperation:
        amount = None
    if amount is None or not amount.is_finite() or not 0 <= amount <= MAX_AMOUNT:
        raise InputError(
            f"invalid {what} {value!r}: a number from 0 to {MAX_AMOUNT:,}",
            code=f"invalid_{what.replace(' ', '_')}",
            value=value,
            maximum=f"{MAX_AMOUNT:,}",
        )
    return amount


__all__ = [
    "MAX_AMOUNT",
    "Prize",
    "PrizeList",
    "amount",
    "money",
    "parse_prizes",
    "parse_ranked_prizes",
    "read_prizes",
    "read_ranked_prizes",
    "tier_from_text",
]
