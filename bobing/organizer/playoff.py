"""The 状元王中王: a ranked session (RULES.md §8.2) between the table winners.

Once every table is over, each table's 状元 (the winner of its 状元 cake, or the first of
a ranked table's ranking) joins the playoff, in table order. The playoff plays the event's
rules with ``award`` = ``ranked``, one prize and ``rounds`` = the throws each (default 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bobing.engine.errors import InputError

PLAYOFF_PRIZE = "状元王中王"
MAX_PLAYOFF_THROWS = 10


def table_winner(result: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A finished table's 状元 ``{"player", "hand", "dice", "throw"}``, or None.

    Cakes: the §7 ``zhuangyuan`` once the game is over. Ranked (§8.2): the first of the
    ranking when they have a counted throw.
    """
    if not result or result.get("status") != "over":
        return None
    winner = result.get("zhuangyuan")
    if isinstance(winner, Mapping) and winner.get("player"):
        return {k: winner.get(k) for k in ("player", "hand", "dice", "throw")}
    ranking = result.get("ranking")
    if isinstance(ranking, Sequence) and ranking:
        first = ranking[0]
        if isinstance(first, Mapping) and first.get("hand") is not None:
            return {k: first.get(k) for k in ("player", "hand", "dice", "throw")}
    return None


def playoff_field(results: Sequence[Mapping[str, Any] | None]) -> list[str]:
    """The table winners in table order (tables without a 状元 send nobody)."""
    field: list[str] = []
    for result in results:
        winner = table_winner(result)
        if winner is not None and winner["player"] not in field:
            field.append(str(winner["player"]))
    return field


def check_throws(value: Any) -> int:
    """The playoff's throws each: a whole number 1-10."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not 1 <= value <= MAX_PLAYOFF_THROWS
    ):
        raise InputError(
            f"throws must be a whole number from 1 to {MAX_PLAYOFF_THROWS}, not {value!r}"[:200],
            code="bad_throws",
            key="throws",
            limit=MAX_PLAYOFF_THROWS,
        )
    return value


def playoff_rules(
    event_rules: Mapping[str, Any], *, throws: int, prize: str = PLAYOFF_PRIZE, value: float = 0
) -> dict[str, Any]:
    """The playoff's rule object: the event's rules, ranked, one prize, ``throws`` rounds."""
    rules = {k: v for k, v in event_rules.items() if k not in ("ranked_prizes", "rounds")}
    rules["award"] = "ranked"
    rules["ranked_prizes"] = [{"name": prize, "count": 1, "value": value}]
    rules["rounds"] = check_throws(throws)
    return rules
