"""/api/odds, /api/game-length, /api/charts/*.svg: the library's numbers, SVG, cache, problems."""

from __future__ import annotations

import asyncio
import json
import os
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlencode

import httpx
import pytest
from webtools import SMALL_PRIZES, create_table, running_server

from bobing.analysis import plots
from bobing.analysis import simulate as simulation
from bobing.analysis.bell import SECONDS_PER_THROW
from bobing.analysis.markov import expected_game_length
from bobing.analysis.odds import odds
from bobing.analysis.simulate import simulate
from bobing.engine.presets import MODERN, TRADITIONAL
from bobing.engine.rules import rules_from_json
from bobing.tables.limits import Limits
from bobing.web.routes import analysis
from bobing.web.settings import Settings


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[str]:
    """Analysis in threads here: a test counts the computations by patching this process.

    The server's own worker processes are used by the tests of tests/security.
    """
    async with running_server(Settings(db_url=db_url, analysis_processes=False)) as url:
        yield url


SMALL = json.dumps({"preset": "modern", "prizes": SMALL_PRIZES})
"""A 9-cake set: games of a few dozen throws, so the simulation and the chain are quick."""
SVG = "{http://www.w3.org/2000/svg}svg"


def as_json(value: Any) -> Any:
    """What a value looks like after a trip through JSON."""
    return json.loads(json.dumps(value))


def problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert body["code"] == code and body["status"] == status
    assert body["type"] == f"urn:bobing:problem:{code}"
    assert body["title"] and body["detail"]
    return body


async def test_odds_are_the_library_odds(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/odds", params={"rules": "traditional"})
    assert response.status_code == 200
    body = response.json()
    assert body == as_json(odds(TRADITIONAL).to_json())
    assert body["hands"]["yixiu"] == 17400 and body["total"] == 46656
    assert round(body["hand_odds"]["yixiu"]["probability"] * 100, 2) == 37.29
    assert response.headers["cache-control"].startswith("public")
    # the default is traditional; aliases work
    assert (await http.get("/api/odds")).json() == body
    modern = (await http.get("/api/odds", params={"rules": "通行"})).json()
    assert modern == as_json(odds(MODERN).to_json()) != body
    # a rule object, as JSON text in the query or as the body of a POST
    custom = {"preset": "modern", "sijin_bonus": False, "six_ones": "biandijin"}
    expected = as_json(odds(rules_from_json(custom)).to_json())
    query = await http.get("/api/odds", params={"rules": json.dumps(custom)})
    assert query.json() == expected
    posted = await http.post("/api/odds", json=custom)
    assert posted.status_code == 200 and posted.json() == expected
    assert posted.json()["hands"]["biandijin"] == 1


async def test_odds_of_a_table(http: httpx.AsyncClient) -> None:
    rules = {"preset": "jinhua", "chase": {"tiers": ["duitang"]}, "prizes": SMALL_PRIZES}
    created = await create_table(http, rules=rules)
    body = (await http.get("/api/odds", params={"table": created["code"].lower()})).json()
    assert body == as_json(odds(rules_from_json(rules)).to_json())
    assert body["rules"]["preset"] == "jinhua" and body["rules"]["prizes"]["yixiu"] == 3


async def test_game_length_agrees_with_the_library(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/game-length", params={"players": 10})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["players"] == 10 and body["rules"] == {"preset": "traditional"}
    exact = expected_game_length(TRADITIONAL, 10)
    assert body["exact"] == as_json(exact.to_json())
    assert round(body["exact"]["throws_mean"], 2) == 228.07
    sim = body["simulation"]
    result = simulate(TRADITIONAL, 10, analysis.GAMES, seed=analysis.SEED, workers=1)
    assert sim["games"] == analysis.GAMES and sim["seed"] == analysis.SEED
    throws = result.throws
    for name, q in (("p5", 0.05), ("p50", 0.5), ("p90", 0.9), ("p95", 0.95), ("p99", 0.99)):
        assert sim["throws"][name] == throws.quantile(q), name
    assert sim["throws"]["mean"] == round(throws.mean, 4)
    assert sim["rounds"]["p50"] == result.rounds.quantile(0.5)
    assert sim["ended_by"] == {k: round(v, 6) for k, v in result.ended_by.items()}
    assert [seat["seat"] for seat in sim["seats"]] == list(range(1, 11))
    assert sim["seats"] == [seat.to_json() for seat in result.seats]
    # the sample agrees with the chain
    assert abs(throws.mean - exact.throws_mean) < 4 * throws.std / analysis.GAMES**0.5


async def test_game_length_of_a_table_and_of_huge_prize_sets(http: httpx.AsyncClient) -> None:
    created = await create_table(http, rules="modern", prizes=SMALL_PRIZES)
    by_table = await http.get("/api/game-length", params={"players": 4, "table": created["code"]})
    by_rules = await http.get("/api/game-length", params={"players": 4, "rules": SMALL})
    assert by_table.status_code == 200 and by_table.json() == by_rules.json()
    # too many pool states for the chain: no exact answer, and fewer games
    huge = {"preset": "traditional", "prizes": {"duitang": 900, "sanhong": 999}}
    # The chain's state count is found too big only after it was tried, then the games run: the
    # longest analysis a test asks for (a few seconds alone, 30 s or more beside a loaded run:
    # CI's ReadTimeout), so it waits longer than the client's usual 30 s.
    reply = await http.get(
        "/api/game-length", params={"players": 2, "rules": json.dumps(huge)}, timeout=120
    )
    assert reply.status_code == 200, reply.text
    body = reply.json()
    assert body["exact"] is None
    games = body["simulation"]["games"]
    assert analysis.MIN_GAMES <= games < analysis.GAMES
    # 六勃红 or 六勃黑 (1 throw in 7776) ends nearly every such game long before 900 对堂
    mean = body["simulation"]["throws"]["mean"]
    assert 0.5 < mean * games / analysis.THROW_BUDGET < 2
    assert body["simulation"]["ended_by"]["exhausted"] < 0.01


async def test_game_length_under_a_time_limit(http: httpx.AsyncClient) -> None:
    """The pace is the analysis layer's; a time limit says how many games it cuts short."""
    params = {"players": 4, "rules": SMALL}
    plain = (await http.get("/api/game-length", params=params)).json()
    assert plain["seconds_per_throw"] == SECONDS_PER_THROW
    assert "time_limit" not in plain
    result = simulate(
        rules_from_json(json.loads(SMALL)),
        4,
        plain["simulation"]["games"],
        seed=analysis.SEED,
        workers=1,
    )
    p50 = result.throws.quantile(0.5)
    # a limit of exactly the median game at that pace: about half of all games run past it
    minutes = max(1, round(p50 * SECONDS_PER_THROW / 60))
    reply = await http.get("/api/game-length", params={**params, "minutes": minutes})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    throws = int(minutes * 60 // SECONDS_PER_THROW)
    assert body["time_limit"] == {
        "minutes": minutes,
        "seconds_per_throw": SECONDS_PER_THROW,
        "throws": throws,
        "runs_past": round(result.throws.share_above(throws), 4),
    }
    assert {k: v for k, v in body.items() if k != "time_limit"} == plain
    # a whole day: no game runs past it; none of a minute's throws ends the game
    day = (await http.get("/api/game-length", params={**params, "minutes": 1440})).json()
    assert day["time_limit"]["runs_past"] == 0
    minute = (await http.get("/api/game-length", params={**params, "minutes": 1})).json()
    assert minute["time_limit"]["runs_past"] > 0.99
    for bad in (0, 1441, "soon"):
        problem(
            await http.get("/api/game-length", params={**params, "minutes": bad}),
            422,
            "invalid_field",
        )


async def test_charts_are_svg_in_the_asked_language(http: httpx.AsyncClient) -> None:
    texts = {}
    for kind in analysis.CHARTS:
        for lang in ("en", "zh-Hant"):
            params = {"players": 3, "rules": SMALL, "lang": lang}
            response = await http.get(f"/api/charts/{kind}.svg", params=params)
            assert response.status_code == 200, response.text
            assert response.headers["content-type"] == "image/svg+xml"
            assert response.headers["x-content-type-options"] == "nosniff"
            assert "default-src 'none'" in response.headers["content-security-policy"]
            root = ET.fromstring(response.content)
            assert root.tag == SVG
            texts[kind, lang] = response.text
    assert "throws per game" in texts["length", "en"]
    assert "Seat fairness" in texts["seats", "en"]
    assert texts["length", "en"] != texts["seats", "en"]
    if plots.cjk_font() is not None:
        assert texts["length", "en"] != texts["length", "zh-Hant"]
    # Accept-Language when there is no ?lang=
    headers = {"Accept-Language": "en-GB,en;q=0.8"}
    params = {"players": 3, "rules": SMALL}
    english = await http.get("/api/charts/seats.svg", params=params, headers=headers)
    assert english.text == texts["seats", "en"]


async def test_answers_are_computed_once(
    http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[Any, ...]] = []
    real_length, real_chart = analysis.game_length, analysis.chart

    def counted_length(*args: Any) -> analysis.GameLengthReport:
        calls.append(("length", args[1]))
        return real_length(*args)

    def counted_chart(report: analysis.GameLengthReport, kind: str, lang: str) -> bytes:
        calls.append(("chart", kind, lang))
        return real_chart(report, kind, lang)

    monkeypatch.setattr(analysis, "game_length", counted_length)
    monkeypatch.setattr(analysis, "chart", counted_chart)
    query = urlencode({"players": 5, "rules": SMALL, "lang": "en"})
    urls = [f"/api/game-length?{query}"] * 3 + [f"/api/charts/length.svg?{query}"] * 3
    first = await asyncio.gather(*(http.get(url) for url in urls))
    again = await asyncio.gather(*(http.get(url) for url in urls))
    assert all(r.status_code == 200 for r in first + again)
    assert [r.content for r in first] == [r.content for r in again]
    assert sorted(calls) == [("chart", "length", "en"), ("length", 5)]
    # the same rules by another name (a preset's alias) hit the same entry
    await http.get("/api/game-length", params={"players": 5, "rules": "通行"})
    await http.get("/api/game-length", params={"players": 5, "rules": "modern"})
    assert calls.count(("length", 5)) == 2


async def test_the_cache_forgets_the_least_recent() -> None:
    cache = analysis.AnalysisCache(size=2)
    computed: list[str] = []

    def make(key: str) -> Any:
        return lambda: computed.append(key) or key

    for key in ("a", "b", "a", "c", "a", "b"):
        assert await cache.get(cache.lengths, key, make(key), 2) == key
    assert computed == ["a", "b", "c", "b"]
    assert list(cache.lengths) == ["a", "b"]


async def test_a_failed_computation_is_not_cached() -> None:
    cache = analysis.AnalysisCache()
    attempts: list[int] = []

    def fails() -> Any:
        attempts.append(1)
        raise RuntimeError("boom")

    for _ in range(2):
        with pytest.raises(RuntimeError, match="boom"):
            await cache.get(cache.lengths, "k", fails, 2)
    assert len(attempts) == 2 and not cache.lengths


@pytest.mark.parametrize(
    ("path", "params", "status", "code"),
    [
        ("/api/game-length", {"players": 1}, 422, "invalid_field"),
        ("/api/game-length", {"players": 31}, 422, "invalid_field"),
        ("/api/game-length", {"players": "ten"}, 422, "invalid_field"),
        ("/api/charts/seats.svg", {"players": 0}, 422, "invalid_field"),
        ("/api/odds", {"rules": "nonsense"}, 422, "invalid_rules"),
        ("/api/odds", {"rules": "/etc/passwd"}, 422, "invalid_rules"),
        ("/api/odds", {"rules": "rules.json"}, 422, "invalid_rules"),
        ("/api/odds", {"rules": "{not json"}, 422, "invalid_rules"),
        ("/api/odds", {"rules": '{"preset": "modern", "bogus": 1}'}, 422, "invalid_rules"),
        ("/api/odds", {"rules": '{"liubohei": "maybe"}'}, 422, "invalid_rules"),
        ("/api/odds", {"rules": "[1, 2]"}, 422, "invalid_rules"),
        (
            "/api/game-length",
            {"rules": json.dumps({"prizes": dict.fromkeys(SMALL_PRIZES, 0)})},
            422,
            "invalid_rules",
        ),
        ("/api/odds", {"table": "ZZZZZZ"}, 404, "table_not_found"),
        ("/api/charts/length.svg", {"table": "ZZZZZZ"}, 404, "table_not_found"),
        ("/api/odds", {"table": "ZZZZZZ", "rules": "modern"}, 422, "invalid_field"),
        ("/api/charts/pie.svg", {}, 404, "not_found"),
    ],
)
async def test_bad_input_gets_a_problem(
    http: httpx.AsyncClient, path: str, params: dict[str, Any], status: int, code: str
) -> None:
    problem(await http.get(path, params=params), status, code)


async def test_problems_quote_the_input_in_the_asked_language(http: httpx.AsyncClient) -> None:
    english = problem(
        await http.get("/api/odds", params={"rules": "nonsense", "lang": "en"}),
        422,
        "invalid_rules",
    )
    assert "'nonsense'" in english["detail"] and english["title"] == "Invalid rules"
    chinese = problem(
        await http.get("/api/odds", params={"rules": "nonsense"}), 422, "invalid_rules"
    )
    assert chinese["title"] != english["title"] and "'nonsense'" in chinese["detail"]
    players = problem(
        await http.get("/api/game-length", params={"players": 99, "lang": "en"}),
        422,
        "invalid_field",
    )
    assert "players" in players["detail"]


async def test_bad_bodies(http: httpx.AsyncClient) -> None:
    problem(
        await http.post(
            "/api/odds", content=b"{oops", headers={"content-type": "application/json"}
        ),
        400,
        "malformed",
    )
    problem(await http.post("/api/odds", json=["modern"]), 400, "malformed")
    problem(await http.post("/api/odds", json={"preset": "nope"}), 422, "invalid_rules")


async def test_openapi_documents_the_routes(http: httpx.AsyncClient) -> None:
    paths = (await http.get("/openapi.json")).json()["paths"]
    assert set(paths["/api/odds"]) == {"get", "post"}
    assert "/api/game-length" in paths and "/api/charts/{kind}.svg" in paths
    params = {p["name"] for p in paths["/api/game-length"]["get"]["parameters"]}
    assert params == {"players", "rules", "table", "minutes"}
    assert "422" in paths["/api/game-length"]["get"]["responses"]


def test_table_sizes_are_the_simulations() -> None:
    assert (analysis.MIN_PLAYERS, analysis.MAX_PLAYERS) == (
        simulation.MIN_PLAYERS,
        simulation.MAX_PLAYERS,
    )


@pytest.mark.parametrize("nice", [0, 7])
def test_the_worker_processes_step_back_by_worker_nice(nice: int) -> None:
    """``worker_nice`` is how much lower than the server the workers run (``os.nice(0)``
    answers a process's own niceness)."""
    cache = analysis.AnalysisCache(limits=Limits(worker_nice=nice), processes=True)
    try:
        assert cache._executor.submit(os.nice, 0).result(timeout=60) == os.nice(0) + nice
    finally:
        cache.close()
