"""An online (各自手机) table seats people without a phone: the host adds their names in the
lobby and stands in for their throws from the host's phone, without a confirmation each time
(they have no phone to throw with); a player with a phone plays alongside."""

from __future__ import annotations

import pytest
from e2etools import PLAYS_ON, Browser, Server, call, goto_with_tokens, wait_turn
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_an_online_table_seats_two_people_without_phones(browser: Browser, server: Server) -> None:
    created = call(
        server, "POST", "/api/tables", {"name": "家里博饼", "mode": "online", "rules": PLAYS_ON}
    )
    code, host = created["code"], created["host_token"]
    page = browser.page(name="host")
    goto_with_tokens(page, server.url, code, hostToken=host)
    page.locator("#join-name").fill("妈妈")
    page.locator("#join-name").press("Enter")
    expect(page.locator(".seated-hint")).to_contain_text("妈妈")
    for name in ("外婆", "外公"):
        page.locator("#phoneless-name").fill(name)
        page.locator("#phoneless-name").press("Enter")
        expect(page.locator(".seats")).to_contain_text(name)
    # a player with a phone of their own
    phone = call(server, "POST", f"/api/tables/{code}/join", {"name": "小明"})
    names = [p["name"] for p in call(server, "GET", f"/api/tables/{code}")["players"]]
    assert names == ["妈妈", "外婆", "外公", "小明"]

    call(
        server,
        "POST",
        f"/api/tables/{code}/commands",
        {"type": "start", "starter": "外婆"},
        host,
    )
    # 外婆's and 外公's turns: one tap each on the host's phone, no confirmation
    for turn, name in ((1, "外婆"), (2, "外公")):
        page.get_by_role("button", name=f"替 {name} 掷").click()
        wait_turn(page, turn + 1)
        expect(page.locator(".log")).to_contain_text(f"主持人替 {name} 掷第 {turn} 掷")
    expect(page.get_by_role("dialog")).to_have_count(0)
    # auto-throw is a setting in sight, not behind "someone's phone died?"
    expect(page.get_by_label("缺席自动代掷")).to_be_visible()
    # then the host's own turn, then 小明 on his phone: the table goes on as any other
    state = call(server, "GET", f"/api/tables/{code}")
    assert state["next"] == "小明"
    events = call(server, "GET", f"/api/tables/{code}/events?after=0")["events"]
    stood_in = [e["player"] for e in events if e["type"] == "thrown"]
    assert stood_in == ["外婆", "外公"]
    assert phone["name"] == "小明"
