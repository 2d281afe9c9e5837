"""An event's dashboard and hall open one WebSocket each (/ws/watch), however many tables,
and still follow every table live: a throw at any table reaches both screens; the 王中王's
table joins the same socket when it begins."""

from __future__ import annotations

from typing import Any

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "duitang": [{"name": "洗发水", "count": 1, "value": 40}],
    "sanhong": [{"name": "杯子", "count": 1, "value": 20}],
    "sijin": [{"name": "毛巾", "count": 1, "value": 5}],
    "erju": [{"name": "饼干", "count": 1, "value": 3}],
    "yixiu": [{"name": "可乐", "count": 2, "value": 2}],
}


def throw(server: Server, table: dict[str, Any], dice: str) -> None:
    state = call(server, "GET", f"/api/tables/{table['code']}")
    call(
        server,
        "POST",
        f"/api/tables/{table['code']}/commands",
        {"type": "throw", "turn": state["turn"], "dice": dice},
        table["host_token"],
    )


def sockets_of(page: Page) -> list[str]:
    urls: list[str] = []
    page.on("websocket", lambda ws: urls.append(ws.url))
    return urls


def test_a_screen_follows_every_table_on_one_socket(browser: Browser, server: Server) -> None:
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "中秋博饼",
            "rules": "traditional",
            "mode": "referee",
            "people": [f"同学{i:02d}" for i in range(1, 25)],
            "tables": 6,
            "seating": "in_order",
            "prizes": PRIZES,
        },
    )
    code, organiser = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, organiser)
    ctx = browser.context(viewport={"width": 1600, "height": 900})
    dash = browser.page(ctx, name="dashboard")
    dash.goto(server.url + "/")
    dash.evaluate(
        "([c, t]) => localStorage.setItem('bobing.e.' + c, JSON.stringify({organizerToken: t}))",
        [code, organiser],
    )
    dash_sockets = sockets_of(dash)
    dash.goto(f"{server.url}/e/{code}")
    hall = browser.page(ctx, name="hall")
    hall_sockets = sockets_of(hall)
    hall.goto(f"{server.url}/e/{code}/hall")
    expect(hall.locator(".ev-tile")).to_have_count(6)
    expect(dash.locator(".ev-table")).to_have_count(6)

    # closing a table nobody has thrown at ends it at once: the dialog says so
    dash.locator('.ev-table[data-table="1"] button[data-action="close"]').click()
    expect(dash.get_by_role("dialog")).to_contain_text("立即结束")
    dash.get_by_role("dialog").get_by_role("button", name="取消").click()

    for table in created["tables"]:
        throw(server, table, "123456")  # 对堂: a line in both feeds
    expect(dash.locator('.ev-table[data-table="6"] .ev-throws')).to_have_text("1")
    expect(hall.locator(".ev-hall-feed .ev-feed-item")).to_have_count(6)
    expect(dash.locator(".ev-feed-item")).to_have_count(6)
    dash.locator('.ev-table[data-table="1"] button[data-action="close"]').click()
    expect(dash.get_by_role("dialog")).to_contain_text("本轮博完后")
    dash.get_by_role("dialog").get_by_role("button", name="取消").click()
    for urls in (dash_sockets, hall_sockets):
        assert [u for u in urls if "/ws/tables/" in u] == []
        assert len([u for u in urls if "/ws/watch" in u]) == 1, urls
        assert all(f"t={t['code']}" in urls[0] for t in created["tables"])

    # an undone throw leaves both feeds at once (issue 19 minor)
    last = created["tables"][-1]
    call(
        server,
        "POST",
        f"/api/tables/{last['code']}/commands",
        {"type": "undo", "throw": 1},
        last["host_token"],
    )
    expect(hall.locator(".ev-hall-feed .ev-feed-item")).to_have_count(5)
    expect(dash.locator(".ev-feed-item")).to_have_count(5)
    throw(server, last, "123456")

    # every table over: the 王中王's table joins the hall's socket; the dashboard offers no
    # action on all tables any more
    for table in created["tables"]:
        throw(server, table, "444444")
    expect(dash.locator(".ev-all-over")).to_have_text("所有桌都已博完。")
    expect(dash.locator('.ev-all button[data-action="start"]')).to_have_count(0)
    playoff = call(server, "POST", f"/api/events/{code}/playoff", {"throws": 1}, organiser)
    expect(hall.locator(".ev-playoff-panel li")).to_have_count(6)
    # the playoff starts with the winners seated
    throw(server, {"code": playoff["code"], "host_token": playoff["host_token"]}, "444411")
    expect(hall.locator(".ev-hall-feed .ev-feed-item").first).to_contain_text("状元插金花")
    watching = [u for u in hall_sockets if "/ws/watch" in u]
    assert f"t={playoff['code']}" in watching[-1]
    assert [u for u in hall_sockets if "/ws/tables/" in u] == []
