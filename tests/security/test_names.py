"""Issue 9: bad text and odd input get a clean 4xx and leave the table as it was.

Names that show nothing, names that look like a seated one, start and throw dice that are not
ASCII digits 1-6; and the lobby against squatters (the host locks it; a removed name cannot
come straight back).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sectools import NO_LIMITS, Client, open_table, problem_of, served

INVISIBLE = [
    "\u200d",
    "\u3164",
    "\u2800",
    "\u034f",
    "\u200d\u3164\u2800\u034f",
    "\u115f\u1160",
    "\ufe0f",
    "\u0301",
    " \u2800 ",
    "\u180e",
]
"""Zero-width joiner, Hangul filler, blank Braille, combining grapheme joiner and friends."""


async def _state(server: Any, code: str) -> dict[str, Any]:
    response = await server.http.get(f"/api/tables/{code}")
    assert response.status_code == 200
    state: dict[str, Any] = response.json()
    return state


async def test_invisible_names_are_refused(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created, _ = await open_table(server.http, ["甲"])
        code = created["code"]
        before = await _state(server, code)
        for name in INVISIBLE:
            response = await server.http.post(f"/api/tables/{code}/join", json={"name": name})
            problem_of(response, 422, "invalid_name")
            response = await server.http.post("/api/tables", json={"name": name})
            problem_of(response, 422, "invalid_name")
        assert await _state(server, code) == before
        # A visible name with a joiner inside (an emoji sequence) is still welcome.
        family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": family})
        assert response.status_code == 201, response.text


@pytest.mark.parametrize(
    ("seated", "lookalike"),
    [
        ("A", "A\u200d"),
        ("A", "A\u034f"),
        ("A", "\uff21"),  # full-width Ａ
        ("甲", "甲\ufe0f"),
        ("小 明", "小  明"),
        ("ﬁsh", "fish"),  # the ligature ﬁ is NFKC fi
        ("x", "x\u180b"),  # a Mongolian variation selector
    ],
)
async def test_lookalikes_of_a_seated_name_are_name_taken(
    tmp_path: Path, seated: str, lookalike: str
) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created, _ = await open_table(server.http, [seated])
        code = created["code"]
        before = await _state(server, code)
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": lookalike})
        problem = problem_of(response, 409, "name_taken")
        assert problem["params"]["name"] == seated
        assert await _state(server, code) == before
        # Invisible format characters are refused outright (a clean 4xx either way).
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "\u200bA"})
        problem_of(response, 422, "invalid_name")


BAD_START_DICE: list[Any] = ["²³", "١٢", "a1b2", "12 ", "1", "123", "07", "١", "１２", [1, 7],
                             [True, 2], [1], [1, 2, 3], ["1", "2"], [1.0, 2.0]]  # fmt: skip
BAD_THROW_DICE: list[Any] = ["４４４４１２", "44441²", "4444١٢", "4,4,4,4,1,2", "4 4 4 4 1 2",
                             "44441", "4444127", "a44412", [4, 4, 4, 4, 1], [4, 4, 4, 4, 1, 7],
                             [4, 4, 4, 4, 1, True]]  # fmt: skip


async def test_referee_start_dice_are_ascii_digits_1_to_6(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created, _ = await open_table(server.http, ["甲", "乙"], mode="referee")
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        before = await _state(server, code)
        for dice in BAD_START_DICE:
            reply = await host.command("start_dice", dice=dice)
            assert reply["type"] == "error" and reply["code"] == "invalid_dice", (dice, reply)
            assert reply["status"] == 422
        assert await _state(server, code) == before
        for dice in ("34", [3, 4]):
            reply = await host.command("start_dice", dice=dice)
            assert reply["type"] == "ack", reply
        assert (await _state(server, code))["start_dice"]["dice"] == [3, 4]


async def test_referee_throw_dice_are_ascii_digits_1_to_6(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created, _ = await open_table(server.http, ["甲", "乙"], mode="referee")
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        assert (await host.command("start"))["type"] == "ack"
        before = await _state(server, code)
        for dice in BAD_THROW_DICE:
            reply = await host.command("throw", dice=dice, turn=1)
            assert reply["type"] == "error" and reply["code"] == "invalid_dice", (dice, reply)
        # Over HTTP too.
        response = await server.http.post(
            f"/api/tables/{code}/commands",
            json={"type": "throw", "id": "h-1", "dice": "４４４４１２"},
            headers={"Authorization": f"Bearer {created['host_token']}"},
        )
        problem_of(response, 422, "invalid_dice")
        assert await _state(server, code) == before
        assert (await host.command("throw", dice="444412", turn=1))["type"] == "ack"
        assert (await host.command("throw", dice=[1, 2, 3, 4, 5, 6], turn=2))["type"] == "ack"


async def test_the_host_locks_the_lobby(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS) as server:
        created, tokens = await open_table(server.http, ["甲"])
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        player = await Client.connect(server.url, code, [tokens["甲"]])
        refused = await player.command("lock", locked=True)
        assert refused["type"] == "error" and refused["code"] == "forbidden"
        reply = await host.command("lock", locked=True)
        assert reply["type"] == "ack"
        await host.reach(reply["last_seq"])
        assert host.state is not None and host.state["lobby_locked"] is True
        before = await _state(server, code)
        for name in ("乙", "丙"):
            response = await server.http.post(f"/api/tables/{code}/join", json={"name": name})
            problem = problem_of(response, 409, "lobby_locked")
            assert problem["params"]["code"] == code
        assert await _state(server, code) == before
        # The host may still seat players (pass-and-play and referee hosts seat everyone).
        response = await server.http.post(
            f"/api/tables/{code}/join",
            json={"name": "戊"},
            headers={"Authorization": f"Bearer {created['host_token']}"},
        )
        assert response.status_code == 201, response.text
        response = await server.http.post(
            f"/api/tables/{code}/join",
            json={"name": "己"},
            headers={"Authorization": f"Bearer {tokens['甲']}"},
        )
        problem_of(response, 409, "lobby_locked")
        # Locking twice changes nothing; opening lets people in again.
        head = (await _state(server, code))["last_seq"]
        again = await host.command("lock", locked=True)
        assert again["type"] == "ack" and again["last_seq"] == head
        assert (await host.command("lock", locked=False))["type"] == "ack"
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "乙"})
        assert response.status_code == 201
        # The lock survives a restart (it is an event of the log).
        assert (await host.command("lock", locked=True))["type"] == "ack"
        await server.restart()
        state = await _state(server, code)
        assert state["lobby_locked"] is True
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "丁"})
        problem_of(response, 409, "lobby_locked")


async def test_a_removed_name_cannot_rejoin_at_once(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "rejoin_cooldown=600") as server:
        created, tokens = await open_table(server.http, ["甲", "squatter"])
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        reply = await host.command("remove", player="squatter")
        assert reply["type"] == "ack"
        for name in ("squatter", "squatter\u200d", "ｓｑｕａｔｔｅｒ"):
            response = await server.http.post(f"/api/tables/{code}/join", json={"name": name})
            problem = problem_of(response, 409, "rejoin_too_soon")
            assert 0 < problem["params"]["retry_after"] <= 600
            assert int(response.headers["Retry-After"]) == problem["params"]["retry_after"]
        # Other names may join; the bar survives a restart (it is folded from the log).
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "乙"})
        assert response.status_code == 201
        await server.restart()
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "squatter"})
        problem_of(response, 409, "rejoin_too_soon")
        # The old token is worthless.
        ws = await Client.connect(server.url, code, [tokens["squatter"]])
        assert ws.welcome is not None and ws.welcome["code"] == "invalid_token"


async def test_without_a_cooldown_a_removed_name_may_rejoin(tmp_path: Path) -> None:
    async with served(tmp_path, *NO_LIMITS, "rejoin_cooldown=0") as server:
        created, _ = await open_table(server.http, ["甲", "乙"])
        code = created["code"]
        host = await Client.connect(server.url, code, [created["host_token"]])
        assert (await host.command("remove", player="乙"))["type"] == "ack"
        response = await server.http.post(f"/api/tables/{code}/join", json={"name": "乙"})
        assert response.status_code == 201
