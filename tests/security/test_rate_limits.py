"""Issue 9: limits, so that one client cannot hurt the others.

Per-address rate limits (429 with ``Retry-After``, an RFC 9457 problem in the client's
language), the open-table quota, the analysis workers' bounded queue and timeout (503 with
``Retry-After``), the size of a table's log, and retention. Nothing here measures time: the
limits are set small and the answers are counted.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from sectools import TIMEOUT, Client, open_table, problem_of, served


async def test_creating_tables_is_rate_limited(tmp_path: Path) -> None:
    async with served(tmp_path, "create_per_minute=3", "open_tables_per_address=0") as server:
        statuses = [
            (await server.http.post("/api/tables", json={"name": f"t{i}"})).status_code
            for i in range(3)
        ]
        assert statuses == [201, 201, 201]
        response = await server.http.post(
            "/api/tables", json={"name": "one too many"}, headers={"Accept-Language": "zh-Hans"}
        )
        problem = problem_of(response, 429, "rate_limited")
        assert problem["title"] == "请求太频繁"
        assert 1 <= int(response.headers["Retry-After"]) <= 20
        assert problem["params"]["retry_after"] == int(response.headers["Retry-After"])
        english = await server.http.post("/api/tables?lang=en", json={"name": "again"})
        assert problem_of(english, 429, "rate_limited")["title"] == "Too many requests"
        # Other requests from the same address go on.
        assert (await server.http.get("/api/health")).status_code == 200


async def test_joining_is_rate_limited(tmp_path: Path) -> None:
    async with served(tmp_path, "join_per_minute=2") as server:
        created, _ = await open_table(server.http, ["甲", "乙"])
        response = await server.http.post(
            f"/api/tables/{created['code']}/join", json={"name": "丙"}
        )
        problem_of(response, 429, "rate_limited")
        state = (await server.http.get(f"/api/tables/{created['code']}")).json()
        assert [p["name"] for p in state["players"]] == ["甲", "乙"]


async def test_analysis_is_rate_limited(tmp_path: Path) -> None:
    """At 4 a minute a request comes back every 15 s: the refused ones answer at once (no
    tarpit), so the whole test stays well inside that window on a busy machine."""
    async with served(tmp_path, "analysis_per_minute=4", "tarpit_seconds=0") as server:
        answers = [
            (await server.http.get("/api/odds", params={"rules": "modern"})).status_code
            for _ in range(4)
        ]
        assert answers == [200, 200, 200, 200]
        for route in ("/api/odds", "/api/game-length", "/api/charts/length.svg"):
            response = await server.http.get(route, params={"players": 3})
            problem_of(response, 429, "rate_limited")
            assert "Retry-After" in response.headers
        response = await server.http.post("/api/odds", json={"preset": "jinhua"})
        problem_of(response, 429, "rate_limited")


async def test_a_new_rulebook_counts_as_analysis_a_cached_one_is_free(tmp_path: Path) -> None:
    async with served(tmp_path, "analysis_per_minute=2") as server:
        for preset in ("traditional", "modern"):
            assert (await server.http.post("/api/rulebook", json=preset)).status_code == 200
        for _ in range(5):  # a table's phones asking for the same rules
            assert (await server.http.post("/api/rulebook", json="modern")).status_code == 200
        response = await server.http.post("/api/rulebook", json={"preset": "jinhua"})
        problem_of(response, 429, "rate_limited")


async def test_new_rulebooks_wait_in_a_bounded_queue_off_the_loop(tmp_path: Path) -> None:
    """Issue 29: a new rule set's rulebook (tens of ms of the engine) was built on the event
    loop, one after the other, so strangers sending distinct ones slowed every table and
    always got their answer. Now one worker thread builds them and none waits: a stranger's
    flood is refused ``busy`` at once, while a kept rulebook and the rest still answer."""
    async with served(
        tmp_path, "analysis_per_minute=0", "rulebook_workers=1", "rulebook_queue=0"
    ) as server:
        assert (await server.http.post("/api/rulebook", json="modern")).status_code == 200
        asked = [{"preset": "traditional", "prizes": {"yixiu": 1 + n}} for n in range(12)]
        responses = await asyncio.gather(
            *(server.http.post("/api/rulebook", json=spec) for spec in asked),
            server.http.post("/api/rulebook", json="modern"),
            server.http.get("/api/health"),
        )
        *built, kept, health = responses
        statuses = sorted(r.status_code for r in built)
        assert statuses.count(200) >= 1 and statuses.count(503) >= 1, statuses
        for response in built:
            if response.status_code == 503:
                problem_of(response, 503, "busy")
                assert int(response.headers["Retry-After"]) >= 1
        assert kept.status_code == 200 and health.status_code == 200
        # what was built is kept: asked again, it is answered without a worker
        done = [spec for spec, r in zip(asked, built, strict=True) if r.status_code == 200]
        again = await asyncio.gather(*(server.http.post("/api/rulebook", json=s) for s in done))
        assert [r.status_code for r in again] == [200] * len(done)


async def test_open_tables_have_a_quota(tmp_path: Path) -> None:
    async with served(tmp_path, "create_per_minute=0", "open_tables_per_address=2") as server:
        first, _ = await open_table(server.http)
        await open_table(server.http)
        response = await server.http.post("/api/tables", json={"name": "third"})
        problem = problem_of(response, 429, "too_many_tables")
        assert problem["params"]["limit"] == 2
        # Ending a table frees its place.
        reply = await server.http.post(
            f"/api/tables/{first['code']}/commands",
            json={"type": "end", "id": "end-1"},
            headers={"Authorization": f"Bearer {first['host_token']}"},
        )
        assert reply.status_code == 200, reply.text
        response = await server.http.post("/api/tables", json={"name": "third"})
        assert response.status_code == 201


async def test_a_full_analysis_queue_answers_busy(tmp_path: Path) -> None:
    async with served(
        tmp_path, "analysis_per_minute=0", "analysis_workers=1", "analysis_queue=0"
    ) as server:
        # Distinct table sizes are distinct computations: one runs, the others are refused.
        # (Small tables: each takes about half a second here, so even a loaded machine answers
        # the one that runs well within the client's timeout.)
        responses = await asyncio.gather(
            *(server.http.get("/api/game-length", params={"players": n}) for n in range(2, 8))
        )
        statuses = sorted(r.status_code for r in responses)
        assert statuses.count(200) >= 1 and statuses.count(503) >= 1, statuses
        for response in responses:
            if response.status_code == 503:
                problem_of(response, 503, "busy")
                assert int(response.headers["Retry-After"]) >= 1


async def test_a_slow_analysis_times_out_and_is_cached_for_later(tmp_path: Path) -> None:
    async with served(tmp_path, "analysis_per_minute=0", "analysis_timeout=0.001") as server:
        response = await server.http.get("/api/game-length", params={"players": 3})
        problem_of(response, 503, "busy")
        # The computation went on: a later request gets its answer (bounded polling).
        deadline = time.monotonic() + 4 * TIMEOUT
        while time.monotonic() < deadline:
            response = await server.http.get("/api/game-length", params={"players": 3})
            if response.status_code == 200:
                break
            problem_of(response, 503, "busy")
            await asyncio.sleep(0.1)
        assert response.status_code == 200
        assert response.json()["players"] == 3


async def test_a_tables_log_has_a_limit_and_the_host_can_still_end(tmp_path: Path) -> None:
    async with served(tmp_path, "max_events=30") as server:
        created, _ = await open_table(server.http, ["甲", "乙"])
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        assert (await host.command("start"))["type"] == "ack"
        refused = None
        for i in range(40):
            reply = await host.command("pause" if i % 2 == 0 else "resume")
            if reply["type"] == "error":
                refused = reply
                break
        assert refused is not None and refused["code"] == "log_full", refused
        assert refused["params"]["limit"] == 30
        head = (await server.http.get(f"/api/tables/{code}")).json()["last_seq"]
        assert head <= 30
        again = await host.command("pause" if i % 2 == 0 else "resume")
        assert again["type"] == "error" and again["code"] == "log_full"
        assert (await server.http.get(f"/api/tables/{code}")).json()["last_seq"] == head
        ended = await host.command("end")
        assert ended["type"] == "ack", ended
        state = (await server.http.get(f"/api/tables/{code}")).json()
        assert state["status"] == "over" and head < state["last_seq"] <= 30 + 10
        assert state["fairness"]["server_seed"] is not None


async def test_finished_and_abandoned_tables_expire(tmp_path: Path) -> None:
    async with served(
        tmp_path,
        "create_per_minute=0",
        "retention_over_days=0.00002",  # about 1.7 s
        "retention_idle_days=1",
        "sweep_every=0.2",
    ) as server:
        done, _ = await open_table(server.http, ["甲", "乙"])
        kept, _ = await open_table(server.http, ["甲"])
        code = done["code"]
        reply = await server.http.post(
            f"/api/tables/{code}/commands",
            json={"type": "end", "id": "end-1"},
            headers={"Authorization": f"Bearer {done['host_token']}"},
        )
        assert reply.status_code == 200
        # Until it expires the record can be downloaded.
        record = await server.http.get(f"/api/tables/{code}/record")
        assert record.status_code == 200 and record.json()["fairness"]["server_seed"]
        for _ in range(int(TIMEOUT * 10)):
            if (await server.http.get(f"/api/tables/{code}")).status_code == 404:
                break
            await asyncio.sleep(0.1)
        problem_of(await server.http.get(f"/api/tables/{code}/record"), 404, "table_not_found")
        problem_of(await server.http.get(f"/api/tables/{code}/events"), 404, "table_not_found")
        # The table still in its lobby is kept.
        assert (await server.http.get(f"/api/tables/{kept['code']}")).status_code == 200
