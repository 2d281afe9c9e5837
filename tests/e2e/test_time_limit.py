"""Calling time in the browser: the host's "end the game" says what will happen before it is
confirmed, and a table with a 1-minute limit closes itself — through a server restart during
the countdown — awarding the 状元 to the best standing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2etools import (
    Browser,
    Server,
    create_table,
    running_server,
    state,
    wait_status,
    wait_throws,
)
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

OUTAGE_ERRORS = (
    r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/tables/\w+\?.*' failed",
    r"Failed to load resource: net::ERR_CONNECTION_REFUSED",
)


def enter(page: Page, dice: str) -> None:
    done = state(page)["throw_count"]
    page.locator("body").click(position={"x": 2, "y": 200})
    for face in dice:
        page.keyboard.press(face)
    page.get_by_role("button", name="确认").click()
    wait_throws(page, done + 1)


def seat(page: Page, names: tuple[str, ...]) -> None:
    for name in names:
        page.get_by_label("玩家名字").fill(name)
        page.get_by_role("button", name="添加").click()
        expect(page.locator(".seat-name").last).to_have_text(name)


def test_the_host_calls_time_and_the_round_is_played_out(browser: Browser, server: Server) -> None:
    host = browser.page(name="referee")
    create_table(host, server.url, mode="referee", name="叫停")
    seat(host, ("甲", "乙", "丙"))
    host.get_by_role("button", name="开始博饼").click()
    enter(host, "444412")
    host.get_by_role("button", name="结束本局").click()
    dialog = host.get_by_role("dialog")
    expect(dialog.locator(".dialog-title")).to_have_text("叫停？")
    expect(dialog.locator(".dialog-body")).to_contain_text("先把这一轮博完：最后一把是 丙 的。")
    expect(dialog.locator(".dialog-body")).to_contain_text("目前是 甲 · 四红带三")
    browser.shot(host, "close-dialog")
    dialog.get_by_role("button", name="叫停").click()
    expect(host.locator(".countdown-called")).to_have_text("主持人已叫停 · 最后一轮，到 丙 为止")
    expect(host.locator(".closing-badge")).to_have_text("已叫停")
    enter(host, "123456")
    enter(host, "112233")
    wait_status(host, "over")
    expect(host.locator(".winner-name")).to_have_text("甲")
    expect(host.locator(".end-reason")).to_contain_text("主持人叫停")
    assert state(host)["result"]["holdings"]["甲"] == {"zhuangyuan": 1}


MINUTE = 30
"""Seconds a minute of the limit lasts on this test's server: time for a browser on two loaded
cores to seat three, start, throw a round and see the server killed before the deadline."""


@pytest.fixture
def fresh_server(tmp_path: Path) -> Iterator[Server]:
    """A server of this test's own, whose time-limit minute lasts :data:`MINUTE` seconds."""
    with running_server(tmp_path, extra=["--limit", f"time_limit_minute={MINUTE}"]) as srv:
        yield srv


def test_a_one_minute_limit_closes_the_table_through_a_restart(
    browser: Browser, fresh_server: Server
) -> None:
    """Waits for the real deadline (:data:`MINUTE` seconds), with a restart in between."""
    host = browser.page(name="referee")
    host.goto(fresh_server.url + "/")
    host.wait_for_selector(".order-statement .label")
    host.get_by_label("桌名").fill("限时一分钟")
    host.get_by_label("真骰子裁判").check()
    host.get_by_label("限时").check()
    host.locator("#terms-minutes").fill("1")
    host.locator("#terms-minutes").dispatch_event("change")
    expect(host.locator(".terms-details")).to_contain_text("1 分钟后自动叫停")
    host.get_by_role("button", name="开桌").click()
    host.wait_for_selector(".lobby")
    code = host.url.rsplit("/", 1)[1]
    expect(host.locator(".limits-line")).to_contain_text("限时 1 分钟，开局起计")
    seat(host, ("甲", "乙", "丙"))
    host.get_by_role("button", name="开始博饼").click()
    tv = browser.page(name="tv", viewport={"width": 1280, "height": 720}, device_scale_factor=1)
    tv.goto(f"{fresh_server.url}/t/{code}/tv")
    for page in (host, tv):
        expect(page.locator(".countdown")).to_have_text(re.compile(r"还剩 [01]:\d\d"))
    for dice in ("444412", "123456", "112233"):  # a whole round; 甲 stands with 四红带三
        enter(host, dice)
    host.evaluate("() => window.scrollTo(0, 0)")
    browser.shot(host, "countdown")

    with browser.allow(*OUTAGE_ERRORS):
        fresh_server.kill()
        expect(host.locator("#netbar")).to_contain_text("连接中断")
        # the clock runs on while the server is down (the deadline is the server's, stored)
        left = host.locator(".countdown").inner_text()
        expect(host.locator(".countdown")).not_to_have_text(left)
        fresh_server.start()
        for page in (host, tv):
            expect(page.locator("#netbar")).to_be_hidden(timeout=60_000)
    for page in (host, tv):
        # the server calls time by itself at the deadline; the round had not begun: game over
        page.wait_for_function("() => window.bobing.state.status === 'over'", timeout=120_000)
    expect(host.locator(".winner-name")).to_have_text("甲")
    expect(host.locator(".end-reason")).to_contain_text("时间到")
    expect(tv.locator(".winner-name")).to_have_text("甲")
    final = state(host)
    assert final["closing"]["by"] == "deadline"
    assert final["result"]["holdings"]["甲"] == {"zhuangyuan": 1}
    assert final["result"]["ended_by"] == "closed"
