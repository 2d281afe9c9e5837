"""历届's walk (RULES.md §10.3): the links followed back, last year first, ending where a year
has expired, never looping, never past MAX_YEARS."""

from __future__ import annotations

from typing import Any

from bobing.gatherings.years import MAX_YEARS, earlier_years, year_row


def year(code: str, previous: str | None) -> dict[str, Any]:
    over = {"status": "over", "zhuangyuan": {"player": f"{code} 的状元"}}
    return {
        "code": code,
        "name": code,
        "date": None,
        "created_at": "2026-10-06T12:00:00Z",
        "previous": previous,
        "tables": [over],
        "playoff": None,
        "organizers": [],
        "donated_sets": [{"name": "王老师", "new_son": True, "sets": 2}],
    }


async def walk(stored: dict[str, dict[str, Any]], start: str) -> list[str]:
    async def load(code: str) -> dict[str, Any] | None:
        return stored.get(code)

    return [row["code"] for row in await earlier_years(stored[start], load)]


async def test_the_links_are_followed_back_to_the_first_year() -> None:
    stored = {"C": year("C", "B"), "B": year("B", "A"), "A": year("A", None)}
    assert await walk(stored, "C") == ["B", "A"]

    async def load(code: str) -> dict[str, Any] | None:
        return stored.get(code)

    (row, _) = await earlier_years(stored["C"], load)
    assert row["champions"] == ["B 的状元"] and row["donors"] == ["王老师"]
    assert row["date"] == "2026-10-06"


async def test_a_ranked_year_names_its_first_not_a_zhuangyuan() -> None:
    ranked = {**year("B", None), "rules": {"award": "ranked"}}
    stored = {"C": year("C", "B"), "B": ranked}

    async def load(code: str) -> dict[str, Any] | None:
        return stored.get(code)

    ((row),) = await earlier_years(stored["C"], load)
    assert (row["ranked"], row["wangzhongwang"], row["champions"]) == (True, False, ["B 的状元"])
    assert year_row(year("C", "B"))["ranked"] is False


async def test_an_expired_year_ends_the_chain() -> None:
    stored = {"C": year("C", "B"), "B": year("B", "GONE")}
    assert await walk(stored, "C") == ["B"]


async def test_a_loop_is_walked_once_and_a_long_chain_is_cut() -> None:
    stored = {"A": year("A", "B"), "B": year("B", "A")}
    assert await walk(stored, "A") == ["B"]
    chain = {f"Y{i}": year(f"Y{i}", f"Y{i + 1}") for i in range(MAX_YEARS + 5)}
    assert len(await walk(chain, "Y0")) == MAX_YEARS
