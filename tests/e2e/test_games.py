"""Whole games in real Chromium against a real ``bobing serve``: phones at the table, one device
passed around, and a referee entering real dice — through to the 状元 ceremony."""

from __future__ import annotations

import csv
import io
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from e2etools import (
    NEVER_ENDS,
    PHONE,
    Browser,
    Server,
    create_table,
    open_table,
    state,
    wait_status,
    wait_throws,
    wait_turn,
)
from playwright.sync_api import Page, expect

from bobing.engine.fairness import verify_record

pytestmark = pytest.mark.browser


def fetch_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read().decode("utf-8"))


def test_three_phones_online_game(browser: Browser, server: Server) -> None:
    """Three phones (one animating the dice with sound, one 360 px wide) play a whole online
    game to its ceremony. Long by its work (about 14 s alone), not by a wait."""
    host = browser.page(name="甲")
    # seven random throws, played on: no throw may end the game
    code = create_table(host, server.url, name="月下博饼", switches=NEVER_ENDS)
    assert {k: state(host)["rules"][k] for k in NEVER_ENDS} == NEVER_ENDS
    # the host sits down too; two friends join from the invite link
    host.get_by_label("你的名字").fill("甲")
    host.get_by_role("button", name="我也入座").click()
    expect(host.get_by_text("你已入座：甲")).to_be_visible()
    pages = {"甲": host}
    for name in ("乙", "丙"):
        # 乙's phone animates the dice and plays sounds; 丙's is a small 360-px phone
        ctx = browser.context(
            reduced_motion=name != "乙",
            viewport={"width": 360, "height": 780} if name == "丙" else PHONE,
        )
        page = browser.page(ctx, name=name)
        page.goto(f"{server.url}/t/{code}")
        page.get_by_label("你的名字").fill(name)
        page.get_by_role("button", name="入座").click()
        expect(page.get_by_text(f"你已入座：{name}")).to_be_visible()
        pages[name] = page
    for page in pages.values():
        expect(page.locator(".seat-name")).to_have_text(["甲", "乙", "丙"])
    # only the host may reorder and remove
    expect(pages["乙"].get_by_role("button", name="请丙离座")).to_have_count(0)
    host.get_by_role("button", name="把丙往前挪").click()
    for page in pages.values():
        expect(page.locator(".seat-name")).to_have_text(["甲", "丙", "乙"])
    host.get_by_role("button", name="把丙往后挪").click()
    expect(pages["丙"].locator(".seat-name")).to_have_text(["甲", "乙", "丙"])
    # a spectator on the big screen
    tv = browser.page(
        browser.context(
            viewport={"width": 1280, "height": 720}, device_scale_factor=1, reduced_motion=False
        ),
        "tv",
    )
    tv.goto(f"{server.url}/t/{code}/tv")
    expect(tv.locator(".tv-seats li")).to_have_count(3)

    assert fits(pages["丙"]), "the lobby scrolls sideways on a 360-px phone"
    host.get_by_role("button", name="掷开局骰").click()
    for page in pages.values():
        expect(page.locator(".start-result")).to_contain_text("甲 掷出")
    host.evaluate("window.scrollTo(0, 0)")
    browser.shot(host, "lobby")
    host.get_by_role("button", name="开始博饼").click()
    for page in pages.values():
        expect(page.locator(".play")).to_be_visible()
    assert fits(pages["丙"]), "the table screen scrolls sideways on a 360-px phone"

    announced = []
    for turn in range(1, 8):
        wait_turn(host, turn)
        nxt = state(host)["next"]
        thrower = pages[nxt]
        for name, page in pages.items():
            # the throw button is only on the phone whose turn it is
            if name != nxt:
                expect(page.get_by_role("button", name="掷骰子")).to_have_count(0)
        expect(thrower.locator(".turn-main")).to_have_text("轮到你了！")
        if turn == 2:
            # keyboard: Space throws when no control has the focus
            thrower.evaluate("document.activeElement && document.activeElement.blur()")
            thrower.keyboard.press(" ")
        else:
            thrower.get_by_role("button", name="掷骰子").click()
        for page in [*pages.values(), tv]:
            wait_turn(page, turn + 1)
        name = pages["甲"].locator(".award-name").inner_text()
        for page in pages.values():
            expect(page.locator(".award-who")).to_have_text(f"第 {turn} 掷 · {nxt}")
            expect(page.locator(".award-name")).to_have_text(name)
        expect(tv.locator(".tv-hand")).to_have_text(name)
        # each award is announced to screen readers
        expect(pages["乙"].locator("#announcer")).to_contain_text(f"第{turn}掷，{nxt}：{name}")
        announced.append(name)
        if turn == 4:
            expect(tv.locator(".bowl.is-rolling")).to_have_count(0)
            pages["甲"].evaluate("window.scrollTo(0, 0)")
            browser.shot(pages["甲"], "table")
            browser.shot(pages["甲"], "table-full", full_page=True)
            browser.shot(tv, "big-screen")
    # everyone sees the same holdings, and the cakes add up
    final = state(host)
    assert final["throw_count"] == 7
    for page in pages.values():
        assert state(page)["result"] == final["result"]
    held = sum(sum(h.values()) for h in final["result"]["holdings"].values())
    assert held + sum(final["result"]["pool"].values()) == 63
    assert fits(pages["丙"])
    expect(host.locator(".log-thrown")).to_have_count(7)


def fits(page: Page) -> bool:
    """Whether the page needs no horizontal scrolling."""
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def type_dice(page: Page, dice: str) -> None:
    """Enter faces on the referee pad with the keyboard, then confirm with the button."""
    page.locator("body").click(position={"x": 2, "y": 200})
    for face in dice:
        page.keyboard.press(face)
    page.get_by_role("button", name="确认").click()


def test_referee_game_to_the_ceremony(browser: Browser, server: Server, tmp_path: Path) -> None:
    host = browser.page(browser.context(accept_downloads=True), name="referee")
    code = create_table(
        host,
        server.url,
        mode="referee",
        name="真骰子",
        prizes={"duitang": 1, "sanhong": 0, "sijin": 0, "erju": 1, "yixiu": 1},
        named={"zhuangyuan": ("金月饼", 188), "duitang": ("茶叶", 60)},
    )
    for name in ("甲", "乙", "丙"):
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    expect(host.locator(".prize-line")).to_contain_text("对堂 1")
    # the two real start dice: 3 + 4 = 7, counted from 甲 (traditional: from the thrower)
    pad = host.locator(".start-card .ref-pad")
    pad.get_by_role("button", name="加一颗 3 点").click()
    pad.get_by_role("button", name="加一颗 4 点").click()
    pad.get_by_role("button", name="确认").click()
    expect(host.locator(".start-result")).to_have_text("甲 掷出 3 + 4 = 7，由 甲 先掷")
    host.get_by_role("button", name="开始博饼").click()
    expect(host.locator(".play .ref-pad")).to_be_visible()  # not the lobby's start pad

    # throw 1: 甲 四红带三 — shown before it is confirmed
    host.locator("body").click(position={"x": 2, "y": 200})
    for face in "444412":
        host.keyboard.press(face)
    expect(host.locator(".ref-preview .ref-name")).to_have_text("四红带三")
    expect(host.locator(".ref-preview .ref-why")).to_have_text("四颗红四，另两颗合计3点")
    host.evaluate("window.scrollTo(0, document.querySelector('.ref-pad').offsetTop - 80)")
    browser.shot(host, "referee")
    host.get_by_role("button", name="确认").click()
    wait_turn(host, 2)
    expect(host.locator(".award-lines")).to_contain_text("甲 暂居状元！")
    expect(host.locator(".leader-name")).to_have_text("甲 · 四红带三")
    # throw 2: 乙 对堂 (the only one); throw 3: 丙 跳猴
    type_dice(host, "123456")
    wait_turn(host, 3)
    expect(host.locator(".award-lines")).to_contain_text("得一块对堂饼")
    host.get_by_role("button", name="跳猴").click()
    host.get_by_role("button", name="确认").click()
    wait_turn(host, 4)
    expect(host.locator(".award-name")).to_have_text("跳猴")
    expect(host.locator(".award-lines")).to_contain_text("丙 下一轮停掷一次")
    # a 四红带六 by 甲 replaces the standing (禄骨 = latest)
    type_dice(host, "444433")
    wait_turn(host, 5)
    expect(host.locator(".leader-name")).to_have_text("甲 · 四红带六")
    type_dice(host, "442356")  # 乙 二举
    wait_turn(host, 6)
    # 丙 skips; 甲 throws 一秀: every ordinary cake is taken → the round is finished
    type_dice(host, "412355")
    wait_throws(host, 6)
    expect(host.locator(".turn-bar")).to_contain_text("最后一轮，到 丙 为止")
    assert state(host)["final_round"] == {"until_turn": 8, "last_thrower": "丙", "throws_left": 2}
    for _ in range(4):
        if state(host)["status"] == "over":
            break
        done = state(host)["throw_count"]
        type_dice(host, "235566")
        wait_throws(host, done + 1)
    wait_status(host, "over")

    expect(host.locator(".seal")).to_have_text("状元")
    expect(host.locator(".winner-name")).to_have_text("甲")
    expect(host.locator(".winner-hand")).to_have_text("四红带六")
    expect(host.locator(".winner-prize")).to_have_text("奖品：金月饼")
    row = host.locator("table.results tbody tr", has_text="甲")
    expect(row.locator("td.value")).to_have_text("188")
    host.evaluate("window.scrollTo(0, 0)")
    browser.shot(host, "ceremony")

    # the record (JSON) and the results (CSV) download
    with host.expect_download() as got:
        host.get_by_role("link", name="下载对局记录（JSON）").click()
    record = json.loads(Path(got.value.path()).read_text(encoding="utf-8"))
    assert record["players"] == ["甲", "乙", "丙"]
    assert record["throws"][0] in ("444412", {"dice": "444412"}, {"player": "甲", "dice": "444412"})
    with host.expect_download() as got:
        host.get_by_role("link", name="下载结算表（CSV）").click()
    rows = list(csv.DictReader(io.StringIO(Path(got.value.path()).read_text(encoding="utf-8-sig"))))
    by_player = {r["玩家"]: r for r in rows}  # the page's language: headers for people
    assert by_player["甲"]["奖品价值"] == "188"
    assert by_player["乙"]["对堂"] == "1"

    # real dice: nothing to re-derive, but the seed still matches its commitment
    host.get_by_role("button", name="验证每一掷").click()
    expect(host.locator(".verdict")).to_have_class(re.compile(r"\bok\b"))
    expect(host.locator(".verify-facts")).to_contain_text("种子的 SHA-256 等于开局前公布的承诺")
    host.locator(".fairness").scroll_into_view_if_needed()
    browser.shot(host, "results")
    assert fetch_json(f"{server.url}/api/tables/{code}")["status"] == "over"


def test_pass_and_play_on_one_page_and_fairness(browser: Browser, server: Server) -> None:
    page = browser.page(name="shared")
    code = open_table(page, server.url, mode="pass_and_play")  # random throws, played on
    expect(page.get_by_role("heading", name="共享掷骰设备")).to_be_visible()
    for name in ("甲", "乙"):
        page.get_by_label("玩家名字").fill(name)
        page.get_by_role("button", name="添加").click()
        expect(page.locator(".seat-name").last).to_have_text(name)
    expect(page.locator(".seat-name")).to_have_text(["甲", "乙"])
    page.get_by_role("button", name="开始博饼").click()
    # the host pauses: no throwing until it resumes
    page.get_by_role("button", name="暂停").click()
    expect(page.locator(".paused-note")).to_have_text("主持人暂停了游戏，稍候继续")
    expect(page.locator(".throw-btn")).to_have_count(0)
    page.get_by_role("button", name="继续").click()
    expect(page.locator(".paused-note")).to_be_hidden()
    for turn in range(1, 7):
        wait_turn(page, turn)
        nxt = state(page)["next"]
        if state(page)["status"] == "over":
            break
        page.get_by_role("button", name=f"{nxt}，掷骰子！").click()
        wait_turn(page, turn + 1)
        expect(page.locator(".award-who")).to_have_text(f"第 {turn} 掷 · {nxt}")
    # a second shared device, from the play-token link the host hands out
    token = page.evaluate(f"JSON.parse(localStorage.getItem('bobing.t.{code}')).playToken")
    second = browser.page(name="second device")
    second.goto(f"{server.url}/t/{code}#play={token}")
    expect(second.locator(".throw-btn")).to_be_visible()
    assert "play" in second.evaluate("() => window.bobing.roles")
    assert "#play" not in second.url, "the token is taken off the address bar"
    done = state(page)["throw_count"]
    second.locator(".throw-btn").click()
    wait_throws(page, done + 1)
    # the host calls time: the round is played out, then the seed is revealed and every
    # throw checks out
    page.get_by_role("button", name="结束本局").click()
    page.get_by_role("dialog").get_by_role("button", name="叫停").click()
    page.wait_for_function("() => window.bobing.state.closing !== null")
    while state(page)["status"] != "over":
        turn, nxt = state(page)["turn"], state(page)["next"]
        page.get_by_role("button", name=f"{nxt}，掷骰子！").click()
        page.wait_for_function(
            "n => window.bobing.state.status === 'over' || window.bobing.state.turn > n", arg=turn
        )
    wait_status(page, "over")
    throws = state(page)["throw_count"]
    expect(page.locator(".end-reason")).to_contain_text("主持人叫停")
    page.get_by_role("button", name="验证每一掷").click()
    expect(page.locator(".verdict")).to_have_text(f"全部相符：全部 {throws} 掷都由公开的种子算出")
    # the second device threw one of them
    expect(page.locator(".verify-facts")).to_contain_text(
        f"本机的 {throws - 1} 掷，服务器都用了本机自己选的随机数"
    )
    expect(page.locator(".verify-facts")).to_contain_text("与本机在第一掷之前记下的承诺一致")
    # the engine agrees with the browser
    checks = verify_record(fetch_json(f"{server.url}/api/tables/{code}/record"))
    assert len([c for c in checks if c.throw > 0]) == throws


def test_referee_lights_off_grab(browser: Browser, server: Server) -> None:
    host = browser.page(name="grab")
    create_table(host, server.url, mode="referee", name="关灯")
    for name in ("甲", "乙"):
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    host.get_by_role("button", name="开始博饼").click()
    type_dice(host, "442356")
    wait_throws(host, 1)
    # 六勃黑 under the traditional rules: lights off, the host shares out what was grabbed
    host.locator("body").click(position={"x": 2, "y": 200})
    for face in "555555":
        host.keyboard.press(face)
    expect(host.locator(".ref-preview .ref-effect")).to_contain_text("关灯抢饼")
    host.get_by_role("button", name="确认").click()
    expect(host.get_by_role("heading", name="关灯抢饼")).to_be_visible()
    expect(host.locator(".turn-main")).to_have_text("关灯抢饼中")
    host.get_by_role("button", name="随机分配").click()
    wait_status(host, "over")
    expect(host.locator(".end-reason")).to_have_text("六勃黑，本局结束")
    expect(host.locator(".winner-hand")).to_have_text("抢到状元饼")
    final = state(host)["result"]
    assert sum(final["pool"].values()) == 0
    assert sum(sum(h.values()) for h in final["holdings"].values()) == 63
