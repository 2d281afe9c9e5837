"""Complete games to the 状元 in every mode, with several real WebSocket clients."""

from __future__ import annotations

import csv
import io
import random
import uuid
from typing import Any

import httpx
import pytest
from webtools import (
    SMALL_PRIZES,
    TIMEOUT,
    Client,
    create_table,
    join,
    root_conftest,
    running_server,
)

from bobing.engine.fairness import verify_record
from bobing.engine.record import adjudicate
from bobing.storage import Database
from bobing.web.settings import Settings

NAMES = ["甲", "乙", "丙", "丁"]


async def check_finished(
    http: httpx.AsyncClient, code: str, clients: list[Client]
) -> dict[str, Any]:
    """Every client saw the same complete log; the record replays and verifies."""
    head = (await http.get(f"/api/tables/{code}")).json()
    for client in clients:
        await client.reach(head["last_seq"])
    logged = (await http.get(f"/api/tables/{code}/events")).json()
    assert logged["last_seq"] == head["last_seq"]
    for client in clients:
        assert client.events == logged["events"], client.name
        assert client.state == head
    assert head["status"] == "over"
    assert head["end_reason"] == "game_over"
    assert head["result"]["status"] == "over"
    assert head["result"]["zhuangyuan"] is not None
    assert head["next"] is None
    assert head["fairness"]["server_seed"] is not None
    types = [e["type"] for e in logged["events"]]
    assert types[-2:] == ["ended", "seed_revealed"]
    assert "game_over" in types

    record = (await http.get(f"/api/tables/{code}/record")).json()
    judged = adjudicate(record)
    for key in ("status", "ended_by", "zhuangyuan", "holdings", "pool"):
        assert judged[key] == head["result"][key], key

    rows = list(
        csv.DictReader(
            io.StringIO((await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff"))
        )
    )
    assert [r["player"] for r in rows] == [p["name"] for p in head["players"]]
    total = sum(int(r["cakes"]) for r in rows)
    unowned = sum(head["result"]["pool"].values())
    assert total + unowned == sum(head["rules"]["prizes"].values())
    winner = head["result"]["zhuangyuan"]["player"]
    assert next(r for r in rows if r["player"] == winner)["zhuangyuan"] == "1"
    return record


async def play(observer: Client, act: Any, max_throws: int = 3000) -> int:
    """Throw until the game is over; ``act(state)`` sends one throw and returns its reply."""
    throws = 0
    while observer.state is None or observer.state["status"] != "over":
        assert observer.state is not None
        reply = await act(observer.state)
        assert reply["type"] == "ack", reply
        await observer.reach(reply["last_seq"])
        throws += 1
        assert throws < max_throws
    return throws


async def test_online_game_to_the_zhuangyuan(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(
        http,
        mode="online",
        rules="modern",
        prizes=SMALL_PRIZES,
        named_prizes={"zhuangyuan": {"name": "金月饼", "value": 188}},
    )
    code = created["code"]
    tokens = {name: (await join(http, code, name))["player_token"] for name in NAMES}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    players = {n: await Client.connect(server, code, [t], name=n) for n, t in tokens.items()}
    spectator = await Client.connect(server, code, name="spectator")
    assert spectator.welcome is not None and spectator.welcome["roles"] == []
    assert players["乙"].welcome is not None and players["乙"].welcome["player"] == "乙"

    reply = await host.command("start_dice", thrower="丙", nonce="start-1")
    assert reply["type"] == "ack", reply
    reply = await host.command("start")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    assert host.state is not None
    assert host.state["status"] == "playing"
    assert host.state["next"] == host.state["start_dice"]["starter"]

    async def act(state: dict[str, Any]) -> dict[str, Any]:
        return await players[state["next"]].command(
            "throw", turn=state["turn"], nonce=f"n{state['turn']}"
        )

    await play(host, act)
    clients = [host, spectator, *players.values()]
    record = await check_finished(http, code, clients)
    checks = verify_record(record)
    assert checks[0].throw == 0  # the start dice are verified too
    assert len(checks) == 1 + len(record["throws"])
    for client in clients:
        await client.close()


async def test_pass_and_play_game(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="pass_and_play", prizes=SMALL_PRIZES)
    code = created["code"]
    assert created["play_token"]
    for name in NAMES[:3]:
        await join(http, code, name)
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    phone_a = await Client.connect(server, code, [created["play_token"]], name="phone-a")
    phone_b = await Client.connect(server, code, [created["play_token"]], name="phone-b")
    assert phone_a.welcome is not None and phone_a.welcome["roles"] == ["play"]
    await host.command("reorder", players=["丙", "甲", "乙"])
    reply = await host.command("start")
    assert reply["type"] == "ack"
    await host.reach(reply["last_seq"])
    assert host.state is not None and host.state["next"] == "丙"

    async def act(state: dict[str, Any]) -> dict[str, Any]:
        # Any device with the play token throws for whoever's turn it is.
        phone = phone_a if state["turn"] % 2 else phone_b
        return await phone.command("throw", turn=state["turn"])

    await play(host, act)
    record = await check_finished(http, code, [host, phone_a, phone_b])
    verify_record(record)
    assert record["players"] == ["丙", "甲", "乙"]
    for client in (host, phone_a, phone_b):
        await client.close()


@pytest.mark.parametrize("referee_thrower", [False, True])
async def test_referee_game(http: httpx.AsyncClient, server: str, referee_thrower: bool) -> None:
    created = await create_table(
        http, mode="referee", prizes=SMALL_PRIZES, referee_thrower=referee_thrower
    )
    code = created["code"]
    tokens = {name: (await join(http, code, name))["player_token"] for name in NAMES[:3]}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    players = {n: await Client.connect(server, code, [t], name=n) for n, t in tokens.items()}
    reply = await host.command("start_dice", thrower="乙", dice=[2, 3])
    assert reply["type"] == "ack", reply
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    rng = random.Random(7)

    async def act(state: dict[str, Any]) -> dict[str, Any]:
        if state["phase"] == "grab":
            allocation: dict[str, dict[str, int]] = {}
            names = [p["name"] for p in state["players"]]
            for tier, count in state["result"]["pool"].items():
                for _ in range(count):
                    row = allocation.setdefault(rng.choice(names), {})
                    row[tier] = row.get(tier, 0) + 1
            return await host.command("grab", allocation=allocation)
        sender = players[state["next"]] if referee_thrower and state["turn"] % 2 else host
        if rng.random() < 0.05:
            return await sender.command("throw", turn=state["turn"], tiaohou=True)
        dice = "".join(str(rng.randint(1, 6)) for _ in range(6))
        return await sender.command("throw", turn=state["turn"], dice=dice)

    await play(host, act)
    record = await check_finished(http, code, [host, *players.values()])
    assert record["fairness"]["throws"] == []  # real dice: nothing to verify
    assert record["start"] == {"thrower": "乙", "dice": [2, 3]}
    for client in (host, *players.values()):
        await client.close()


async def test_online_game_on_postgresql() -> None:
    """The same server on the real PostgreSQL (a fresh schema, dropped afterwards)."""
    url = root_conftest().need_postgres()
    schema = f"bobing_web_{uuid.uuid4().hex[:12]}"
    try:
        async with (
            running_server(Settings(db_url=url, db_schema=schema)) as server,
            httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
        ):
            created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
            code = created["code"]
            tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES[:3]}
            host = await Client.connect(server, code, [created["host_token"]], name="host")
            players = {
                n: await Client.connect(server, code, [t], name=n) for n, t in tokens.items()
            }
            reply = await host.command("start")
            await host.reach(reply["last_seq"])

            async def act(state: dict[str, Any]) -> dict[str, Any]:
                return await players[state["next"]].command("throw", turn=state["turn"])

            await play(host, act)
            verify_record(await check_finished(http, code, [host, *players.values()]))
            for client in (host, *players.values()):
                await client.close()
    finally:
        database = Database(url, schema=schema)
        await database.drop_schema()
        await database.dispose()
