"""The throw button's keyboard hint ("or press Space or Enter") shows with a keyboard and
mouse, not on a touch screen."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call, goto_with_tokens
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("touch", [False, True])
def test_the_key_hint_only_where_there_are_keys(
    browser: Browser, server: Server, touch: bool
) -> None:
    created = call(server, "POST", "/api/tables", {"name": "家里", "mode": "online"})
    code = created["code"]
    seat = call(server, "POST", f"/api/tables/{code}/join", {"name": "甲"})
    call(server, "POST", f"/api/tables/{code}/join", {"name": "乙"})
    call(
        server,
        "POST",
        f"/api/tables/{code}/commands",
        {"type": "start", "starter": "甲"},
        created["host_token"],
    )
    ctx = browser.context(has_touch=touch, is_mobile=touch)
    page = browser.page(ctx, name="phone")
    goto_with_tokens(page, server.url, code, playerToken=seat["player_token"])
    hint = page.locator(".kbd-hint")
    expect(hint).to_have_count(1)
    if touch:
        expect(hint).to_be_hidden()
    else:
        expect(hint).to_be_visible()
