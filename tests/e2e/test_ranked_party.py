"""The 2013 party in the browser: a ranked table for 13 people with the 2013 prize list, made
with the create form, seated and played by a referee from one phone (360 px wide), a live
leaderboard on every screen, and the prize-giving ceremony at the end (lowest prize first)."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server, state, wait_status, wait_throws
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PEOPLE = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑", "寅"]
ROUND = [  # in seat order, 甲 first: the same round as tests/web/test_live_ranked.py
    "444412",
    "123456",
    "444123",
    "222235",
    "441235",
    "412235",
    "112235",
    "444456",
    "555552",
    "112236",
    "336655",
    "444666",
    "111146",
]
TOP = ["壬", "辛", "甲"]  # 五子, 四红带十一, 四红带三
SMALL_PHONE = {"width": 360, "height": 740}


def fetch_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def enter(page: Page, dice: str) -> None:
    done = state(page)["throw_count"]
    page.locator("body").click(position={"x": 2, "y": 200})
    for face in dice:
        page.keyboard.press(face)
    page.get_by_role("button", name="确认").click()
    wait_throws(page, done + 1)


def no_sideways_scroll(page: Page) -> None:
    overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 0, f"the page scrolls sideways by {overflow} px"


def test_thirteen_people_ranked_to_the_prize_ceremony(browser: Browser, server: Server) -> None:
    """The 2013 company party: thirteen people entered on a referee's phone, a ranked game
    played to its ceremony. Long by its work (about 7 s alone), not by a wait."""
    host = browser.page(name="referee", viewport=SMALL_PHONE)
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_label("桌名").fill("2013 公司博饼")
    host.get_by_label("真骰子裁判").check()
    host.get_by_label("每人一份奖").check()
    host.get_by_role("button", name="载入 2013 年的奖品单").click()
    expect(host.locator(".prize-entry")).to_have_count(9)
    expect(host.locator(".prize-units")).to_have_text("共 13 份奖品，最多 13 人")
    expect(host.locator("#terms-seats")).to_have_value("13")
    host.get_by_label("轮数（可不填）").fill("1")
    host.get_by_label("轮数（可不填）").dispatch_event("change")
    no_sideways_scroll(host)
    browser.shot(host, "ranked-create", full_page=True)
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rsplit("/", 1)[1]
    expect(host.locator(".prize-line")).to_contain_text("共 13 份奖品")
    for name in PEOPLE:
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    expect(host.locator(".seat-count")).to_have_text("13/13")
    expect(host.locator(".join-box")).to_contain_text("已满")
    no_sideways_scroll(host)
    host.get_by_role("button", name="开始博饼").click()
    expect(host.locator(".play .ref-pad")).to_be_visible()  # not the lobby's start pad

    tv = browser.page(name="tv", viewport={"width": 1920, "height": 1080}, device_scale_factor=1)
    tv.goto(f"{server.url}/t/{code}/tv")
    expect(tv.locator(".tv-board .rank-row")).to_have_count(13)

    for dice in ROUND[:-1]:
        enter(host, dice)
    # the leaderboard: best throw and the prize it holds now, on the phone and the big screen
    for page in (host, tv):
        expect(page.locator(".rank-row").first.locator(".rank-name")).to_have_text("壬")
        expect(page.locator(".rank-row").first.locator(".rank-prize")).to_have_text(
            "一等奖 漫步者音响"
        )
    expect(host.locator(".final-badge")).to_have_text("最后一轮，到 寅 为止")
    no_sideways_scroll(host)
    host.locator(".leader-card").scroll_into_view_if_needed()
    browser.shot(host, "ranked-leaderboard")
    browser.shot(tv, "ranked-tv")

    enter(host, ROUND[-1])
    wait_status(host, "over")
    calls = host.locator(".prize-call")
    expect(calls).to_have_count(13)
    # lowest prize first, the top prize last (and shown largest)
    expect(calls.first.locator(".prize-call-prize")).to_have_text("安慰奖 博饼工具")
    expect(host.locator(".prize-call.is-top .prize-call-who")).to_have_text("壬")
    expect(host.locator(".prize-call.is-shown")).to_have_count(13)
    rows = host.locator(".ranking-results tbody tr")
    expect(rows).to_have_count(13)
    for i, name in enumerate(TOP):
        expect(rows.nth(i).locator("th")).to_have_text(name)
    no_sideways_scroll(host)
    host.evaluate("() => window.scrollTo(0, 0)")
    browser.shot(host, "ranked-ceremony")
    wait_status(tv, "over")
    expect(tv.locator(".prize-call.is-top .prize-call-who")).to_have_text("壬")
    browser.shot(tv, "ranked-ceremony-tv")
    record = fetch_json(f"{server.url}/api/tables/{code}/record")
    assert [r["player"] for r in record["ranking"][:3]] == TOP
    assert state(tv)["result"]["ranking"] == state(host)["result"]["ranking"]
    # the table's rules in words: the prize list instead of cakes, one prize per person
    host.goto(f"{server.url}/t/{code}/rules")
    expect(host.locator(".ranked-prize")).to_have_count(9)
    expect(host.locator(".switches")).to_contain_text("每人只取博到的最高奖项")


def test_the_ceremony_calls_the_prizes_one_by_one(browser: Browser, server: Server) -> None:
    """With motion allowed, a watcher sees the prizes called in turn, the top prize last."""
    host = browser.page(name="referee")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_label("真骰子裁判").check()
    host.get_by_label("每人一份奖").check()
    host.locator("[data-prize-name='0']").fill("冠军月饼")
    host.get_by_role("button", name="添加奖品").click()
    host.locator("[data-prize-name='1']").fill("亚军月饼")
    host.get_by_label("轮数（可不填）").fill("1")
    host.get_by_label("轮数（可不填）").dispatch_event("change")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rsplit("/", 1)[1]
    for name in ("甲", "乙", "丙"):
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    host.get_by_role("button", name="开始博饼").click()
    watcher = browser.page(name="watcher", reduced_motion=False)
    watcher.goto(f"{server.url}/t/{code}")
    expect(watcher.locator(".rank-row")).to_have_count(3)
    # note the order in which the watcher's screen calls the prizes
    watcher.evaluate(
        """() => {
          window.calls = [];
          new MutationObserver((changes) => {
            for (const c of changes) {
              const el = c.target;
              if (el.classList.contains("prize-call") && el.classList.contains("is-shown")
                  && !window.calls.includes(el.dataset.rank)) window.calls.push(el.dataset.rank);
            }
          }).observe(document.body, { subtree: true, attributeFilter: ["class"] });
        }"""
    )
    for dice in ("123456", "444456", "112233"):
        enter(host, dice)
    expect(watcher.locator(".prize-call")).to_have_count(2)
    expect(watcher.locator(".prize-call.is-shown")).to_have_count(2)
    # the second prize (甲's 对堂) is called before the first (乙's 四红带十一)
    assert watcher.evaluate("() => window.calls") == ["2", "1"]
    expect(watcher.locator(".prize-call.is-top .prize-call-who")).to_have_text("乙")
