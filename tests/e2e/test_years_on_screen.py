"""历届 in the browser (RULES.md §10.3): next year's form, the new event's hall and its results
show every earlier year — date, 状元 (or 王中王), organisers, who gave the 会饼 — and the event
made from the form keeps the link to last year's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from e2etools import Browser, Server, call, root_conftest, start_event
from playwright.sync_api import expect
from test_accessibility import AXE, violations
from test_event_day import throw
from test_organiser_hits import get

pytestmark = pytest.mark.browser


def played(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    """An event created and played out: the first seat of every table is its 状元."""
    created = call(server, "POST", "/api/events", body)
    start_event(server, created)
    for table in created["tables"]:
        assert throw(server, table["code"], table["host_token"], "444444")["status"] == "over"
    return created


def test_the_years_on_the_form_the_hall_and_the_results(browser: Browser, server: Server) -> None:
    people = [f"同学{i:02d}" for i in range(1, 9)]
    first = played(
        server,
        {
            "name": "2024 中秋",
            "date": "2024-09-17",
            "people": people,
            "tables": 2,
            "seating": "in_order",
        },
    )
    following = get(server, f"/api/events/{first['code']}/next")
    second = played(server, {**following, "name": "2025 中秋", "date": "2025-10-06"})

    # axe is injected as an inline script, which the app's Content-Security-Policy refuses
    root_conftest().need_node_module(AXE, "the accessibility test (axe-core)")
    page = browser.page(
        browser.context(viewport={"width": 1280, "height": 900}, bypass_csp=True), name="organiser"
    )
    page.goto(f"{server.url}/e/new?from={second['code']}")
    years = page.locator(".ev-years li")
    expect(years).to_have_count(2)
    expect(years.nth(0)).to_have_text(
        "2025-10-06 2025 中秋 · 状元 同学01、同学05 · 组织者：同学01、同学05 · 会饼：同学01、同学05"
    )
    expect(years.nth(1)).to_have_text("2024-09-17 2024 中秋 · 状元 同学01、同学05")
    # every text, the gradients' too, at its contrast (test_accessibility.violations)
    assert not (found := violations(page)), found
    page.locator("#ev-name").fill("2026 中秋")
    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    assert get(server, f"/api/events/{code}")["previous"] == second["code"]

    hall = browser.page(
        browser.context(viewport={"width": 1280, "height": 720}, bypass_csp=True), name="hall"
    )
    hall.goto(f"{server.url}/e/{code}/hall")
    band = hall.locator(".ev-hall-years")
    expect(band.locator("li")).to_have_count(2)
    expect(band).to_contain_text("历届")
    expect(band.locator("li").nth(0)).to_contain_text("2025-10-06 2025 中秋")
    box, head = band.bounding_box(), hall.locator(".ev-hall-head").bounding_box()
    assert box and head and box["y"] + box["height"] <= head["y"] + head["height"] + 1
    hall.evaluate("document.fonts.ready")
    assert not violations(hall), violations(hall)

    results = browser.page(name="results", bypass_csp=True)
    results.goto(f"{server.url}/e/{code}/results")
    listed = results.locator(".ev-years li")
    expect(listed).to_have_count(2)
    expect(listed.nth(1)).to_contain_text("2024-09-17 2024 中秋 · 状元 同学01、同学05")
    results.evaluate("document.fonts.ready")
    assert not violations(results), violations(results)


def test_the_years_at_a_one_table_partys_prize_giving(browser: Browser, server: Server) -> None:
    party = {"people": ["甲", "乙", "丙"], "tables": 1, "seating": "in_order"}
    first = played(server, {**party, "name": "去年", "date": "2025-10-06"})
    following = get(server, f"/api/events/{first['code']}/next")
    second = played(server, {**following, "name": "今年"})
    hall = browser.page(browser.context(viewport={"width": 1280, "height": 720}), name="hall")
    hall.goto(f"{server.url}/e/{second['code']}/hall")
    expect(hall.locator(".ev-prize-giving")).to_be_visible()
    expect(hall.locator(".ev-hall-years li")).to_have_text(
        ["2025-10-06 去年 · 状元 甲"], use_inner_text=True
    )
