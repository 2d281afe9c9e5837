"""Calling time at a live table (RULES.md §8.1): the host's "end the game" is a close, and a
time limit set at creation closes the game by itself — stored in the log, enforced by the
server, exactly once, across a restart and with two server instances on one database."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_undo import NAMES, referee_table, same_everywhere, throw, undo
from webtools import TIMEOUT, Client, create_table, join, root_conftest, running_server

from bobing.storage.db import Database
from bobing.tables.limits import Limits
from bobing.web.settings import Settings


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


async def test_end_is_a_close_the_round_is_finished_and_the_zhuangyuan_awarded(
    http: httpx.AsyncClient, server: str, db_url: str
) -> None:
    created, _, host = await referee_table(http, server)
    await throw(host, "444412")  # 甲: 四红, the standing
    reply = await host.command("end")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    state = host.state
    assert state is not None
    # Called mid-round: 乙 and 丙 still throw; the state says so before anybody does.
    assert state["status"] == "playing"
    assert state["closing"] == {"by": "host", "at": state["closing"]["at"], "throw": 1}
    assert state["final_round"]["last_thrower"] == "丙"
    assert state["final_round"]["throws_left"] == 2
    assert state["result"]["zhuangyuan"]["player"] == "甲"
    assert "zhuangyuan" not in state["result"]["holdings"]["甲"]
    called = of_type(host.events, "time_called")
    assert called == [{**called[0], "by": "host"}]
    assert of_type(host.events, "close")[0]["until_turn"] == 2
    # A second close is refused, naming why.
    again = await host.command("end")
    assert again["type"] == "error" and again["code"] == "time_called", again
    await throw(host, "123456")  # 乙: 对堂
    state = await throw(host, "112233")  # 丙: nothing; the round is over, and so the game
    assert state["status"] == "over"
    assert state["end_reason"] == "game_over"
    assert state["result"]["ended_by"] == "closed"
    assert state["result"]["holdings"]["甲"] == {"zhuangyuan": 1}
    assert state["result"]["pool"]["zhuangyuan"] == 0
    assert state["fairness"]["server_seed"] is not None
    assert state["deadline"] is None and state["final_round"] is None
    await same_everywhere(http, db_url, created["code"], [host])
    record = (await http.get(f"/api/tables/{created['code']}/record")).json()
    assert {"close": True} in record["throws"]


async def test_a_close_under_immediate_ends_at_once_and_cannot_be_undone(
    http: httpx.AsyncClient, server: str
) -> None:
    _, _, host = await referee_table(
        http, server, rules={"preset": "traditional", "end": "immediate"}
    )
    await throw(host, "444466")  # 甲
    await throw(host, "444412")  # 乙
    reply = await host.command("end")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    state = host.state
    assert state is not None
    assert state["status"] == "over"
    assert state["end_reason"] == "closed"
    assert state["result"]["zhuangyuan"]["player"] == "甲"  # 四红带十二 beats 四红带三
    assert state["result"]["holdings"]["甲"] == {"zhuangyuan": 1}
    refused = await undo(host)
    assert refused["type"] == "error" and refused["code"] == "not_playing", refused


async def test_an_undo_cannot_cross_the_close(http: httpx.AsyncClient, server: str) -> None:
    _, _, host = await referee_table(http, server)
    await throw(host, "444412")
    assert (await host.command("end"))["type"] == "ack"
    refused = await undo(host)
    assert refused["type"] == "error" and refused["code"] == "closed_after", refused
    assert refused["params"]["throw"] == 1
    assert refused["detail"] == "第 1 掷之后已经叫停，不能再撤销。"
    # A throw after the close can be undone as usual: the close stays.
    await throw(host, "111111")
    reply = await undo(host)
    assert reply["type"] == "ack", reply
    assert host.state is not None and host.state["closing"]["by"] == "host"


async def test_closing_with_nobody_standing_leaves_the_zhuangyuan_cake(
    http: httpx.AsyncClient, server: str
) -> None:
    _, _, host = await referee_table(http, server)
    for dice in ("123456", "112233", "444123"):  # a whole round, no 状元 hand
        await throw(host, dice)
    reply = await host.command("end")  # at a round's start: the game ends at once
    await host.reach(reply["last_seq"])
    state = host.state
    assert state is not None and state["status"] == "over"
    assert state["result"]["zhuangyuan"] is None
    assert state["result"]["pool"]["zhuangyuan"] == 1
    assert state["result"]["ended_by"] == "closed"


async def test_end_in_the_lobby_closes_the_table(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http)
    host = await Client.connect(server, created["code"], [created["host_token"]])
    reply = await host.command("end")
    await host.reach(reply["last_seq"])
    assert host.state is not None
    assert host.state["status"] == "over" and host.state["end_reason"] == "host"
    assert host.state["result"] is None


@pytest.mark.parametrize("value", [0, 601, -5, "30", True, 1.5])
async def test_time_limit_is_checked(http: httpx.AsyncClient, value: Any) -> None:
    response = await http.post("/api/tables", json={"name": "限时", "time_limit": value})
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["code"] in ("invalid_field", "malformed"), problem
    assert "time_limit" in response.text


async def test_the_clock_starts_with_the_game_and_stops_while_paused(
    http: httpx.AsyncClient, server: str
) -> None:
    _, _, host = await referee_table(http, server, time_limit=30)
    state = host.state
    assert state is not None and state["time_limit"] == 30
    (deadline_set,) = of_type(host.events, "deadline_set")
    assert deadline_set["time_left"] == 1800
    started_at = when(deadline_set["at"])
    deadline = when(state["deadline"])
    assert deadline == when(deadline_set["deadline"])
    assert timedelta(minutes=29) < deadline - started_at <= timedelta(minutes=30)
    reply = await host.command("pause")
    await host.reach(reply["last_seq"])
    paused = host.state
    assert paused is not None and paused["deadline"] is None
    left = paused["time_left"]
    assert 0 < left <= 1800
    assert of_type(host.events, "paused")[-1]["time_left"] == left
    reply = await host.command("resume")
    await host.reach(reply["last_seq"])
    resumed = host.state
    assert resumed is not None and resumed["time_left"] is None
    again = of_type(host.events, "deadline_set")[-1]
    assert again["time_left"] == left
    assert when(resumed["deadline"]) > deadline - timedelta(seconds=1)
    # A table without a limit has no clock.
    plain = await create_table(http)
    assert plain["table"]["time_limit"] is None and plain["table"]["deadline"] is None


MINUTE = 15.0
"""A minute of these servers' time limits, in seconds: long enough for the first server to
seat three, start and throw a round, and for two more to start and be watched, before the
deadline (about 4 s on two loaded cores); short enough not to wait a whole minute."""


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
async def test_a_one_minute_limit_closes_the_game_once_across_a_restart_and_two_instances(
    tmp_path: Path, database: str
) -> None:
    """The deadline passes while the first server is down; two instances sharing the database
    both arm a timer at start-up; time is called exactly once, and the 状元 is awarded.

    Waits for the real deadline (:data:`MINUTE` seconds from the start), as the clock does."""
    limits = Limits(time_limit_minute=MINUTE)
    if database == "postgresql":
        schema = f"bobing_clock_{uuid.uuid4().hex[:12]}"
        settings = Settings(db_url=root_conftest().need_postgres(), db_schema=schema, limits=limits)
    else:
        db_url = f"sqlite+aiosqlite:///{tmp_path / 'clock.sqlite3'}"
        settings = Settings(db_url=db_url, limits=limits)
    try:
        await one_minute_limit(settings)
    finally:
        if settings.db_schema is not None:
            db = Database(str(settings.db_url), schema=settings.db_schema)
            await db.drop_schema()
            await db.dispose()


async def one_minute_limit(settings: Settings) -> None:
    async with (
        running_server(settings) as first,
        httpx.AsyncClient(base_url=first, timeout=TIMEOUT) as http,
    ):
        created, _, host = await referee_table(http, first, time_limit=1)
        code = created["code"]
        for dice in ("444412", "123456", "112233"):  # a whole round: 甲 stands with 四红
            await throw(host, dice)
        assert host.state is not None and host.state["deadline"] is not None
        deadline = when(host.state["deadline"])
        assert host.state["status"] == "playing", "the first server ran out of its minute"
        await host.close()
    async with (
        running_server(settings) as second,
        running_server(settings) as third,
        httpx.AsyncClient(base_url=second, timeout=TIMEOUT) as http,
    ):
        watchers = [
            await Client.connect(second, code, name="second"),
            await Client.connect(third, code, name="third"),
        ]
        assert watchers[0].state is not None and watchers[0].state["status"] == "playing"
        wait = (deadline - datetime.now(deadline.tzinfo)).total_seconds() + 2 * TIMEOUT
        for watcher in watchers:
            await watcher.until(
                lambda f, w=watcher: w.state is not None and w.state["status"] == "over",
                timeout=max(wait, TIMEOUT),
            )
        log = (await http.get(f"/api/tables/{code}/events")).json()["events"]
        assert len(of_type(log, "time_called")) == 1
        assert of_type(log, "time_called")[0]["by"] == "deadline"
        assert len(of_type(log, "close")) == 1
        assert len(of_type(log, "game_over")) == 1
        # Called at the deadline, not before it.
        assert when(of_type(log, "time_called")[0]["at"]) >= deadline
        state = (await http.get(f"/api/tables/{code}")).json()
        assert state["result"]["ended_by"] == "closed"
        assert state["result"]["holdings"]["甲"]["zhuangyuan"] == 1
        assert state["closing"]["by"] == "deadline"
        for watcher in watchers:
            assert watcher.state == state
        # The third instance saw the same log, not a second close of its own.
        async with httpx.AsyncClient(base_url=third, timeout=TIMEOUT) as other:
            assert (await other.get(f"/api/tables/{code}")).json() == state


async def test_join_honours_max_players(http: httpx.AsyncClient) -> None:
    created = await create_table(http, rules={"preset": "traditional", "max_players": 3})
    code = created["code"]
    for name in NAMES:
        await join(http, code, name)
    response = await http.post(f"/api/tables/{code}/join", json={"name": "丁"})
    assert response.status_code == 409
    assert response.json()["code"] == "table_full"
    assert response.json()["params"]["limit"] == 3
