"""Issue 16: table and event codes cannot be guessed at ~200 a second.

Before: nothing refused a client trying codes one after another. Now each address may miss
(``404 table_not_found`` / ``event_not_found``) ``misses_per_minute`` times a minute; once
used up, every look-up by code from it is refused (429), hits included, until the bucket
refills: a guesser learns nothing more. Counted in the shared limiter (Redis with several
instances). A real ``bobing serve``.
"""

from __future__ import annotations

from pathlib import Path

from sectools import Client, open_table, problem_of, served


async def test_misses_are_rate_limited_per_address(tmp_path: Path) -> None:
    async with served(tmp_path, "misses_per_minute=5", "tarpit_seconds=0") as server:
        created, _ = await open_table(server.http, ["甲"])
        code = created["code"]
        assert (await server.http.get(f"/api/tables/{code}")).status_code == 200
        guesses = [f"ZZZZ{n:02d}" for n in range(5)]
        for guess in guesses[:3]:
            problem_of(await server.http.get(f"/api/tables/{guess}"), 404, "table_not_found")
        problem_of(await server.http.get("/api/events/ZZZZZZ"), 404, "event_not_found")
        socket = await Client.connect(server.url, "ZZZZYY")
        assert socket.welcome is not None and socket.welcome["code"] == "table_not_found"
        # Five misses (REST and socket, tables and events): the address is out of guesses.
        refused = await server.http.get(f"/api/tables/{guesses[4]}")
        problem_of(refused, 429, "rate_limited")
        assert int(refused.headers["Retry-After"]) >= 1
        # A hit is refused too: the guesser cannot tell a real code from a wrong one.
        problem_of(await server.http.get(f"/api/tables/{code}"), 429, "rate_limited")
        problem_of(await server.http.get("/api/events/ABCDEF"), 429, "rate_limited")
        socket = await Client.connect(server.url, code)
        assert socket.welcome is not None and socket.welcome["code"] == "rate_limited"
        # Creating a table is no look-up by code: not refused.
        assert (await server.http.post("/api/tables", json={"name": "新桌"})).status_code == 201
