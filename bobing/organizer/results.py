"""Who takes home what: every cake and ranked prize of the event, by person and by table.

A table's result (RULES.md §7, from the engine) says how many cakes of each tier everyone
holds; the table's prize set says which goods those cakes are. Within a tier the goods are
handed over in the order the organiser listed them, to the holders in seat order (the
组长 reads the prize-desk list top to bottom). Ranked tables (§8.2) hand over their
``ranking``'s prizes; the playoff's one prize is the 王中王's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bobing.engine.hands import TIERS
from bobing.organizer.playoff import table_winner
from bobing.organizer.prizes import PrizeSet

WANGZHONGWANG = "wangzhongwang"


def event_results(
    tables: Sequence[Mapping[str, Any]],
    prize_set: PrizeSet,
    *,
    ranked_prizes: Sequence[Mapping[str, Any]] = (),
    playoff: Mapping[str, Any] | None = None,
    playoff_prizes: Sequence[Mapping[str, Any]] = (),
) -> dict[str, Any]:
    """``{"people", "tables", "wangzhongwang"}`` of ``GET /api/events/{code}/results``.

    Each person has ``prizes`` (one entry a cake or ranked prize) and ``prize_counts`` (the
    same as :func:`prize_counts`: what the prize desk hands over, counted); under 反向博钱
    (RULES.md §9.3) also ``pays``, and each table its ``kitty``. A table's ``shared`` lists
    the 状元's goods under 分状元, shared by its ``players`` (empty otherwise).

    ``tables``: ``{"number", "code", "players": [names in seat order], "result": §7 | None}``
    in table order; ``playoff``: the playoff table's §7 result (with ``ranking``) or None.
    """
    people: list[dict[str, Any]] = []
    by_name: dict[str, dict[str, Any]] = {}
    table_rows: list[dict[str, Any]] = []
    for table in tables:
        result = table.get("result") or {}
        players = list(table.get("players") or [])
        parts = set_results(result)
        taken: dict[str, list[dict[str, Any]]] = {name: [] for name in players}
        for part in parts:  # 一二会 (RULES.md §10.2): each set hands over a whole prize set
            for name, prizes in _table_prizes(players, part, prize_set, ranked_prizes).items():
                taken.setdefault(name, []).extend(prizes)
        payments = result.get("payments")
        for name in players:
            entry = {"name": name, "table": table["number"], "prizes": taken.get(name, [])}
            if payments is not None:
                entry["pays"] = payments["players"].get(name, 0)
            people.append(entry)
            by_name[name] = entry
        row = {
            "number": table["number"],
            "code": table.get("code"),
            "status": result.get("status") if result else None,
            "zhuangyuan": table_winner(result),
            "unclaimed": [row for part in parts for row in _unclaimed(part, prize_set)],
            "shared": [row for part in parts for row in _shared(part, prize_set, len(players))],
        }
        if payments is not None:
            row["kitty"] = payments["kitty"]
        table_rows.append(row)
    wangzhongwang: dict[str, Any] | None = None
    if playoff is not None and playoff.get("status") == "over":
        ranking = playoff.get("ranking") or []
        first = ranking[0] if ranking else None
        if first and first.get("hand") is not None:
            wangzhongwang = {k: first.get(k) for k in ("player", "hand", "dice", "throw")}
            prize = _ranked_prize(first.get("prize"), playoff_prizes)
            holder = by_name.get(str(first["player"]))
            if holder is not None and prize is not None:
                holder["prizes"].append({**prize, "tier": WANGZHONGWANG})
    for entry in people:
        entry["prize_counts"] = prize_counts(entry["prizes"])
    return {"people": people, "tables": table_rows, "wangzhongwang": wangzhongwang}


def set_results(result: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """A table's result set by set (一二会, RULES.md §10.2: each finished set's, then the set in
    play); one set: the result itself.

    >>> [part["set"] for part in set_results({"set": 2, "sets": [{"set": 1}]})]
    [1, 2]
    """
    done = result.get("sets")
    if not isinstance(done, list):
        return [result]
    return [*done, result]


def prize_counts(prizes: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One person's prizes counted: one ``{"tier", "name", "value", "count"}`` per kind of
    prize (``value`` is one piece's), in the order of the first of each kind. The page, its
    print and the downloads all show these rows.

    >>> cola = {"tier": "yixiu", "name": "可乐", "value": 2}
    >>> rows = prize_counts([{"tier": "erju", "name": "饼干", "value": 3}, cola, cola])
    >>> [(row["name"], row["value"], row["count"]) for row in rows]
    [('饼干', 3, 1), ('可乐', 2, 2)]
    """
    counted: dict[tuple[Any, Any, Any], dict[str, Any]] = {}
    for prize in prizes:
        key = (prize.get("tier"), prize.get("name"), prize.get("value"))
        row = counted.get(key)
        if row is None:
            counted[key] = {"tier": key[0], "name": key[1], "value": key[2], "count": 1}
        else:
            row["count"] += 1
    return list(counted.values())


def _table_prizes(
    players: list[str],
    result: Mapping[str, Any],
    prize_set: PrizeSet,
    ranked_prizes: Sequence[Mapping[str, Any]],
) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {name: [] for name in players}
    if not result:
        return out
    if result.get("ranking") is not None:
        if result.get("status") != "over":
            return out
        for row in result["ranking"]:
            prize = _ranked_prize(row.get("prize"), ranked_prizes)
            if prize is not None and row.get("player") in out:
                out[row["player"]].append(prize)
        return out
    holdings: Mapping[str, Mapping[str, int]] = result.get("holdings") or {}
    for tier in (str(t) for t in TIERS):
        holders = [(name, int(holdings.get(name, {}).get(tier, 0))) for name in players]
        total = sum(n for _, n in holders)
        units = iter(prize_set.units(tier, total))
        for name, count in holders:
            for _ in range(count):
                item = next(units)
                out[name].append(
                    {
                        "tier": tier,
                        "name": None if item is None else item.name,
                        "value": 0 if item is None else item.value,
                    }
                )
    return out


def _shared(result: Mapping[str, Any], prize_set: PrizeSet, players: int) -> list[dict[str, Any]]:
    """分状元 (RULES.md §9.3): the 状元 cake's goods, held by nobody, shared by the table's
    ``players`` once the game is over."""
    if not result or result.get("status") != "over" or result.get("zhuangyuan_cake") != "shared":
        return []
    tier = "zhuangyuan"
    counted: dict[str | None, list[Any]] = {}
    for item in prize_set.units(tier, prize_set.counts().get(tier) or 1):
        key = None if item is None else item.name
        counted.setdefault(key, [0, 0 if item is None else item.value])[0] += 1
    return [
        {"tier": tier, "name": name, "count": n, "value": v, "players": players}
        for name, (n, v) in counted.items()
    ]


def _unclaimed(result: Mapping[str, Any], prize_set: PrizeSet) -> list[dict[str, Any]]:
    """Goods still at the prize desk: the pool's cakes once the table is over."""
    if not result or result.get("status") != "over" or result.get("ranking") is not None:
        return []
    pool: Mapping[str, int] = result.get("pool") or {}
    holdings: Mapping[str, Mapping[str, int]] = result.get("holdings") or {}
    out: list[dict[str, Any]] = []
    for tier in (str(t) for t in TIERS):
        left = int(pool.get(tier, 0))
        if not left:
            continue
        held = sum(int(h.get(tier, 0)) for h in holdings.values())
        units = prize_set.units(tier, held + left)[held:]
        counted: dict[str | None, list[Any]] = {}
        for item in units:
            key = None if item is None else item.name
            counted.setdefault(key, [0, 0 if item is None else item.value])[0] += 1
        out.extend(
            {"tier": tier, "name": name, "count": n, "value": v} for name, (n, v) in counted.items()
        )
    return out


def _ranked_prize(name: Any, prizes: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    if not name:
        return None
    value = next((p.get("value", 0) for p in prizes if p.get("name") == name), 0)
    return {"tier": None, "name": str(name), "value": value or 0}
