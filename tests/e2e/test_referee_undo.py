"""The referee takes back a mistyped throw — also the one that ended the game — and every screen
follows from the events alone; a 跳猴's lost turn and the last round show on the table."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from e2etools import Browser, Server, create_table, state, wait_status, wait_throws
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def fetch_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as response:
        return json.loads(response.read().decode("utf-8"))


def enter(page: Page, dice: str | None) -> None:
    """Type a throw on the referee pad (None: 跳猴) and confirm it."""
    done = state(page)["throw_count"]
    if dice is None:
        page.get_by_role("button", name="跳猴").click()
    else:
        page.locator("body").click(position={"x": 2, "y": 200})
        for face in dice:
            page.keyboard.press(face)
    page.get_by_role("button", name="确认").click()
    wait_throws(page, done + 1)


def undo(page: Page, title: str, body: str, shot: Browser | None = None) -> None:
    """Press 撤销上一掷, check what the dialog says, and confirm."""
    done = state(page)["throw_count"]
    page.get_by_role("button", name="撤销上一掷").click()
    dialog = page.get_by_role("dialog")
    expect(dialog.locator(".dialog-title")).to_have_text(title)
    expect(dialog.locator(".dialog-body")).to_contain_text(body)
    if shot is not None:
        shot.shot(page, "undo")
    dialog.get_by_role("button", name="撤销").click()
    page.wait_for_function("n => window.bobing.state.throw_count < n", arg=done)


def test_referee_undoes_a_mistyped_throw(browser: Browser, server: Server) -> None:
    host = browser.page(name="referee")
    code = create_table(host, server.url, mode="referee", name="撤销")
    for name in ("甲", "乙", "丙"):
        host.get_by_label("玩家名字").fill(name)
        host.get_by_role("button", name="添加").click()
        expect(host.locator(".seat-name").last).to_have_text(name)
    host.get_by_role("button", name="开始博饼").click()
    expect(host.locator(".play .ref-pad")).to_be_visible()  # not the lobby's start pad
    watcher = browser.page(name="watcher")
    watcher.goto(f"{server.url}/t/{code}")
    expect(watcher.locator(".play")).to_be_visible()
    # only the host has the button, and only once there is a throw
    expect(host.get_by_role("button", name="撤销上一掷")).to_have_count(0)

    # 甲 threw 444422 (四红带四); the referee typed 444412 (四红带三)
    enter(host, "444412")
    expect(watcher.locator(".leader-name")).to_have_text("甲 · 四红带三")
    expect(watcher.get_by_role("button", name="撤销上一掷")).to_have_count(0)
    undo(host, "撤销第 1 掷？", "甲 的「四红带三」（444412）作废", shot=browser)
    for page in (host, watcher):
        # told on the screen (a toast) and to screen readers (which keep the sentence)
        expect(page.locator("#announcer")).to_have_text("第 1 掷已撤销（甲：四红带三），由 甲 重掷")
        expect(page.locator(".log-throw_undone")).to_have_text("撤销第1掷（甲：四红带三）")
        expect(page.locator(".log-thrown.is-voided")).to_have_count(1)
        expect(page.locator(".award-empty")).to_be_visible()
        expect(page.locator(".leader-card .hint")).to_have_text("还没有人掷出状元")
        expect(page.locator(".turn-main")).to_have_text("轮到 甲")
    enter(host, "444422")
    for page in (host, watcher):
        expect(page.locator(".leader-name")).to_have_text("甲 · 四红带四")
        expect(page.locator(".award-who")).to_have_text("第 1 掷 · 甲")

    # 乙 jumps the monkey: marked as sitting out on every screen
    enter(host, None)
    for page in (host, watcher):
        expect(page.locator("tr.sits-out .holder-name")).to_have_text("乙")

    # 丙's 二举 typed as 六勃红: the game "ends" — and resumes when undone
    enter(host, "444444")
    wait_status(watcher, "over")
    expect(host.locator(".seal")).to_have_text("状元")
    expect(watcher.get_by_role("button", name="撤销上一掷")).to_have_count(0)
    undo(host, "撤销第 3 掷？", "这一掷结束了本局；撤销后本局继续。")
    for page in (host, watcher):
        wait_status(page, "playing")
        expect(page.locator(".play")).to_be_visible()
        expect(page.locator(".turn-main")).to_have_text("轮到 丙")
        expect(page.locator("tr.sits-out .holder-name")).to_have_text("乙")
        expect(page.locator(".leader-name")).to_have_text("甲 · 四红带四")
    enter(host, "442356")
    enter(host, "235566")
    # 甲 threw; 乙 sat out; the record holds only the throws that stand
    expect(watcher.locator(".turn-main")).to_have_text("轮到 丙")
    expect(watcher.locator("tr.sits-out")).to_have_count(0)
    record = fetch_json(f"{server.url}/api/tables/{code}/record")
    assert record["throws"] == [
        {"player": "甲", "dice": "444422"},
        {"player": "乙", "tiaohou": True},
        {"player": "丙", "dice": "442356"},
        {"player": "甲", "dice": "235566"},
    ]
    assert state(watcher) == state(host)
