"""What the browser is told instead of knowing rules: the rulebook, who may throw, QR codes."""

from __future__ import annotations

from typing import Any

import httpx
import segno
from webtools import Client, create_table, join

from bobing.engine.hands import MULTISETS
from bobing.engine.rules import load_rules
from bobing.engine.switches import choice_switches
from bobing.i18n.names import explain


async def test_the_rulebook_classifies_every_throw_as_the_engine(http: httpx.AsyncClient) -> None:
    spec = {"preset": "modern", "wuzi_bonus": True}
    book = (await http.post("/api/rulebook?lang=en", json=spec)).json()
    rules = load_rules(spec)
    assert book["rules"] == rules.to_json()
    assert len(book["throws"]) == len(MULTISETS) == 462
    for text, shown in book["throws"].items():
        c = rules.classify(text)
        assert (shown["hand"], shown["kicker"], shown["bonus"]) == (
            str(c.hand),
            c.kicker,
            [str(b) for b in c.bonus],
        )
        assert shown["why"] == explain(c, rules, "en")
    assert book["throws"]["455555"]["bonus"] == ["yixiu"]  # 五子带一秀 (issue 17, bug 3)
    assert [s["name"] for s in book["switches"]] == list(choice_switches())


async def test_the_rulebook_comes_brotli_compressed_to_a_browser_that_takes_it(
    http: httpx.AsyncClient,
) -> None:
    """A table's lobby waits for its rulebook on a phone's first load (issue 20): brotli, a
    quarter smaller than gzip, where the client accepts it; gzip or plain otherwise."""
    asked = {"preset": "traditional"}
    sizes = {}
    books = []
    for accept, coding in (("br, gzip", "br"), ("gzip", "gzip"), ("identity", None)):
        headers = {"Accept-Encoding": accept}
        r = await http.post("/api/rulebook?lang=en", json=asked, headers=headers)
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/json"
        assert r.headers.get("content-encoding") == coding
        if coding:
            assert "accept-encoding" in r.headers["vary"].lower()
        sizes[accept] = int(r.headers["content-length"])
        books.append(r.json())  # httpx undoes the coding
    assert books[0] == books[1] == books[2]
    assert sizes["br, gzip"] < 0.8 * sizes["gzip"] < sizes["identity"]


async def test_a_draft_gets_its_order_fitted_and_a_bad_one_a_problem(
    http: httpx.AsyncClient,
) -> None:
    draft = {**load_rules("traditional").to_json(), "liubohei": "zhuangyuan"}
    book = (await http.post("/api/rulebook", json=draft)).json()
    assert "liubohei" in book["rules"]["zhuangyuan_order"]
    shown = {s["name"]: s for s in book["switches"]}
    assert shown["liubohei"]["value"] == "zhuangyuan"
    assert shown["biandijin"]["applies"] is False  # six ones are 六勃黑 here
    response = await http.post("/api/rulebook?lang=en", json={"preset": "modern", "end": "nope"})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_rules"
    assert "nope" in response.json()["detail"]


async def test_the_state_says_who_may_throw(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="online", rules="modern")
    code = created["code"]
    tokens = {name: (await join(http, code, name))["player_token"] for name in ("甲", "乙")}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    players = {n: await Client.connect(server, code, [t], name=n) for n, t in tokens.items()}
    assert (await host.command("start_dice", thrower="甲", nonce="s"))["type"] == "ack"
    reply = await host.command("start")
    await host.reach(reply["last_seq"])
    state: dict[str, Any] = host.state or {}
    assert state["throwers"] == {"roles": [], "player": state["next"]}
    other = next(n for n in players if n != state["next"])
    refused = await players[other].command("throw", nonce="n1")
    assert refused["type"] == "error" and refused["code"] == "not_your_turn"
    accepted = await players[state["next"]].command("throw", nonce="n2")
    assert accepted["type"] == "ack", accepted

    referee = await create_table(http, mode="referee", rules="modern")
    book = (await http.get(f"/api/tables/{referee['code']}")).json()
    assert book["throwers"] is None  # nobody throws in the lobby


async def test_qr_codes_are_drawn_by_segno(http: httpx.AsyncClient) -> None:
    text = "https://bobing.example/t/K7Q2MX?seat=secret"
    code = (await http.post("/api/qr", json={"text": text})).json()
    matrix = segno.make(text, error="m", micro=False).matrix
    assert code["size"] == len(matrix) + 8
    assert code["path"].count("h1v1h-1z") == sum(sum(row) for row in matrix)
    too_long = await http.post("/api/qr", json={"text": "x" * 5000})
    assert too_long.status_code == 422
