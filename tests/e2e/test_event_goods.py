"""The event form's goods editor is a form like any other: a class's whole prize set typed with
the keyboard alone (name → Tab → count → Tab → price, on to the next good, a new row by Enter
on "+ 奖品") is the stored event's set, good for good; the ranked editor loads the 2013 list."""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PEOPLE = [f"同学{i:02d}" for i in range(1, 45)]
# per tier, the goods as typed (the form starts with as many rows; 一秀 gets one more)
TYPED = {
    "zhuangyuan": [("月饼礼盒", 1, 88)],
    "duitang": [("保温杯", 2, 35), ("台灯", 2, 45)],
    "sanhong": [("笔记本", 3, 12), ("文具盒", 3, 18)],
    "sijin": [("钢笔", 10, 6)],
    "erju": [("橡皮", 25, 2)],
    "yixiu": [("铅笔", 40, 1), ("贴纸", 5, 1)],
}
TOTAL = sum(count * value for goods in TYPED.values() for _, count, value in goods)


def get(server: Server, path: str) -> Any:
    with urllib.request.urlopen(server.url + path, timeout=30) as response:
        return json.loads(response.read())


def type_over(page: Page, text: str) -> None:
    """Replace the focused field's text, as a person selecting it and typing would."""
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type(text)


def focused(page: Page) -> str:
    label: str = page.evaluate(
        "document.activeElement.getAttribute('aria-label') || document.activeElement.textContent"
    )
    return label


def test_a_prize_set_typed_with_the_keyboard_alone(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    expect(page.get_by_role("heading", name="创建博饼活动")).to_be_visible()
    page.get_by_label("活动名称").fill("键盘录入奖品")
    page.locator("#ev-people").fill("\n".join(PEOPLE))
    head = page.locator(".ev-prizes .ev-goods-head")
    expect(head).to_have_text(re.compile("奖品\\s*数量\\s*单价（元）"))

    page.locator('.ev-tier[data-tier="zhuangyuan"] .ev-goods-name').first.focus()
    tiers = list(TYPED)
    rows = {"zhuangyuan": 1, "duitang": 2, "sanhong": 2, "sijin": 1, "erju": 1, "yixiu": 1}
    for t_index, tier in enumerate(tiers):
        for g_index, (name, count, value) in enumerate(TYPED[tier]):
            if g_index >= rows[tier]:
                # a new row from the keyboard: Enter on "+ 奖品" puts the cursor in its name
                assert focused(page) == "+ 奖品"
                page.keyboard.press("Enter")
            assert focused(page).endswith("的奖品"), focused(page)
            type_over(page, name)
            page.keyboard.press("Tab")
            assert focused(page).endswith("的数量"), focused(page)
            type_over(page, str(count))
            page.keyboard.press("Tab")
            assert focused(page).endswith("每份价值"), focused(page)
            type_over(page, str(value))
            page.keyboard.press("Tab")  # the row's ✕
            page.keyboard.press("Tab")  # the next good, or the tier's "+ 奖品"
        assert focused(page) == "+ 奖品"
        if t_index + 1 < len(tiers):
            page.keyboard.press("Tab")
    sums = page.locator(".ev-prizes .ev-total")
    expect(sums).to_contain_text(str(TOTAL))
    expect(page.locator('.ev-tier[data-tier="duitang"] .badge')).to_have_text("4 份 · 160 元")
    page.locator(".ev-prizes").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('.ev-prizes').closest('fieldset').scrollIntoView()")
    browser.shot(page, "event-prize-editor")

    page.locator("#ev-create").click()
    page.wait_for_url(re.compile(r".*/e/[0-9A-Z]{6}$"))
    code = page.url.rstrip("/").split("/")[-1]
    event = get(server, f"/api/events/{code}")
    stored = {
        tier: [(g["name"], g["count"], g["value"]) for g in goods]
        for tier, goods in event["prizes"].items()
    }
    assert stored == TYPED
    assert event["prize_set_value"] == TOTAL


def test_the_ranked_editor_loads_the_2013_list(browser: Browser, server: Server) -> None:
    page = browser.page(browser.context(viewport={"width": 1280, "height": 900}), name="organiser")
    page.goto(server.url + "/e/new")
    page.get_by_text("按最好的一掷排名").click()
    ranked = page.locator(".ev-ranked")
    expect(ranked.locator(".ev-goods-head")).to_have_text(re.compile("奖品\\s*数量\\s*单价（元）"))
    ranked.get_by_role("button", name="载入 2013 年的奖品单").click()
    expect(ranked.locator(".ev-goods-row")).to_have_count(9)
    expect(ranked.locator(".ev-goods-name").first).to_have_value("一等奖 漫步者音响")
    expect(ranked.locator(".ev-goods-value").first).to_have_value("498")
