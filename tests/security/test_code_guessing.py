"""Issues 16 and 29: codes cannot be guessed, and nobody behind the guests' address can lock
them out.

Issue 16: each address may miss (``404 table_not_found`` / ``event_not_found``)
``misses_per_minute`` times a minute. Issue 29 found two holes in how: a watching socket
(``/ws/watch``) took 64 codes and never counted a wrong one (2,560 codes in 1.6 s from one
address), and an address out of misses was refused its hits too, so one guest on a
restaurant's Wi-Fi sending a wrong code and a wrong claim key a second kept every other
guest's right codes and right keys out (17 of 23 honest claims got 429). Now a wrong guess
(an unknown code, a wrong claim key) costs the address and is refused once its misses are used
up; a right one never is: every code named (REST, a table's socket, each code of a watching
socket) draws on ``lookups_per_minute``, except a code the address found lately, and a right
claim key draws on nothing. A real ``bobing serve``.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sectools import TIMEOUT, Client, open_table, problem_of, served

from bobing.tables.problems import ApiError
from bobing.web.ratelimit import FOUND_FOR, RateLimiter

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己"]


async def _event(http: httpx.AsyncClient) -> tuple[dict[str, Any], dict[tuple[int, str], str]]:
    """A two-table event and every seat's claim key, by (table number, name)."""
    body = {"name": "同一个网", "rules": "traditional", "mode": "online", "people": PEOPLE,
            "tables": 2, "seating": "in_order"}  # fmt: skip
    response = await http.post("/api/events", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    seats = await http.get(
        f"/api/events/{created['code']}/seats",
        headers={"Authorization": f"Bearer {created['organizer_token']}"},
    )
    keys = {
        (table["number"], seat["name"]): seat["claim_key"]
        for table in seats.json()["tables"]
        for seat in table["seats"]
    }
    return created, keys


async def test_misses_are_limited_and_hits_are_not(tmp_path: Path) -> None:
    async with served(tmp_path, "misses_per_minute=5", "tarpit_seconds=0") as server:
        created, _ = await open_table(server.http, ["甲"])
        code = created["code"]
        assert (await server.http.get(f"/api/tables/{code}")).status_code == 200
        guesses = [f"ZZZZ{n:02d}" for n in range(5)]
        for guess in guesses[:3]:
            problem_of(await server.http.get(f"/api/tables/{guess}"), 404, "table_not_found")
        problem_of(await server.http.get("/api/events/ZZZZZZ"), 404, "event_not_found")
        socket = await Client.connect(server.url, "ZZZZYY")
        assert socket.welcome is not None and socket.welcome["code"] == "table_not_found"
        # Five misses (REST and socket, tables and events): the address's wrong codes are
        # refused from now on, whichever way they are named.
        refused = await server.http.get(f"/api/tables/{guesses[4]}")
        problem_of(refused, 429, "rate_limited")
        assert int(refused.headers["Retry-After"]) >= 1
        problem_of(await server.http.get("/api/events/ABCDEF"), 429, "rate_limited")
        socket = await Client.connect(server.url, "ZZZZYX")
        assert socket.welcome is not None and socket.welcome["code"] == "rate_limited"
        # The right code is still answered, over REST and the socket: a guest behind the same
        # address is never refused because of someone else's guesses.
        assert (await server.http.get(f"/api/tables/{code}")).status_code == 200
        socket = await Client.connect(server.url, code)
        assert socket.welcome is not None and socket.welcome["type"] == "welcome"
        # Creating a table is no look-up by code: not refused.
        assert (await server.http.post("/api/tables", json={"name": "新桌"})).status_code == 201


async def test_a_neighbour_cannot_lock_the_room_out(tmp_path: Path) -> None:
    """The issue's restaurant: one guest sends wrong codes and wrong-key claims from the
    room's address while the other guests claim their seats (more claims than the join
    bucket holds) and look their tables up. Every honest request is answered."""
    limits = ("misses_per_minute=4", "join_per_minute=2", "tarpit_seconds=0")
    async with served(tmp_path, *limits) as server:
        created, keys = await _event(server.http)
        event = created["code"]
        tables = {t["number"]: t["code"] for t in created["tables"]}
        neighbour: list[int] = []
        for n, ((number, name), key) in enumerate(sorted(keys.items())):
            # the neighbour: a wrong code and a wrong-key claim before each honest guest
            wrong_code = await server.http.get(f"/api/tables/QQQQ{n:02d}")
            wrong_key = await server.http.post(
                f"/api/events/{event}/tables/{number}/claim",
                json={"name": name, "key": "x" * 32},
            )
            neighbour += [wrong_code.status_code, wrong_key.status_code]
            # the guest: the event page, the right key, the table
            assert (await server.http.get(f"/api/events/{event}")).status_code == 200
            claimed = await server.http.post(
                f"/api/events/{event}/tables/{number}/claim", json={"name": name, "key": key}
            )
            assert claimed.status_code == 201, claimed.text
            assert (await server.http.get(f"/api/tables/{tables[number]}")).status_code == 200
            socket = await Client.connect(
                server.url, tables[number], [claimed.json()["player_token"]]
            )
            assert socket.welcome is not None and "player" in socket.welcome["roles"]
            await socket.close()
        # The neighbour's first four guesses were answered (404, 403), the rest refused.
        assert neighbour[:4] == [404, 403, 404, 403], neighbour
        assert set(neighbour[4:]) == {429}, neighbour
        # Taking seats by name still draws on the join bucket.
        table, _ = await open_table(server.http)
        joins = [
            (await server.http.post(f"/api/tables/{table['code']}/join", json={"name": n}))
            for n in ("子", "丑", "寅")
        ]
        assert [j.status_code for j in joins] == [201, 201, 429]


async def test_a_watching_socket_is_no_faster_way_to_guess(tmp_path: Path) -> None:
    """The issue's oracle: 64 codes a socket, none counted. Now each is a look-up and each
    unknown one a miss."""
    limits = ("misses_per_minute=5", "lookups_per_minute=20", "tarpit_seconds=0")
    async with served(tmp_path, *limits) as server:
        mine, _ = await open_table(server.http)
        # a table made from another address (127.0.0.2 is loopback too): never found here
        neighbour = httpx.AsyncClient(
            base_url=server.url,
            timeout=TIMEOUT,
            transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"),
        )
        async with neighbour:
            other, _ = await open_table(neighbour)
        assert (await server.http.get(f"/api/tables/{mine['code']}")).status_code == 200
        guesses = [f"QQQ{n:03d}" for n in range(64)]
        url = (
            server.url.replace("http://", "ws://")
            + "/ws/watch?"
            + "&".join(f"t={g}" for g in guesses)
        )
        answers: dict[str, str] = {}
        async with websockets.connect(url) as ws:
            welcome = json.loads(await ws.recv())
            assert welcome["type"] == "welcome" and len(welcome["tables"]) == 64
            while len(answers) < 64:
                frame = json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))
                assert frame["type"] == "table" and frame["frame"]["type"] == "error", frame
                answers[frame["code"]] = frame["frame"]["code"]
        codes = [answers[g] for g in guesses]
        # five misses answered, then refused; the look-ups (20: the table it made is free) run out
        assert codes[:5] == ["table_not_found"] * 5, codes
        assert set(codes[5:]) == {"rate_limited"}, codes
        # The socket's guesses counted for REST too.
        problem_of(await server.http.get("/api/tables/QQQ999"), 429, "rate_limited")
        # The table this address found is answered; a code it never found is refused while
        # its look-ups are used up, whether the code exists or not: nothing learnt.
        assert (await server.http.get(f"/api/tables/{mine['code']}")).status_code == 200
        problem_of(await server.http.get(f"/api/tables/{other['code']}"), 429, "rate_limited")


async def test_a_found_code_is_free_for_ten_minutes() -> None:
    """The limiter alone, on an injected clock: what an address found costs nothing again
    until :data:`FOUND_FOR` has passed; a miss is forgotten at once."""
    now = [0.0]
    limiter = RateLimiter({"lookup": 2}, clock=lambda: now[0])
    await limiter.look_up("10.0.0.1", "tables/ABCDEF")  # one look-up
    await limiter.look_up("10.0.0.1", "tables/GHJKLM")  # the second
    limiter.missed("10.0.0.1", "tables/GHJKLM")
    for _ in range(100):
        await limiter.look_up("10.0.0.1", "tables/ABCDEF")  # found: free
    with pytest.raises(ApiError) as refused:
        await limiter.look_up("10.0.0.1", "tables/GHJKLM")  # a miss: not remembered
    assert refused.value.code == "rate_limited"
    await limiter.look_up("10.0.0.2", "tables/GHJKLM")  # another address: its own bucket
    now[0] = FOUND_FOR + 1  # the bucket is full again, the finding forgotten
    await limiter.look_up("10.0.0.1", "tables/ABCDEF")
    await limiter.look_up("10.0.0.1", "tables/ABCDEF")
    await limiter.look_up("10.0.0.1", "tables/GHJKLM")
    with pytest.raises(ApiError):
        await limiter.look_up("10.0.0.1", "tables/NPQRST")


async def test_the_codes_an_address_made_are_free_to_look_up(tmp_path: Path) -> None:
    """Whoever made a table or an event found its codes: an organiser (or a benchmark) that
    made more tables than its look-ups a minute still opens, joins and watches every one."""
    limits = ("lookups_per_minute=2", "create_per_minute=0", "join_per_minute=0")
    async with served(tmp_path, *limits) as server:
        made = [(await open_table(server.http, ["甲"]))[0]["code"] for _ in range(4)]
        for code in made:
            assert (await server.http.get(f"/api/tables/{code}")).status_code == 200
        event = await server.http.post(
            "/api/events",
            json={"name": "公司博饼", "people": list("甲乙丙丁戊己"), "tables": 3},
        )
        assert event.status_code == 201, event.text
        codes = [t["code"] for t in event.json()["tables"]]
        assert (await server.http.get(f"/api/events/{event.json()['code']}")).status_code == 200
        for code in codes:
            assert (await server.http.get(f"/api/tables/{code}")).status_code == 200
        # a code it did not make still draws on the two look-ups
        problem_of(await server.http.get("/api/tables/QQQ001"), 404, "table_not_found")
        problem_of(await server.http.get("/api/tables/QQQ002"), 404, "table_not_found")
        problem_of(await server.http.get("/api/tables/QQQ003"), 429, "rate_limited")
