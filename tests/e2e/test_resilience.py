"""Nothing on screen is lost: a reload shows the same table at once, and a server killed and
restarted mid-game is reconnected to by itself, resyncing from the last seq."""

from __future__ import annotations

import pytest
from e2etools import Browser, Server, open_table, state, wait_throws, wait_turn
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

# While the server is down the browser itself logs the failed reconnection attempts.
OUTAGE_ERRORS = (
    r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/tables/\w+\?.*' failed",
    r"Failed to load resource: net::ERR_CONNECTION_REFUSED",
)


def screen(page: Page) -> dict[str, object]:
    """What the table screen shows: the last award, the log, the holdings."""
    return {
        "who": page.locator(".award-who").inner_text(),
        "name": page.locator(".award-name").inner_text(),
        "log": page.locator(".log-item").all_inner_texts(),
        "holdings": page.locator("table.holdings").inner_text(),
    }


def throw(pages: dict[str, Page], turn: int) -> None:
    host = next(iter(pages.values()))
    wait_turn(host, turn)
    nxt = state(host)["next"]
    pages[nxt].get_by_role("button", name="掷骰子").click()
    for page in pages.values():
        wait_turn(page, turn + 1)


def test_reload_and_server_restart_lose_nothing(browser: Browser, fresh_server: Server) -> None:
    host = browser.page(name="甲")
    code = open_table(host, fresh_server.url)
    host.get_by_label("你的名字").fill("甲")
    host.get_by_role("button", name="我也入座").click()
    expect(host.get_by_text("你已入座：甲")).to_be_visible()
    guest = browser.page(name="乙")
    guest.goto(f"{fresh_server.url}/t/{code}")
    guest.get_by_label("你的名字").fill("乙")
    guest.get_by_role("button", name="入座").click()
    expect(guest.get_by_text("你已入座：乙")).to_be_visible()
    expect(host.locator(".seat-name")).to_have_text(["甲", "乙"])
    host.get_by_role("button", name="开始博饼").click()
    pages = {"甲": host, "乙": guest}
    for turn in (1, 2, 3):
        throw(pages, turn)
    before = screen(guest)

    # a reload: the same screen, the same seat, still able to play
    guest.reload()
    expect(guest.locator(".award-who")).to_have_text(str(before["who"]))
    assert screen(guest) == before
    expect(guest.locator(".conn-dot.conn-open")).to_be_visible()
    assert "player" in guest.evaluate("() => window.bobing.roles")
    throw(pages, 4)

    # the server dies mid-game: a clear state, nothing lost, and back by itself
    before = {name: screen(page) for name, page in pages.items()}
    with browser.allow(*OUTAGE_ERRORS):
        fresh_server.kill()
        for page in pages.values():
            expect(page.locator("#netbar")).to_contain_text("连接中断")
            expect(page.locator(".conn-dot.conn-reconnecting")).to_be_visible()
        for name, page in pages.items():
            assert screen(page) == before[name]
        fresh_server.start()
        for page in pages.values():
            # the page retries with backoff (up to 15 s between attempts, plus jitter)
            expect(page.locator("#netbar")).to_be_hidden(timeout=60_000)
            expect(page.locator(".conn-dot.conn-open")).to_be_visible()
    for name, page in pages.items():
        assert screen(page) == before[name]
    throw(pages, 5)
    wait_throws(guest, 5)
    assert state(host)["result"] == state(guest)["result"]
    expect(guest.locator(".log-thrown")).to_have_count(5)
