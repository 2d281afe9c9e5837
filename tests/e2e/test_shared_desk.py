"""分状元 at an event on the prize desk (issue 30, RULES.md §9.3): the 状元's good is listed as
shared by the whole table, under nobody's name and not as unclaimed."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call, start_event
from playwright.sync_api import expect
from test_event_day import throw

pytestmark = pytest.mark.browser

PRIZES = {
    "zhuangyuan": [{"name": "公仔", "count": 1, "value": 65}],
    "yixiu": [{"name": "可乐", "count": 2, "value": 2}],
}


def test_the_shared_zhuangyuan_good_is_on_the_desk(browser: Browser, server: Server) -> None:
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "分状元之夜",
            "people": ["甲", "乙", "丙"],
            "tables": 1,
            "seating": "in_order",
            "prizes": PRIZES,
            "rules": {"preset": "traditional", "zhuangyuan_cake": "shared"},
        },
    )
    start_event(server, created)
    (table,) = created["tables"]
    throw(server, table["code"], table["host_token"], "111444")  # 甲: 三红
    # 乙: 六勃红 takes every other cake and is 状元; its cake is still the table's
    assert throw(server, table["code"], table["host_token"], "444444")["status"] == "over"
    page = browser.page(name="results")
    page.goto(f"{server.url}/e/{created['code']}/results")
    desk = page.locator('.ev-desk[data-table="1"]')
    expect(desk.locator(".ev-shared")).to_have_text("分状元：公仔 ×1，全桌 3 人共享")
    expect(desk.locator("tbody tr")).to_have_count(3)
    expect(desk.locator("tbody")).not_to_contain_text("公仔")
    expect(desk.locator(".hint", has_text="公仔")).to_have_count(0)  # not unclaimed
