"""历届: the years' lineage (RULES.md §10.3).

An event made from last year's ``/next`` keeps its code (``previous``); each earlier year is
shown by its date, its 状元 (or 王中王), its organisers and who gave its 会饼. The rows are read
from each year's event as :meth:`GatheringService.get` returns it, live: a year still playing
names no 状元 yet.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from bobing.organizer.customs import champions

MAX_YEARS = 100
"""The most earlier years followed (a century of Mid-Autumn evenings): a lineage is a chain
of stored links, and a chain this long is a loop or a prank, not a family."""


def champion_names(event: Mapping[str, Any]) -> list[str] | None:
    """The year's 状元 who shape the next (:func:`champions`): the 王中王, or every table's
    状元 without a playoff; None while a table or the playoff is still playing."""
    playoff = event.get("playoff")
    winner = None
    if playoff is not None:
        first = ((playoff.get("result") or {}).get("ranking") or [{}])[0]
        winner = first.get("player") if first.get("dice") else None
    return champions(
        event["tables"],
        None if playoff is None else {"status": playoff["status"], "winner": winner},
    )


def year_row(event: Mapping[str, Any]) -> dict[str, Any]:
    """One year: ``{"code", "name", "date", "champions", "wangzhongwang", "ranked",
    "organizers", "donors"}``. ``date`` is the event's own, else the day it was made;
    ``champions`` the 王中王 (``wangzhongwang`` true) or each table's 状元 — a ranked table's
    first (``ranked`` true: it has no 状元, RULES.md §8.2) — None while still playing;
    ``donors`` who gave its 会饼 (``donated_sets``)."""
    return {
        "code": event["code"],
        "name": event["name"],
        "date": event.get("date") or str(event.get("created_at") or "")[:10] or None,
        "champions": champion_names(event),
        "wangzhongwang": event.get("playoff") is not None,
        "ranked": (event.get("rules") or {}).get("award") == "ranked",
        "organizers": list(event.get("organizers") or []),
        "donors": [d["name"] for d in event.get("donated_sets") or []],
    }


async def earlier_years(
    event: Mapping[str, Any], load: Callable[[str], Awaitable[Mapping[str, Any] | None]]
) -> list[dict[str, Any]]:
    """Every year before ``event``, last year first, following ``previous`` while ``load``
    finds the event (an expired one ends the chain), never the same year twice, at most
    :data:`MAX_YEARS`."""
    seen = {event["code"]}
    years: list[dict[str, Any]] = []
    code = event.get("previous")
    while code and code not in seen and len(years) < MAX_YEARS:
        seen.add(code)
        earlier = await load(code)
        if earlier is None:
            break
        years.append(year_row(earlier))
        code = earlier.get("previous")
    return years
