"""RULES.md §9.3 in the browser: the create form offers the new switches (the values of
反向博钱 included), the table is created with them, and its rules page states them."""

from __future__ import annotations

import json
import re

import pytest
from e2etools import Browser, Server
from playwright.sync_api import Route, expect

pytestmark = pytest.mark.browser


def test_create_form_and_rules_page_show_the_section9_switches(
    browser: Browser, server: Server
) -> None:
    host = browser.page(name="s9")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_text("自定义规则开关").click()
    # liubohong_duitang only makes sense (and is only offered) while 六勃红 is a plain 状元 hand
    expect(host.locator("#sw-liubohong_duitang")).to_have_count(0)
    host.get_by_label("六勃红", exact=True).select_option("zhuangyuan")
    host.locator("#sw-liubohong_duitang").select_option("at_end")
    host.locator("#sw-zhuangyuan_cake").select_option("shared")
    expect(host.locator("[data-value-tier]")).to_have_count(0)
    host.locator("#sw-money").select_option("pay")
    prices = {"zhuangyuan": 88, "duitang": 20, "sanhong": 10, "sijin": 5, "erju": 2, "yixiu": 1}
    for tier, price in prices.items():
        field = host.locator(f'[data-value-tier="{tier}"]')
        field.fill(str(price))
        field.dispatch_event("change")
    host.locator("#sw-chase").check()
    host.locator("[data-chase-until]").select_option("end")
    expect(host.locator(".switch-editor")).to_contain_text("追到游戏结束为止")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rstrip("/").split("/")[-1]
    state = json.loads(host.evaluate(f"fetch('/api/tables/{code}').then(r => r.text())"))
    rules = state["rules"]
    assert rules["liubohong_duitang"] == "at_end" and rules["zhuangyuan_cake"] == "shared"
    assert rules["money"] == "pay" and rules["values"] == prices
    assert rules["chase"]["until"] == "end"
    host.get_by_role("link", name="看本桌规则").click()
    switches = host.locator(".switches")
    expect(switches).to_contain_text("分状元：照样评出状元，但状元饼由全桌均分共享")
    expect(switches).to_contain_text("反向博钱：终局时手上有饼的人按价出钱，交入公款")
    expect(switches).to_contain_text("终局时六勃红赢得状元，另拿走没人博走的对堂饼")
    expect(switches).to_contain_text("状元 88")
    expect(switches).to_contain_text("追到游戏结束为止")


def test_a_price_field_keeps_its_focus_and_typing_when_an_earlier_answer_lands(
    browser: Browser, server: Server
) -> None:
    """The server's answer to one price lands while the next price's text is selected: the
    field, its selection and the key pressed next are kept (CI once lost 二举's price so)."""
    host = browser.page(name="s9-answer")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_text("自定义规则开关").click()
    host.locator("#sw-money").select_option("pay")
    sijin = host.locator('[data-value-tier="sijin"]')
    erju = host.locator('[data-value-tier="erju"]')
    expect(erju).to_have_count(1)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    rulebook = re.compile(r"/api/rulebook")
    host.route(rulebook, hold)
    sijin.fill("5")
    sijin.dispatch_event("change")
    for _ in range(250):  # the editor asks the server about 四进's price; its answer is held
        if held:
            break
        host.wait_for_timeout(20)
    assert len(held) == 1
    old_row = sijin.element_handle()
    erju.focus()
    erju.select_text()
    held[0].continue_()
    host.unroute(rulebook, hold)
    host.wait_for_function("el => !el.isConnected", arg=old_row)  # the editor was redrawn
    host.keyboard.insert_text("2")
    assert host.evaluate("document.activeElement.dataset.valueTier") == "erju"
    host.keyboard.press("Tab")
    expect(erju).to_have_value("2")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rstrip("/").split("/")[-1]
    state = json.loads(host.evaluate(f"fetch('/api/tables/{code}').then(r => r.text())"))
    assert state["rules"]["values"]["sijin"] == 5 and state["rules"]["values"]["erju"] == 2


def test_prices_tabbed_through_ask_the_server_once_and_keep_every_price(
    browser: Browser, server: Server
) -> None:
    """Six prices entered one after another while the server has not answered: the editor
    asks about one draft at a time and then about the latest, with every price in it (six
    questions at once once met a busy server, whose refusal of the last undid the prices)."""
    host = browser.page(name="s9-burst")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_text("自定义规则开关").click()
    host.locator("#sw-money").select_option("pay")
    expect(host.locator('[data-value-tier="yixiu"]')).to_have_count(1)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)

    rulebook = re.compile(r"/api/rulebook")
    host.route(rulebook, hold)
    prices = {"zhuangyuan": 88, "duitang": 20, "sanhong": 10, "sijin": 5, "erju": 2, "yixiu": 1}
    for tier, price in prices.items():
        field = host.locator(f'[data-value-tier="{tier}"]')
        field.fill(str(price))
        field.dispatch_event("change")
    for count in (1, 2):  # the first price's question; once it is answered, the next one
        for _ in range(250):
            if len(held) >= count:
                break
            host.wait_for_timeout(20)
        assert len(held) >= count
        if count == 1:
            held[0].continue_()
    # the second question is the latest draft, every price in it (not the second price's)
    latest = json.loads(held[1].request.post_data or "{}")
    assert latest["values"] == prices
    held[1].continue_()
    host.unroute(rulebook, hold)
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    assert len(held) == 2  # no question about a draft that was already behind
    code = host.url.rstrip("/").split("/")[-1]
    state = json.loads(host.evaluate(f"fetch('/api/tables/{code}').then(r => r.text())"))
    assert state["rules"]["values"] == prices
