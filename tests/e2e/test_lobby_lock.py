"""The host locks the lobby against squatters: a guest sees it is locked and cannot sit down;
the host opens it again and the guest can."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, create_table
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_host_locks_and_opens_the_lobby(browser: Browser, server: Server) -> None:
    host = browser.page(name="host")
    code = create_table(host, server.url, mode="online", name="锁定")
    guest = browser.page(name="guest")
    guest.goto(f"{server.url}/t/{code}")
    expect(guest.get_by_label("你的名字")).to_be_visible()
    expect(guest.get_by_role("button", name="锁定大厅")).to_have_count(0)

    host.get_by_role("button", name="锁定大厅").click()
    expect(host.get_by_role("button", name="打开大厅")).to_have_attribute("aria-pressed", "true")
    expect(host.locator("#lock-state")).to_have_text(
        "大厅已锁定：别人不能自行入座，只有你还能安排座位。"
    )
    expect(guest.locator(".lock-hint")).to_have_text("桌主已锁定大厅，暂时不能入座。")
    expect(guest.get_by_label("你的名字")).to_have_count(0)
    browser.shot(host, "lobby-locked")

    host.get_by_role("button", name="打开大厅").click()
    expect(guest.get_by_label("你的名字")).to_be_visible()
    guest.get_by_label("你的名字").fill("乙")
    guest.get_by_role("button", name="入座").click()
    expect(host.locator(".seat-name")).to_have_text(["乙"])
