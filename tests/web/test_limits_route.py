"""``GET /api/limits`` (issue 28): the limits every form is held to and what an undo voids, from
their one home (bobing/tables/limits.py); the server refuses past a limit with that number."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from test_undo import referee_table, throw, undo

from bobing.engine.events import EVENT_TYPES
from bobing.engine.switches import MAX_PLAYERS, MAX_ROUNDS
from bobing.i18n import LANGS
from bobing.tables.limits import (
    ANALYSIS_PLAYERS,
    MAX_TABLE_NAME,
    SERVED,
    UNDO_VOIDS,
    served_limits,
)
from bobing.tables.tokens import CODE_ALPHABET

PRIZES = [{"name": "一等奖", "count": 1}]


def ranked(rounds: int) -> dict[str, Any]:
    return {"preset": "traditional", "award": "ranked", "ranked_prizes": PRIZES, "rounds": rounds}


async def test_the_limits_are_served(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/limits")
    assert response.status_code == 200
    body = response.json()
    assert body == served_limits()
    assert body["limits"] == dict(SERVED)
    assert body["limits"]["max_rounds"] == MAX_ROUNDS
    assert body["limits"]["max_players"] == MAX_PLAYERS
    assert body["limits"]["max_table_name"] == MAX_TABLE_NAME
    assert all(isinstance(v, int) and v > 0 for v in body["limits"].values())
    assert set(body["undo_voids"]) == UNDO_VOIDS
    assert body["code_alphabet"] == CODE_ALPHABET
    assert body["limits"]["analysis_players"] == ANALYSIS_PLAYERS
    spec = (await http.get("/openapi.json")).json()
    assert "get" in spec["paths"]["/api/limits"]


async def test_the_same_limits_in_every_language(http: httpx.AsyncClient) -> None:
    bodies = [(await http.get(f"/api/limits?lang={lang}")).json() for lang in LANGS]
    assert all(body == bodies[0] for body in bodies)


@pytest.mark.parametrize("lang", LANGS)
async def test_the_server_refuses_rounds_past_the_limit_quoting_it(
    http: httpx.AsyncClient, lang: str
) -> None:
    accepted = await http.post("/api/tables", json={"name": "排名", "rules": ranked(MAX_ROUNDS)})
    assert accepted.status_code == 201, accepted.text
    assert accepted.json()["table"]["rules"]["rounds"] == MAX_ROUNDS
    body = {"name": "排名", "rules": ranked(MAX_ROUNDS + 1)}
    refused = await http.post(f"/api/tables?lang={lang}", json=body)
    assert refused.status_code == 422, refused.text
    problem = refused.json()
    assert problem["params"]["maximum"] == MAX_ROUNDS
    assert f"1-{MAX_ROUNDS}" in problem["detail"], problem
    event = {
        "name": "排名",
        "people": ["甲", "乙", "丙", "丁"],
        "tables": 2,
        "rules": ranked(MAX_ROUNDS + 1),
    }
    preview = await http.post(f"/api/events/preview?lang={lang}", json=event)
    assert preview.status_code == 422, preview.text
    assert f"1-{MAX_ROUNDS}" in preview.json()["detail"]
    event["rules"] = ranked(MAX_ROUNDS)
    assert (await http.post("/api/events/preview", json=event)).status_code == 200


async def test_what_an_undo_voids_is_what_the_fold_drops(
    http: httpx.AsyncClient, server: str
) -> None:
    """The served list against a real undo of a throw that ended the game: everything the
    throw brought is in it; what outlives the undo (the revealed seed) is not."""
    _, _, host = await referee_table(http, server)
    await throw(host, "123456")
    ended = await throw(host, "444444")  # 六勃红: the game is over
    assert ended["status"] == "over"
    reply = await undo(host, throw=2)
    assert reply["type"] == "ack", reply
    undone = host.events[-1]
    between = {e["type"] for e in host.events if undone["from_seq"] <= e["seq"] < undone["seq"]}
    assert {"dice", "thrown", "game_over", "ended"} <= between & UNDO_VOIDS
    assert between - UNDO_VOIDS == {"seed_revealed"}
    assert host.state is not None and host.state["fairness"]["server_seed"] is not None
    assert set(EVENT_TYPES) <= UNDO_VOIDS  # the fold drops every game event from the throw on
