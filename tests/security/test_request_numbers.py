"""Issue 16: every number in a request is checked before any work is sized by it.

Before the fix a 70-byte ``POST /api/events/preview`` with ``"tables": 100000000`` held the
event loop for 3 s and took +764 MB (``2**64`` never finished); NaN, ±Infinity or ``1e400`` in a
rule object, a 4,000-digit prize value and a non-object ``rules.prizes`` beside table-level
``prizes`` were 500s that dropped the keep-alive connection; ``/preview`` had no rate limit.
Each request here goes to a real ``bobing serve``, whose peak resident memory (``VmHWM``) is
read before and after.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from sectools import NO_LIMITS, problem_of, served

MEMORY_BOUND = 50_000_000
"""Bytes the server's peak resident memory may grow by over all the refused requests."""
PEOPLE = ["a", "b", "c"]


def peak_rss(pid: int) -> int:
    """The process's peak resident set (``VmHWM``), in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def raw(body: Any, number: str) -> bytes:
    """``body`` as JSON with every ``"@"`` replaced by ``number`` as the client wrote it."""
    return json.dumps(body).replace('"@"', number).encode()


async def post(http: httpx.AsyncClient, path: str, body: bytes) -> httpx.Response:
    return await http.post(path, content=body, headers={"content-type": "application/json"})


async def test_a_huge_table_count_is_refused_at_once(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "preview_per_minute=0") as server:
        await server.http.get("/api/health")
        before = peak_rss(server.proc.pid)
        for tables in ("100000000", str(2**64), "9" * 25):
            for path in ("/api/events/preview", "/api/events"):
                body = json.dumps({"name": "x", "people": PEOPLE}).encode()[:-1]
                body += b', "tables": ' + tables.encode() + b"}"
                response = await post(server.http, path, body)
                problem = problem_of(response, 422, "invalid_event")
                assert problem["params"]["field"] == "tables", problem
        grown = peak_rss(server.proc.pid) - before
        assert grown < MEMORY_BOUND, f"+{grown / 1e6:.0f} MB"
        # The event loop was never held: an honest preview answers.
        ok = await server.http.post(
            "/api/events/preview", json={"name": "x", "people": PEOPLE, "tables": 1}
        )
        assert ok.status_code == 200 and ok.json()["tables"] == [3]


BAD_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "4" * 4000, "1" * 31]


async def test_non_finite_and_huge_numbers_are_a_clean_400_everywhere(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "preview_per_minute=0") as server:
        event = {"name": "x", "people": PEOPLE, "tables": 1}
        for number in BAD_NUMBERS:
            modern = {"preset": "modern", "prizes": {"yixiu": "@"}}
            bodies = [
                ("/api/tables", {"name": "x", "rules": modern}),
                ("/api/tables", {"name": "x", "prizes": {"yixiu": {"name": "p", "value": "@"}}}),
                ("/api/events", {**event, "rules": {"prizes": {"duitang": "@"}}}),
                ("/api/events/preview", {**event, "budget": {"contribution": "@"}}),
                ("/api/events/preview", {**event, "prizes": {"duitang": [{"value": "@"}]}}),
                ("/api/odds", modern),
            ]  # fmt: skip
            for path, body in bodies:
                response = await post(server.http, path, raw(body, number))
                problem = problem_of(response, 400, "bad_number")
                assert problem["params"]["limit"] == 30
                assert response.headers.get("connection") != "close"
            # Rules in a query string: /api/odds, /api/game-length and the charts.
            rules = raw({"preset": "modern", "prizes": {"yixiu": "@"}}, number).decode()
            for path in ("/api/odds", "/api/game-length", "/api/charts/length.svg"):
                response = await server.http.get(path, params={"rules": rules})
                problem_of(response, 400, "bad_number")
        # One keep-alive connection carried every refusal: the client never reconnected.
        assert (await server.http.get("/api/health")).status_code == 200


async def test_a_prize_value_within_the_digits_is_still_range_checked(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "preview_per_minute=0") as server:
        event = {"name": "x", "people": PEOPLE, "tables": 1}
        for value in (10**29, -(10**29), 1e300):
            body = {**event, "prizes": {"duitang": [{"name": "p", "count": 1, "value": value}]}}
            response = await server.http.post("/api/events/preview", json=body)
            problem_of(response, 422, "invalid_event")
            named = {"yixiu": {"name": "p", "value": value}}
            response = await server.http.post("/api/tables", json={"name": "x", "prizes": named})
            assert response.status_code == 422, response.text
            for rules in ({"prizes": {"yixiu": value}}, {"prizes": {"yixiu": 10**29}}):
                response = await server.http.post("/api/tables", json={"name": "x", "rules": rules})
                problem_of(response, 422, "invalid_rules")


async def test_table_prizes_beside_a_non_object_rules_prizes_are_a_422(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        for odd in ([1, 2], "x", 7, True, [["yixiu", 1]]):
            rules = {"preset": "modern", "prizes": odd}
            body = {"name": "x", "rules": rules, "prizes": {"yixiu": 3}}
            response = await server.http.post("/api/tables", json=body)
            problem = problem_of(response, 422, "invalid_rules")
            assert "prizes" in problem["detail"], problem


async def test_the_preview_has_a_rate_limit(tmp_path: Path) -> None:
    async with served(tmp_path, "preview_per_minute=3", "tarpit_seconds=0") as server:
        body = {"name": "x", "people": PEOPLE, "tables": 1}
        for _ in range(3):
            assert (await server.http.post("/api/events/preview", json=body)).status_code == 200
        response = await server.http.post("/api/events/preview", json=body)
        problem = problem_of(response, 429, "rate_limited")
        assert problem["params"]["action"] == "preview"
        assert int(response.headers["retry-after"]) >= 1


async def test_a_table_number_is_a_whole_number_or_refused(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        body = {"name": "x", "people": [*PEOPLE, "d"], "tables": 2, "seating": "in_order"}
        created = (await server.http.post("/api/events", json=body)).json()
        auth = {"authorization": f"Bearer {created['organizer_token']}"}
        code = created["code"]
        for table in (1.0, "1", True, 10**29, -1):
            control = {"action": "start", "table": table}
            path = f"/api/events/{code}/control"
            response = await server.http.post(path, json=control, headers=auth)
            problem = problem_of(response, 422, "invalid_field")
            assert problem["params"]["field"] == "table"
        ok = await server.http.post(
            f"/api/events/{code}/control", json={"action": "start", "table": 1}, headers=auth
        )
        assert ok.status_code == 200 and ok.json()["tables"] == [{"number": 1, "status": "playing"}]
