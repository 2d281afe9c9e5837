"""反向博钱's price boxes on the event form (issue 30, RULES.md §9.3), where the organiser hit
them: wide enough to show a price on a phone, and a warning while every price is 0 (everyone
would pay 0) that goes once one is typed. (The home page's form: test_organiser_hits.py.)"""

from __future__ import annotations

import pytest
from e2etools import Browser, Server
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_event_forms_prices_fit_and_zero_is_warned(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 390, "height": 844}), name="phone")
    page.goto(server.url + "/e/new")
    page.wait_for_selector("#ev-people")
    page.get_by_text("自定义规则开关").click()
    page.locator("#sw-money").select_option("pay")
    warning = page.locator(".values-zero")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("每种饼的价钱都是 0")
    for tier in ("zhuangyuan", "duitang", "sanhong", "sijin", "erju", "yixiu"):
        box = page.locator(f'[data-value-tier="{tier}"]').bounding_box()
        assert box is not None and box["width"] >= 70, (tier, box)
    page.locator('[data-value-tier="yixiu"]').fill("1")
    expect(warning).to_be_hidden()
