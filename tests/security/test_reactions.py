"""Issue 16: reactions neither fill a game's log nor slip past the per-address rate.

Before: with ``max_events=80``, 66 reactions made the next throw ``log_full``. Now reactions
are counted apart from the game's events (bounded at the same number of their own), so a
game always has its room. (The shared rate over two instances is in
``tests/scale/test_shared_limits.py``, where the cluster of instances lives.)
A real ``bobing serve``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from sectools import NO_LIMITS, Client, open_table, served

from bobing.tables.commands import REACTION_GAP_S


async def test_reactions_never_take_the_games_room(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "max_events=14", "reactions_per_minute=0") as server:
        created, tokens = await open_table(server.http, ["甲", "乙"], mode="online")
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        assert (await host.command("start"))["type"] == "ack"
        senders = [host] + [await Client.connect(server.url, code, [t]) for t in tokens.values()]
        sent = 0
        while sent < 12:
            for sender in senders:
                reply = await sender.command("react", emoji="👍")
                if reply["type"] == "ack":
                    sent += 1
                else:
                    assert reply["code"] == "reaction_too_soon", reply
            await asyncio.sleep(REACTION_GAP_S)  # the per-sender gap, a constant of the rules
        state = (await server.http.get(f"/api/tables/{code}")).json()
        assert state["last_seq"] > 14  # the log holds more than max_events, reactions included
        player = await Client.connect(server.url, code, [tokens[state["next"]]])
        thrown = await player.command("throw", turn=1)
        assert thrown["type"] == "ack", thrown  # before: log_full
