"""Fairness that cannot be quietly bypassed (issue 9): ``bobing verify`` on tampered records of a
real game, a device's own view (``--seen``), and the thrower's browser catching a server that
does not roll with the nonce it sent.

The records come from a real ``bobing serve`` process: a pass-and-play game with start dice and
a referee game, both ended by the host so the seed is revealed.
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webtools import ServeProcess

from bobing.engine.errors import RecordError
from bobing.engine.fairness import derive_faces, verify

BOBING = str(Path(sys.executable).with_name("bobing"))
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(base: str, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
    request = urllib.request.Request(
        base + path, data=None if body is None else json.dumps(body).encode(), method=method
    )
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with OPENER.open(request, timeout=30) as response:
        return json.loads(response.read())


def play(base: str, mode: str, throws: int) -> dict[str, Any]:
    """A table of three played for ``throws`` throws (whole rounds), then the host calls time,
    which ends a game at once between rounds: its record."""
    created = call(base, "POST", "/api/tables", {"name": "fair", "mode": mode})
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙", "丙"):
        call(base, "POST", f"/api/tables/{code}/join", {"name": name})
    command = f"/api/tables/{code}/commands"
    if mode == "referee":
        call(base, "POST", command, {"type": "start_dice", "thrower": "乙", "dice": [2, 3]}, host)
    else:
        call(base, "POST", command, {"type": "start_dice", "thrower": "乙", "nonce": "s0"}, host)
    call(base, "POST", command, {"type": "start"}, host)
    for turn in range(1, throws + 1):
        fields: dict[str, Any] = {"type": "throw", "turn": turn}
        if mode == "referee":
            fields["dice"] = "123455"
        else:
            fields["nonce"] = f"n-{turn}"
        call(base, "POST", command, fields, created["play_token"] or host)
    call(base, "POST", command, {"type": "end"}, host)
    record: dict[str, Any] = call(base, "GET", f"/api/tables/{code}/record")
    return record


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    folder = tmp_path_factory.mktemp("fair")
    server = ServeProcess(f"sqlite+aiosqlite:///{folder / 'fair.sqlite3'}", folder / "serve.log")
    base = server.start()
    try:
        yield {"server": play(base, "pass_and_play", 6), "referee": play(base, "referee", 3)}
    finally:
        server.stop()


def verify_cli(
    tmp_path: Path, record: dict[str, Any], *args: str, lang: str = "en", seen: Any = None
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record, ensure_ascii=False), encoding="utf-8")
    extra: list[str] = []
    if seen is not None:
        (tmp_path / "seen.json").write_text(json.dumps(seen), encoding="utf-8")
        extra = ["--seen", str(tmp_path / "seen.json")]
    env = {k: v for k, v in os.environ.items() if k != "BOBING_LANG"}
    return subprocess.run(
        [BOBING, "verify", str(path), *extra, "--lang", lang, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )


def test_the_real_record_verifies(records: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    record = records["server"]
    # the host's end is a close (RULES.md §8.1): not a throw
    assert [t for t in record["throws"] if "close" not in t] == record["throws"][:6]
    assert len(record["fairness"]["throws"]) == 6
    done = verify_cli(tmp_path, record)
    assert done.returncode == 0, done.stderr
    # the start dice are named apart, never counted as a throw
    assert done.stdout.startswith("ok: all 6 throws of table ")
    assert "and its start dice follow from the seed" in done.stdout
    as_json = json.loads(verify_cli(tmp_path, record, "--json").stdout)
    assert [c["throw"] for c in as_json["checked"]] == [1, 2, 3, 4, 5, 6]
    assert as_json["start"]["nonce"] == "s0" and as_json["referee"] is False


def test_a_forged_throw_without_entries_fails(
    records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    # The bypass: change throw 1 to 444444, delete every fairness entry.
    forged = copy.deepcopy(records["server"])
    forged["throws"][0]["dice"] = "444444"
    forged["fairness"]["throws"] = []
    done = verify_cli(tmp_path, forged)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "throw 1 has no fairness entry" in done.stderr
    assert "(6 missing: 1, 2, 3, 4, 5, 6)" in done.stderr
    assert done.stdout == ""


TAMPERINGS = [
    (lambda r: r["fairness"]["throws"].pop(2), "throw 3 has no fairness entry"),
    (lambda r: r["fairness"]["throws"].append({"throw": 2, "nonce": "x"}), "names throw 2 twice"),
    (
        lambda r: r["fairness"]["throws"].append({"throw": 9, "nonce": "x"}),
        "names throw 9 but the record has 6 throws",
    ),
    (lambda r: r["fairness"]["throws"][1].update(nonce="other"), "throw 2: recorded"),
    (
        lambda r: r["throws"].__setitem__(3, {"player": r["throws"][3]["player"], "tiaohou": True}),
        "throw 4: a 跳猴 cannot come from server dice",
    ),
    # 7 - d is another face for every d: the dice change for sure
    (
        lambda r: r["start"].update(dice=[7 - d for d in r["start"]["dice"]]),
        "the record's start dice",
    ),
    (lambda r: r["fairness"].update(start=None), "fairness.start does not"),
    (
        lambda r: r["fairness"]["start"].update(dice=[7 - d for d in r["start"]["dice"]]),
        "are not the fairness block's",
    ),
    (lambda r: r["table"].update(mode="referee"), "referee table (real dice) but names 6"),
    (lambda r: r["table"].update(mode="arcade"), "unknown table mode 'arcade'"),
    (lambda r: r["fairness"].update(server_seed="0" * 64), "does not match the commitment"),
]


@pytest.mark.parametrize(("tamper", "message"), TAMPERINGS)
def test_every_tampering_is_named(
    records: dict[str, dict[str, Any]], tmp_path: Path, tamper: Any, message: str
) -> None:
    forged = copy.deepcopy(records["server"])
    tamper(forged)
    with pytest.raises(RecordError):
        verify(forged)
    done = verify_cli(tmp_path, forged)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert message in done.stderr, done.stderr


def test_a_record_without_its_table_block_is_checked_as_server_dice(
    records: dict[str, dict[str, Any]],
) -> None:
    forged = copy.deepcopy(records["server"])
    del forged["table"]
    assert len(verify(forged).throws) == 6
    forged["fairness"]["throws"] = []
    with pytest.raises(RecordError, match="no fairness entry"):
        verify(forged)


def test_a_referee_record_says_plainly_there_is_nothing_to_verify(
    records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    record = records["referee"]
    for lang, words in (
        ("en", "is a referee table: its dice are real dice"),
        ("zh-Hans", "是裁判桌：骰子是真骰子"),
        ("zh-Hant", "是裁判桌：骰子是真骰子"),
    ):
        done = verify_cli(tmp_path, record, lang=lang)
        assert done.returncode == 0, done.stderr
        assert words in done.stdout
        assert "0 server throws" not in done.stdout and "ok:" not in done.stdout
    # a referee record with a server entry slipped in has been altered
    forged = copy.deepcopy(record)
    forged["fairness"]["throws"] = [{"throw": 1, "nonce": "x"}]
    done = verify_cli(tmp_path, forged)
    assert done.returncode == 2 and "has been altered" in done.stderr


def test_one_language_per_message(records: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    ok = verify_cli(tmp_path, records["server"], lang="zh-Hans")
    assert ok.returncode == 0 and ok.stdout.startswith("通过：桌 ")
    assert not re.search(r"\b(ok|throws|seed|table)\b", ok.stdout)
    forged = copy.deepcopy(records["server"])
    forged["fairness"]["throws"] = []
    for lang, words in (
        ("zh-Hans", "第 1 掷没有公平验证条目"),
        ("zh-Hant", "第 1 擲沒有公平驗證條目"),
    ):
        bad = verify_cli(tmp_path, forged, lang=lang)
        assert bad.returncode == 2 and words in bad.stderr
        assert not re.search(r"\b(throw|entry|server|missing)\b", bad.stderr), bad.stderr


def seen_of(record: dict[str, Any], mine: tuple[int, ...] = (1, 4)) -> dict[str, Any]:
    """What a device at the table saw: every throw live, and the nonces it sent for its own."""
    nonces = {e["throw"]: e["nonce"] for e in record["fairness"]["throws"]}
    throws = []
    for number, entry in enumerate((t for t in record["throws"] if "close" not in t), 1):
        item = {"throw": number, "nonce": nonces[number], "dice": entry["dice"]}
        if number in mine:
            item["sent"] = f"n-{number}"
        throws.append(item)
    return {
        "table_id": record["fairness"]["table_id"],
        "commitment": record["fairness"]["commitment"],
        "throws": throws,
    }


def test_what_a_device_saw_and_sent(records: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    record = records["server"]
    seen = seen_of(record)
    done = verify_cli(tmp_path, record, seen=seen)
    assert done.returncode == 0, done.stderr
    assert "the 6 throws this device saw are the record's, and the 2 it threw" in done.stdout

    # A server that ignored this device's nonce on throw 4 (and recorded what it really used):
    # the record alone verifies, the device's file does not.
    ignored = copy.deepcopy(seen)
    ignored["throws"][3]["sent"] = "my-own-nonce"
    done = verify_cli(tmp_path, record, seen=ignored)
    assert done.returncode == 2
    assert "throw 4: this device sent the nonce 'my-own-nonce' but the server rolled with" in (
        done.stderr
    )

    # A record rewritten after the game (a throw's nonce and dice changed consistently, with the
    # seed still right) is caught by what the device saw live.
    rewritten = copy.deepcopy(record)
    seed, table = record["fairness"]["server_seed"], record["fairness"]["table_id"]
    rewritten["fairness"]["throws"][1]["nonce"] = "rewritten"
    rewritten["throws"][1]["dice"] = "".join(map(str, derive_faces(seed, table, 2, "rewritten")))
    assert len(verify(rewritten).throws) == 6
    done = verify_cli(tmp_path, rewritten, seen=seen)
    assert done.returncode == 2 and "throw 2: this device saw the nonce 'n-2'" in done.stderr

    other = dict(seen, commitment="0" * 64)
    done = verify_cli(tmp_path, record, seen=other)
    assert done.returncode == 2 and "the seed was changed" in done.stderr


def test_the_thrower_s_browser_flags_a_server_that_ignores_its_nonce(
    browser: Any, tmp_path: Path
) -> None:
    """The server's events for the start dice and for throw 2 carry nonces the phone never sent
    (rewritten on the wire, as a server patched to ignore client nonces would send them): the
    phone says so at once, in the table's log, and the fairness card fails after the game."""
    from e2etools import open_table, running_server, state, wait_status, wait_turn
    from playwright.sync_api import WebSocketRoute, expect

    def tamper(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def down(message: str | bytes) -> None:
            if isinstance(message, str) and ('"dice"' in message or '"start_dice"' in message):
                frame = json.loads(message)
                common = frame.get("common", {})  # fields the frame's events share (protocol.md)
                for event in frame.get("events", []):
                    if event["type"] == "dice" and event.get("throw", common.get("throw")) == 2:
                        event["nonce"] = "server-chosen"
                    if event["type"] == "start_dice":
                        event["nonce"] = "start-chosen"
                message = json.dumps(frame, ensure_ascii=False)
            ws.send(message)

        server.on_message(down)

    with running_server(tmp_path) as served:
        page = browser.page(name="thrower")
        page.route_web_socket(re.compile(r"/ws/tables/"), tamper)
        open_table(page, served.url, mode="pass_and_play")  # no throw of the two ends the game
        for name in ("甲", "乙"):
            page.get_by_label("玩家名字").fill(name)
            page.get_by_role("button", name="添加").click()
            expect(page.locator(".seat-name").last).to_have_text(name)
        # the start dice: the server's start_dice event comes back with another nonce
        page.get_by_role("button", name="掷开局骰").click()
        expect(page.get_by_role("button", name="重掷开局骰")).to_be_visible()
        # said at once, in the lobby
        said = page.locator(".toast-error", has_text="服务器掷开局骰时没有用本机发出的随机数")
        expect(said).to_be_visible()
        page.get_by_role("button", name="开始博饼").click()
        wait_turn(page, 1)
        alert = page.locator(".nonce-alert")
        expect(alert).to_contain_text("服务器掷开局骰时没有用本机发出的随机数")
        expect(alert).not_to_contain_text("第 1 掷")
        page.locator(".throw-btn").click()
        wait_turn(page, 2)
        expect(alert).not_to_contain_text("第 1 掷")  # throw 1 carried our nonce
        page.locator(".throw-btn").click()
        wait_turn(page, 3)
        expect(alert).to_be_visible()
        expect(alert).to_contain_text("这几掷的点数可能不公平")
        expect(alert).to_contain_text("服务器掷第 2 掷时没有用本机发出的随机数")
        logged = page.locator(".log-nonce-alert")
        expect(logged).to_have_count(2)
        expect(logged.first).to_contain_text("第 2 掷：本机发出的随机数是")
        expect(logged.first).to_contain_text("服务器却用 server-chosen 掷骰")
        expect(logged.last).to_contain_text("开局骰：本机发出的随机数是")
        expect(logged.last).to_contain_text("服务器却用 start-chosen 掷骰")
        # it survives a reload (the phone keeps what it saw)
        page.reload()
        expect(page.locator(".nonce-alert")).to_be_visible()
        # after the game the fairness card fails, naming the throw
        # two players, two throws: the host calls time between rounds, which ends it at once
        # (and the dialog says so)
        page.get_by_role("button", name="结束本局").click()
        expect(page.get_by_role("dialog")).to_contain_text("这一轮还没有人掷：游戏立即结束。")
        page.get_by_role("dialog").get_by_role("button", name="现在结束").click()
        wait_status(page, "over")
        page.get_by_role("button", name="验证每一掷").click()
        expect(page.locator(".verdict")).to_have_text(
            "服务器在第 2 掷没有用本机的随机数！ 服务器掷开局骰时没有用本机的随机数！"
        )
        # and the phone's file makes `bobing verify --seen` fail on the same throw
        seen = page.evaluate("() => window.bobing.seen")
        code = state(page)["code"]
        record = call(served.url, "GET", f"/api/tables/{code}/record")
        assert [t["throw"] for t in seen["throws"]] == [1, 2]
        assert seen["throws"][1]["sent"] != "server-chosen"
        done = verify_cli(tmp_path, record, seen=seen)
        assert done.returncode == 2
        assert "throw 2: this device sent the nonce" in done.stderr
        assert "but the server rolled with 'server-chosen'" in done.stderr


async def test_a_dispute_reaches_every_phone_and_fails_the_record(tmp_path: Path) -> None:
    """The thrower's phone files a dispute (as the browser does when its nonce did not come
    back): every phone gets ``nonce_disputed``, the record carries it, verify fails on it."""
    from webtools import Client

    server = ServeProcess(f"sqlite+aiosqlite:///{tmp_path / 'd.sqlite3'}", tmp_path / "d.log")
    base = server.start()
    try:
        created = call(base, "POST", "/api/tables", {"name": "dispute"})
        code, host = created["code"], created["host_token"]
        tokens = {
            name: call(base, "POST", f"/api/tables/{code}/join", {"name": name})["player_token"]
            for name in ("甲", "乙")
        }
        a = await Client.connect(base, code, [tokens["甲"]], name="甲")
        b = await Client.connect(base, code, [tokens["乙"]], name="乙")
        watcher = await Client.connect(base, code, name="spectator")
        assert (await a.command("start_dice", nonce="s0"))["type"] == "error"  # host only
        call(base, "POST", f"/api/tables/{code}/commands", {"type": "start"}, host)
        state = call(base, "GET", f"/api/tables/{code}")
        first = {"甲": a, "乙": b}[state["next"]]
        other = b if first is a else a
        assert (await first.command("throw", turn=1, nonce="mine-1"))["type"] == "ack"
        # refused: the honest server did roll with that nonce; not the thrower; no such throw
        same = await first.command("dispute", throw=1, nonce="mine-1")
        assert same["code"] == "illegal_action"
        assert (await other.command("dispute", throw=1, nonce="x"))["code"] == "forbidden"
        assert (await first.command("dispute", throw=7, nonce="x"))["code"] == "invalid_field"
        assert (await first.command("dispute", throw=1))["code"] == "invalid_field"
        # the claim
        ack = await first.command("dispute", throw=1, nonce="what-i-sent")
        assert ack["type"] == "ack"
        await watcher.reach(ack["last_seq"])
        disputed = [e for e in watcher.events if e["type"] == "nonce_disputed"]
        assert disputed == [
            {
                **disputed[0],
                "throw": 1,
                "player": first.name,
                "sent": "what-i-sent",
                "nonce": "mine-1",
            }
        ]
        again = await first.command("dispute", throw=1, nonce="what-i-sent")
        assert again["type"] == "ack" and again["last_seq"] == ack["last_seq"]  # nothing new
        # the other player throws: the round is whole, so calling time ends the game at once
        assert (await other.command("throw", turn=2, nonce="theirs-2"))["type"] == "ack"
        call(base, "POST", f"/api/tables/{code}/commands", {"type": "end"}, host)
        record = call(base, "GET", f"/api/tables/{code}/record")
        assert record["fairness"]["server_seed"] is not None
        assert record["fairness"]["disputes"] == [
            {"throw": 1, "player": first.name, "sent": "what-i-sent", "nonce": "mine-1"}
        ]
        with pytest.raises(RecordError, match="reported that it sent the nonce 'what-i-sent'"):
            verify(record)
        done = verify_cli(tmp_path, record, lang="zh-Hans")
        assert done.returncode == 2
        assert f"第 1 掷：{first.name} 的设备报告它发出的随机数是 'what-i-sent'" in done.stderr
        for client in (a, b, watcher):
            await client.close()
    finally:
        server.stop()
    assert "Traceback" not in (tmp_path / "d.log").read_text()


def test_the_browser_check_agrees_with_bobing_verify(
    browser: Any, records: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    """The 公平验证 card (js/fair.js) passes exactly the records `bobing verify` passes."""
    from e2etools import running_server

    cases = [records["server"], records["referee"]]
    for tamper, _ in TAMPERINGS:
        forged = copy.deepcopy(records["server"])
        tamper(forged)
        cases.append(forged)
    forged = copy.deepcopy(records["server"])
    forged["throws"][0]["dice"] = "444444"
    forged["fairness"]["throws"] = []
    cases.append(forged)
    disputed = copy.deepcopy(records["server"])
    disputed["fairness"]["disputes"] = [{"throw": 1, "player": "甲", "sent": "a", "nonce": "b"}]
    cases.append(disputed)
    # a close (RULES.md §8.1) is not a throw: the numbers after it still match
    closed = copy.deepcopy(records["server"])
    closed["throws"].insert(2, {"close": True})
    cases.append(closed)
    expected = []
    for case in cases:
        try:
            verify(case)
            expected.append(True)
        except RecordError:
            expected.append(False)
    assert expected[:2] == [True, True] and not any(expected[2:-1]) and expected[-1]
    with running_server(tmp_path) as served:
        page = browser.page(name="verifier")
        page.goto(served.url + "/")
        got = page.evaluate(
            """async (cases) => {
                const f = await import('/js/fair.js');
                const out = [];
                for (const record of cases) out.push((await f.verifyRecord(record)).ok);
                return out;
            }""",
            cases,
        )
    assert got == expected
