"""Several instances on one PostgreSQL database with a Redis broker: any instance serves any
table, every socket gets every event in order, and neither a killed instance nor a Redis
restart loses anything (the log is the truth, Redis only signals)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import websockets
from scaletools import Cluster, PrivateRedis
from webtools import SMALL_PRIZES, TIMEOUT, Client, create_table, join

NAMES = ("阿明", "小红", "Bob")


async def table_across(
    instances: list[str], names: tuple[str, ...] = NAMES
) -> tuple[str, str, dict[str, str]]:
    """A table created on the first instance, its players joined through the others."""
    async with httpx.AsyncClient(base_url=instances[0], timeout=TIMEOUT) as http:
        created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
    code = created["code"]
    tokens = {}
    for index, name in enumerate(names):
        base = instances[(index + 1) % len(instances)]
        async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http:
            tokens[name] = (await join(http, code, name))["player_token"]
    return code, created["host_token"], tokens


async def logged_events(base: str, code: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http:
        response = await http.get(f"/api/tables/{code}/events", params={"limit": 1000})
        assert response.status_code == 200, response.text
        events: list[dict[str, Any]] = response.json()["events"]
        return events


async def throw_once(players: dict[str, Client], watcher: Client) -> dict[str, Any]:
    """The player whose turn it is (per the watcher's state) throws; returns the ack."""
    state = watcher.state
    assert state is not None and state["status"] == "playing", state
    reply = await players[state["next"]].command("throw", turn=state["turn"])
    assert reply["type"] == "ack", reply
    return reply


async def test_events_reach_sockets_on_every_instance_in_order(
    cluster: Cluster, redis_url: str
) -> None:
    a, b, c = (i.url for i in cluster(3, redis_url))
    code, host_token, tokens = await table_across([a, b, c])
    host = await Client.connect(c, code, [host_token], name="host@c")
    players = {
        name: await Client.connect([a, b, c][i % 3], code, [token], name=f"{name}@{i % 3}")
        for i, (name, token) in enumerate(tokens.items())
    }
    everyone = [host, *players.values()]
    reply = await host.command("start")
    for client in everyone:
        await client.reach(reply["last_seq"])
    # Throws sent through all three instances; every socket, wherever it is, sees every
    # event once, in order (Client.recv asserts that seq follows seq).
    for _ in range(12):
        await host.reach(host.last_seq)
        reply = await throw_once(players, host)
        for client in everyone:
            await client.reach(reply["last_seq"])
    logged = await logged_events(b, code)
    assert logged[-1]["seq"] == reply["last_seq"]
    for client in everyone:
        assert client.events == logged, client.name


async def test_an_instance_killed_mid_game_loses_nothing(cluster: Cluster, redis_url: str) -> None:
    first, second = cluster(2, redis_url)
    code, host_token, tokens = await table_across([first.url, second.url])
    host = await Client.connect(second.url, code, [host_token], name="host@b")
    players = {n: await Client.connect(first.url, code, [t], name=n) for n, t in tokens.items()}
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    for _ in range(4):
        reply = await throw_once(players, host)
        await host.reach(reply["last_seq"])
    # A throw in flight as the instance dies: it either committed or it did not.
    assert host.state is not None
    # The thrower and turn are kept: a retry is the same command from the same sender (once,
    # the retry came from whoever was next after it; it was acked only because PostgreSQL
    # dropped the idempotency binding, issue 17).
    thrower, turn = host.state["next"], host.state["turn"]
    await players[thrower].send({"type": "throw", "id": "in-flight", "turn": turn})
    await asyncio.sleep(0.05)
    first.kill()
    seen: dict[str, list[dict[str, Any]]] = {}
    for name, client in players.items():
        try:
            while True:
                await client.recv(timeout=2)
        except (websockets.ConnectionClosed, TimeoutError):
            pass
        seen[name] = list(client.events)
    # The phones reconnect to the surviving instance, each from the last seq it saw.
    players = {
        name: await Client.connect(second.url, code, [tokens[name]], history=seen[name], name=name)
        for name in tokens
    }
    logged = await logged_events(second.url, code)
    await host.reach(logged[-1]["seq"])
    assert host.state is not None
    retried = await players[thrower].command("throw", id="in-flight", turn=turn)
    # Either a fresh throw, or the original ack (duplicate) if it had committed before the kill.
    assert retried["type"] == "ack", retried
    while host.state is None or host.state["status"] != "over":
        await host.reach(host.last_seq)
        if host.state is not None and host.state["status"] == "playing":
            reply = await throw_once(players, host)
            await host.reach(reply["last_seq"])
    logged = await logged_events(second.url, code)
    for client in (host, *players.values()):
        await client.reach(logged[-1]["seq"])
        assert client.events == logged, client.name
    throws = [e["throw"] for e in logged if e["type"] == "thrown"]
    assert throws == list(range(1, len(throws) + 1))


async def test_a_redis_restart_delays_frames_but_loses_nothing(
    cluster: Cluster, private_redis: PrivateRedis
) -> None:
    a, b = cluster(2, private_redis.url)
    code, host_token, tokens = await table_across([a.url, b.url])
    host = await Client.connect(b.url, code, [host_token], name="host@b")
    players = {n: await Client.connect(a.url, code, [t], name=n) for n, t in tokens.items()}
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    reply = await throw_once(players, host)
    await host.reach(reply["last_seq"])

    private_redis.stop()
    # Instance a commits throws while Redis is down: its own sockets see them at once.
    for _ in range(3):
        state = players[NAMES[0]].state
        assert state is not None
        player = players[state["next"]]
        reply = await player.command("throw", turn=state["turn"])
        assert reply["type"] == "ack", reply
        for client in players.values():
            await client.reach(reply["last_seq"])
    last = reply["last_seq"]
    assert host.last_seq < last  # b has not been told (nothing to tell it with)

    private_redis.start()  # same port: both instances reconnect (backoff ≤ 5 s) and resync
    await host.reach(last)
    # And the signal path works again.
    reply = await throw_once(players, host)
    await host.reach(reply["last_seq"])
    logged = await logged_events(b.url, code)
    for client in (host, *players.values()):
        await client.reach(logged[-1]["seq"])
        assert client.events == logged, client.name


async def test_racing_throws_on_two_instances_exactly_one_wins(
    cluster: Cluster, redis_url: str
) -> None:
    a, b = (i.url for i in cluster(2, redis_url))
    code, host_token, tokens = await table_across([a, b], NAMES[:2])
    host = await Client.connect(a, code, [host_token], name="host")
    # The same player on both instances (two phones, or one phone reconnecting).
    on_a = {n: await Client.connect(a, code, [t], name=f"{n}@a") for n, t in tokens.items()}
    on_b = {n: await Client.connect(b, code, [t], name=f"{n}@b") for n, t in tokens.items()}
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    for round_ in range(8):
        state = host.state
        assert state is not None and state["status"] == "playing"
        name, turn = state["next"], state["turn"]
        first, second = await asyncio.gather(
            on_a[name].command("throw", turn=turn, nonce=f"a{round_}"),
            on_b[name].command("throw", turn=turn, nonce=f"b{round_}"),
        )
        kinds = sorted((first["type"], second["type"]))
        assert kinds == ["ack", "error"], (first, second)
        loser = first if first["type"] == "error" else second
        assert loser["code"] in ("turn_taken", "not_your_turn"), loser
        winner = first if first["type"] == "ack" else second
        await host.reach(winner["last_seq"])
    logged = await logged_events(b, code)
    throws = [e["throw"] for e in logged if e["type"] == "thrown"]
    assert throws == list(range(1, 9))
    for client in (host, *on_a.values(), *on_b.values()):
        await client.reach(logged[-1]["seq"])
        assert client.events == logged, client.name


def test_bench_spreads_phones_over_two_instances(postgres_url: str, redis_url: str) -> None:
    import json
    import subprocess
    import sys
    from pathlib import Path

    bobing = str(Path(sys.executable).with_name("bobing"))
    command = [bobing, "bench", "server", "--tables", "4", "--players", "3", "--seconds", "1"]
    command += ["--pace", "0.5", "--instances", "2", "--db", postgres_url]
    command += ["--broker", redis_url, "--json"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["instances"] == 2 and report["db"] == "postgresql" and report["broker"] == "redis"
    urls = [server["url"] for server in report["servers"]]
    assert len(set(urls)) == 2
    assert all(server["cpu_cores"] is not None for server in report["servers"])
    assert report["throws"] > 0 and report["p99_ms"] > 0
