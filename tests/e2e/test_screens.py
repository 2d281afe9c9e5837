"""The screens around the game: home, the language picker, the rules page, keyboard use."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, create_table
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_language_switch(browser: Browser, server: Server) -> None:
    page = browser.page(name="lang")
    page.goto(server.url + "/")
    expect(page.get_by_role("heading", name="开一桌")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "zh-Hans"
    browser.shot(page, "home")
    picker = page.get_by_label("语言")
    picker.select_option("en")
    expect(page.get_by_role("heading", name="Start a table")).to_be_visible()
    expect(page.locator(".order-statement")).to_contain_text(
        "Six reds (liubohong) > Zhuangyuan with golden flowers (chajinhua)"
    )
    page.get_by_label("Language").select_option("zh-Hant")
    expect(page.get_by_role("heading", name="開一桌")).to_be_visible()
    expect(page.locator(".order-statement")).to_contain_text("六勃紅 > 狀元插金花")
    assert page.evaluate("document.documentElement.lang") == "zh-Hant"
    # the choice is remembered
    page.reload()
    expect(page.get_by_role("heading", name="開一桌")).to_be_visible()
    # a browser that asks for English gets English without choosing
    english = browser.page(browser.context(locale="en-US"), name="en")
    english.goto(server.url + "/")
    expect(english.get_by_role("heading", name="Join a table")).to_be_visible()
    taiwan = browser.page(browser.context(locale="zh-TW"), name="tw")
    taiwan.goto(server.url + "/rules/modern")
    expect(taiwan.get_by_role("heading", name="狀元大小（從大到小）")).to_be_visible()


def test_rules_page_states_every_switch_and_examples(browser: Browser, server: Server) -> None:
    host = browser.page(name="rules")
    host.goto(server.url + "/")
    host.wait_for_selector(".order-statement .label")
    # change a switch: 六勃黑 as a 状元 hand joins the order, stated in words at once
    host.get_by_text("自定义规则开关").click()
    host.get_by_label("六勃黑", exact=True).select_option("zhuangyuan_end_share")
    expect(host.locator(".order-statement")).to_contain_text(
        "六勃红 > 六勃黑 > 状元插金花 > 五红 > 五子登科 > 四红"
    )
    expect(host.locator(".order-statement .badge")).to_have_text("已修改")
    host.get_by_role("button", name="把六勃黑往下移").click()
    expect(host.locator(".order-statement")).to_contain_text("六勃红 > 状元插金花 > 六勃黑")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    expect(host.locator(".order-line")).to_contain_text("六勃红 > 状元插金花 > 六勃黑 > 五红")
    host.get_by_role("link", name="看本桌规则").click()
    expect(host.get_by_role("heading", name="状元大小（从大到小）")).to_be_visible()
    ranks = host.locator(".rank-list li")
    expect(ranks.first).to_have_text("六勃红（444444）")
    expect(ranks.nth(1)).to_have_text("状元插金花（114444）")
    expect(ranks.nth(2)).to_have_text("六勃黑，比点数：6 > 5 > 3 > 2 > 1")
    switches = host.locator(".switches")
    expect(switches).to_contain_text("六勃黑算状元，游戏结束；桌上剩下的普通饼大家共享")
    expect(switches).to_contain_text("禄骨：同一人后来掷出的状元取代先前的，即使更小")
    example = host.locator(".example", has_text="四红带十二")
    expect(example).to_contain_text("四颗红四，另两颗合计12点")
    expect(host.locator(".example", has_text="四进")).to_have_count(3)
    host.evaluate("window.scrollTo(0, 0)")
    browser.shot(host, "rules")
    host.evaluate(
        "window.scrollTo(0, document.querySelector('#r-examples').getBoundingClientRect().top"
        " + window.scrollY - 70)"
    )
    browser.shot(host, "rules-examples")


def test_keyboard_only_join_and_missing_table(browser: Browser, server: Server) -> None:
    host = browser.page(name="host")
    code = create_table(host, server.url)
    page = browser.page(name="keys")
    page.goto(server.url + "/")
    code_box = page.get_by_label("桌号（6 位）")
    code_box.focus()
    # 0 and O are not in the served code alphabet (nor a code one character short)
    for wrong in ("K7Q2M0", code[:-1]):
        code_box.fill(wrong)
        page.keyboard.press("Enter")
        expect(page.locator(".toast-error").last).to_contain_text(f"「{wrong}」不是有效的桌号")
        expect(page).to_have_url(server.url + "/")
    code_box.fill("")
    page.keyboard.type(code.lower())
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/t/{code}")
    name_box = page.get_by_label("你的名字")
    name_box.focus()
    page.keyboard.type("<b>丁</b>")
    page.keyboard.press("Enter")
    # the server refuses HTML characters in names; a plain name goes through
    expect(page.locator(".toast-error").last).to_contain_text("名字")
    name_box.fill("丁")
    page.keyboard.press("Enter")
    expect(page.get_by_text("你已入座：丁")).to_be_visible()
    expect(host.locator(".seat-name")).to_have_text(["丁"])
    missing = browser.page(name="missing")
    missing.goto(server.url + "/t/ZZZZZZ")
    expect(missing.get_by_role("heading", name="找不到桌子 ZZZZZZ")).to_be_visible()
