"""Before and after creating an event (issue 19 minors): the form says how long one table's game
takes under the prize set, seats and rules being typed, from the analysis layer at its pace, and
warns when the time limit will likely end it first; the dashboard then says what comes next
until a table starts; a finished event (or one still at the door) offers no 开始/暂停/继续."""

from __future__ import annotations

import json
import re
import urllib.parse
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PEOPLE = [f"同学{i:02d}" for i in range(1, 45)]
# the form's own starting set: the class event's 86 cakes a table (seed 003)
CLASS_CAKES = {"zhuangyuan": 1, "duitang": 4, "sanhong": 6, "sijin": 10, "erju": 25, "yixiu": 40}
PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [{"name": "洗发水", "count": 1, "value": 40}],
    "sanhong": [{"name": "杯子", "count": 1, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 1, "value": 5}],
    "erju": [{"name": "饼干", "count": 1, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 2, "value": 2}],
}


def game_length(server: Server, players: int, minutes: int | None = None) -> Any:
    query = {
        "players": players,
        "rules": json.dumps({"preset": "traditional", "prizes": CLASS_CAKES}),
    }
    if minutes is not None:
        query["minutes"] = minutes
    return call(server, "GET", "/api/game-length?" + urllib.parse.urlencode(query))


def as_organiser(page: Page, server: Server, code: str, token: str) -> None:
    page.goto(server.url + "/")
    page.evaluate(
        "([c, t]) => localStorage.setItem('bobing.e.' + c, JSON.stringify({organizerToken: t}))",
        [code, token],
    )
    page.goto(f"{server.url}/e/{code}")


def test_the_form_says_how_long_a_game_takes_and_what_comes_next(
    browser: Browser, server: Server
) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    asked: list[str] = []
    page.on(
        "request",
        lambda r: asked.append(r.url) if "/api/game-length" in r.url else None,
    )
    page.goto(server.url + "/e/new")
    expect(page.get_by_role("heading", name="创建博饼活动")).to_be_visible()
    page.locator("#ev-people").fill("\n".join(PEOPLE))  # 4 tables of 11, 86 cakes each

    # one table's game, as the analysis layer simulates it, at its pace
    plain = game_length(server, 11)
    throws = plain["simulation"]["throws"]
    pace = plain["seconds_per_throw"]
    minutes = round(throws["p50"] * pace / 60)
    line = page.locator("#ev-length .ev-length-line")
    expect(line).to_contain_text("11 人一桌")
    expect(line).to_contain_text(
        f"中位约 {throws['p50']} 掷，每掷约 {pace:g} 秒，约 {minutes} 分钟"
    )
    expect(line).to_contain_text(f"（{throws['p5']}–{throws['p95']} 掷）")
    assert 250 <= throws["p50"] <= 350  # the "median of ~300 throws"
    expect(page.locator("#ev-length .ev-length-limit")).to_have_count(0)

    # a 30-minute limit, typed key by key: asked about once, after the pause, never about "3"
    page.get_by_label("限时（分钟）").press_sequentially("30", delay=60)
    limited = game_length(server, 11, 30)["time_limit"]
    assert limited["throws"] == int(30 * 60 // pace) and limited["runs_past"] > 0.5
    warning = page.locator("#ev-length .ev-length-limit.is-warning")
    expect(warning).to_contain_text(f"限时 30 分钟（约 {limited['throws']} 掷）多半不够")
    share = min(99, int(limited["runs_past"] * 100 + 0.5))  # as the page rounds it
    expect(warning).to_contain_text(f"{share}% 的局到时还没博完")
    assert not [u for u in asked if "minutes=3&" in u or u.endswith("minutes=3")], asked
    assert len([u for u in asked if "minutes=30" in u]) == 1, asked

    # the other languages say the same
    page.get_by_label("语言").select_option("en")
    expect(page.locator("#ev-length .ev-length-line")).to_contain_text(
        f"a median of {throws['p50']} throws"
    )
    expect(page.locator("#ev-length .ev-length-limit.is-warning")).to_contain_text(
        "will likely end the game first"
    )
    page.get_by_label("Language").select_option("zh-Hant")
    expect(page.locator("#ev-length .ev-length-limit.is-warning")).to_contain_text("多半不夠")
    page.get_by_label("語言").select_option("zh-Hans")

    # a whole afternoon: no warning
    page.get_by_label("限时（分钟）").fill("600")
    expect(page.locator("#ev-length .ev-length-limit")).to_contain_text("限时 600 分钟")
    expect(page.locator("#ev-length .ev-length-limit.is-warning")).to_have_count(0)

    # after creating: what comes next, until the tables start
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    steps = page.locator(".ev-steps")
    expect(steps.get_by_role("heading", name="接下来")).to_be_visible()
    expect(steps.locator("li")).to_have_count(3)
    expect(steps.locator("li").nth(0)).to_contain_text("打印桌卡")
    expect(steps.get_by_role("link", name="桌卡")).to_have_attribute("href", f"/e/{code}/cards")
    expect(steps.locator("li").nth(1)).to_contain_text("「组长手机」")
    expect(steps.locator("li").nth(2)).to_contain_text("「全部桌」旁的「开始」")
    page.locator('.ev-all button[data-action="start"]').click()
    expect(page.locator('.ev-table[data-status="playing"]')).to_have_count(4)
    expect(steps).to_have_count(0)


def test_a_finished_event_offers_no_start_pause_or_resume(browser: Browser, server: Server) -> None:
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "博完了",
            "rules": "traditional",
            "mode": "referee",
            "people": ["甲", "乙", "丙", "丁"],
            "tables": 2,
            "prizes": PRIZES,
        },
    )
    code, organiser = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, organiser)
    for table in created["tables"]:
        state = call(server, "GET", f"/api/tables/{table['code']}")
        call(
            server,
            "POST",
            f"/api/tables/{table['code']}/commands",
            {"type": "throw", "turn": state["turn"], "dice": "444444"},  # 六勃红: over
            table["host_token"],
        )
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    as_organiser(page, server, code, organiser)
    expect(page.locator('.ev-table[data-status="over"]')).to_have_count(2)
    expect(page.locator(".ev-all-over")).to_have_text("所有桌都已博完。")
    for action in ("start", "pause", "resume", "close"):
        expect(page.locator(f'button[data-action="{action}"]')).to_have_count(0)
    expect(page.locator(".ev-steps")).to_have_count(0)

    # an event still at the door has no tables: nothing is over, nothing to start yet
    door = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "先签到",
            "rules": "traditional",
            "people": ["甲", "乙", "丙", "丁"],
            "tables": 2,
            "prizes": PRIZES,
            "check_in": True,
        },
    )
    as_organiser(page, server, door["code"], door["organizer_token"])
    expect(page.locator(".ev-checkin-card")).to_be_visible()
    expect(page.locator(".ev-steps li").first).to_contain_text("在门口签到")
    expect(page.locator(".ev-all-over")).to_have_count(0)
    expect(page.locator("button[data-action]")).to_have_count(0)
