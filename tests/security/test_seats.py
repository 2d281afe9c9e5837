"""Issue 16: an event's seats cannot be squatted.

Before: a seat was claimed by tapping its name (no secret), so anyone who saw the projected QR
could take any seat; releasing a seat left its token valid (the first claimer kept throwing on
that person's turn); and ``claim_seat`` took any player token, so a squatter could rotate
theirs and the owner's later claim returned a dead token (401). Now a seat is claimed with its
own key (the QR beside the name on the printed card) or by the organiser; every claim and every
release revokes the earlier tokens; only a hand-off link (not a player token) is traded by
``claim_seat``. Real ``bobing serve`` processes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
from sectools import NO_LIMITS, Client, problem_of, served

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己"]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _event(http: httpx.AsyncClient) -> dict[str, Any]:
    body = {"name": "认座", "rules": "traditional", "mode": "online", "people": PEOPLE,
            "tables": 2, "seating": "in_order"}  # fmt: skip
    response = await http.post("/api/events", json=body)
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _keys(http: httpx.AsyncClient, created: dict[str, Any]) -> dict[str, str]:
    response = await http.get(
        f"/api/events/{created['code']}/seats", headers=bearer(created["organizer_token"])
    )
    assert response.status_code == 200, response.text
    return {s["name"]: s["claim_key"] for s in response.json()["tables"][0]["seats"]}


async def _works(base: str, code: str, token: str) -> bool:
    """Whether ``token`` is a player token of the table (its socket is welcomed as a player)."""
    client = await Client.connect(base, code, [token])
    welcome = client.welcome or {}
    await client.close()
    return welcome.get("type") == "welcome" and "player" in welcome.get("roles", [])


async def test_a_seat_needs_its_own_claim_key(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await _event(server.http)
        code = created["code"]
        url = f"/api/events/{code}/tables/1/claim"
        # Tapping a name is no longer enough, nor another seat's key.
        problem_of(await server.http.post(url, json={"name": "甲"}), 403, "claim_key_required")
        keys = await _keys(server.http, created)
        wrong = await server.http.post(url, json={"name": "甲", "key": keys["乙"]})
        problem_of(wrong, 403, "claim_key_required")
        # The seats and their keys are the organiser's only.
        problem_of(await server.http.get(f"/api/events/{code}/seats"), 401, "unauthorized")
        mine = await server.http.post(url, json={"name": "甲", "key": keys["甲"]})
        assert mine.status_code == 201, mine.text
        seats = await _keys(server.http, created)
        assert seats == keys
        view = await server.http.get(
            f"/api/events/{code}/seats", headers=bearer(created["organizer_token"])
        )
        claimed = {s["name"]: s["claimed"] for s in view.json()["tables"][0]["seats"]}
        assert claimed == {"甲": True, "乙": False, "丙": False}
        # The public event page never carries a key.
        assert keys["甲"] not in (await server.http.get(f"/api/events/{code}")).text


async def test_releasing_a_seat_revokes_its_token(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await _event(server.http)
        code, table = created["code"], created["tables"][0]["code"]
        keys = await _keys(server.http, created)
        url = f"/api/events/{code}/tables/1/claim"
        first = (await server.http.post(url, json={"name": "甲", "key": keys["甲"]})).json()
        assert await _works(server.url, table, first["player_token"])
        freed = await server.http.post(
            f"/api/events/{code}/tables/1/release",
            json={"name": "甲"},
            headers=bearer(created["organizer_token"]),
        )
        assert freed.json()["released"] is True
        # Before: the first claimer still played that seat.
        assert not await _works(server.url, table, first["player_token"])
        # Issue 29: and took it straight back with the card's QR. Now the release gives the
        # seat a new key; the old card's is refused, saying so.
        new = freed.json()["claim_key"]
        assert new != keys["甲"]
        stale = await server.http.post(url, json={"name": "甲", "key": keys["甲"]})
        problem_of(stale, 403, "claim_key_replaced")
        assert (await _keys(server.http, created))["甲"] == new  # the cards print the new one
        again = (await server.http.post(url, json={"name": "甲", "key": new})).json()
        assert again["player_token"] != first["player_token"]
        assert await _works(server.url, table, again["player_token"])
        # The organiser claims on the person's behalf, even a claimed seat: earlier tokens die.
        behalf = await server.http.post(
            url, json={"name": "甲"}, headers=bearer(created["organizer_token"])
        )
        assert behalf.status_code == 201, behalf.text
        assert not await _works(server.url, table, again["player_token"])
        assert await _works(server.url, table, behalf.json()["player_token"])
        # A wrong organiser token is refused, not taken for a key-less claim.
        forged = await server.http.post(url, json={"name": "甲"}, headers=bearer("o_forged"))
        problem_of(forged, 403, "forbidden")


async def test_a_player_token_cannot_be_rotated_into_a_squat(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await _event(server.http)
        code, table = created["code"], created["tables"][0]["code"]
        keys = await _keys(server.http, created)
        url = f"/api/events/{code}/tables/1/claim"
        owner = (await server.http.post(url, json={"name": "乙", "key": keys["乙"]})).json()
        # The holder of a player token tries claim_seat to rotate it (the squat of issue 16).
        squatter = await Client.connect(server.url, table, [owner["player_token"]])
        refused = await squatter.command("claim_seat")
        assert refused["type"] == "error" and refused["code"] == "forbidden", refused
        assert await _works(server.url, table, owner["player_token"])


async def test_an_unclaimed_hand_off_link_is_not_a_player_token(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await _event(server.http)
        table = created["tables"][0]
        host = await Client.connect(server.url, table["code"], [table["host_token"]])
        handed = await host.command("hand_seat", player="甲")
        link = handed["reply"]["seat_token"]
        assert (await host.command("start"))["type"] == "ack"
        holder = await Client.connect(server.url, table["code"], [link])
        assert holder.welcome is not None and holder.welcome["roles"] == ["seat"]
        state = holder.state
        assert state is not None
        if state["next"] == "甲":
            thrown = await holder.command("throw", turn=1)
            assert thrown["type"] == "error" and thrown["code"] == "forbidden", thrown
        assert not await _works(server.url, table["code"], link)
        claimed = await holder.command("claim_seat")
        assert claimed["type"] == "ack", claimed
        assert await _works(server.url, table["code"], claimed["reply"]["player_token"])


async def test_a_new_key_retires_the_card_s_qr(tmp_path: Path) -> None:
    """Issue 29: a card photographed before anyone claimed the seat. The organiser gives the
    seat a new key; the old QR is refused in the guest's language, the new one claims."""
    async with served(tmp_path, *NO_LIMITS) as server:
        created = await _event(server.http)
        code = created["code"]
        keys = await _keys(server.http, created)
        url = f"/api/events/{code}/tables/1/claim"
        refused = await server.http.post(
            f"/api/events/{code}/tables/1/new_key", json={"name": "乙"}
        )
        problem_of(refused, 401, "unauthorized")  # the organiser's only
        renewed = await server.http.post(
            f"/api/events/{code}/tables/1/new_key",
            json={"name": "乙"},
            headers=bearer(created["organizer_token"]),
        )
        assert renewed.status_code == 200, renewed.text
        new = renewed.json()["claim_key"]
        seats = await _keys(server.http, created)
        assert seats == {**keys, "乙": new}  # the seats view and the cards: the new key
        titles = {}
        for lang in ("zh-Hans", "zh-Hant", "en"):
            stale = await server.http.post(
                url, params={"lang": lang}, json={"name": "乙", "key": keys["乙"]}
            )
            titles[lang] = problem_of(stale, 403, "claim_key_replaced")["title"]
        assert titles == {
            "zh-Hans": "这个二维码已作废",
            "zh-Hant": "這個二維碼已作廢",
            "en": "This QR was replaced",
        }
        # another seat's key is still just a wrong key
        wrong = await server.http.post(url, json={"name": "乙", "key": keys["甲"]})
        problem_of(wrong, 403, "claim_key_required")
        mine = await server.http.post(url, json={"name": "乙", "key": new})
        assert mine.status_code == 201, mine.text
        # a second new key retires the first new one too
        again = await server.http.post(
            f"/api/events/{code}/tables/1/new_key",
            json={"name": "乙"},
            headers=bearer(created["organizer_token"]),
        )
        for old in (keys["乙"], new):
            stale = await server.http.post(url, json={"name": "乙", "key": old})
            problem_of(stale, 403, "claim_key_replaced")
        assert (await _keys(server.http, created))["乙"] == again.json()["claim_key"]
