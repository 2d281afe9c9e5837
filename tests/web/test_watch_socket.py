"""One socket for many tables (``/ws/watch``): each table's frames arrive unchanged inside
``{"type": "table", "code", "frame"}``, each from its own ``after``; a throw at any table
reaches the watcher; commands other than ping are refused (it holds no token)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import websockets
from webtools import TIMEOUT, Client, create_table, join

from bobing.tables.frames import expand_events


async def frames_until(ws: Any, done: Any) -> list[dict[str, Any]]:
    """Frames until ``done``; each table's ``events`` with its events as the log has them."""
    seen: list[dict[str, Any]] = []
    while not done(seen):
        frame = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        if frame["type"] == "table" and frame["frame"]["type"] == "events":
            frame["frame"]["events"] = expand_events(frame["frame"])
        seen.append(frame)
    return seen


async def test_one_socket_follows_two_tables(http: httpx.AsyncClient, server: str) -> None:
    tables = []
    for _ in range(2):
        created = await create_table(http, mode="online")
        for name in ("甲", "乙"):
            await join(http, created["code"], name)
        tables.append(created)
    a, b = (t["code"] for t in tables)
    base = server.replace("http://", "ws://")
    async with websockets.connect(f"{base}/ws/watch?t={a}&t={b}:2&t=NOSUCH&lang=en") as ws:
        first = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        assert first["type"] == "welcome" and first["tables"] == [a, b, "NOSUCH"]
        # each table: its welcome and its events from its own after; the unknown one an error
        # (the unknown code's error may come after both tables' events: wait for all three)
        seen = await frames_until(
            ws,
            lambda s: (
                sum(1 for f in s if f["frame"]["type"] == "events") == 2
                and any(f["frame"]["type"] == "error" for f in s)
            ),
        )
        assert all(f["type"] == "table" for f in seen)
        by_code = {(f["code"], f["frame"]["type"]) for f in seen}
        assert {(a, "welcome"), (b, "welcome"), (a, "events"), (b, "events")} <= by_code
        assert ("NOSUCH", "error") in by_code
        b_events = next(f for f in seen if f["code"] == b and f["frame"]["type"] == "events")
        assert b_events["frame"]["events"][0]["seq"] == 3  # after=2
        # a throw at table B is told to the watcher, tagged B
        host = await Client.connect(server, b, [tables[1]["host_token"]])
        started = await host.command("start", starter="甲")
        assert started["type"] == "ack", started
        live = await frames_until(
            ws, lambda s: any(f["code"] == b and f["frame"]["type"] == "events" for f in s)
        )
        assert any(e["type"] == "started" for e in live[-1]["frame"]["events"])
        # read-only: a command is refused, a ping answered
        await ws.send(json.dumps({"type": "throw", "id": "c-1"}))
        refused = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        assert refused["type"] == "error" and refused["code"] == "forbidden", refused
        await ws.send(json.dumps({"type": "ping", "id": "p-1"}))
        pong = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
        assert pong["type"] == "pong" and pong["id"] == "p-1"
