"""English on a 390 px phone: a finished table's results show every column (一秀 and the
total too) without scrolling sideways."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, call
from playwright.sync_api import expect
from test_tv_end_fits import finished_table

pytestmark = pytest.mark.browser


def test_the_results_fit_a_phone_in_english(browser: Browser, server: Server) -> None:
    code = finished_table(server, 6, ranked=False)
    host = call(server, "GET", f"/api/tables/{code}")
    assert host["status"] == "over"
    page = browser.page(browser.context(locale="en-US"), name="phone")
    page.goto(f"{server.url}/t/{code}")
    table = page.locator(".results").first
    expect(table).to_be_visible()
    widths = page.evaluate(
        """() => { const t = document.querySelector('.results');
                   const box = t.closest('.table-scroll') || t.parentElement;
                   return [t.scrollWidth, box.clientWidth, document.documentElement.scrollWidth,
                           innerWidth]; }"""
    )
    assert widths[0] <= widths[1], f"the results are {widths[0] - widths[1]} px too wide"
    assert widths[2] <= widths[3]
