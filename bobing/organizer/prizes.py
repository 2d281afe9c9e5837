"""A table's prize set: named goods per tier, several items in one tier, each with a value.

The 2013 class event's set for one table: 状元 1 可爱公仔 (65 元); 对堂 4 洗发水/沐浴露 — two
goods in one tier; … 一秀 40 可乐/饮料/香皂. Each tier's number of cakes is the sum of its items'
counts; those counts become the table's ``prizes`` rule, so the engine decides who wins which
tier and this set only says what a cake of that tier is worth and what is handed over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError
from bobing.engine.hands import TIERS
from bobing.engine.switches import MAX_PRIZE_COUNT, MAX_PRIZE_NAME
from bobing.organizer.text import amount, display_text

MAX_ITEMS_PER_TIER = 20
MAX_VALUE = 1_000_000


@dataclass(frozen=True, slots=True)
class PrizeItem:
    """``count`` pieces of one good, each worth ``value``."""

    name: str
    count: int
    value: float | int = 0

    def to_json(self) -> dict[str, Any]:
        """``{"name", "count", "value"}``."""
        return {"name": self.name, "count": self.count, "value": self.value}


@dataclass(frozen=True, slots=True)
class PrizeSet:
    """One table's named prizes: items per tier id (tiers absent keep the rules' count)."""

    tiers: tuple[tuple[str, tuple[PrizeItem, ...]], ...] = ()

    def items(self, tier: str) -> tuple[PrizeItem, ...]:
        """The items of ``tier`` (empty when the set does not name it)."""
        return dict(self.tiers).get(tier, ())

    def counts(self) -> dict[str, int]:
        """Cakes per named tier: the sum of its items' counts (the table's ``prizes`` rule)."""
        return {tier: sum(i.count for i in items) for tier, items in self.tiers}

    def value(self) -> float | int:
        """What one table's set is worth (the tiers it names)."""
        return sum(i.count * i.value for _, items in self.tiers for i in items)

    def units(self, tier: str, cakes: int) -> list[PrizeItem | None]:
        """The goods handed over for each of ``cakes`` cakes of ``tier``, in item order.

        The items are listed in the order the organiser gave them; a tier the set does not
        name (or more cakes than its items) gives ``None``: a cake with no named good.
        """
        units: list[PrizeItem | None] = []
        for item in self.items(tier):
            units.extend([item] * item.count)
        units.extend([None] * max(0, cakes - len(units)))
        return units[:cakes]

    def to_json(self) -> dict[str, list[dict[str, Any]]]:
        """``{tier: [{"name", "count", "value"}]}`` in TIERS order."""
        return {tier: [i.to_json() for i in items] for tier, items in self.tiers}


def parse_prize_set(value: Any) -> PrizeSet:
    """``{tier: [{"name", "count", "value"}]}`` → :class:`PrizeSet` (tiers in TIERS order)."""
    if value is None:
        return PrizeSet()
    if not isinstance(value, Mapping):
        raise InputError(
            "prizes must map tiers to lists of {name, count, value}",
            code="bad_prizes",
            key="prizes",
        )
    known = [str(t) for t in TIERS]
    for tier in value:
        if tier not in known:
            raise InputError(
                f"unknown tier {str(tier)[:20]!r} in prizes; allowed: " + ", ".join(known),
                code="unknown_prize_tier",
                key="prizes",
                tier=str(tier)[:20],
                allowed=known,
            )
    tiers: list[tuple[str, tuple[PrizeItem, ...]]] = []
    for tier in known:
        if tier not in value:
            continue
        raw = value[tier]
        key = f"prizes.{tier}"
        if isinstance(raw, Mapping):
            raw = [raw]
        if isinstance(raw, str) or not isinstance(raw, list):
            raise InputError(
                f"{key} must be a list of {{name, count, value}}", code="bad_prizes", key=key
            )
        if len(raw) > MAX_ITEMS_PER_TIER:
            raise InputError(
                f"{key} lists {len(raw)} items; at most {MAX_ITEMS_PER_TIER}",
                code="bad_prizes",
                key=key,
            )
        items = tuple(_item(entry, f"{key}[{i}]") for i, entry in enumerate(raw))
        total = sum(i.count for i in items)
        if total > MAX_PRIZE_COUNT:
            raise InputError(
                f"{key} adds up to {total} cakes; at most {MAX_PRIZE_COUNT}",
                code="bad_prizes",
                key=key,
            )
        tiers.append((tier, items))
    return PrizeSet(tuple(tiers))


def _item(entry: Any, key: str) -> PrizeItem:
    if not isinstance(entry, Mapping) or set(entry) - {"name", "count", "value"}:
        raise InputError(f"{key} must be {{name, count, value}}", code="bad_prizes", key=key)
    name = display_text(entry.get("name"), key=f"{key}.name", limit=MAX_PRIZE_NAME)
    count = entry.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 0 <= count <= MAX_PRIZE_COUNT:
        raise InputError(
            f"{key}.count must be a whole number 0-{MAX_PRIZE_COUNT}, not {count!r}"[:200],
            code="bad_prizes",
            key=f"{key}.count",
        )
    return PrizeItem(
        name, count, amount(entry.get("value", 0), key=f"{key}.value", limit=MAX_VALUE)
    )


def table_prize_value(rules: Mapping[str, Any], prize_set: PrizeSet) -> float | int:
    """What one table's prizes cost: its ranked prizes (RULES.md §8.2) or its prize set."""
    if rules.get("award") == "ranked":
        return sum(
            int(p.get("count", 1)) * (p.get("value") or 0) for p in rules.get("ranked_prizes") or []
        )
    return prize_set.value()
