"""Thirty people at one table (max_players 30): the big screen shows every name in the lobby
and every row in play on one 1080p screen, without scrolling; a 360 px phone shows the table
without scrolling sideways."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server, wait_throws
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

NAMES = [f"宾客{i:02d}" for i in range(1, 31)]
FULL_HD = {"width": 1920, "height": 1080}


def call(url: str, body: dict[str, Any], token: str | None = None) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def fits(page: Page) -> None:
    """Nothing to scroll, either way."""
    over = page.evaluate(
        "() => [document.documentElement.scrollWidth - innerWidth,"
        " document.documentElement.scrollHeight - innerHeight]"
    )
    tall = page.evaluate(
        "() => [...document.querySelectorAll('body *')]"
        ".filter(e => e.getBoundingClientRect().bottom > innerHeight + 1)"
        ".slice(0, 5).map(e => e.tagName + '.' + e.className)"
    )
    assert over[0] <= 0 and over[1] <= 0, f"the big screen scrolls by {over}: {tall}"


def test_thirty_on_the_big_screen(browser: Browser, server: Server) -> None:
    made = call(
        server.url + "/api/tables",
        {
            "name": "三十人",
            "mode": "pass_and_play",
            "rules": {"preset": "traditional", "max_players": 30},
        },
    )
    code, host = made["code"], made["host_token"]
    for name in NAMES:
        call(f"{server.url}/api/tables/{code}/join", {"name": name})
    tv = browser.page(name="tv", viewport=FULL_HD, device_scale_factor=1)
    tv.goto(f"{server.url}/t/{code}/tv")
    expect(tv.locator(".tv-seats li")).to_have_count(30)
    browser.shot(tv, "big-screen-30-lobby")
    fits(tv)
    commands = f"{server.url}/api/tables/{code}/commands"
    call(commands, {"type": "start", "id": "start"}, host)
    for turn in range(1, 41):
        call(commands, {"type": "throw", "id": f"t{turn}", "turn": turn}, host)
    wait_throws(tv, 40)
    expect(tv.locator(".tv-right table.holdings tbody tr")).to_have_count(30)
    browser.shot(tv, "big-screen-30")
    fits(tv)
    phone = browser.page(name="phone", viewport={"width": 360, "height": 740})
    phone.goto(f"{server.url}/t/{code}")
    expect(phone.locator("table.holdings tbody tr")).to_have_count(30)
    overflow = phone.evaluate("() => document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the phone scrolls sideways by {overflow} px"
