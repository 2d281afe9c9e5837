"""The class event end to end: 44 people at 4 tables of 11 in referee mode, created in the
browser; the dashboard follows the tables live while their throws come in over the API; the
状元王中王 on the hall view; seat claiming; the table cards; the results and their downloads."""

from __future__ import annotations

import csv
import io
import re
from typing import Any

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, expect

from bobing.organizer.xlsx import read_xlsx

pytestmark = pytest.mark.browser

PEOPLE = [f"同学{i:02d}\t{'一二三四'[i % 4]}组" for i in range(1, 45)]
PROJECTOR = {"width": 1600, "height": 900}


def throw(server: Server, code: str, host: str, dice: str) -> dict[str, Any]:
    state = call(server, "GET", f"/api/tables/{code}")
    call(
        server,
        "POST",
        f"/api/tables/{code}/commands",
        {"type": "throw", "turn": state["turn"], "dice": dice},
        host,
    )
    result: dict[str, Any] = call(server, "GET", f"/api/tables/{code}")
    return result


def clear_toasts(page: Page) -> None:
    """Toasts come and go: a screenshot for the docs shows the screen under them."""
    page.evaluate("document.querySelectorAll('.toast').forEach(t => t.remove())")


def host_token(page: Page, code: str) -> str:
    token: str = page.evaluate(
        "c => JSON.parse(localStorage.getItem('bobing.t.' + c)).hostToken", code
    )
    return token


def test_class_event(browser: Browser, server: Server) -> None:
    """A whole class event in Chromium, as its organiser lives it: 44 names read, seated at four
    tables, played to the end and settled at the prize desk. Long by its work, not by a wait:
    about 21 s alone, about 50 s in the parallel run beside the other browser worker."""
    organiser = browser.page(
        browser.context(viewport={"width": 1280, "height": 900}), name="organiser"
    )
    organiser.goto(server.url + "/")
    organiser.locator("#new-event").click()
    expect(organiser.get_by_role("heading", name="创建博饼活动")).to_be_visible()
    organiser.get_by_label("活动名称").fill("三年二班中秋博饼")
    organiser.locator("#ev-people").fill("\n".join(PEOPLE))
    expect(organiser.get_by_text("共 44 人")).to_be_visible()
    organiser.get_by_label("按名单顺序（对照名字入座）").check()
    # a name twice: the model's own sentence, in the reader's language (the summary line
    # under the form says it as soon as the roster is read, the create button again)
    with browser.allow("status of 422"):
        organiser.locator("#ev-people").fill("\n".join([*PEOPLE, "同学07"]))
        expect(organiser.locator("#ev-summary")).to_contain_text("“同学07”在名单里出现了两次")
        organiser.locator("#ev-create").click()
        expect(organiser.locator(".toast-error")).to_contain_text("“同学07”在名单里出现了两次")
        organiser.locator("#ev-people").fill("\n".join(PEOPLE))
        expect(organiser.locator("#ev-summary")).to_have_text(
            "4 桌（每桌 11、11、11、11 人）· 收入 2200 · 支出 2200 · 结余 0，计入活动经费"
        )
    # the class plays 四进带二举: one switch changed in the same editor as the home page's
    organiser.get_by_text("自定义规则开关").click()
    organiser.locator("#sw-sijin_bonus").select_option("true")
    expect(organiser.locator(".order-statement .badge")).to_have_text("已修改")
    clear_toasts(organiser)
    organiser.locator(".ev-switches summary").scroll_into_view_if_needed()
    organiser.evaluate("window.scrollBy(0, -120)")
    browser.shot(organiser, "event-new")
    organiser.locator("#ev-create").click()
    organiser.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = organiser.url.rstrip("/").split("/")[-1]
    tables = organiser.locator(".ev-table")
    expect(tables).to_have_count(4)
    event = call(server, "GET", f"/api/events/{code}")
    assert [t["players"][0] for t in event["tables"]] == ["同学01", "同学12", "同学23", "同学34"]
    assert all(len(t["players"]) == 11 for t in event["tables"])
    assert event["mode"] == "referee" and event["prize_set_value"] == 550
    traditional = call(server, "GET", "/api/presets")["presets"]["traditional"]
    changed = {k: v for k, v in event["rules"].items() if traditional.get(k) != v}
    # the prize set gives the cakes (1/4/6/10/25/40); the editor changed one switch
    assert changed.pop("prizes") == {
        "zhuangyuan": 1,
        "duitang": 4,
        "sanhong": 6,
        "sijin": 10,
        "erju": 25,
        "yixiu": 40,
    }
    assert changed == {"sijin_bonus": True}, changed
    assert event["budget"]["income"] == 2200 and event["budget"]["balance"] == 0

    # start every table from the dashboard
    organiser.locator('.ev-all button[data-action="start"]').click()
    for number in range(1, 5):
        expect(organiser.locator(f'.ev-table[data-table="{number}"]')).to_have_attribute(
            "data-status", "playing"
        )

    # the 组长s' throws come in over the API; the dashboard follows live
    codes = {t["number"]: t["code"] for t in event["tables"]}
    hosts = {n: host_token(organiser, c) for n, c in codes.items()}
    throw(server, codes[3], hosts[3], "123456")
    expect(organiser.locator('.ev-table[data-table="3"] .ev-throws')).to_have_text("1")
    after = throw(server, codes[3], hosts[3], "444411")
    thrower = after["result"]["zhuangyuan"]["player"]
    expect(organiser.locator(".ev-feed-item").first).to_have_text(
        f"3 号桌 {thrower} 博出 状元插金花！"
    )
    expect(organiser.locator('.ev-table[data-table="3"] .ev-leader')).to_contain_text(thrower)
    throw(server, codes[1], hosts[1], "441256")
    throw(server, codes[2], hosts[2], "444456")
    clear_toasts(organiser)
    browser.shot(organiser, "event-dashboard")

    # table 4's 组长 scans the link in the QR under the table: their phone runs the table
    expect(organiser.locator('.ev-table[data-table="4"] details.ev-leader-link .qr')).to_have_count(
        1
    )
    leader = browser.page(name="leader")
    leader.goto(f"{server.url}/t/{codes[4]}#host={hosts[4]}")
    leader.wait_for_function("() => window.bobing.roles.includes('host')")
    assert "#" not in leader.url  # the token left the address bar at once

    # every table ends with a 六勃红 (it takes the table's cakes and ends the game)
    winners = {}
    for number in (1, 2, 3, 4):
        last = throw(server, codes[number], hosts[number], "444444")
        assert last["status"] == "over"
        winners[number] = last["result"]["zhuangyuan"]["player"]
    for number in range(1, 5):
        expect(organiser.locator(f'.ev-table[data-table="{number}"]')).to_have_attribute(
            "data-status", "over"
        )

    # the hall view on the projector, then the 状元王中王 from the dashboard
    hall = browser.page(browser.context(viewport=PROJECTOR), name="hall")
    hall.goto(f"{server.url}/e/{code}/hall")
    expect(hall.locator(".ev-tile")).to_have_count(4)
    expect(hall.locator(".ev-tile .qr")).to_have_count(4)
    expect(hall.locator('.ev-tile[data-table="3"] .ev-tile-leader')).to_contain_text(winners[3])
    # a screen opened late reads the notable throws from the tables' logs
    expect(hall.locator(".ev-hall-feed .ev-feed-item")).to_have_count(7)
    browser.shot(hall, "event-hall-tables")
    organiser.locator("#ev-playoff-start").click()
    expect(hall.locator(".ev-playoff-panel li")).to_have_count(4)
    playoff = call(server, "GET", f"/api/events/{code}")["playoff"]
    assert playoff["players"] == [winners[n] for n in (1, 2, 3, 4)]
    ply_host = host_token(organiser, playoff["code"])
    # the playoff starts with the winners seated: table 1's 状元 throws first
    for dice in ("444456", "123456", "444411", "441122"):
        throw(server, playoff["code"], ply_host, dice)
    expect(hall.locator(".ev-ceremony .seal")).to_have_text("状元王中王")
    expect(hall.locator(".ev-ceremony .winner-name")).to_have_text(winners[3])
    expect(hall.locator(".ev-ceremony .winner-hand")).to_have_text("状元插金花")
    browser.shot(hall, "event-hall")

    # seat claiming: scan the QR beside your name on table 2's card, you sit there
    organizer_token = organiser.evaluate(
        "c => JSON.parse(localStorage.getItem('bobing.e.' + c)).organizerToken", code
    )
    seats = call(server, "GET", f"/api/events/{code}/seats", token=organizer_token)
    seat = next(s for s in seats["tables"][1]["seats"] if s["name"] == "同学13")
    phone = browser.page(name="phone")
    phone.goto(f"{server.url}/e/{code}/t/2#name=同学13&key={seat['claim_key']}")
    phone.locator('.ev-claim-name[data-name="同学13"]').click()
    phone.wait_for_url(f"**/t/{codes[2]}")
    assert (
        phone.evaluate(
            "c => JSON.parse(localStorage.getItem('bobing.t.' + c)).playerName", codes[2]
        )
        == "同学13"
    )

    # the table cards
    cards = browser.page(browser.context(viewport={"width": 1100, "height": 900}), name="cards")
    cards.goto(f"{server.url}/e/{code}/cards")
    expect(cards.locator(".ev-card")).to_have_count(4)
    expect(cards.locator('.ev-card[data-table="1"] .ev-card-names li')).to_have_count(11)
    expect(cards.locator('.ev-card[data-table="1"]')).to_contain_text(
        "状元 1 · 对堂 4 · 三红 6 · 四进 10 · 二举 25 · 一秀 40"
    )
    browser.shot(cards, "event-table-card")
    # printed (or saved as PDF from the print dialog): no screen chrome, two cards a page
    cards.emulate_media(media="print")
    expect(cards.locator(".topbar")).to_be_hidden()
    expect(cards.get_by_role("button", name="打印")).to_be_hidden()
    pdf = cards.pdf(format="A4")
    assert pdf.startswith(b"%PDF")
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 2
    browser.shot(cards, "event-table-card-print")

    # the results: the prize desk, the 王中王, CSV and XLSX
    organiser.goto(f"{server.url}/e/{code}/results")
    expect(organiser.locator(".ev-results-champion .winner-name")).to_have_text(winners[3])
    expect(organiser.locator(".ev-desk")).to_have_count(5)
    row = organiser.locator(f'.ev-desk[data-table="3"] tr[data-name="{winners[3]}"]')
    expect(row).to_contain_text("状元：可爱公仔（65）")
    clear_toasts(organiser)
    browser.shot(organiser, "event-results")
    with organiser.expect_download() as got:
        organiser.locator("#ev-csv").click()
    rows = list(csv.reader(io.StringIO(got.value.path().read_text(encoding="utf-8-sig"))))
    assert rows[0] == ["桌号", "姓名", "组别", "奖级", "奖品", "数量", "单价", "价值"]
    assert {r[1] for r in rows[1:]} == {p.split("\t")[0] for p in PEOPLE}
    assert [winners[3] in r for r in rows if r[3] == "状元王中王"] == [True]
    with organiser.expect_download() as got:
        organiser.locator("#ev-xlsx").click()
    sheet = read_xlsx(got.value.path().read_bytes())
    assert sheet == rows  # the first sheet is the CSV's list, by table


def test_company_party_ranked(browser: Browser, server: Server) -> None:
    """The 2013 party: 13 at one table, one device, one prize each by best throw, 200 each."""
    page = browser.page(browser.context(viewport={"width": 1100, "height": 900}), name="party")
    page.goto(server.url + "/e/new")
    page.get_by_label("活动名称").fill("公司中秋博饼")
    page.locator("#ev-people").fill("\n".join(f"员工{i}" for i in range(1, 14)))
    page.locator("#ev-count").fill("1")
    page.get_by_label("每桌一部设备").check()
    page.get_by_label("每人一份，按最好的一掷排名次").check()
    page.get_by_label("轮数").fill("1")
    page.get_by_label("每人交").fill("200")
    page.get_by_label("限时（分钟）").fill("30")
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    event = call(server, "GET", f"/api/events/{code}")
    (table,) = event["tables"]
    assert len(table["players"]) == 13 and event["mode"] == "pass_and_play"
    rules = event["rules"]
    assert (rules["award"], rules["rounds"], rules["max_players"]) == ("ranked", 1, 13)
    assert [p["name"] for p in rules["ranked_prizes"]] == ["音响", "电饭煲", "行李车"]
    assert event["budget"]["income"] == 2600 and event["budget"]["prizes"] == 498 + 199 + 89
    assert event["time_limit"] == 30
    page.locator('.ev-all button[data-action="start"]').click()
    expect(page.locator('.ev-table[data-table="1"]')).to_have_attribute("data-status", "playing")
    play: str = page.evaluate(
        "c => JSON.parse(localStorage.getItem('bobing.t.' + c)).playToken", table["code"]
    )
    for _ in range(13):
        state = call(server, "GET", f"/api/tables/{table['code']}")
        call(
            server,
            "POST",
            f"/api/tables/{table['code']}/commands",
            {"type": "throw", "turn": state["turn"]},
            play,
        )
    expect(page.locator('.ev-table[data-table="1"]')).to_have_attribute("data-status", "over")
    results = call(server, "GET", f"/api/events/{code}/results")
    first = next(p for p in results["people"] if p["prizes"] and p["prizes"][0]["name"] == "音响")
    page.goto(f"{server.url}/e/{code}/results")
    expect(page.locator(f'tr[data-name="{first["name"]}"]').first).to_contain_text(
        "名次奖：音响（498）"
    )
