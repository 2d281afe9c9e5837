"""Life at a real table (issue 13): the host stands in for an absent player, hands a seat to a
new phone, lets the server throw after N seconds of absence; a rematch with the same seats;
reactions; the invite address."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import TIMEOUT, Client, create_table, join, running_server

from bobing.engine.errors import InputError
from bobing.web.edge.invite import invite_base, lan_addresses
from bobing.web.serve import public_base
from bobing.web.settings import Settings

NAMES = ["甲", "乙", "丙"]


async def online_table(
    http: httpx.AsyncClient, server: str
) -> tuple[dict[str, Any], dict[str, str], Client]:
    """A started online table (甲 starts), the players' tokens and the host's client."""
    created = await create_table(http, mode="online")
    code = created["code"]
    tokens = {n: (await join(http, code, n))["player_token"] for n in NAMES}
    host = await Client.connect(server, code, [created["host_token"]], name="host")
    reply = await host.command("start", starter="甲")
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    return created, tokens, host


def of_type(client: Client, kind: str) -> list[dict[str, Any]]:
    return [e for e in client.events if e["type"] == kind]


async def test_host_stands_in_for_an_absent_player(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await online_table(http, server)
    # a plain host throw is still refused: standing in is said out loud
    refused = await host.command("throw", turn=1)
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    reply = await host.command("throw", turn=1, stand_in=True)
    assert reply["type"] == "ack", reply
    await host.reach(reply["last_seq"])
    dice = of_type(host, "dice")[-1]
    assert dice["player"] == "甲" and dice["stand_in"] == "host"
    assert of_type(host, "thrown")[-1]["player"] == "甲"
    # a player may not stand in for another
    yi = await Client.connect(server, created["code"], [tokens["乙"]], name="乙")
    assert host.state is not None and host.state["next"] == "乙"
    own = await yi.command("throw", turn=2)
    assert own["type"] == "ack", own
    await yi.reach(own["last_seq"])
    bing = await yi.command("throw", turn=3, stand_in=True)
    assert bing["type"] == "error" and bing["code"] == "forbidden", bing
    # the dice of a player's own throw name no stand-in
    assert "stand_in" not in of_type(yi, "dice")[-1]


async def test_stand_in_is_for_online_tables(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="referee")
    for n in NAMES:
        await join(http, created["code"], n)
    host = await Client.connect(server, created["code"], [created["host_token"]])
    await host.command("start")
    reply = await host.command("throw", turn=1, dice="123456", stand_in=True)
    assert reply["type"] == "error" and reply["code"] == "wrong_mode", reply
    auto = await host.command("set_auto_throw", seconds=30)
    assert auto["type"] == "error" and auto["code"] == "wrong_mode", auto


async def test_a_seat_moves_to_a_new_phone_once(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await online_table(http, server)
    code = created["code"]
    old = await Client.connect(server, code, [tokens["甲"]], name="old phone")
    assert old.welcome is not None and old.welcome["roles"] == ["player"]
    refused = await old.command("hand_seat", player="甲")
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    handed = await host.command("hand_seat", player="甲")
    assert handed["type"] == "ack", handed
    seat_token = handed["reply"]["seat_token"]
    assert handed["reply"]["player"] == "甲"
    await old.reach(handed["last_seq"])
    assert of_type(old, "seat_handed")[-1]["player"] == "甲"
    assert "seat_token" not in str(old.events)  # the link goes to the host only
    # the old phone has lost the seat at once
    lost = await old.command("throw", turn=1)
    assert lost["type"] == "error" and lost["code"] == "forbidden", lost
    new = await Client.connect(server, code, [seat_token], name="new phone")
    assert new.welcome is not None and new.welcome["player"] == "甲"
    claimed = await new.command("claim_seat")
    assert claimed["type"] == "ack", claimed
    player_token = claimed["reply"]["player_token"]
    # the link was for one phone: it no longer opens the seat
    again = await Client.connect(server, code, [seat_token], name="third phone")
    assert again.welcome is not None and again.welcome["type"] == "error"
    assert again.welcome["code"] == "invalid_token"
    mine = await Client.connect(server, code, [player_token], name="new phone, its own token")
    thrown = await mine.command("throw", turn=1)
    assert thrown["type"] == "ack", thrown
    await host.reach(thrown["last_seq"])
    assert [e["type"] for e in host.events if e["type"].startswith("seat_")] == [
        "seat_handed",
        "seat_claimed",
    ]
    nobody = await Client.connect(server, code, [], name="spectator")
    refused = await nobody.command("claim_seat")
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused


async def test_auto_throw_survives_a_restart(db_url: str, tmp_path: Path) -> None:
    settings = Settings(db_url=db_url)
    async with running_server(settings) as server, httpx.AsyncClient(base_url=server) as http:
        created, _, host = await online_table(http, server)
        code = created["code"]
        bad = await host.command("set_auto_throw", seconds=2)
        assert bad["type"] == "error" and bad["code"] == "invalid_field", bad
        reply = await host.command("set_auto_throw", seconds=5)
        assert reply["type"] == "ack", reply
        await host.reach(reply["last_seq"])
        assert host.state is not None
        auto = host.state["auto_throw"]
        set_at = datetime.fromisoformat(of_type(host, "auto_throw_set")[-1]["at"])
        # the deadline is derived from the log: the last event's time plus the seconds
        assert datetime.fromisoformat(auto["deadline"]) == set_at + timedelta(seconds=5)
        pause = await host.command("pause")
        assert pause["type"] == "ack", pause
    # the server stops; the table waits paused; a new server resumes and throws by itself
    async with running_server(settings) as server:
        host = await Client.connect(server, code, [created["host_token"]], name="host again")
        assert host.state is not None and host.state["auto_throw"]["deadline"] is None
        resumed = await host.command("resume")
        assert resumed["type"] == "ack", resumed
        await host.until(
            lambda f: any(e.get("stand_in") == "auto" for e in f.get("events", [])),
            timeout=TIMEOUT + 10,
        )
        dice = [e for e in host.events if e["type"] == "dice"][-1]
        assert dice["stand_in"] == "auto" and dice["player"] == "甲"
        await host.command("set_auto_throw", seconds=0)
    async with running_server(settings) as server:
        host = await Client.connect(server, code, [created["host_token"]], name="third server")
        assert host.state is not None and host.state["auto_throw"] is None


async def test_rematch_keeps_the_seats(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await online_table(http, server)
    code = created["code"]
    early = await host.command("rematch")
    assert early["type"] == "error" and early["code"] == "not_playing", early
    await host.command("set_auto_throw", seconds=60)
    end = await host.command("end")
    await host.reach(end["last_seq"])
    yi = await Client.connect(server, code, [tokens["乙"]], name="乙")
    none_yet = await yi.command("claim_rematch")
    assert none_yet["type"] == "error" and none_yet["code"] == "no_rematch", none_yet
    not_host = await yi.command("rematch")
    assert not_host["type"] == "error" and not_host["code"] == "forbidden", not_host
    reply = await host.command("rematch")
    assert reply["type"] == "ack", reply
    new_code = reply["reply"]["code"]
    assert new_code != code
    await yi.reach(reply["last_seq"])
    assert of_type(yi, "rematch")[-1]["code"] == new_code
    assert yi.state is not None and yi.state["rematch"] == new_code
    twice = await host.command("rematch")
    assert twice["type"] == "error" and twice["code"] == "rematch_exists", twice
    assert twice["params"]["code"] == new_code
    table = (await http.get(f"/api/tables/{new_code}")).json()
    assert table["status"] == "lobby"
    assert [p["name"] for p in table["players"]] == NAMES
    assert host.state is not None and table["rules"] == host.state["rules"]
    assert table["auto_throw"] == {"seconds": 60, "deadline": None}
    claimed = await yi.command("claim_rematch")
    assert claimed["type"] == "ack", claimed
    assert claimed["reply"]["code"] == new_code and claimed["reply"]["player"] == "乙"
    there = await Client.connect(server, new_code, [claimed["reply"]["player_token"]])
    assert there.welcome is not None and there.welcome["player"] == "乙"
    new_host = await Client.connect(server, new_code, [reply["reply"]["host_token"]])
    assert new_host.welcome is not None and new_host.welcome["roles"] == ["host"]
    started = await new_host.command("start")
    assert started["type"] == "ack", started


async def test_reactions_are_rate_limited(http: httpx.AsyncClient, server: str) -> None:
    created, tokens, host = await online_table(http, server)
    code = created["code"]
    jia = await Client.connect(server, code, [tokens["甲"]], name="甲")
    first = await jia.command("react", emoji="🎉")
    assert first["type"] == "ack", first
    soon = await jia.command("react", emoji="👏")
    assert soon["type"] == "error" and soon["code"] == "reaction_too_soon", soon
    assert soon["status"] == 429
    # another sender has their own allowance; the host reacts without a seat
    other = await host.command("react", emoji="👏")
    assert other["type"] == "ack", other
    await host.reach(other["last_seq"])
    reactions = of_type(host, "reaction")
    assert [(r["player"], r["emoji"]) for r in reactions] == [("甲", "🎉"), (None, "👏")]
    odd = await jia.command("react", emoji="<b>")
    assert odd["type"] == "error" and odd["code"] == "invalid_field", odd
    spectator = await Client.connect(server, code, [], name="spectator")
    refused = await spectator.command("react", emoji="🎉")
    assert refused["type"] == "error" and refused["code"] == "forbidden", refused
    # a reaction is no turn: it does not move the auto-throw deadline
    assert host.state is not None and host.state["next"] == "甲"


async def test_invite_endpoint_on_loopback(http: httpx.AsyncClient, server: str) -> None:
    invite = (await http.get("/api/invite")).json()
    assert invite == {"base": server, "lan": [], "loopback_only": True}


@pytest.mark.parametrize(
    ("listen", "host", "expected_base", "loopback_only"),
    [
        (("127.0.0.1", 8000), "127.0.0.1:8000", "http://127.0.0.1:8000", True),
        (("192.168.1.20", 8000), "localhost:8000", "http://192.168.1.20:8000", False),
        (("192.168.1.20", 8000), "192.168.1.20:8000", "http://192.168.1.20:8000", False),
        (("127.0.0.1", 8000), "bobing.example:8000", "http://bobing.example:8000", False),
        (None, "[::1]:8000", "http://[::1]:8000", True),
    ],
)
def test_invite_base(
    listen: tuple[str, int] | None, host: str, expected_base: str, loopback_only: bool
) -> None:
    got = invite_base(listen, host, f"http://{host}")
    assert got["base"] == expected_base
    assert got["loopback_only"] is loopback_only


def test_invite_base_behind_a_proxy() -> None:
    # --public-url wins over the LAN address and the browser's own, even on loopback
    for listen in (("127.0.0.1", 8000), ("0.0.0.0", 8000)):
        got = invite_base(listen, "127.0.0.1:8000", "http://127.0.0.1:8000", "https://b.example")
        assert got["base"] == "https://b.example"
        assert got["loopback_only"] is False


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://bobing.example/", "https://bobing.example"),
        (" http://10.0.0.5:8000 ", "http://10.0.0.5:8000"),
        ("https://x.example/bobing/", "https://x.example/bobing"),
    ],
)
def test_public_base(given: str, expected: str) -> None:
    assert public_base(given) == expected


@pytest.mark.parametrize("bad", ["bobing.example", "ftp://x.example", "https://", "https://x?a=1"])
def test_public_base_refuses(bad: str) -> None:
    with pytest.raises(InputError, match="not a public URL"):
        public_base(bad)


def test_invite_base_on_every_interface() -> None:
    lan = [f"http://{a}:8000" for a in lan_addresses()]
    got = invite_base(("0.0.0.0", 8000), "127.0.0.1:8000", "http://127.0.0.1:8000")
    assert got["lan"] == lan
    assert got["base"] == (lan[0] if lan else "http://127.0.0.1:8000")
    assert got["loopback_only"] is not lan


async def test_results_csv_in_the_readers_language(http: httpx.AsyncClient, server: str) -> None:
    created = await create_table(http, mode="referee")
    code = created["code"]
    for n in NAMES:
        await join(http, code, n)
    host = await Client.connect(server, code, [created["host_token"]])
    await host.command("start", starter="甲")
    end = await host.command("throw", turn=1, dice="444444")  # 六勃红 takes all, the end
    assert end["type"] == "ack", end
    await host.reach(end["last_seq"])
    assert host.state is not None and host.state["status"] == "over"
    plain = (await http.get(f"/api/tables/{code}/results.csv")).text.lstrip("\ufeff")
    assert plain.splitlines()[0].startswith("seat,player,zhuangyuan,duitang")
    assert plain.splitlines()[1].endswith(",liubohong")  # stable ids for programs
    chinese = (await http.get(f"/api/tables/{code}/results.csv?lang=zh-Hans")).text
    head, first = chinese.lstrip("\ufeff").splitlines()[:2]
    assert head == "座位,玩家,状元,对堂,三红,四进,二举,一秀,饼数,奖品价值,状元牌型"
    assert first.startswith("1,甲,1,") and first.endswith(",六勃红")
    english = (await http.get(f"/api/tables/{code}/results.csv?lang=en")).text
    assert english.lstrip("\ufeff").startswith("Seat,Player,Zhuangyuan,Duitang")
    assert english.splitlines()[1].endswith(",Six reds (liubohong)")
