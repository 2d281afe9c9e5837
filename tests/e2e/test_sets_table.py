"""一二会 at one table (RULES.md §10.2, issue 30): a referee table with ``sets`` = 2 shows
"第 1 局 / 共 2 局" on the phone and the TV, goes on into set 2 once set 1's 状元 is decided
(the pool full again, the next player first), and its results list both sets and the sum."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, wait_status, wait_throws
from playwright.sync_api import expect
from test_close_and_last_cake import PHONE, family_table, throw

pytestmark = pytest.mark.browser


def test_a_two_set_table_shows_set_2_and_the_results_of_both(
    browser: Browser, server: Server
) -> None:
    table = family_table(server, sets=2)
    code = table["code"]
    page = browser.page(browser.context(viewport=PHONE), name="host")
    page.goto(f"{server.url}/t/{code}#host={table['host_token']}")
    page.wait_for_selector(".play")
    tv = browser.page(browser.context(viewport={"width": 1280, "height": 720}), name="tv")
    tv.goto(f"{server.url}/t/{code}/tv")
    expect(page.locator(".turn-bar .set-badge")).to_have_text("第 1 局 / 共 2 局")
    expect(tv.locator(".tv-next")).to_contain_text("第 1 局 / 共 2 局")

    throw(server, table, "123456")  # 阿公: 对堂
    throw(server, table, "444444")  # 阿嬷: 六勃红 takes every cake; set 1 is over
    wait_throws(page, 2)
    # said once, as set 2 begins (a toast lasts 4.2 s: read first)
    expect(page.locator("#toasts")).to_contain_text(
        "第 1 局结束：状元 阿嬷。第 2 局开始，饼全部重摆，阿明 先博。"
    )
    expect(page.locator(".turn-bar .set-badge")).to_have_text("第 2 局 / 共 2 局")
    expect(page.locator(".turn-bar")).to_contain_text("阿明")  # after 阿嬷, who threw last
    expect(tv.locator(".tv-next")).to_contain_text("第 2 局 / 共 2 局")
    expect(page.locator(".log")).to_contain_text("第 2 局开始，饼全部重摆：阿明 先博")
    expect(page.locator(".sets-done li")).to_have_text("第 1 局：状元 阿嬷 · 阿嬷 63 个")

    throw(server, table, "235566")  # 阿明: nothing
    throw(server, table, "444444")  # 阿公: 六勃红 ends set 2 and the evening
    wait_status(page, "over")
    sets = page.locator(".set-results .set-result")
    expect(sets).to_have_count(3)
    first, second, total = sets.nth(0), sets.nth(1), sets.nth(2)
    expect(first.locator(".set-title")).to_have_text("第 1 局")
    expect(second.locator(".set-title")).to_have_text("第 2 局")
    expect(total.locator(".set-title")).to_have_text("各局合计（每人带回）")
    expect(first.locator("tr.is-winner")).to_contain_text("阿嬷")
    expect(second.locator("tr.is-winner")).to_contain_text("阿公")
    for block, who, cakes in ((first, "阿嬷", "63"), (second, "阿公", "63")):
        row = block.locator("tbody tr", has_text=who)
        expect(row.locator("td.total")).to_have_text(cakes)
    for who in ("阿公", "阿嬷"):
        expect(total.locator("tbody tr", has_text=who).locator("td.total")).to_have_text("63")
    expect(total.locator("tbody tr", has_text="阿明").locator("td.total")).to_have_text("0")
    # the TV's end screen lists both sets and the sum too
    expect(tv.locator(".tv-over .set-results .set-result")).to_have_count(3)
    expect(tv.locator(".tv-over .winner-name")).to_have_text("阿公")


def test_the_create_form_offers_sets_from_the_served_schema(
    browser: Browser, server: Server
) -> None:
    """The rule editor draws 会数 from the rulebook's switch schema (no JavaScript knows it):
    two sets chosen there make a table whose rules say sets 2, and its rules page says so."""
    host = browser.page(name="sets-form")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_text("自定义规则开关").click()
    host.get_by_label("会数", exact=True).select_option("2")
    expect(host.locator(".switch-editor")).to_contain_text("一二会：第 1 局状元定出后")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rstrip("/").split("/")[-1]
    made = host.evaluate(f"fetch('/api/tables/{code}').then(r => r.json())")
    assert made["rules"]["sets"] == 2
    host.get_by_role("link", name="看本桌规则").click()
    expect(host.locator(".switches")).to_contain_text("一二会：第 1 局状元定出后")
