"""Seating: table sizes, in_order exactly as the issue says, random, balanced across groups."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bobing.engine.errors import InputError
from bobing.organizer import Person, seat_people, table_sizes
from bobing.organizer.seating import leaderless_tables


def roster(n: int, groups: int = 0) -> list[Person]:
    return [Person(f"p{i}", f"g{i % groups}" if groups else None) for i in range(n)]


def test_sizes_as_even_as_possible_larger_first() -> None:
    assert table_sizes(44, tables=4, size=None, max_size=12) == [11, 11, 11, 11]
    assert table_sizes(45, tables=4, size=None, max_size=12) == [12, 11, 11, 11]
    assert table_sizes(13, tables=None, size=6, max_size=12) == [5, 4, 4]
    assert table_sizes(24, tables=None, size=12, max_size=12) == [12, 12]


@pytest.mark.parametrize(
    ("people", "tables", "size"),
    [(44, 3, None), (3, 2, None), (10, None, 1), (10, None, 13), (10, 0, None), (10, 2, 5)],
)
def test_impossible_sizes(people: int, tables: int | None, size: int | None) -> None:
    with pytest.raises(InputError):
        table_sizes(people, tables=tables, size=size, max_size=12)


def test_in_order_fills_table_one_first() -> None:
    seated = seat_people(roster(7), seating="in_order", tables=2, max_size=12)
    assert [[p.name for p in t] for t in seated] == [
        ["p0", "p1", "p2", "p3"],
        ["p4", "p5", "p6"],
    ]


@given(st.integers(4, 120), st.integers(1, 6), st.integers(0, 2**32))
def test_random_and_balanced_seat_everyone_once(n: int, groups: int, seed: int) -> None:
    people = roster(n, groups)
    tables = max(1, -(-n // 12))
    for seating in ("random", "balanced", "in_order"):
        seated = seat_people(
            people, seating=seating, tables=tables, max_size=12, rng=random.Random(seed)
        )
        assert sorted(p.name for t in seated for p in t) == sorted(p.name for p in people)
        assert [len(t) for t in seated] == table_sizes(n, tables=tables, size=None, max_size=12)


@given(st.integers(8, 120), st.integers(1, 6), st.integers(0, 2**32))
def test_balanced_spreads_every_group(n: int, groups: int, seed: int) -> None:
    people = roster(n, groups)
    tables = max(2, -(-n // 12))
    seated = seat_people(
        people, seating="balanced", tables=tables, max_size=12, rng=random.Random(seed)
    )
    for group, size in Counter(p.group for p in people).items():
        at = [sum(1 for p in t if p.group == group) for t in seated]
        assert max(at) - min(at) <= 1, (group, size, at)


def test_random_depends_on_the_dice() -> None:
    people = roster(44)
    a = seat_people(people, seating="random", tables=4, max_size=12, rng=random.Random(1))
    b = seat_people(people, seating="random", tables=4, max_size=12, rng=random.Random(2))
    assert a != b


def test_unknown_seating() -> None:
    with pytest.raises(InputError, match="unknown seating 'vip'"):
        seat_people(roster(4), seating="vip", tables=1, max_size=12)


def test_a_huge_table_count_is_refused_before_any_list_is_built() -> None:
    # Issue 16: 100,000,000 tables built a list of 100 million sizes (+764 MB) before the
    # check; 2**64 never finished.
    import tracemalloc

    for tables in (100_000_000, 2**64, 10**4000):
        tracemalloc.start()
        try:
            with pytest.raises(InputError) as caught:
                table_sizes(3, tables=tables, size=None, max_size=12)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert caught.value.code == "bad_tables"
        assert peak < 1_000_000, peak


def test_random_seating_puts_a_leader_at_every_table() -> None:
    """The issue's evening: 44 people, 4 tables, 4 marked 组长 -> one 组长 at each table."""
    people = [Person(f"p{i}", leader=i in (3, 17, 30, 41)) for i in range(44)]
    for seed in range(200):
        seated = seat_people(
            people, seating="random", tables=4, max_size=12, rng=random.Random(seed)
        )
        assert [sum(p.leader for p in t) for t in seated] == [1, 1, 1, 1]
        assert leaderless_tables(seated) == []


@given(
    st.integers(8, 120),
    st.integers(0, 12),
    st.integers(1, 4),
    st.sampled_from(["random", "balanced"]),
    st.integers(0, 2**32),
)
def test_leaders_are_spread_then_the_rest_at_random(
    n: int, leaders: int, groups: int, seating: str, seed: int
) -> None:
    people = [Person(f"p{i}", f"g{i % groups}", leader=i < leaders) for i in range(n)]
    tables = max(2, -(-n // 12))
    seated = seat_people(
        people, seating=seating, tables=tables, max_size=12, rng=random.Random(seed)
    )
    counts = [sum(p.leader for p in t) for t in seated]
    marked = min(leaders, n)
    # one at each table when there are enough, else at most one at each
    assert counts.count(0) == max(0, tables - marked)
    if marked < tables:
        assert max(counts) <= 1
    assert len(leaderless_tables(seated)) == (max(0, tables - marked) if marked else 0)
    assert [len(t) for t in seated] == table_sizes(n, tables=tables, size=None, max_size=12)
