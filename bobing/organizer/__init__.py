"""The organiser's model of a 博饼 event: roster, seating, prize sets, budget, playoff, results.

Plain Python beside the engine: it imports the engine and the standard library only (ruff's
banned-API list enforces it), so the web layer, the CLI and the tests share one model. No rule
of the game lives here: a table's cakes, 状元 and ranking come from the engine's results.
"""

from __future__ import annotations

from bobing.organizer.budget import Budget, BudgetSummary, FixedCost, parse_budget
from bobing.organizer.playoff import PLAYOFF_PRIZE, playoff_field, playoff_rules, table_winner
from bobing.organizer.prizes import PrizeItem, PrizeSet, parse_prize_set
from bobing.organizer.results import event_results
from bobing.organizer.roster import (
    MAX_GROUP_LENGTH,
    MAX_PEOPLE,
    MAX_ROSTER_BYTES,
    Person,
    parse_people,
    read_roster,
)
from bobing.organizer.seating import SEATINGS, seat_people, table_sizes

__all__ = [
    "MAX_GROUP_LENGTH",
    "MAX_PEOPLE",
    "MAX_ROSTER_BYTES",
    "PLAYOFF_PRIZE",
    "SEATINGS",
    "Budget",
    "BudgetSummary",
    "FixedCost",
    "Person",
    "PrizeItem",
    "PrizeSet",
    "event_results",
    "parse_budget",
    "parse_people",
    "parse_prize_set",
    "playoff_field",
    "playoff_rules",
    "read_roster",
    "seat_people",
    "table_sizes",
    "table_winner",
]
