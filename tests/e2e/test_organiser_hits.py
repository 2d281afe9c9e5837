"""What an organiser hit (issue 30), in the browser: the seating preview with 组长 and the cards
that follow it, the 组长's start dice at a referee table on a phone (RULES.md §10.1), a whole
prize set typed with "+ 奖品" in every tier, 反向博钱's price boxes, the hall on the projector
(no moon over the headline, no headline once every table is over, no address warning to the
room) and the results of a paying event."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, expect
from test_event_day import throw

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


def get(server: Server, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=30) as response:
        return json.loads(response.read())


def roster_text(people: int, leaders: set[int]) -> str:
    rows = [f"同学{i:02d}\t{'是' if i in leaders else ''}" for i in range(1, people + 1)]
    return "\n".join(["姓名\t组长", *rows])


def test_the_seating_preview_and_the_cards_follow_the_leaders(
    browser: Browser, server: Server
) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    page.locator("#ev-name").fill("组长分桌")
    page.locator("#ev-count").fill("4")
    note = page.locator(".ev-leaders-note")
    # four 组长 for four tables: one at each
    page.locator("#ev-people").fill(roster_text(44, {3, 17, 30, 41}))
    expect(note).to_have_text("每桌都有一位组长（名单上共 4 位组长）")
    expect(note).not_to_have_class(re.compile("is-warning"))
    # two for four: the preview says two tables will have none
    page.locator("#ev-people").fill(roster_text(44, {3, 17}))
    expect(note).to_contain_text("名单上只有 2 位组长、却有 4 桌")
    expect(note).to_have_class(re.compile("is-warning"))
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    event = get(server, f"/api/events/{code}")
    assert sorted(len(t["leaders"]) for t in event["tables"]) == [0, 0, 1, 1]
    # the cards claim 组长录入 only where a 组长 sits
    page.goto(f"{server.url}/e/{code}/cards")
    for table in event["tables"]:
        line = page.locator(f'.ev-card[data-table="{table["number"]}"] .ev-card-thrower')
        if table["leaders"]:
            expect(line).to_have_text(re.compile("组长录入$"))
        else:
            expect(line).to_contain_text("本桌没有组长")


def test_the_leaders_pad_starts_from_the_named_thrower(browser: Browser, server: Server) -> None:
    """RULES.md §10.1: the 组长's lobby pre-selects the event's start thrower, and on a phone
    the start pad comes before the eleven seats."""
    people = [{"name": f"同学{i:02d}", "leader": i in (5, 17)} for i in range(1, 23)]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "组长开局",
            "people": people,
            "tables": 2,
            "seating": "in_order",
            "mode": "referee",
            "start_thrower": "leader",
        },
    )
    table = created["tables"][0]
    assert table["start_thrower"] == "同学05"
    page = browser.page(browser.context(viewport=PHONE, has_touch=True), name="leader")
    page.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    expect(page.locator("#start-thrower")).to_have_value("同学05")
    # One look at the page, not two: the lobby redraws its start card whenever a frame or the
    # invite address arrives, and a second query could land between the old card and the new
    # (bounding_box() gave None once in CI).
    first, top = page.evaluate(
        """() => {
          const start = document.querySelector('.start-card');
          const seats = document.querySelector('.card.seats');
          const before = start.compareDocumentPosition(seats) & Node.DOCUMENT_POSITION_FOLLOWING;
          return [Boolean(before), start.getBoundingClientRect().top];
        }"""
    )
    assert first, "the start pad comes before the seats"
    assert top < PHONE["height"], "the start pad is on the first screen"
    # the organiser names another thrower: the pad follows
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/tables/1/start_thrower",
        {"start_thrower": "同学09"},
        created["organizer_token"],
    )
    expect(page.locator("#start-thrower")).to_have_value("同学09")
    page.locator('.start-card .ref-key[data-face="3"]').click()
    page.locator('.start-card .ref-key[data-face="5"]').click()
    page.locator(".start-card .ref-confirm").click()
    expect(page.locator(".start-result")).to_contain_text("同学09")
    state = call(server, "GET", f"/api/tables/{table['code']}")
    assert state["start_dice"]["thrower"] == "同学09" and state["start_dice"]["dice"] == [3, 5]


TYPED = {
    "zhuangyuan": [("月饼礼盒", 1, 88)],
    "duitang": [("保温杯", 2, 35), ("台灯", 2, 45)],
    "sanhong": [("笔记本", 3, 12), ("文具盒", 3, 18)],
    "sijin": [("钢笔", 10, 6), ("尺子", 6, 2)],
    "erju": [("橡皮", 25, 2), ("可乐", 4, 3)],
    "yixiu": [("铅笔", 40, 1), ("贴纸", 5, 1)],
}


def type_over(page: Page, text: str) -> None:
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(text)


def test_add_prize_types_into_its_own_tier(browser: Browser, server: Server) -> None:
    """ "+ 奖品" under any tier puts the cursor in that tier's new row (it once went to 一秀's
    first good, and the next name was appended to 可乐)."""
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    page.locator("#ev-name").fill("每级都加奖品")
    page.locator("#ev-people").fill("\n".join(f"同学{i:02d}" for i in range(1, 13)))
    for tier, goods in TYPED.items():
        box = page.locator(f'.ev-tier[data-tier="{tier}"]')
        while box.locator(".ev-goods-row").count():
            box.locator(".ev-goods-row button").first.click()
        for name, count, value in goods:
            box.get_by_role("button", name="+ 奖品").click()
            label = page.evaluate("document.activeElement.getAttribute('aria-label')")
            assert re.fullmatch(".+的奖品", label), label
            assert (
                page.evaluate("t => document.activeElement.closest('.ev-tier').dataset.tier", tier)
                == tier
            )
            page.keyboard.type(name)
            page.keyboard.press("Tab")
            type_over(page, str(count))
            page.keyboard.press("Tab")
            type_over(page, str(value))
    total = sum(c * v for goods in TYPED.values() for _, c, v in goods)
    expect(page.locator(".ev-prizes .ev-total")).to_contain_text(str(total))
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    event = get(server, f"/api/events/{code}")
    stored = {
        tier: [(g["name"], g["count"], g["value"]) for g in goods]
        for tier, goods in event["prizes"].items()
    }
    assert stored == TYPED
    assert event["prize_set_value"] == total


def test_paying_for_prizes_prices_fit_and_zero_is_warned(browser: Browser, server: Server) -> None:
    host = browser.page(name="prices")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_text("自定义规则开关").click()
    host.locator("#sw-money").select_option("pay")
    warning = host.locator(".values-zero")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("每种饼的价钱都是 0")
    field = host.locator('[data-value-tier="zhuangyuan"]')
    box = field.bounding_box()
    assert box is not None and box["width"] >= 70, box
    field.fill("88")
    expect(warning).to_be_hidden()


def test_the_hall_and_the_results_of_a_paying_event(browser: Browser, server: Server) -> None:
    values = {"zhuangyuan": 20, "duitang": 10, "sanhong": 5, "sijin": 3, "erju": 2, "yixiu": 1}
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "反向博钱之夜",
            "people": [f"同学{i:02d}" for i in range(1, 9)],
            "tables": 2,
            "seating": "in_order",
            "rules": {"preset": "traditional", "money": "pay", "values": values},
        },
    )
    code = created["code"]
    hall = browser.page(browser.context(viewport={"width": 1280, "height": 720}), name="hall")
    hall.goto(f"{server.url}/e/{code}/hall")
    expect(hall.locator(".ev-tile")).to_have_count(2)
    expect(hall.locator(".ev-hall-hint")).to_be_visible()
    # the e2e server listens on 127.0.0.1 only: the organiser's screens say so, the room's not
    expect(hall.locator(".invite-warning, .invite-note")).to_have_count(0)
    moon = hall.evaluate("getComputedStyle(document.body).getPropertyValue('--sky-moon').trim()")
    assert moon == "none"
    call(
        server,
        "POST",
        f"/api/events/{code}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    for table in created["tables"]:
        assert throw(server, table["code"], table["host_token"], "444444")["status"] == "over"
    expect(hall.locator(".ev-tile.ev-over")).to_have_count(2)
    expect(hall.locator(".ev-hall-hint")).to_have_count(0)

    results = browser.page(name="results")
    results.goto(f"{server.url}/e/{code}/results")
    desk = results.locator('.ev-desk[data-table="1"]')
    expect(desk.locator("thead th")).to_contain_text(["应付"])
    kitty = get(server, f"/api/events/{code}/results")["money"]["kitty"]
    assert kitty > 0
    expect(results.locator(".ev-kitty-total")).to_have_text(f"反向博钱：公款合计 {kitty}")


def test_next_years_form_counts_income_without_a_paid_column(
    browser: Browser, server: Server
) -> None:
    """This year's roster had a 组长 column but no 已交费 one (everyone counted as paying):
    next year's form keeps it so, and its income is everyone's."""
    people = [{"name": f"同学{i:02d}", "leader": i in (1, 5)} for i in range(1, 9)]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "今年",
            "people": people,
            "tables": 2,
            "seating": "in_order",
            "budget": {"contribution": 50},
        },
    )
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    for table in created["tables"]:
        throw(server, table["code"], table["host_token"], "444444")
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(f"{server.url}/e/new?from={created['code']}")
    expect(page.locator("#ev-people")).to_have_value(re.compile("^姓名\t组别\t组长\n"))
    expect(page.locator("#ev-summary")).to_contain_text("收入 400")


def test_donated_sets_on_a_new_events_form(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    page.locator("#ev-name").fill("有人送会饼")
    page.locator("#ev-people").fill("\n".join(f"同学{i:02d}" for i in range(1, 13)))
    page.locator("#ev-count").fill("2")
    page.locator(".ev-add-donor").click()
    page.keyboard.type("王老师")
    page.locator('.ev-new-son[data-name="王老师"]').check()
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    budget = get(server, f"/api/events/{code}")["budget"]
    assert budget["donated_sets"] == [{"name": "王老师", "new_son": True, "sets": 2}]
    assert budget["prizes"] == 0  # both tables' 会饼 given


def test_a_ranked_tables_results_have_no_zhuangyuan(browser: Browser, server: Server) -> None:
    prizes = [{"name": n, "count": 1, "value": v} for n, v in (("音响", 498), ("水壶", 27))]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "名次奖",
            "people": ["甲", "乙", "丙"],
            "tables": 1,
            "seating": "in_order",
            "rules": {
                "preset": "traditional",
                "award": "ranked",
                "ranked_prizes": prizes,
                "rounds": 1,
            },
        },
    )
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    (table,) = created["tables"]
    for dice in ("111456", "123456", "222333"):
        last = throw(server, table["code"], table["host_token"], dice)
    assert last["status"] == "over"
    page = browser.page(name="results")
    page.goto(f"{server.url}/e/{created['code']}/results")
    heading = page.locator('.ev-desk[data-table="1"] h3')
    expect(heading).to_contain_text("第一名")
    expect(heading).not_to_contain_text("状元")
