"""Ranked events speak of places and prizes, never of cakes (issue 19 minors): the 组长's table,
its undo and close dialogs, the dashboard, the hall, the TV and the end screen of a ranked
event; a one-table event has no 王中王 anywhere; the end screen of an event's table links back
to the event instead of offering a rematch, and names who goes on to the 王中王 when the event
holds one. The leaderboard's dice are readable (≥ 20 px on a phone, bigger on the TV) and the
prize values say 元."""

from __future__ import annotations

from typing import Any

import pytest
from e2etools import Browser, Server, call, wait_status, wait_throws
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
PRIZES = [
    {"name": "一等奖 音响", "count": 1, "value": 498},
    {"name": "二等奖 电饭煲", "count": 1, "value": 199},
    {"name": "三等奖 水壶", "count": 2, "value": 27},
]


def ranked_event(server: Server, tables: int) -> dict[str, Any]:
    """A referee event of ``tables`` tables of 4 playing ranked prizes for one round; started."""
    rules = {"preset": "traditional", "award": "ranked", "rounds": 1, "ranked_prizes": PRIZES}
    created: dict[str, Any] = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "公司中秋晚会",
            "rules": rules,
            "mode": "referee",
            "people": [f"员工{i}" for i in range(1, 4 * tables + 1)],
            "tables": tables,
            "seating": "in_order",
        },
    )
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
    return created


def throw(server: Server, table: dict[str, Any], dice: str) -> dict[str, Any]:
    state = call(server, "GET", f"/api/tables/{table['code']}")
    call(
        server,
        "POST",
        f"/api/tables/{table['code']}/commands",
        {"type": "throw", "turn": state["turn"], "dice": dice},
        table["host_token"],
    )
    after: dict[str, Any] = call(server, "GET", f"/api/tables/{table['code']}")
    return after


def words(page: Page) -> str:
    text: str = page.locator("#main").inner_text()
    return text


def no_cakes(page: Page, where: str, *, playoff: bool = False) -> None:
    """No cake on a ranked screen; no 王中王 either at a one-table event."""
    text = words(page)
    assert "饼" not in text, f"{where}: {text}"
    if not playoff:
        assert "王中王" not in text, f"{where}: {text}"


def smallest_die(page: Page, selector: str) -> float:
    width: float = page.evaluate(
        """sel => Math.min(...[...document.querySelectorAll(sel)].map(
            d => d.getBoundingClientRect().width))""",
        selector,
    )
    return width


def dialog_text(page: Page, button: str) -> str:
    """Open a confirmation by its button, read it and cancel."""
    page.get_by_role("button", name=button).first.click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    text: str = dialog.inner_text()
    dialog.get_by_role("button", name="取消").click()
    expect(dialog).to_have_count(0)
    return text


def test_a_one_table_ranked_event_speaks_of_places(browser: Browser, server: Server) -> None:
    created = ranked_event(server, 1)
    code = created["code"]
    (table,) = created["tables"]
    throw(server, table, "444412")  # 员工1: 四红带三, holds the top prize for now

    leader = browser.page(browser.context(viewport=PHONE), name="leader")
    leader.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    wait_throws(leader, 1)
    expect(leader.locator(".ranking .rank-row .die").first).to_be_visible()
    assert smallest_die(leader, ".ranking .rank-row .die") >= 20
    expect(leader.locator(".ranked-prizes")).to_contain_text("价值 498 元")
    no_cakes(leader, "the 组长's table")
    undo = dialog_text(leader, "撤销上一掷")
    assert "名次" in undo and "饼" not in undo, undo
    close = dialog_text(leader, "结束本局")
    assert "饼" not in close, close

    dash = browser.page(browser.context(viewport=LAPTOP), name="dashboard")
    dash.goto(f"{server.url}/e/{code}#o={created['organizer_token']}")
    expect(dash.locator('.ev-table[data-table="1"] .ev-throws')).to_have_text("1")
    no_cakes(dash, "the dashboard")
    dash.locator('.ev-table[data-table="1"] button[data-action="close"]').click()
    body = dash.get_by_role("dialog").inner_text()
    assert "按名次颁奖" in body and "饼" not in body, body
    dash.get_by_role("dialog").get_by_role("button", name="取消").click()

    tv = browser.page(browser.context(viewport=TV, device_scale_factor=1), name="tv")
    tv.goto(f"{server.url}/t/{table['code']}/tv")
    expect(tv.locator(".tv-board .rank-row .die").first).to_be_visible()
    assert smallest_die(tv, ".tv-board .rank-row .die") >= 30  # bigger than the phone's
    no_cakes(tv, "the TV")
    hall = browser.page(browser.context(viewport=TV, device_scale_factor=1), name="hall")
    hall.goto(f"{server.url}/e/{code}/hall")
    expect(hall.locator(".ev-tile")).to_have_count(1)
    no_cakes(hall, "the hall")

    for dice in ("123456", "112233", "444456"):
        throw(server, table, dice)
    wait_status(leader, "over")
    expect(leader.locator(".prize-ceremony")).to_be_visible()
    # the end of an event's table: back to the event, no rematch that would leave it
    expect(leader.get_by_role("button", name="再来一局（同样的人）")).to_have_count(0)
    back = leader.get_by_role("link", name="回到活动")
    expect(back).to_have_attribute("href", f"/e/{code}")
    expect(leader.locator(".event-back-card")).to_contain_text(f"活动 {code}")
    expect(leader.locator(".event-goes-on")).to_have_count(0)  # one table: no 王中王
    expect(leader.locator(".ranking-results")).to_contain_text("498 元")
    leader.get_by_role("button", name="生成战报图片").click()
    expect(leader.locator(".share-img")).to_have_attribute(
        "alt", "公司中秋晚会 #1 的战报：名次、骰子和奖品"
    )
    no_cakes(leader, "the end screen")

    expect(tv.locator(".prize-ceremony")).to_be_visible()
    no_cakes(tv, "the TV's end")
    expect(hall.locator(".ev-prize-giving")).to_be_visible()
    no_cakes(hall, "the hall's prize-giving")
    expect(dash.locator('.ev-table[data-table="1"]')).to_have_attribute("data-status", "over")
    no_cakes(dash, "the dashboard at the end")
    back.click()
    expect(leader.locator(".ev-table")).to_have_count(1)
    results = browser.page(browser.context(viewport=LAPTOP), name="results")
    results.goto(f"{server.url}/e/{code}/results")
    expect(results.locator(".ev-by-name")).to_contain_text("一等奖 音响")
    text = words(results)
    assert "王中王" not in text and "没有进行" not in text, text


def test_an_event_table_sends_its_zhuangyuan_on(browser: Browser, server: Server) -> None:
    created = ranked_event(server, 2)
    one = created["tables"][0]
    page = browser.page(browser.context(viewport=PHONE), name="leader")
    page.goto(f"{server.url}/t/{one['code']}#host={one['host_token']}")
    page.wait_for_selector(".play")
    for dice in ("112233", "444456", "123456", "223356"):
        throw(server, one, dice)
    wait_status(page, "over")
    first = call(server, "GET", f"/api/tables/{one['code']}")["result"]["ranking"][0]["player"]
    expect(page.locator(".event-goes-on")).to_have_text(f"本桌状元 {first} 进入状元王中王。")
    expect(page.get_by_role("link", name="回到活动")).to_have_attribute(
        "href", f"/e/{created['code']}"
    )
    expect(page.get_by_role("button", name="再来一局（同样的人）")).to_have_count(0)
    no_cakes(page, "the end screen", playoff=True)
    # table 2, nobody has thrown: closing it ends it at once, and nobody takes a prize there
    dash = browser.page(browser.context(viewport=LAPTOP), name="dashboard")
    dash.goto(f"{server.url}/e/{created['code']}#o={created['organizer_token']}")
    # The watch socket's catch-up brings table 1's 四红 and 对堂 to the feed, and the dashboard
    # repaints for it: a click whose press and release straddle that repaint is no click (a
    # loaded run's rerun). Click once the page has them.
    expect(dash.locator(".ev-feed-item")).to_have_count(2)
    dash.locator('.ev-table[data-table="2"] button[data-action="close"]').click()
    body = dash.get_by_role("dialog").inner_text()
    assert "没有人得奖" in body and "状元" not in body and "饼" not in body, body
    dash.get_by_role("dialog").get_by_role("button", name="取消").click()
