"""关灯抢饼 on a referee's phone (grab.js): a 六勃黑 opens the grab, the referee's form refuses a
share that does not add up to the cakes left, and a share by hand ends the game as typed."""

from __future__ import annotations

import pytest
from e2etools import TIER_LABEL, Browser, Server, create_table, state, wait_status, wait_throws
from playwright.sync_api import expect

pytestmark = pytest.mark.browser


def test_the_referee_shares_out_the_grab(browser: Browser, server: Server) -> None:
    host = browser.page(name="referee")
    code = create_table(host, server.url, mode="referee", name="抢饼")
    for name in ("甲", "乙"):
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    host.get_by_role("button", name="开始博饼").click()
    expect(host.locator(".play .ref-pad")).to_be_visible()
    watcher = browser.page(name="watcher")
    watcher.goto(f"{server.url}/t/{code}")
    expect(watcher.locator(".play")).to_be_visible()

    host.locator("body").click(position={"x": 2, "y": 200})
    for face in "666666":
        host.keyboard.press(face)
    host.get_by_role("button", name="确认").click()
    wait_throws(host, 1)
    card = host.locator(".grab-card")
    expect(card.locator(".card-title")).to_have_text("关灯抢饼")
    expect(watcher.locator(".waiting")).to_have_text("六勃黑！主持人正在分配抢到的饼…")
    expect(watcher.locator(".grab-card")).to_have_count(0)
    pool = state(host)["result"]["pool"]
    tiers = [tier for tier, n in pool.items() if n]
    assert tiers, pool

    # by hand: 甲 takes every cake of each tier but one, which is left out: refused, nothing sent
    card.get_by_text("按实际抢到的分配").click()
    boxes = card.locator("input[type=number]")
    expect(boxes).to_have_count(2 * len(tiers))
    first = tiers[0]
    card.get_by_label(f"甲 抢到的{TIER_LABEL[first]}").fill(str(pool[first] - 1))
    card.get_by_role("button", name="确认分配").click()
    expect(host.locator(".toast")).to_contain_text(
        f"{TIER_LABEL[first]}一共分了 {pool[first] - 1} 块，但桌上剩 {pool[first]} 块"
    )
    assert state(host)["phase"] == "grab"

    # every cake to 甲 but one of the first tier, which 乙 grabbed
    for tier in tiers:
        card.get_by_label(f"甲 抢到的{TIER_LABEL[tier]}").fill(
            str(pool[tier] - (1 if tier == first else 0))
        )
    card.get_by_label(f"乙 抢到的{TIER_LABEL[first]}").fill("1")
    card.get_by_role("button", name="确认分配").click()
    wait_status(host, "over")
    holdings = state(host)["result"]["holdings"]
    assert holdings["乙"].get(first) == 1
    for tier in tiers:
        grabbed = pool[tier] - (1 if tier == first else 0)
        assert holdings["甲"].get(tier, 0) >= grabbed
