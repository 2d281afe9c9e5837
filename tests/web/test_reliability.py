"""Idempotent retries, racing throws, resync after a lost connection, and a killed server."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import websockets
from webtools import (
    SMALL_PRIZES,
    TIMEOUT,
    Client,
    ServeProcess,
    create_table,
    join,
    running_server,
)

from bobing.engine.fairness import derive_faces, verify_record
from bobing.engine.record import adjudicate
from bobing.realtime.backends import get_broker
from bobing.storage import Database, EventStore
from bobing.tables.protocol import Command
from bobing.tables.service import TableService
from bobing.tables.tokens import hash_token
from bobing.web.settings import Settings

NAMES = ["甲", "乙", "丙"]


async def started_table(
    http: httpx.AsyncClient, server: str, mode: str = "online", **body: Any
) -> tuple[dict[str, Any], dict[str, str], Client]:
    body.setdefault("prizes", SMALL_PRIZES)
    created = await create_table(http, mode=mode, **body)
    code = created["code"]
    tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    return created, tokens, host


async def test_duplicate_throw_is_applied_once(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await started_table(http, server)
    assert host.state is not None
    first = host.state["next"]
    player = await Client.connect(server, created["code"], [tokens[first]], name=first)
    reply = await player.command("throw", id="retry-1", turn=1)
    assert reply["type"] == "ack" and reply["duplicate"] is False
    again = await player.command("throw", id="retry-1", turn=1)
    assert again["type"] == "ack" and again["duplicate"] is True
    assert again["seq"] == reply["seq"]
    # A retry over a new connection (after a drop) is still recognised.
    await player.close()
    player = await Client.connect(server, created["code"], [tokens[first]], after=reply["last_seq"])
    third = await player.command("throw", id="retry-1", turn=1)
    assert third["type"] == "ack" and third["duplicate"] is True
    # And over HTTP.
    response = await http.post(
        f"/api/tables/{created['code']}/commands",
        json={"type": "throw", "id": "retry-1", "turn": 1},
        headers={"Authorization": f"Bearer {tokens[first]}"},
    )
    assert response.status_code == 200 and response.json()["duplicate"] is True
    state = (await http.get(f"/api/tables/{created['code']}")).json()
    assert state["throw_count"] == 1
    assert state["last_seq"] == reply["last_seq"]
    await player.close()
    await host.close()


async def test_racing_throws_for_one_turn(http: httpx.AsyncClient, server: str) -> None:
    created, _, host = await started_table(http, server, mode="pass_and_play")
    code = created["code"]
    phones = [
        await Client.connect(server, code, [created["play_token"]], name=f"phone{i}")
        for i in range(4)
    ]
    for turn in range(1, 6):
        replies = await asyncio.gather(
            *(p.command("throw", turn=turn, nonce=f"p{i}t{turn}") for i, p in enumerate(phones))
        )
        accepted = [r for r in replies if r["type"] == "ack"]
        refused = [r for r in replies if r["type"] == "error"]
        assert len(accepted) == 1, replies
        assert len(refused) == 3
        assert {r["code"] for r in refused} == {"turn_taken"}
        assert all(r["params"]["expected"] == turn + 1 for r in refused)
    state = (await http.get(f"/api/tables/{code}")).json()
    assert state["throw_count"] == 5
    # Racing over HTTP as well: one 200, the rest 409 turn_taken.
    async with httpx.AsyncClient(base_url=server) as other:
        responses = await asyncio.gather(
            *(
                client.post(
                    f"/api/tables/{code}/commands",
                    json={"type": "throw", "turn": 6},
                    headers={"Authorization": f"Bearer {created['play_token']}"},
                )
                for client in (http, other, http, other)
            )
        )
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 409, 409, 409]
    assert {r.json()["code"] for r in responses if r.status_code == 409} == {"turn_taken"}
    for client in (host, *phones):
        await client.close()


async def test_racing_double_send_by_one_player(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await started_table(http, server)
    assert host.state is not None
    first = host.state["next"]
    player = await Client.connect(server, created["code"], [tokens[first]])
    # Two different ids, no turn number: the second lands after the turn moved on.
    await player.send({"type": "throw", "id": "a1"})
    await player.send({"type": "throw", "id": "a2"})
    await player.until(lambda f: "a1" in player.replies and "a2" in player.replies)
    assert player.replies["a1"]["type"] == "ack"
    assert player.replies["a2"]["type"] == "error"
    assert player.replies["a2"]["code"] == "not_your_turn"
    await player.close()
    await host.close()


async def test_resync_after_missing_events(http: httpx.AsyncClient, server: str) -> None:
    created, _, host = await started_table(http, server, mode="pass_and_play")
    code = created["code"]
    phone = await Client.connect(server, code, [created["play_token"]])
    late = await Client.connect(server, code, name="late")
    seen = late.last_seq
    await late.close()
    for turn in range(1, 8):
        reply = await phone.command("throw", turn=turn)
        assert reply["type"] == "ack"
    await phone.reach(reply["last_seq"])
    back = await Client.connect(server, code, after=seen, name="late")
    await back.reach(reply["last_seq"])
    assert back.events == phone.events[seen:]
    assert seen > 0 and back.events[0]["seq"] == seen + 1
    page = (await http.get(f"/api/tables/{code}/events", params={"after": seen, "limit": 3})).json()
    assert page["events"] == phone.events[seen : seen + 3]
    for client in (host, phone, back):
        await client.close()


async def test_server_grab_is_seeded_and_verifiable(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    """A 六勃黑 under traditional rules: the server settles the lights-off grab itself."""
    created, tokens, host = await started_table(http, server)
    code = created["code"]
    path = db_url.split(":///", 1)[1]
    with sqlite3.connect(path) as conn:
        (seed,) = conn.execute(
            "SELECT server_seed FROM bobing_tables WHERE code = ?", (code,)
        ).fetchone()
    # Knowing the seed (we read the database), find a nonce that throws six of a kind.
    nonce = next(
        f"x{i}"
        for i in range(10**6)
        if len(set(derive_faces(seed, code, 1, f"x{i}"))) == 1
        and derive_faces(seed, code, 1, f"x{i}")[0] != 4
    )
    assert host.state is not None
    player = await Client.connect(server, code, [tokens[host.state["next"]]])
    reply = await player.command("throw", turn=1, nonce=nonce)
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    state = host.state
    assert state["status"] == "over" and state["result"]["ended_by"] == "liubohei"
    assert sum(state["result"]["pool"].values()) == 0
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert "grab" in record
    verify_record(record)
    assert adjudicate(record)["holdings"] == state["result"]["holdings"]
    await player.close()
    await host.close()


async def test_server_killed_and_restarted_loses_nothing(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'restart.sqlite3'}"
    process = ServeProcess(db, tmp_path / "serve.log")
    url = process.start()
    try:
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
            created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
            code = created["code"]
            tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES}
        host = await Client.connect(url, code, [created["host_token"]], name="host")
        players = {n: await Client.connect(url, code, [t], name=n) for n, t in tokens.items()}
        reply = await host.command("start")
        await host.reach(reply["last_seq"])
        for _ in range(6):
            state = host.state
            assert state is not None
            reply = await players[state["next"]].command("throw", turn=state["turn"])
            assert reply["type"] == "ack"
            await host.reach(reply["last_seq"])
        # Fire a throw and kill the server at once: whatever anyone was told must survive.
        assert host.state is not None
        await players[host.state["next"]].send(
            {"type": "throw", "id": "last-words", "turn": host.state["turn"]}
        )
        await asyncio.sleep(0.05)
        process.kill()
        seen = {name: list(c.events) for name, c in {"host": host, **players}.items()}
        for client in (host, *players.values()):
            # Read what the server sent before it died (already in this side's buffers).
            try:
                while True:
                    await client.recv(timeout=2)
            except (websockets.ConnectionClosed, TimeoutError):
                pass
            seen[client.name] = list(client.events)

        url = process.start()
        async with httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http:
            logged = (await http.get(f"/api/tables/{code}/events")).json()["events"]
            for name, events in seen.items():
                assert logged[: len(events)] == events, name
            # Reconnect from the last seq each client saw: no gap, no duplicate.
            host = await Client.connect(
                url, code, [created["host_token"]], history=seen["host"], name="host"
            )
            again = await Client.connect(url, code, [created["host_token"]], name="fresh")
            players = {}
            for name, token in tokens.items():
                client = await Client.connect(url, code, [token], history=seen[name], name=name)
                players[name] = client
            state = (await http.get(f"/api/tables/{code}")).json()
            await host.reach(state["last_seq"])
            retried = await players[state["next"]].command(
                "throw", id="last-words", turn=state["turn"]
            )
            assert retried["type"] in ("ack", "error")
            if retried["type"] == "error":
                # It had been committed before the kill: the id belongs to the player who
                # threw then, not to the one whose turn it is now.
                assert retried["code"] == "command_id_reused"
            while host.state is None or host.state["status"] != "over":
                await host.reach(host.last_seq)
                assert host.state is not None
                if host.state["status"] == "over":
                    break
                reply = await players[host.state["next"]].command("throw", turn=host.state["turn"])
                assert reply["type"] == "ack", reply
                await host.reach(reply["last_seq"])
            final = (await http.get(f"/api/tables/{code}/events")).json()
            for client in (host, again, *players.values()):
                await client.reach(final["last_seq"])
                assert client.events == final["events"], client.name
            record = (await http.get(f"/api/tables/{code}/record")).json()
            verify_record(record)
            for client in (host, again, *players.values()):
                await client.close()
    finally:
        process.stop()


async def test_a_stalled_reader_still_gets_everything_in_order(db_url: str) -> None:
    """A phone that stops reading: the server's writes back up, then drain in order.

    The reader answers no keepalive ping while it is stalled, so pings are off on both sides:
    how long the stall lasts depends on the machine, and this test is about order, not about
    dropping dead connections.
    """
    async with (
        running_server(Settings(db_url=db_url), ws_ping_interval=None) as server,
        httpx.AsyncClient(base_url=server, timeout=TIMEOUT) as http,
    ):
        created, _, host = await started_table(
            http,
            server,
            mode="pass_and_play",
            rules={"preset": "modern", "liubohong": "zhuangyuan", "liubohei": "zhuangyuan"},
            prizes={"duitang": 99, "sanhong": 99, "sijin": 99, "erju": 99, "yixiu": 99},
        )
        code = created["code"]
        phone = await Client.connect(server, code, [created["play_token"]])
        # Reads nothing for a while, and lets the library buffer only one frame for it.
        sleepy = await Client.connect(server, code, name="sleepy", max_queue=1, ping_interval=None)
        for turn in range(1, 151):
            reply = await phone.command("throw", turn=turn)
            if reply["type"] == "error":  # a short game may end first
                assert reply["code"] == "not_playing", reply
                break
        state = (await http.get(f"/api/tables/{code}")).json()
        await sleepy.reach(state["last_seq"])  # the client checks seqs are contiguous
        assert sleepy.events == (await http.get(f"/api/tables/{code}/events")).json()["events"]
        for client in (host, phone, sleepy):
            await client.close()


async def test_a_throw_committed_elsewhere_unheard_reaches_every_socket_here(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    """Another instance commits a throw and dies before its signal goes out (issue 32's CI:
    the killed instance of tests/scale). When a phone reconnecting here reads it from the log,
    the sockets already here that never heard of it read it too, not only at the next throw."""
    created, tokens, host = await started_table(http, server)
    code = created["code"]
    assert host.state is not None
    thrower, turn = host.state["next"], host.state["turn"]
    db = Database(db_url)
    store = EventStore(db)
    elsewhere = TableService(store, get_broker("memory://"))  # its signal reaches nobody
    try:
        throw = Command("throw", "unheard", {"turn": turn})
        outcome = await elsewhere.execute(code, throw, [hash_token(tokens[thrower])])
    finally:
        await elsewhere.close()
        await store.close()
        await db.dispose()
    assert host.last_seq < outcome.last_seq
    phone = await Client.connect(server, code, [tokens[thrower]], name=thrower)
    assert phone.last_seq == outcome.last_seq
    await host.reach(outcome.last_seq)
    assert host.events == phone.events
    assert host.state is not None and host.state["throw_count"] == turn
