"""The shortest path through the server: health, a table, two players, one throw."""

from __future__ import annotations

import httpx
from webtools import Client, create_table, join


async def test_health(http: httpx.AsyncClient) -> None:
    response = await http.get("/api/health")
    assert response.json() == {"status": "ok"}


async def test_online_flow(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, name="桌", mode="online")
    code = created["code"]
    a = await join(http, code, "甲")
    b = await join(http, code, "乙")
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    assert host.welcome is not None and host.welcome["roles"] == ["host"]
    ca = await Client.connect(server, code, [a["player_token"]], name="甲")
    cb = await Client.connect(server, code, [b["player_token"]], name="乙")
    reply = await host.command("start")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    assert host.state is not None
    nxt = host.state["next"]
    turn = host.state["turn"]
    thrower = ca if nxt == "甲" else cb
    reply = await thrower.command("throw", turn=turn, nonce="abc")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    types = [e["type"] for e in host.events]
    assert types[:4] == ["table_created", "player_joined", "player_joined", "started"]
    assert types[4:6] == ["dice", "thrown"] and host.events[4]["nonce"] == "abc"
    for c in (host, ca, cb):
        await c.close()
