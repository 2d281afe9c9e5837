"""The 规则与概率 page: exact numbers, how long a game takes, the charts, three languages."""

from __future__ import annotations

import re

import pytest
from e2etools import Browser, Server
from playwright.sync_api import Page, Route, expect

COMPUTED_MS = 90_000
"""How long a figure the server computes may take to show: a game-length simulation runs on
the shared server's one analysis worker, perhaps behind an earlier test's, on two cores that the
parallel run keeps busy (it ends as soon as the figure shows)."""

pytestmark = pytest.mark.browser

CHARTS_LOADED = """kind => {
  const img = document.querySelector('img.chart-' + kind);
  return img && img.complete && img.naturalWidth > 0 ? img.getAttribute('src') : null;
}"""


def chart_src(page: Page, kind: str) -> str:
    """Wait until the chart has loaded (a real picture), and return its URL."""
    handle = page.wait_for_function(CHARTS_LOADED, arg=kind, timeout=COMPUTED_MS)
    src: str = handle.json_value()
    return src


def test_odds_page_numbers_charts_and_languages(browser: Browser, server: Server) -> None:
    """The odds page end to end: exact counts, the server's seeded simulations behind the game
    length and the charts (in the server's analysis workers), in three languages. Long by the
    simulations it waits for (about 6 s alone), not by a clock."""
    page = browser.page(name="odds")
    page.goto(server.url + "/")
    page.get_by_role("link", name="规则与概率").click()
    expect(page).to_have_url(re.compile(r"/odds$"))
    expect(page.get_by_role("heading", name="厦门传统")).to_be_visible(timeout=COMPUTED_MS)
    expect(page.locator(".preset-tabs .is-active")).to_have_text("厦门传统")

    # one throw: exact counts out of 46,656
    yixiu = page.locator('.odds-table tr[data-hand="yixiu"]')
    expect(yixiu).to_contain_text("一秀")
    expect(yixiu.locator("td")).to_have_text(["17,400", "37.29%", "2.7"])
    expect(page.locator('.odds-table tr[data-hand="liubohong"] td')).to_have_text(
        ["1", "0.0021%", "46,656"]
    )
    expect(page.locator(".odds-table tfoot")).to_contain_text("46,656")
    expect(page.locator(".odds-table tr.is-zhuangyuan")).to_have_count(5)
    # per tier at the start, and the 状元 kickers
    expect(page.locator('.tier-odd[data-tier="zhuangyuan"] .tier-odd-pct')).to_have_text("1.19%")
    expect(page.locator('.tier-odd[data-tier="duitang"]')).to_contain_text("约 63.4 掷一次")
    sihong = page.locator('.kicker-group[data-hand="sihong"]')
    expect(sihong.locator(".kicker-row").first).to_contain_text("四红带十二")
    expect(sihong.locator(".kicker-row").first).to_contain_text("4.2%（15 种）")

    # how long: the exact mean, the simulation's median and 90% range, minutes at 10 s a throw
    expect(page.get_by_label("几个人玩")).to_have_value("10")
    expect(page.locator(".stat-mean")).to_contain_text("228.1 掷", timeout=COMPUTED_MS)
    expect(page.locator(".stat-mean")).to_contain_text("约 38 分钟")
    sim = page.request.get(server.url + "/api/game-length?players=10&rules=traditional").json()
    throws = sim["simulation"]["throws"]
    expect(page.locator(".stat-median")).to_contain_text(f"{throws['p50']} 掷")
    expect(page.locator(".stat-range")).to_contain_text(f"{throws['p5']}–{throws['p95']} 掷")
    expect(page.locator(".endings")).to_contain_text("六勃黑2.44%")
    assert "players=10" in chart_src(page, "length")
    assert "lang=zh-Hans" in chart_src(page, "seats")
    page.evaluate("window.scrollTo(0, 0)")
    browser.shot(page, "odds")

    # a table of 11, at 6 seconds a throw
    page.get_by_role("button", name="多一个人").click()
    expect(page.get_by_label("几个人玩")).to_have_value("11")
    expect(page.locator(".stat-mean")).to_contain_text("228.6 掷", timeout=COMPUTED_MS)
    expect(page.locator("#announcer")).to_contain_text("11 个人、每掷约 10 秒")
    page.get_by_label("每掷约几秒").fill("6")
    page.get_by_label("每掷约几秒").dispatch_event("change")
    expect(page.locator(".stat-mean")).to_contain_text("约 23 分钟")
    assert "players=11" in chart_src(page, "length")

    # another language: the same numbers, English words, English charts
    page.get_by_label("语言").select_option("en")
    expect(page.get_by_role("heading", name="One throw: the chance of each hand")).to_be_visible()
    expect(yixiu).to_contain_text("One red (yixiu)")
    expect(yixiu.locator("td")).to_have_text(["17,400", "37.29%", "2.7"])
    expect(page.locator(".stat-mean")).to_contain_text("228.6 throws", timeout=COMPUTED_MS)
    expect(page.get_by_label("Players")).to_have_value("11")
    assert "lang=en" in chart_src(page, "length")
    assert "lang=en" in chart_src(page, "seats")
    page.get_by_label("Language").select_option("zh-Hant")
    expect(page.get_by_role("heading", name="每一擲：各種花樣的機會")).to_be_visible()
    expect(yixiu.locator("td").first).to_have_text("17,400")
    assert "lang=zh-Hant" in chart_src(page, "length")

    # the other presets
    page.get_by_role("link", name="通行規則").click()
    expect(page).to_have_url(re.compile(r"/odds/modern$"))
    expect(page.locator('.odds-table tr[data-hand="liubohei"]')).to_have_class(
        re.compile("is-zhuangyuan")
    )
    expect(page.locator('.tier-odd[data-tier="yixiu"]')).to_contain_text("含四進")
    sweep = page.locator("#o-tiers + .hint ~ .hint")
    expect(sweep).to_have_text("六勃紅一擲通吃，每一檔都算上了它。")


def test_odds_of_a_table(browser: Browser, server: Server) -> None:
    api = browser.page(name="api").request
    created = api.post(
        server.url + "/api/tables",
        data={"name": "中秋夜", "rules": "jinhua", "prizes": {"duitang": 1, "yixiu": 4}},
    )
    assert created.status == 201, created.text()
    code = created.json()["code"]
    for name in ("甲", "乙", "丙", "丁"):
        joined = api.post(f"{server.url}/api/tables/{code}/join", data={"name": name})
        assert joined.status == 201
    page = browser.page(name="table-odds")
    # the server's analysis worker is taken the first time the seats chart is asked for: the
    # picture asks again (an <img> alone never would) and shows when the worker is free
    refused: list[str] = []

    def busy_once(route: Route) -> None:
        if refused:
            route.continue_()
            return
        refused.append(route.request.url)
        route.fulfill(status=503, headers={"Retry-After": "1"}, json={"error": "busy"})

    page.route("**/api/charts/seats.svg*", busy_once)
    # (the refused picture is the one console error expected here)
    with browser.allow(r"status of 503"):
        page.goto(f"{server.url}/t/{code}/rules")
        page.get_by_role("link", name=re.compile("规则与概率")).click()
        expect(page).to_have_url(re.compile(f"/t/{code}/odds$"))
        expect(page.get_by_role("heading", name="「中秋夜」的概率")).to_be_visible(
            timeout=COMPUTED_MS
        )
        expect(page.locator(".preset-tabs")).to_have_count(0)
        # 插金花 tops the order; 六勃黑 is a 状元 hand compared by its face
        groups = page.locator(".kicker-group")
        expect(groups).to_have_count(4)
        expect(groups.first).to_have_attribute("data-hand", "liubohei")
        expect(groups.first.locator(".kicker-row").first).to_contain_text("六个6")
        expect(page.locator('.odds-table tr[data-hand="chajinhua"] td')).to_have_text(
            ["15", "0.032%", "3,110"]
        )
        # the seated players are the default table size, and the table's own prize counts count
        expect(page.get_by_label("几个人玩")).to_have_value("4")
        sim = page.request.get(f"{server.url}/api/game-length?players=4&table={code}").json()
        assert sim["rules"]["prizes"]["duitang"] == 1
        mean = sim["exact"]["throws_mean"]
        expect(page.locator(".stat-mean")).to_contain_text(f"{mean:.1f} 掷", timeout=COMPUTED_MS)
        assert f"table={code}" in chart_src(page, "seats")
    assert len(refused) == 1
    assert page.locator("img.chart-seats").get_attribute("data-tries") == "1"
    page.get_by_role("link", name="回到桌面").click()
    expect(page).to_have_url(re.compile(f"/t/{code}$"))
    expect(page.locator(".lobby")).to_be_visible()
