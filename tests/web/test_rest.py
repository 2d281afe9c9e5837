"""REST: health, presets, OpenAPI, the static UI and its client routes, records and CSV."""

from __future__ import annotations

import random

import httpx
import pytest
from webtools import SMALL_PRIZES, Client, create_table, join

from bobing.engine.errors import RecordError
from bobing.engine.fairness import verify_record
from bobing.engine.game import Game
from bobing.engine.presets import PRESETS
from bobing.i18n import LANGS, catalogue
from bobing.tables.problems import STATUS
from bobing.tables.state import RESULT_KEYS, game_result


async def test_presets_and_openapi(http: httpx.AsyncClient) -> None:
    presets = (await http.get("/api/presets")).json()
    assert set(presets["presets"]) == set(PRESETS) and presets["default"] == "traditional"
    spec = (await http.get("/openapi.json")).json()
    paths = spec["paths"]
    for path in (
        "/api/health",
        "/api/tables",
        "/api/tables/{code}",
        "/api/tables/{code}/join",
        "/api/tables/{code}/events",
        "/api/tables/{code}/record",
        "/api/tables/{code}/results.csv",
        "/api/tables/{code}/commands",
    ):
        assert path in paths, path
    assert "CreateTable" in spec["components"]["schemas"]


async def test_static_ui_and_client_routes(http: httpx.AsyncClient) -> None:
    index = await http.get("/")
    assert index.status_code == 200 and "text/html" in index.headers["content-type"]
    table = await http.get("/t/K7Q2MX")
    assert table.status_code == 200 and "text/html" in table.headers["content-type"]
    # every client route but the home page gets the same page (the home page's also preloads
    # its view: bobing/web/assets.py, ROUTE_VIEWS)
    fallback = await http.get("/t/K7Q2MX/host")
    assert fallback.status_code == 200 and fallback.text == table.text
    missing = await http.get("/api/tables/K7Q2MX/nothing")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")


async def test_created_table_shape(http: httpx.AsyncClient) -> None:
    created = await create_table(
        http, name="  中秋  ", rules={"preset": "modern", "chase": {"tiers": ["duitang"]}}
    )
    assert set(created) == {"code", "host_token", "play_token", "ws_url", "table"}
    table = created["table"]
    assert table["name"] == "中秋" and table["status"] == "lobby" and table["result"] is None
    assert table["rules"]["preset"] == "modern" and table["rules"]["chase"]["tiers"] == ["duitang"]
    assert len(table["fairness"]["commitment"]) == 64 and table["fairness"]["server_seed"] is None
    assert created["ws_url"] == f"/ws/tables/{created['code']}"
    lower = await http.get(f"/api/tables/{created['code'].lower()}")
    assert lower.status_code == 200 and lower.json() == table


async def test_record_before_and_after_the_end(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="pass_and_play", prizes=SMALL_PRIZES)
    code = created["code"]
    for name in ("甲", "乙"):
        await join(http, code, name)
    lobby_record = (await http.get(f"/api/tables/{code}/record")).json()
    assert lobby_record["players"] == ["甲", "乙"] and lobby_record["throws"] == []
    host = await Client.connect(server, code, [created["host_token"]])
    await host.command("start")
    for turn in (1, 2, 3):
        assert (await host.command("throw", turn=turn))["type"] == "ack"
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert len(record["throws"]) == 3 and record["fairness"]["server_seed"] is None
    with pytest.raises(RecordError, match="not been revealed"):
        verify_record(record)
    # The host ends the game: time is called (RULES.md §8.1); 乙 still throws to end the round.
    reply = await host.command("end")
    assert reply["type"] == "ack"
    await host.reach(reply["last_seq"])
    assert host.state is not None and host.state["status"] == "playing"
    assert host.state["closing"]["by"] == "host"
    assert host.state["final_round"]["last_thrower"] == "乙"
    assert (await host.command("end"))["code"] == "time_called"
    reply = await host.command("throw", turn=4)
    assert reply["type"] == "ack"
    await host.reach(reply["last_seq"])
    assert host.state["status"] == "over" and host.state["end_reason"] == "game_over"
    assert host.state["result"]["status"] == "over"
    assert host.state["result"]["ended_by"] == "closed"
    assert host.events[-1]["type"] == "seed_revealed"
    record = (await http.get(f"/api/tables/{code}/record")).json()
    assert len(verify_record(record)) == 4
    assert (await host.command("end"))["code"] == "not_playing"
    assert (await host.command("throw"))["code"] == "not_playing"
    csv_response = await http.get(f"/api/tables/{code}/results.csv")
    assert csv_response.headers["content-type"].startswith("text/csv")
    assert csv_response.content.startswith("\ufeff".encode())
    assert csv_response.text.lstrip("\ufeff").splitlines()[0] == (
        "seat,player,zhuangyuan,duitang,sanhong,sijin,erju,yixiu,cakes,value,zhuangyuan_hand"
    )
    await host.close()


def test_result_view_matches_the_engine() -> None:
    rng = random.Random(3)
    for _ in range(20):
        game = Game(PRESETS["modern"], ["甲", "乙", "丙"])
        game.start()
        while not game.is_over and rng.random() < 0.98:
            game.throw(tuple(rng.randint(1, 6) for _ in range(6)))
        full = game.result()
        assert game_result(game) == {k: full[k] for k in RESULT_KEYS}
        assert game.result(events=False) == {k: v for k, v in full.items() if k != "events"}
        assert [k for k in full if k in RESULT_KEYS] == list(RESULT_KEYS)
        assert set(full) >= {*RESULT_KEYS, "events", "phase", "throws"}


def test_every_error_code_is_translated() -> None:
    for lang in LANGS:
        messages = catalogue(lang)
        for code in STATUS:
            assert f"server.error.{code}.title" in messages, (lang, code)
            assert f"server.error.{code}.detail" in messages, (lang, code)
