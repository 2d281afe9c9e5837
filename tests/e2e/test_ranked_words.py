"""A ranked table has no 状元 (issue 30, RULES.md §8.2): the hall's tile and the dashboard name
the table's first, never a 状元, before and after the first ranked throw."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import expect
from test_event_day import throw

pytestmark = pytest.mark.browser


def test_a_ranked_tables_tile_names_its_first(browser: Browser, server: Server) -> None:
    prizes = [{"name": n, "count": 1, "value": v} for n, v in (("音响", 498), ("水壶", 27))]
    created = call(
        server,
        "POST",
        "/api/events",
        {
            "name": "名次奖",
            "people": ["甲", "乙", "丙", "丁"],
            "tables": 2,
            "seating": "in_order",
            "rules": {"preset": "traditional", "award": "ranked", "ranked_prizes": prizes},
        },
    )
    code, token = created["code"], created["organizer_token"]
    call(server, "POST", f"/api/events/{code}/control", {"action": "start"}, token)
    hall = browser.page(browser.context(viewport={"width": 1280, "height": 720}), name="hall")
    hall.goto(f"{server.url}/e/{code}/hall")
    tile = hall.locator('.ev-tile[data-table="1"] .ev-tile-leader')
    expect(tile).to_have_text("还没有人掷出名次")
    one = created["tables"][0]
    throw(server, one["code"], one["host_token"], "444123")  # 甲: 三红
    expect(tile).to_have_text("第一名：甲（三红）")
    dash = browser.page(name="organiser")
    dash.goto(f"{server.url}/e/{code}#o={token}")
    leaders = dash.locator(".ev-leader")
    expect(leaders).to_have_text(["第一名：甲（三红）", "还没有人掷出名次"])
