"""Who sits at which table: random, balanced across groups, or in the given order.

Tables are as even as possible, the larger ones first: 45 people at 4 tables sit 12, 11, 11,
11. ``in_order`` is "sit at the table with your name": table 1 takes the first people of the
roster, table 2 the next, and so on, each table in roster order. ``random`` shuffles the
roster first; ``balanced`` deals every group round the tables (so a class's 11 people spread
over 4 tables 3, 3, 3, 2) and then shuffles the seats at each table. Both drawn seatings put
one 组长 (the roster's ``leader`` column) at each table when there are enough, and spread
them when there are not (:func:`leaderless_tables` tells the preview which tables have none).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from bobing.engine.errors import InputError
from bobing.engine.game import MIN_PLAYERS
from bobing.organizer.roster import Person

SEATINGS = ("random", "balanced", "in_order")


def table_sizes(people: int, *, tables: int | None, size: int | None, max_size: int) -> list[int]:
    """Seats per table for ``people``, by a number of tables or by a table size."""
    if (tables is None) == (size is None):
        raise InputError(
            "give either the number of tables or the table size",
            code="tables_or_size",
            key="tables",
        )
    if size is not None:
        if (
            isinstance(size, bool)
            or not isinstance(size, int)
            or not MIN_PLAYERS <= size <= max_size
        ):
            raise InputError(
                f"a table seats {MIN_PLAYERS} to {max_size} people, not {size!r}",
                code="bad_table_size",
                key="table_size",
                value=str(size),
                minimum=MIN_PLAYERS,
                maximum=max_size,
            )
        tables = max(1, math.ceil(people / size))
    assert tables is not None
    if isinstance(tables, bool) or not isinstance(tables, int) or tables < 1:
        raise InputError(
            f"the number of tables must be a whole number from 1, not {tables!r}",
            code="bad_table_count",
            key="tables",
            value=str(tables),
        )
    # Checked before the list is built: its length is a number from the request.
    base, extra = divmod(people, tables)
    if base < MIN_PLAYERS or base + (1 if extra else 0) > max_size:
        raise InputError(
            f"{people} people cannot sit at {tables} tables of {MIN_PLAYERS} to {max_size}",
            code="bad_tables",
            key="tables",
            people=people,
            tables=tables,
            minimum=MIN_PLAYERS,
            maximum=max_size,
        )
    return [base + (1 if i < extra else 0) for i in range(tables)]


def seat_people(
    people: Sequence[Person],
    *,
    seating: str,
    tables: int | None = None,
    size: int | None = None,
    max_size: int,
    rng: random.Random | None = None,
) -> list[list[Person]]:
    """The people of each table, in seat order (clockwise)."""
    if seating not in SEATINGS:
        raise InputError(
            f"unknown seating {seating!r}; allowed: " + ", ".join(SEATINGS),
            code="bad_seating",
            key="seating",
            value=str(seating)[:40],
            allowed=list(SEATINGS),
        )
    sizes = table_sizes(len(people), tables=tables, size=size, max_size=max_size)
    chance = rng if rng is not None else random.SystemRandom()
    if seating == "in_order":
        return _chunks(list(people), sizes)
    if seating == "random":
        order = list(people)
        chance.shuffle(order)
        return _spread_leaders(_chunks(order, sizes), chance)
    # balanced: the largest groups are dealt first, so every table gets its share of each.
    groups: dict[str | None, list[Person]] = {}
    for person in people:
        groups.setdefault(person.group, []).append(person)
    dealt: list[Person] = []
    for members in sorted(groups.values(), key=len, reverse=True):
        chance.shuffle(members)
        dealt.extend(members)
    seated: list[list[Person]] = [[] for _ in sizes]
    for index, person in enumerate(dealt):
        seated[index % len(sizes)].append(person)
    seated = _spread_leaders(seated, chance)
    for table in seated:
        chance.shuffle(table)
    return seated


def leaderless_tables(seated: Sequence[Sequence[Person]]) -> list[int]:
    """The numbers (from 1) of the tables with no 组长, when the roster marks any."""
    if not any(p.leader for table in seated for p in table):
        return []
    return [n for n, table in enumerate(seated, start=1) if not any(p.leader for p in table)]


def _spread_leaders(seated: list[list[Person]], chance: random.Random) -> list[list[Person]]:
    """Move 组长 from tables with several to tables with none, one swap at a time: each swap
    trades a 组长 for someone of their own group where the table has one (so ``balanced``
    stays balanced), else for anyone; table sizes never change."""
    while True:
        empty = [t for t in seated if not any(p.leader for p in t)]
        crowded = [t for t in seated if sum(p.leader for p in t) > 1]
        if not empty or not crowded:
            return seated
        source, target = chance.choice(crowded), chance.choice(empty)
        leader = chance.choice([p for p in source if p.leader])
        same = [p for p in target if p.group == leader.group]
        other = chance.choice(same or target)
        source[source.index(leader)] = other
        target[target.index(other)] = leader


def _chunks(order: list[Person], sizes: list[int]) -> list[list[Person]]:
    out: list[list[Person]] = []
    start = 0
    for count in sizes:
        out.append(order[start : start + count])
        start += count
    return out
