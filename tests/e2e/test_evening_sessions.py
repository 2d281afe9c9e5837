"""The 2013 evening in sessions in the browser (RULES.md §10.2, issue 30): the event form loads
the evening in one tap (会餐 18:00–19:00, 博饼 19:00–19:30 for the 会饼, 状元摇奖 19:30–20:00 for
the 13 ranked prizes), 13 people at two tables, the seed's budget; the dashboard starts each
game session; the hall shows the run-sheet with the session now; the prize desk lists what
each person takes home from every session, the ranked session ranked event-wide."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from e2etools import Browser, Server, call, root_conftest
from playwright.sync_api import Page, expect
from test_accessibility import AXE, BOOTED, SERIOUS, WCAG

pytestmark = pytest.mark.browser

PEOPLE = [f"员工{i}" for i in range(1, 14)]
COSTS = [("会餐", "1088"), ("红酒白酒", "208"), ("小月饼", "66.6")]
# The ranked session (as tests/web/test_event_programme.py): table 2 throws first, so its
# 四红 and 对堂 rank before the equal ones thrown later at table 1.
RANKED_2 = ["444456", "123456", "444123", "441235", "412355", "122356"]  # 员工8 … 员工13
RANKED_1 = ["444456", "444411", "555551", "123456", "222235", "441236", "235612"]  # 员工1 … 7
TOP = [("员工2", "漫步者音响"), ("员工3", "飞利浦电饭煲"), ("员工8", "行李车")]


def host_token(page: Page, code: str) -> str:
    """The host token the organiser's device keeps for a table (as on create)."""
    token: str = page.evaluate(
        "code => JSON.parse(localStorage.getItem('bobing.t.' + code) || '{}').hostToken", code
    )
    assert token, code
    return token


def throw(server: Server, table: str, token: str, dice: str) -> dict[str, Any]:
    state = call(server, "GET", f"/api/tables/{table}")
    call(
        server,
        "POST",
        f"/api/tables/{table}/commands",
        {"type": "throw", "turn": state["turn"], "dice": dice},
        token,
    )
    after: dict[str, Any] = call(server, "GET", f"/api/tables/{table}")
    return after


def test_the_2013_evening_from_the_form_to_the_prize_desk(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    expect(page.get_by_role("heading", name="创建博饼活动")).to_be_visible()
    page.get_by_label("活动名称").fill("2013 公司中秋博饼")
    page.locator("#ev-people").fill("\n".join(PEOPLE))
    page.locator("#ev-count").fill("2")
    page.get_by_label("按名单顺序（对照名字入座）").check()
    # one tap: the evening, its ranked prizes, the 会饼 given (000: 会饼（自愿赞助）)
    page.get_by_role("button", name="载入 2013 年的晚会").click()
    sessions = page.locator("#ev-programme .ev-session")
    expect(sessions).to_have_count(3)
    expect(sessions.nth(0).locator(".ev-session-name")).to_have_value("会餐")
    expect(sessions.nth(1).locator(".ev-session-starts")).to_have_value("19:00")
    expect(sessions.nth(2).locator(".ev-session-game")).to_have_value("ranked")
    expect(page.locator("[data-load-2013]")).to_be_visible()  # the ranked list's editor
    page.get_by_label("轮数").fill("1")
    page.locator("#ev-contribution").fill("200")
    for name, amount in COSTS:
        page.get_by_role("button", name="+ 支出").click()
        page.get_by_label("支出项目").last.fill(name)
        page.get_by_label("金额").last.fill(amount)
    page.locator("#ev-contribution").dispatch_event("input")
    # the seed's figures: 13 × 200 in; 1362.6 of dinner and wine and 1270 of prizes out
    expect(page.locator("#ev-summary")).to_contain_text("收入 2600 · 支出 2632.6", timeout=10_000)
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    organiser = page.evaluate(
        "c => JSON.parse(localStorage.getItem('bobing.e.' + c) || '{}').organizerToken", code
    )
    event = call(server, "GET", f"/api/events/{code}")
    assert [s["game"] for s in event["programme"]] == ["none", "cakes", "ranked"]
    assert [t["players"] for t in event["tables"]] == [PEOPLE[:7], PEOPLE[7:]]
    sheet = page.locator("#run-sheet")
    expect(sheet.locator(".run-sheet-item")).to_have_count(3)
    expect(sheet).to_contain_text("19:00–19:30")

    # 博饼 (the 会饼): started from the dashboard, a 一秀 each, time called, the round finished
    page.locator('.ev-all button[data-action="start"]').click()
    expect(page.locator('.ev-table[data-status="playing"]')).to_have_count(2)
    expect(sheet.locator(".run-sheet-item.is-now")).to_contain_text("博饼")
    cakes = [(t["code"], host_token(page, t["code"])) for t in event["tables"]]
    for table, token in cakes:
        throw(server, table, token, "412355")
    call(server, "POST", f"/api/events/{code}/control", {"action": "close"}, organiser)
    for table, token in cakes:
        state = call(server, "GET", f"/api/tables/{table}")
        while state["status"] != "over":
            state = throw(server, table, token, "122356")

    # 状元摇奖: the dashboard starts it at both tables, their host tokens kept on this device
    start = page.locator("#ev-start-session")
    expect(start).to_have_text("开始：状元摇奖")
    browser.shot(page, "event-dashboard-sessions")
    start.click()
    expect(page.locator('.ev-table[data-status="playing"]')).to_have_count(2)
    expect(start).to_have_count(0)
    event = call(server, "GET", f"/api/events/{code}")
    assert event["session"] == 2
    ranked = {t["number"]: (t["code"], host_token(page, t["code"])) for t in event["tables"]}
    assert {c for c, _ in ranked.values()}.isdisjoint({c for c, _ in cakes})

    hall = browser.page(
        browser.context(viewport={"width": 1920, "height": 1080}, device_scale_factor=1),
        name="hall",
    )
    hall.goto(f"{server.url}/e/{code}/hall")
    now = hall.locator("#run-sheet .run-sheet-item.is-now")
    expect(now).to_contain_text("状元摇奖")
    expect(now).to_have_attribute("aria-current", "step")
    for dice in RANKED_2:
        throw(server, *ranked[2], dice)
    for dice in RANKED_1[:-1]:
        throw(server, *ranked[1], dice)
    expect(hall.locator("#main")).to_contain_text("已掷 6")  # the tiles caught up
    browser.shot(hall, "event-hall-run-sheet")
    throw(server, *ranked[1], RANKED_1[-1])
    expect(page.locator('.ev-table[data-status="over"]')).to_have_count(2)

    # the prize desk: every session's prizes, the ranked one event-wide
    page.goto(f"{server.url}/e/{code}/results")
    ranked_list = page.locator('#ev-sessions [data-session="2"] .ev-session-ranking li')
    expect(ranked_list).to_have_count(13)
    for i, (name, prize) in enumerate(TOP):
        expect(ranked_list.nth(i)).to_contain_text(f"{prize}：{name}")
    desk = page.locator(".ev-by-name")
    expect(desk).to_contain_text("漫步者音响")
    results = call(server, "GET", f"/api/events/{code}/results")
    one = next(p for p in results["people"] if p["name"] == "员工1")
    assert [(p["tier"], p["session"]) for p in one["prizes"]] == [("yixiu", 1), (None, 2)]
    assert sum(p["value"] for q in results["people"] for p in q["prizes"]) == 1270
    browser.shot(page, "event-results-sessions", full_page=True)


def axe_problems(page: Page, selector: str) -> list[str]:
    """axe's WCAG A/AA and serious violations inside ``selector`` (the programme's own parts;
    the whole screens are tests/e2e/test_accessibility.py's)."""
    if not page.evaluate("() => 'axe' in window"):
        page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "sel => axe.run({include: [[sel]]}).then(r => r.violations)", selector
    )
    return [
        f"{v['id']} ({v['impact']}): {node['target']}"
        for v in found
        if set(v["tags"]) & set(WCAG) or v["impact"] in SERIOUS
        for node in v["nodes"]
    ]


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_programme_screens_have_no_accessibility_violation(
    browser: Browser, server: Server, scheme: str
) -> None:
    root_conftest().need_node_module(AXE, "the accessibility test (axe-core)")
    rules = {"preset": "traditional", "award": "ranked", "rounds": 1}
    rules["ranked_prizes"] = [{"name": "一等奖", "count": 1, "value": 498}]
    body = {
        "name": "晚会",
        "rules": rules,
        "people": ["甲", "乙", "丙", "丁"],
        "tables": 2,
        "programme": [
            {"name": "会餐", "starts": "00:00", "minutes": 60, "game": "none"},
            {"name": "博饼", "game": "cakes", "minutes": 30},
            {"name": "状元摇奖", "game": "ranked"},
        ],
    }
    created = call(server, "POST", "/api/events", body)
    code, organiser = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, organiser)
    for table in created["tables"]:
        throw(server, table["code"], table["host_token"], "444444")  # 六勃红: over
    page = browser.page(name=f"axe-{scheme}", color_scheme=scheme, bypass_csp=True)
    page.goto(server.url + "/e/new")
    page.wait_for_function(BOOTED)
    page.get_by_role("button", name="载入 2013 年的晚会").click()
    assert not axe_problems(page, "#ev-programme"), axe_problems(page, "#ev-programme")
    page.evaluate(
        "([c, t]) => localStorage.setItem('bobing.e.' + c, JSON.stringify({organizerToken: t}))",
        [code, organiser],
    )
    page.goto(f"{server.url}/e/{code}")
    expect(page.locator("#ev-start-session")).to_be_visible()
    expect(page.locator("#run-sheet-next")).to_contain_text("下一项：状元摇奖")
    assert not axe_problems(page, "#run-sheet"), axe_problems(page, "#run-sheet")
    page.goto(f"{server.url}/e/{code}/hall")
    expect(page.locator("#run-sheet")).to_be_visible()
    assert not axe_problems(page, "#run-sheet"), axe_problems(page, "#run-sheet")
    page.goto(f"{server.url}/e/{code}/results")
    expect(page.locator("#ev-sessions")).to_be_visible()
    assert not axe_problems(page, "#ev-sessions"), axe_problems(page, "#ev-sessions")


def test_start_on_time_starts_each_game_session_at_its_time(
    browser: Browser, server: Server
) -> None:
    """ "Start on time" ticked: the open dashboard starts 博饼 at 19:00 and 状元摇奖 at 19:30 by
    the room's clock (the page's clock is Playwright's: nobody waits for a real one)."""
    rules = {"preset": "traditional", "award": "ranked", "rounds": 1}
    rules["ranked_prizes"] = [{"name": "一等奖", "count": 1, "value": 498}]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "到点开始",
            "rules": rules,
            "people": ["甲", "乙", "丙", "丁"],
            "tables": 2,
            "programme": [
                {"name": "会餐", "starts": "18:00", "minutes": 60, "game": "none"},
                {"name": "博饼", "starts": "19:00", "minutes": 30, "game": "cakes"},
                {"name": "状元摇奖", "starts": "19:30", "minutes": 30, "game": "ranked"},
            ],
            "start_on_time": True,
        },
    )
    code, organiser = created["code"], created["organizer_token"]
    room = ZoneInfo("Asia/Shanghai")
    page = browser.page(browser.context(timezone_id="Asia/Shanghai"), name="organiser")
    page.clock.install(time=datetime(2013, 9, 19, 18, 58, 30, tzinfo=room))
    page.goto(server.url + "/")
    page.evaluate(
        "([c, t]) => localStorage.setItem('bobing.e.' + c, JSON.stringify({organizerToken: t}))",
        [code, organiser],
    )
    page.goto(f"{server.url}/e/{code}")
    expect(page.locator("#run-sheet .is-now")).to_contain_text("会餐")
    expect(page.locator("#run-sheet-next")).to_contain_text("下一项：博饼")
    expect(page.locator('.ev-table[data-status="lobby"]')).to_have_count(2)
    page.clock.fast_forward("01:00")  # 18:59:30: not yet
    page.clock.fast_forward("00:20")
    expect(page.locator('.ev-table[data-status="lobby"]')).to_have_count(2)
    assert all(t["status"] == "lobby" for t in call(server, "GET", f"/api/events/{code}")["tables"])
    page.clock.fast_forward("01:00")  # 19:00:50
    expect(page.locator('.ev-table[data-status="playing"]')).to_have_count(2)
    for table in created["tables"]:
        throw(server, table["code"], table["host_token"], "444444")  # 六勃红: over
    expect(page.locator("#ev-start-session")).to_be_visible()
    page.clock.fast_forward("30:00")  # 19:30:50
    expect(page.locator('.ev-table[data-status="playing"]')).to_have_count(2)
    event = call(server, "GET", f"/api/events/{code}")
    assert event["session"] == 2
    for table in event["tables"]:
        assert host_token(page, table["code"])
