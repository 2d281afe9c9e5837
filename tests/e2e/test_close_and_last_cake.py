"""What the host reads before calling time, and why a game goes on with nothing but the 状元
left (issue 19 minors): the close dialog says the game ends at once when nobody has thrown in
the round yet (as the server's state says, and as the close then does), and a family's table
after its last ordinary cake says only the 状元 is left and what ends the game, on the phone and
on the TV."""

from __future__ import annotations

from typing import Any

import pytest
from e2etools import Browser, Server, call, wait_status, wait_throws
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
FAMILY = ["阿公", "阿嬷", "阿明"]


def family_table(
    server: Server, prizes: dict[str, int] | None = None, **switches: Any
) -> dict[str, Any]:
    """A referee table of three, started with 阿公 first."""
    rules: dict[str, Any] = {"preset": "traditional", **switches}
    if prizes is not None:
        rules["prizes"] = prizes
    made = call(server, "POST", "/api/tables", {"name": "家里", "mode": "referee", "rules": rules})
    table = {"code": made["code"], "host_token": made["host_token"]}
    for name in FAMILY:
        call(
            server, "POST", f"/api/tables/{table['code']}/join", {"name": name}, made["host_token"]
        )
    call(
        server,
        "POST",
        f"/api/tables/{table['code']}/commands",
        {"type": "start", "starter": FAMILY[0]},
        made["host_token"],
    )
    return table


def throw(server: Server, table: dict[str, Any], dice: str) -> None:
    state = call(server, "GET", f"/api/tables/{table['code']}")
    call(
        server,
        "POST",
        f"/api/tables/{table['code']}/commands",
        {"type": "throw", "turn": state["turn"], "dice": dice},
        table["host_token"],
    )


def close_dialog(page: Page) -> tuple[str, str]:
    """Open the host's close dialog: its title and body (left open)."""
    page.get_by_role("button", name="结束本局").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_be_visible()
    return dialog.locator(".dialog-title").inner_text(), dialog.locator(".dialog-body").inner_text()


def cancel(page: Page) -> None:
    page.get_by_role("dialog").get_by_role("button", name="取消").click()
    expect(page.get_by_role("dialog")).to_have_count(0)


def test_the_close_dialog_reads_whether_a_round_is_under_way(
    browser: Browser, server: Server
) -> None:
    table = family_table(server)
    page = browser.page(browser.context(viewport=PHONE), name="host")
    page.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    page.wait_for_selector(".play")

    throw(server, table, "112235")  # 阿公: nothing; the round is under way
    wait_throws(page, 1)
    title, body = close_dialog(page)
    assert title == "叫停？" and "先把这一轮博完：最后一把是 阿明 的。" in body, body
    cancel(page)

    throw(server, table, "112236")
    throw(server, table, "112256")  # 阿明 ends round 1: nobody has thrown in round 2 yet
    wait_throws(page, 3)
    title, body = close_dialog(page)
    assert title == "现在结束？", title
    assert "这一轮还没有人掷：游戏立即结束。" in body and "这一轮博完" not in body, body
    # and so it does: the game is over at once, nobody throws again
    page.get_by_role("dialog").get_by_role("button", name="现在结束").click()
    wait_status(page, "over")
    assert call(server, "GET", f"/api/tables/{table['code']}")["throw_count"] == 3


def test_a_family_game_says_only_the_zhuangyuan_is_left(browser: Browser, server: Server) -> None:
    prizes = {"zhuangyuan": 1, "duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}
    table = family_table(server, prizes)
    page = browser.page(browser.context(viewport=PHONE), name="host")
    page.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    page.wait_for_selector(".play")
    tv = browser.page(browser.context(viewport={"width": 1920, "height": 1080}), name="tv")
    tv.goto(f"{server.url}/t/{table['code']}/tv")
    banner = page.locator(".only-zhuangyuan")
    expect(banner).to_be_hidden()

    throw(server, table, "412235")  # 阿公: 一秀, the last ordinary cake
    expect(banner).to_be_visible()
    expect(banner).to_have_text("只剩状元：普通饼都博完了。谁先掷出状元，这一轮博完就结束。")
    expect(tv.locator(".tv-only-zhuangyuan")).to_contain_text("谁先掷出状元")
    for dice in ("112236", "112256", "112235"):  # nothing won, and the game goes on
        throw(server, table, dice)
    wait_throws(page, 4)
    expect(banner).to_be_visible()

    throw(server, table, "444412")  # 阿嬷: 四红, the last round: 阿明 throws last
    expect(banner).to_have_text("只剩状元：普通饼都博完了。这一轮博完，状元最大者得状元饼。")
    expect(tv.locator(".tv-only-zhuangyuan")).to_contain_text("这一轮博完")
    expect(page.locator(".final-badge")).to_have_text("最后一轮，到 阿明 为止")
    throw(server, table, "112236")
    wait_status(page, "over")
    expect(page.locator(".ceremony .winner-name")).to_have_text("阿嬷")
    expect(tv.locator(".tv-only-zhuangyuan")).to_have_count(0)


def test_a_shared_zhuangyuan_cake_is_shared_in_the_last_round_words(
    browser: Browser, server: Server
) -> None:
    """分状元 (RULES.md §9.3): the last round still names the 状元, but its cake is shared."""
    prizes = {"zhuangyuan": 1, "duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}
    table = family_table(server, prizes, zhuangyuan_cake="shared")
    page = browser.page(browser.context(viewport=PHONE), name="host")
    page.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    page.wait_for_selector(".play")
    throw(server, table, "412235")  # 阿公: 一秀, the last ordinary cake
    throw(server, table, "444412")  # 阿嬷: 四红, the last round
    banner = page.locator(".only-zhuangyuan")
    expect(banner).to_have_text("只剩状元：普通饼都博完了。这一轮博完评出状元，状元饼由全桌均分。")


SEAL_AT_REST = """sel => {
  const el = document.querySelector(sel);
  return Boolean(el) && el.getAnimations().every(a => a.playState !== "running");
}"""
SEAL_ANIMATIONS = """sel => document.querySelector(sel).getAnimations().filter(
  a => a.playState === "running").length"""


def test_the_zhuangyuan_seal_rises_once(browser: Browser, server: Server) -> None:
    """The ceremony is painted again at every update (a reaction too): its seal rises in
    once, on the phone and on the TV, not again at every repaint."""
    prizes = {"zhuangyuan": 1, "duitang": 0, "sanhong": 0, "sijin": 0, "erju": 0, "yixiu": 1}
    table = family_table(server, prizes)
    page = browser.page(browser.context(viewport=PHONE, reduced_motion=False), name="host")
    page.goto(f"{server.url}/t/{table['code']}#host={table['host_token']}")
    page.wait_for_selector(".play")
    tv = browser.page(
        browser.context(viewport={"width": 1920, "height": 1080}, reduced_motion=False), name="tv"
    )
    tv.goto(f"{server.url}/t/{table['code']}/tv")
    for dice in ("412235", "444412", "112236"):  # 一秀, then 阿嬷's 四红 wins in the last round
        throw(server, table, dice)
    wait_status(page, "over")
    wait_status(tv, "over")
    for screen, seal in ((page, ".ceremony .seal"), (tv, ".tv-ceremony .seal")):
        screen.wait_for_function(SEAL_AT_REST, arg=seal)
        screen.evaluate(f"document.querySelector('{seal}').dataset.before = 'yes'")
    page.locator(".reaction-btn").first.click()
    for screen, seal in ((page, ".ceremony .seal"), (tv, ".tv-ceremony .seal")):
        # painted again (a new seal), and at rest from the start
        expect(screen.locator(seal)).not_to_have_attribute("data-before", "yes")
        assert screen.evaluate(SEAL_ANIMATIONS, seal) == 0, seal
