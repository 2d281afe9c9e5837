"""The organiser's customs in the browser (RULES.md §9.4), one event end to end: a roster with
paid / elder columns, the check-in at the door with two no-shows, per-table start throwers
(each table's elder, one table's handed to a name on the dashboard; real dice typed by the
组长: the server rolls none at a referee table), the surplus refunded to everyone who paid and came,
and next year's event named by this year's 状元, who give its 会饼 (two sets for a family
with a new son) at no cost to the budget."""

from __future__ import annotations

import re

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import expect
from test_event_day import host_token, throw

pytestmark = pytest.mark.browser

HEADER = "姓名\t组别\t已交费\t长辈"
ROSTER = [
    "甲\t一组\t是\t",
    "乙\t一组\t是\t是",
    "丙\t一组\t是\t",
    "丁\t一组\t是\t",
    "戊\t二组\t是\t",
    "己\t二组\t是\t是",
    "庚\t二组\t是\t",  # paid, then did not come
    "辛\t二组\t\t",  # did not pay, did not come
    "壬\t二组\t是\t",
    "癸\t二组\t是\t",
]
PRESENT = ["甲", "乙", "丙", "丁", "戊", "己", "壬", "癸"]


def test_customs_of_one_event(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    page.locator("#ev-name").fill("中秋博饼（签到）")
    page.locator("#ev-people").fill("\n".join([HEADER, *ROSTER]))
    expect(page.get_by_text("共 10 人")).to_be_visible()
    page.locator("#ev-count").fill("2")
    page.get_by_label("按名单顺序（对照名字入座）").check()
    page.locator("#ev-contribution").fill("200")
    page.locator("#ev-surplus").select_option("refund")
    page.locator("#ev-check-in").check()
    page.locator("#ev-thrower-mode").select_option("elder")
    # the server's reading: 9 paid (辛 did not), two class prize sets of 550
    expect(page.locator("#ev-summary")).to_contain_text(
        "收入 1800 · 支出 1100 · 结余 700，平均退还给 9 位交费并到场的人"
    )
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]

    # the door: nobody is seated until the check-in is done; 庚 and 辛 never come
    card = page.locator(".ev-checkin-card")
    expect(card).to_contain_text("已到 0 / 10 人")
    expect(page.locator(".ev-table")).to_have_count(0)
    expect(card).to_contain_text("辛（未交费）")
    for name in PRESENT:
        page.locator(f'.ev-checkin[data-name="{name}"]').check()
        expect(card).to_contain_text(f"已到 {PRESENT.index(name) + 1} / 10 人")
    page.locator("#ev-seat").click()
    expect(page.locator(".ev-table")).to_have_count(2)
    # each table's elder throws its start dice
    expect(page.locator('.ev-table[data-table="1"] .ev-start-thrower')).to_have_text("乙")
    expect(page.locator('.ev-table[data-table="2"] .ev-start-thrower')).to_have_text("己")
    # per table: the organiser hands table 2's start dice to 癸 instead
    page.locator('.ev-thrower-select[data-table="2"]').select_option("癸")
    expect(page.locator('.ev-table[data-table="2"] .ev-start-thrower')).to_have_text("癸")
    # the printed cards tell each table who throws (and, at a referee table, who types them)
    cards = browser.page(name="cards")
    cards.goto(f"{server.url}/e/{code}/cards")
    expect(cards.locator(".ev-card-thrower")).to_have_text(
        ["开局骰子：乙 掷真骰子，组长录入", "开局骰子：癸 掷真骰子，组长录入"]
    )
    no_shows = page.locator(".ev-checkin-card .ev-no-shows li")
    expect(no_shows).to_have_text(["庚（已交 200）", "辛（已交 0）"])
    event = call(server, "GET", f"/api/events/{code}")
    assert [t["players"] for t in event["tables"]] == [PRESENT[:4], PRESENT[4:]]

    # table 1's 组长 types the real start dice 乙 threw; start every table from the dashboard
    codes = [t["code"] for t in event["tables"]]
    hosts = [host_token(page, c) for c in codes]
    call(
        server,
        "POST",
        f"/api/tables/{codes[0]}/commands",
        {"type": "start_dice", "thrower": "乙", "dice": "35"},
        hosts[0],
    )
    page.locator('.ev-all button[data-action="start"]').click()
    for number in (1, 2):
        expect(page.locator(f'.ev-table[data-table="{number}"]')).to_have_attribute(
            "data-status", "playing"
        )
    first, second = (call(server, "GET", f"/api/tables/{c}") for c in codes)
    assert first["start_dice"]["dice"] == [3, 5] and first["start_dice"]["thrower"] == "乙"
    assert second["start_dice"] is None  # a referee table: the server rolled nothing

    # a 六勃红 ends each table; the surplus goes back to the 9 who paid, to the fen
    winners = [
        throw(server, c, host, "444444")["result"]["zhuangyuan"]["player"]
        for c, host in zip(codes, hosts, strict=True)
    ]
    for number in (1, 2):
        expect(page.locator(f'.ev-table[data-table="{number}"]')).to_have_attribute(
            "data-status", "over"
        )
    budget = page.locator(".ev-budget")
    # RULES.md §10.1: the 8 who paid and came share it; 庚 paid, did not come: no refund
    expect(budget).to_contain_text("结余 700，平均退还给 8 位交费并到场的人")
    refunds = budget.locator(".ev-refunds li")
    expect(refunds).to_have_count(9)
    expect(refunds.first).to_have_text("甲 退 87.5")
    expect(refunds.last).to_have_text("癸 退 87.5")
    expect(budget.locator(".ev-refunds")).to_contain_text("庚 已交费未到场，不退")

    # the prize desk lists the no-shows and the refunds
    page.goto(f"{server.url}/e/{code}/results")
    money = page.locator(".ev-money")
    expect(money.locator(".ev-no-shows li")).to_have_count(2)
    expect(money.locator(".ev-refunds li")).to_have_count(9)

    # next year: this year's two 状元 organise, throw the start dice and give the 会饼
    page.get_by_role("link", name="以此创建明年的活动").click()
    page.wait_for_url("**/e/new?from=*")
    expect(page.locator(".ev-donated")).to_contain_text("组织者：" + "、".join(winners))
    new_son = page.locator(f'.ev-new-son[data-name="{winners[0]}"]')
    expect(new_son).to_have_count(1)
    new_son.check()
    expect(page.locator("#ev-check-in")).to_be_checked()
    page.locator("#ev-name").fill("明年中秋博饼")
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    following = page.url.rstrip("/").split("/")[-1]
    assert following != code
    budget = page.locator(".ev-budget")
    expect(budget.locator(".ev-donated-set")).to_have_text(
        [f"{winners[0]} 捐赠会饼 2 套（不计支出）", f"{winners[1]} 捐赠会饼 1 套（不计支出）"]
    )
    expect(page.locator(".ev-organizers")).to_have_text("组织者：" + "、".join(winners))
    event = call(server, "GET", f"/api/events/{following}")
    assert event["budget"]["prizes"] == 0 and event["budget"]["income"] == 1800
    assert event["start_thrower"] == [*winners, "elder"]
    # the roster kept its paid / elder columns through the form
    people = {p["name"]: p for p in event["people"]}
    assert people["辛"]["paid"] is False and people["乙"].get("elder") is True
