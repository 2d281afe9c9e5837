"""Every kind of bad input gets a specific error; the connection stays usable; nothing changes."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from typing import Any

import httpx
import pytest
import websockets
from webtools import TIMEOUT, Client, create_table, join, ws_url

PROBLEM_KEYS = {"type", "title", "status", "detail", "code", "params"}


def problem(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = response.json()
    assert set(body) == PROBLEM_KEYS
    assert body["code"] == code
    assert body["status"] == status
    assert body["type"] == f"urn:bobing:problem:{code}"
    return body


async def lobby(
    http: httpx.AsyncClient, mode: str = "online"
) -> tuple[dict[str, Any], dict[str, str]]:
    created = await create_table(http, mode=mode)
    tokens = {n: (await join(http, created["code"], n))["player_token"] for n in ("甲", "乙")}
    return created, tokens


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("<b>甲</b>", "invalid_name"),
        ("a&b", "invalid_name"),
        ('say "hi"', "invalid_name"),
        ("tab\there", "invalid_name"),
        ("zero\u200bwidth", "invalid_name"),
        ("   ", "invalid_name"),
        ("名" * 25, "name_too_long"),
    ],
)
async def test_bad_player_names(http: httpx.AsyncClient, name: str, code: str) -> None:
    created, _ = await lobby(http)
    body = problem(
        await http.post(f"/api/tables/{created['code']}/join", json={"name": name}), 422, code
    )
    assert body["detail"]
    state = (await http.get(f"/api/tables/{created['code']}")).json()
    assert [p["name"] for p in state["players"]] == ["甲", "乙"]


async def test_name_taken_and_thirteenth_player(http: httpx.AsyncClient) -> None:
    created, _ = await lobby(http)
    code = created["code"]
    problem(await http.post(f"/api/tables/{code}/join", json={"name": " 甲 "}), 409, "name_taken")
    for i in range(10):
        await join(http, code, f"p{i}")
    body = problem(
        await http.post(f"/api/tables/{code}/join", json={"name": "十三"}), 409, "table_full"
    )
    assert body["params"]["limit"] == 12
    state = (await http.get(f"/api/tables/{code}")).json()
    assert len(state["players"]) == 12


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"name": "<script>"}, 422, "invalid_name"),
        ({"name": "x" * 41}, 422, "name_too_long"),
        ({"name": "t", "mode": "bluetooth"}, 422, "invalid_field"),
        ({"name": "t", "rules": "poker"}, 422, "invalid_rules"),
        ({"name": "t", "rules": {"preset": "modern", "tiaohou": "maybe"}}, 422, "invalid_rules"),
        ({"name": "t", "prizes": {"gold": 1}}, 422, "invalid_rules"),
        ({"name": "t", "prizes": {"yixiu": -1}}, 422, "invalid_rules"),
        (
            {"name": "t", "named_prizes": {"zhuangyuan": {"name": "<i>", "value": 1}}},
            422,
            "invalid_name",
        ),
        (
            {"name": "t", "named_prizes": {"zhuangyuan": {"name": "x", "value": -5}}},
            422,
            "invalid_field",
        ),
        ({"name": "t", "surprise": 1}, 422, "invalid_field"),
        ({"name": 5}, 422, "invalid_field"),
        ({}, 422, "invalid_field"),
        ([1, 2], 400, "malformed"),
    ],
)
async def test_bad_table_creation(
    http: httpx.AsyncClient, body: Any, status: int, code: str
) -> None:
    problem(await http.post("/api/tables", json=body), status, code)


async def test_malformed_and_oversized_bodies(http: httpx.AsyncClient) -> None:
    problem(
        await http.post(
            "/api/tables", content=b"{not json", headers={"content-type": "application/json"}
        ),
        400,
        "malformed",
    )
    problem(await http.post("/api/tables", json={"name": "x" * 100_000}), 413, "too_large")
    problem(await http.get("/api/tables/NOSUCH"), 404, "table_not_found")
    problem(await http.get("/api/nothing-here"), 404, "not_found")


async def test_problem_language(http: httpx.AsyncClient) -> None:
    created, _ = await lobby(http)
    url = f"/api/tables/{created['code']}/join"
    zh = problem(await http.post(url, json={"name": "甲"}), 409, "name_taken")
    en = problem(
        await http.post(url, json={"name": "甲"}, headers={"Accept-Language": "en-GB,en;q=0.8"}),
        409,
        "name_taken",
    )
    hant = problem(await http.post(url + "?lang=zh-TW", json={"name": "甲"}), 409, "name_taken")
    assert zh["title"] == "名字已被占用" and "甲" in zh["detail"]
    assert en["title"] == "Name taken" and "甲" in en["detail"]
    assert hant["title"] == "名字已被使用"


async def test_bad_frames_keep_the_connection(http: httpx.AsyncClient, server: str) -> None:
    created, _tokens = await lobby(http)
    code = created["code"]
    host = await Client.connect(server, code, [created["host_token"]], lang="en")
    before = (await http.get(f"/api/tables/{code}")).json()

    async def error_for(frame: str | bytes) -> dict[str, Any]:
        await host.send(frame)
        found: dict[str, Any] = await host.until(lambda f: f["type"] == "error")
        return found

    assert (await error_for("{not json"))["code"] == "malformed"
    assert (await error_for(b"\xff\xfe"))["code"] == "malformed"
    assert (await error_for("[1, 2, 3]"))["code"] == "malformed"
    big = await error_for(json.dumps({"type": "ping", "pad": "x" * 5000}))
    assert big["code"] == "too_large" and big["params"]["limit"] == 4096
    assert (await error_for(json.dumps({"type": "fly"})))["code"] == "unknown_command"
    assert (await error_for(json.dumps({"id": "x"})))["code"] == "unknown_command"
    assert (await error_for(json.dumps({"type": "start", "id": "bad id!"})))[
        "code"
    ] == "invalid_field"
    unknown_field = await error_for(json.dumps({"type": "start", "id": "s1", "color": "red"}))
    assert unknown_field["code"] == "invalid_field" and unknown_field["id"] == "s1"
    assert unknown_field["params"]["field"] == "color"
    assert (await host.command("reorder"))["code"] == "invalid_field"
    assert (await host.command("remove", player="戊"))["code"] == "unknown_player"
    assert (await host.command("reorder", players=["甲"]))["code"] == "invalid_field"
    assert (await host.command("throw"))["code"] == "not_playing"
    assert (await host.command("pause"))["code"] == "not_playing"
    assert (await host.command("auth", token="nope"))["code"] == "invalid_token"
    pong = await host.command("ping")
    assert pong["type"] == "pong"
    after = (await http.get(f"/api/tables/{code}")).json()
    assert after == before
    await host.close()


async def test_tokens_and_turns(http: httpx.AsyncClient, server: str) -> None:
    created, tokens = await lobby(http)
    code = created["code"]
    host = await Client.connect(server, code, [created["host_token"]], lang="en")
    a = await Client.connect(server, code, [tokens["甲"]], lang="en")
    b = await Client.connect(server, code, [tokens["乙"]], lang="en")
    spectator = await Client.connect(server, code, lang="en")
    stranger = await Client.connect(server, code, ["h_not-a-token"], lang="en")
    assert stranger.welcome is not None and stranger.welcome["code"] == "invalid_token"

    # Host-only actions.
    for client in (a, spectator, stranger):
        assert (await client.command("start"))["code"] == "forbidden"
        assert (await client.command("remove", player="乙"))["code"] == "forbidden"
    reply = await host.command("start", starter="甲")
    assert reply["type"] == "ack"
    await host.reach(reply["last_seq"])
    before = (await http.get(f"/api/tables/{code}")).json()

    # Out of turn, no token, somebody else's name, the host in online mode.
    wrong = await b.command("throw", turn=1)
    assert wrong["code"] == "not_your_turn"
    assert wrong["params"] == {"next": "甲", "player": "乙", "turn": 1}
    assert "甲" in wrong["detail"] and "乙" in wrong["detail"]
    assert (await spectator.command("throw"))["code"] == "forbidden"
    assert (await host.command("throw"))["code"] == "forbidden"
    assert (await b.command("throw", player="甲"))["code"] == "not_your_turn"
    assert (await a.command("throw", player="乙"))["code"] == "not_your_turn"
    assert (await a.command("throw", turn=2))["code"] == "turn_taken"
    assert (await a.command("throw", dice="444444"))["code"] == "wrong_mode"
    assert (await a.command("throw", tiaohou=True))["code"] == "wrong_mode"
    assert (await a.command("throw", nonce="has space"))["code"] == "invalid_nonce"
    assert (await host.command("start"))["code"] == "not_in_lobby"
    assert (await host.command("reorder", players=["乙", "甲"]))["code"] == "not_in_lobby"
    problem(await http.post(f"/api/tables/{code}/join", json={"name": "丙"}), 409, "not_in_lobby")
    # REST commands need a token of this table.
    url = f"/api/tables/{code}/commands"
    problem(await http.post(url, json={"type": "throw"}), 403, "forbidden")
    problem(
        await http.post(url, json={"type": "throw"}, headers={"Authorization": "Bearer zzz"}),
        401,
        "invalid_token",
    )
    problem(
        await http.post(
            url, json={"type": "throw"}, headers={"Authorization": f"Bearer {tokens['乙']}"}
        ),
        409,
        "not_your_turn",
    )
    problem(await http.post(url, content=b"x" * 5000), 413, "too_large")
    after = (await http.get(f"/api/tables/{code}")).json()
    assert after == before

    # Paused tables do not throw; the connection is still fine afterwards.
    await host.command("pause")
    assert (await a.command("throw"))["code"] == "not_playing"
    assert (await host.command("resume"))["type"] == "ack"
    assert (await a.command("throw", turn=1))["type"] == "ack"
    for client in (host, a, b, spectator, stranger):
        await client.close()


@pytest.mark.parametrize(
    "dice", ["44441", "4444123", "044412", "744412", "abcdef", [4, 4, 4, 4, 1, 9], [4, 4, 4]]
)
async def test_invalid_referee_faces(http: httpx.AsyncClient, server: str, dice: Any) -> None:
    created, tokens = await lobby(http, mode="referee")
    code = created["code"]
    host = await Client.connect(server, code, [created["host_token"]], lang="en")
    player = await Client.connect(server, code, [tokens["甲"]])
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    before = (await http.get(f"/api/tables/{code}")).json()
    error = await host.command("throw", dice=dice)
    assert error["code"] == "invalid_dice", error
    assert (await host.command("throw"))["code"] == "invalid_field"
    assert (await host.command("throw", dice="444412", tiaohou=True))["code"] == "invalid_field"
    assert (await host.command("throw", nonce="abc", dice="444412"))["code"] == "wrong_mode"
    # Without referee_thrower, a player may not submit faces.
    assert (await player.command("throw", dice="444412"))["code"] == "forbidden"
    assert (await http.get(f"/api/tables/{code}")).json() == before
    assert (await host.command("throw", dice="444412"))["type"] == "ack"
    await host.close()
    await player.close()


async def test_unknown_table_socket(server: str) -> None:
    client = await Client.connect(server, "ZZZZZZ")
    assert client.welcome is not None and client.welcome["code"] == "table_not_found"
    await client.close()


async def test_database_trouble_is_a_clean_503(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    created, _ = await lobby(http)
    code = created["code"]
    host = await Client.connect(server, code, [created["host_token"]], lang="en")
    # Break the database under the running server: the log table disappears.
    path = db_url.split(":///", 1)[1]
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE bobing_events")
    error = await host.command("start")
    assert error["type"] == "error" and error["code"] == "unavailable"
    assert (await host.command("ping"))["type"] == "pong"  # the socket survives
    # A socket opened now cannot get the table or its backlog: an error frame, then the
    # server closes it (1011) so that the client retries later.
    async with websockets.connect(ws_url(server, code, lang="en")) as late:
        first = json.loads(await late.recv())
        assert first["type"] == "welcome" or first["code"] == "unavailable"
        with pytest.raises(websockets.ConnectionClosed) as closed:
            while True:
                await asyncio.wait_for(late.recv(), TIMEOUT)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1011
    body = problem(await http.get(f"/api/tables/{code}/events"), 503, "unavailable")
    assert "Traceback" not in body["detail"]
    problem(await http.post(f"/api/tables/{code}/join", json={"name": "丙"}), 503, "unavailable")
    await host.close()
