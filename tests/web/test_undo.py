"""Undoing a mistyped referee throw: the log stays append-only, the game is the fold without it,
and every client (live, resyncing, or a fresh server reading the log) agrees."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest
from webtools import SMALL_PRIZES, Client, create_table, join, running_server

from bobing.engine.fairness import verify_record
from bobing.engine.game import Game
from bobing.engine.record import adjudicate
from bobing.tables.state import RESULT_KEYS
from bobing.web.settings import Settings

NAMES = ["甲", "乙", "丙"]


async def referee_table(
    http: httpx.AsyncClient, server: str, *, mode: str = "referee", **body: Any
) -> tuple[dict[str, Any], dict[str, str], Client]:
    """A started table (甲 starts) and the host's client."""
    created = await create_table(http, mode=mode, **body)
    code = created["code"]
    tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    reply = await host.command("start", starter="甲")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    return created, tokens, host


async def throw(host: Client, dice: str | None) -> dict[str, Any]:
    """The host enters one throw (None: 跳猴) and waits for the state after it."""
    assert host.state is not None
    fields: dict[str, Any] = {"dice": dice} if dice is not None else {"tiaohou": True}
    reply = await host.command("throw", turn=host.state["turn"], **fields)
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    assert host.state is not None
    return host.state


async def undo(host: Client, **fields: Any) -> dict[str, Any]:
    """The host undoes the last throw; returns the reply (ack or error)."""
    reply = await host.command("undo", **fields)
    if reply["type"] == "ack":
        await host.reach(reply["last_seq"])
    return reply


def replayed(record: dict[str, Any]) -> dict[str, Any]:
    """The §7 result of a record's throws replayed by the engine from scratch."""
    return {k: v for k, v in Game.from_record(record).result().items() if k in RESULT_KEYS}


async def same_everywhere(
    http: httpx.AsyncClient, db_url: str, code: str, clients: list[Client]
) -> dict[str, Any]:
    """Live clients, a fresh fold of the log and a replay of the record all agree."""
    state = (await http.get(f"/api/tables/{code}")).json()
    for client in clients:
        await client.reach(state["last_seq"])
        assert client.state == state, client.name
    record = (await http.get(f"/api/tables/{code}/record")).json()
    if state["result"] is not None:
        assert {k: state["result"][k] for k in RESULT_KEYS} == replayed(record)
        judged = adjudicate(record)
        keys = (*RESULT_KEYS, "ranking") if "ranking" in judged else RESULT_KEYS
        assert {k: judged[k] for k in keys} == state["result"]
    # Another server instance knows the table only from the log: it folds it the same way.
    async with (
        running_server(Settings(db_url=db_url)) as other,
        httpx.AsyncClient(base_url=other) as fresh,
    ):
        assert (await fresh.get(f"/api/tables/{code}")).json() == state
        assert (await fresh.get(f"/api/tables/{code}/record")).json() == record
    return state


async def test_undo_a_mistyped_throw(http: httpx.AsyncClient, server: str, db_url: str) -> None:
    created, _, host = await referee_table(http, server)
    code = created["code"]
    spectator = await Client.connect(server, code, name="spectator")
    before = host.state
    assert before is not None and before["next"] == "甲" and before["turn"] == 1
    state = await throw(host, "444412")  # meant 444422
    assert state["result"]["zhuangyuan"]["dice"] == "444412"
    dice_seq = next(e["seq"] for e in host.events if e["type"] == "dice" and e["throw"] == 1)

    reply = await undo(host, throw=1)
    assert reply["type"] == "ack" and reply["duplicate"] is False, reply
    undone = host.events[-1]
    assert undone == {
        "seq": reply["seq"],
        "type": "throw_undone",
        "at": undone["at"],
        "throw": 1,
        "player": "甲",
        "dice": "444412",
        "hand": "sihong",
        "from_seq": dice_seq,
    }
    state = host.state
    assert state is not None
    # Back to the moment before the throw; only the log head moved on.
    for key in ("status", "phase", "next", "turn", "throw_count", "last_throw", "result"):
        assert state[key] == before[key], key
    assert state["last_seq"] == reply["seq"]

    state = await throw(host, "444422")
    assert state["last_throw"] == {"throw": 1, "player": "甲", "dice": "444422", "hand": "sihong"}
    assert state["result"]["zhuangyuan"]["dice"] == "444422"
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert record["throws"] == [{"player": "甲", "dice": "444422"}]
    # The log keeps everything, in order: the voided throw, the undo, the throw again.
    types = [e["type"] for e in host.events]
    voided = ["dice", "thrown", "standing"]
    assert types[-7:] == [*voided, "throw_undone", *voided]
    await same_everywhere(http, db_url, code, [host, spectator])


async def test_undo_twice_and_the_throw_number_guard(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    created, _, host = await referee_table(http, server, prizes=SMALL_PRIZES)
    code = created["code"]
    states = [host.state]
    for dice in ("123456", "442356", "412355"):  # 甲 对堂, 乙 二举, 丙 一秀
        states.append(await throw(host, dice))
    # A second tap on a stale screen names a throw that is no longer the last: refused.
    first = await undo(host, throw=3)
    assert first["type"] == "ack"
    stale = await undo(host, throw=3)
    assert stale["type"] == "error" and stale["code"] == "not_last_throw", stale
    assert stale["params"] == {"throw": 3, "last": 2}
    assert host.state is not None
    assert host.state["result"] == states[2]["result"]
    second = await undo(host)  # without a number: whatever is last
    assert second["type"] == "ack"
    assert host.state["result"] == states[1]["result"]
    assert host.state["next"] == "乙" and host.state["turn"] == 2
    assert [e["throw"] for e in host.events if e["type"] == "throw_undone"] == [3, 2]
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert record["throws"] == [{"player": "甲", "dice": "123456"}]
    await same_everywhere(http, db_url, code, [host])


async def test_who_may_undo_and_when(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await referee_table(http, server, referee_thrower=True)
    code = created["code"]
    assert (await undo(host))["code"] == "nothing_to_undo"
    await throw(host, "123456")
    player = await Client.connect(server, code, [tokens["乙"]], name="乙")
    spectator = await Client.connect(server, code, name="spectator")
    # Even a referee_thrower player, whose turn it is, may not undo: only the host.
    for client in (player, spectator):
        refused = await undo(client)
        assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    # Over HTTP: the same command, the same rules.
    url = f"/api/tables/{code}/commands"
    response = await http.post(
        url, json={"type": "undo"}, headers={"Authorization": f"Bearer {tokens['乙']}"}
    )
    assert response.status_code == 403 and response.json()["code"] == "forbidden"
    response = await http.post(
        url, json={"type": "undo", "throw": 0}, headers={"Authorization": "Bearer x"}
    )
    assert response.status_code == 422 and response.json()["params"]["field"] == "throw"
    response = await http.post(
        url,
        json={"type": "undo", "id": "u-http", "throw": 1},
        headers={"Authorization": f"Bearer {created['host_token']}"},
    )
    assert response.status_code == 200, response.text
    await host.reach(response.json()["last_seq"])
    assert host.state is not None and host.state["throw_count"] == 0
    problem = await http.post(
        url + "?lang=en",
        json={"type": "undo"},
        headers={"Authorization": f"Bearer {created['host_token']}"},
    )
    assert problem.status_code == 409
    assert problem.json()["code"] == "nothing_to_undo"
    assert problem.json()["title"] == "Nothing to undo"
    # A paused table may be corrected too, and stays paused.
    await throw(host, "442356")
    assert (await host.command("pause"))["type"] == "ack"
    assert (await undo(host))["type"] == "ack"
    assert host.state["status"] == "paused" and host.state["throw_count"] == 0
    # A game the host ended stays ended.
    assert (await host.command("end"))["type"] == "ack"
    ended = await undo(host)
    assert ended["code"] == "not_playing", ended


@pytest.mark.parametrize("mode", ["online", "pass_and_play"])
async def test_undo_only_at_a_referee_table(
    http: httpx.AsyncClient, server: str, mode: str
) -> None:
    created, tokens, host = await referee_table(http, server, mode=mode)
    thrower = (
        host
        if mode == "pass_and_play"
        else await Client.connect(server, created["code"], [tokens["甲"]])
    )
    assert (await thrower.command("throw", turn=1))["type"] == "ack"
    refused = await undo(host)
    assert refused["type"] == "error" and refused["code"] == "wrong_mode", refused


async def test_lobby_has_nothing_to_undo(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="referee")
    host = await Client.connect(server, created["code"], [created["host_token"]])
    assert (await undo(host))["code"] == "not_playing"


async def test_undo_is_idempotent(http: httpx.AsyncClient, server: str, db_url: str) -> None:
    created, _, host = await referee_table(http, server)
    code = created["code"]
    for dice in ("123456", "442356"):
        await throw(host, dice)
    first = await undo(host, id="undo-1")
    again = await undo(host, id="undo-1")  # a retry after a lost ack: nothing more undone
    assert again["type"] == "ack" and again["duplicate"] is True
    assert again["seq"] == first["seq"]
    # A retry over a new connection and over HTTP is recognised too.
    await host.close()
    host = await Client.connect(server, code, [created["host_token"]], after=first["last_seq"])
    assert (await undo(host, id="undo-1"))["duplicate"] is True
    response = await http.post(
        f"/api/tables/{code}/commands",
        json={"type": "undo", "id": "undo-1"},
        headers={"Authorization": f"Bearer {created['host_token']}"},
    )
    assert response.status_code == 200 and response.json()["duplicate"] is True
    state = await same_everywhere(http, db_url, code, [host])
    assert state["throw_count"] == 1
    logged = (await http.get(f"/api/tables/{code}/events")).json()["events"]
    assert sum(e["type"] == "throw_undone" for e in logged) == 1


async def test_undo_the_throw_that_ended_the_game(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    """A 六勃红 typed by mistake ends the game at once; undone, the game goes on."""
    created, _, host = await referee_table(http, server)
    code = created["code"]
    await throw(host, "123456")
    state = await throw(host, "444444")
    assert state["status"] == "over" and state["end_reason"] == "game_over"
    seed = state["fairness"]["server_seed"]
    assert seed is not None
    late = await Client.connect(server, code, name="late", after=state["last_seq"])

    reply = await undo(host, throw=2)
    assert reply["type"] == "ack", reply
    state = host.state
    assert state is not None
    assert state["status"] == "playing" and state["end_reason"] is None
    assert state["phase"] == "main" and state["next"] == "乙" and state["turn"] == 2
    assert state["result"]["status"] == "in_progress"
    assert state["last_throw"]["throw"] == 1
    # The seed was public once; it stays public (real dice: there is nothing to predict).
    assert state["fairness"]["server_seed"] == seed
    # A client that had seen the end resyncs from the undo alone: the state is authoritative.
    await late.reach(reply["last_seq"])
    assert late.state == state
    assert [e["type"] for e in late.events] == ["throw_undone"]

    await throw(host, "442356")
    state = await throw(host, "444444")  # 丙 really throws 六勃红 this time
    assert state["status"] == "over" and state["result"]["zhuangyuan"]["player"] == "丙"
    state = await same_everywhere(http, db_url, code, [host, late])
    assert state["result"]["holdings"]["丙"]
    full = (await http.get(f"/api/tables/{code}/record")).json()
    assert [t["dice"] for t in full["throws"]] == ["123456", "442356", "444444"]
    verify_record(full)


async def test_undo_a_lights_off_grab(http: httpx.AsyncClient, server: str, db_url: str) -> None:
    """六勃黑 (traditional: the grab) typed by mistake: undone before or after the grab."""
    created, _, host = await referee_table(http, server)
    code = created["code"]
    await throw(host, "123456")
    state = await throw(host, "555555")
    assert state["phase"] == "grab" and state["next"] is None
    assert (await undo(host))["type"] == "ack"
    assert host.state is not None
    assert host.state["phase"] == "main" and host.state["next"] == "乙"
    state = await throw(host, "555555")
    reply = await host.command("grab", random=True)
    assert reply["type"] == "ack"
    await host.reach(reply["last_seq"])
    assert host.state["status"] == "over" and host.state["result"]["ended_by"] == "liubohei"
    assert (await undo(host, throw=2))["type"] == "ack"
    state = await same_everywhere(http, db_url, code, [host])
    assert state["status"] == "playing" and state["phase"] == "main"
    assert sum(sum(h.values()) for h in state["result"]["holdings"].values()) == 1
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert "grab" not in record and len(record["throws"]) == 1


async def test_skipping_and_the_final_round_in_the_state(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    rules = {"preset": "traditional", "end": "one_more_round"}
    created, _, host = await referee_table(http, server, prizes=SMALL_PRIZES, rules=rules)
    code = created["code"]
    assert host.state is not None
    assert host.state["skipping"] == [] and host.state["final_round"] is None
    state = await throw(host, None)  # 甲 跳猴: loses the next turn (traditional)
    assert state["skipping"] == ["甲"]
    watcher = await Client.connect(server, code, name="watcher", after=state["last_seq"])
    assert watcher.state is not None and watcher.state["skipping"] == ["甲"]
    await throw(host, "123456")  # 乙 对堂
    state = await throw(host, "412355")  # 丙 一秀; 甲 sits out
    assert state["skipping"] == [] and state["next"] == "乙"
    # Undo the throw that consumed the skipped turn: 甲 is to sit out again.
    assert (await undo(host))["type"] == "ack"
    assert host.state["skipping"] == ["甲"] and host.state["next"] == "丙"
    # Take every ordinary cake: the last round begins with the throw that took the last one.
    dice_in_turn = ("444456", "442356", "444123", "222235", "441235", "412356", "412366")
    for dice in (*dice_in_turn, *["412335"] * 10):
        state = await throw(host, dice)
        if state["phase"] == "final":
            break
    assert state["phase"] == "final", state
    final = state["final_round"]
    assert final is not None and final["last_thrower"] in NAMES
    assert final["throws_left"] >= 2, final
    assert final["until_turn"] == next(e for e in host.events if e["type"] == "final")["until_turn"]
    # Walk the last round: the last thrower announced is the one who throws last.
    last = final["last_thrower"]
    thrower = None
    left = final["throws_left"]
    while state["status"] != "over":
        assert state["final_round"]["last_thrower"] == last
        assert state["final_round"]["throws_left"] == left
        thrower = state["next"]
        state = await throw(host, "235566")
        left -= 1
    assert thrower == last and left == 0
    assert state["final_round"] is None and state["skipping"] == []
    await same_everywhere(http, db_url, code, [host, watcher])


async def test_random_throws_and_undos(http: httpx.AsyncClient, server: str, db_url: str) -> None:
    """Throws with an undo now and then, to the end: the state is always the replay's."""
    created, _, host = await referee_table(
        http, server, prizes=SMALL_PRIZES, rules={"preset": "modern", "liubohei": "zhuangyuan"}
    )
    code = created["code"]
    rng = random.Random(11)
    kept: list[str | None] = []
    for _ in range(400):
        assert host.state is not None
        if host.state["status"] == "over":
            if rng.random() < 0.5:
                break
        elif not kept or rng.random() > 0.2:
            faces = "".join(str(rng.randint(1, 6)) for _ in range(6))
            dice = None if rng.random() < 0.05 else faces
            await throw(host, dice)
            kept.append(dice)
            continue
        if kept:
            assert (await undo(host, throw=len(kept)))["type"] == "ack"
            kept.pop()
    state = await same_everywhere(http, db_url, code, [host])
    assert state["throw_count"] == len(kept)
