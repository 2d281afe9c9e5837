"""On a 390 px phone at a real-dice (referee) table the 组长's pad comes before the drawn bowl:
the pad is what the 组长 needs at hand."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call, goto_with_tokens
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_pad_comes_first_on_a_phone(browser: Browser, server: Server) -> None:
    created = call(server, "POST", "/api/tables", {"name": "真骰子", "mode": "referee"})
    code, host = created["code"], created["host_token"]
    for name in ("甲", "乙", "丙"):
        call(server, "POST", f"/api/tables/{code}/join", {"name": name}, host)
    call(server, "POST", f"/api/tables/{code}/commands", {"type": "start", "starter": "甲"}, host)
    page = browser.page(name="leader")  # a 390×844 phone
    goto_with_tokens(page, server.url, code, hostToken=host)
    pad = page.locator(".ref-pad")
    expect(pad).to_be_visible()
    pad_top = pad.bounding_box()
    bowl_top = page.locator(".bowl-stage").bounding_box()
    assert pad_top is not None and bowl_top is not None
    assert pad_top["y"] < bowl_top["y"], (pad_top, bowl_top)
    assert pad_top["y"] < 844, "the pad starts on the first screen"
