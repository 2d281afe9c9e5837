"""Phones behind the shipped nginx configuration, two instances on PostgreSQL and Redis: when
the instance a browser is connected to is killed, the page reconnects to the same address,
lands on the other instance and goes on with nothing lost."""

from __future__ import annotations

import asyncio
import shutil
import sys
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from e2etools import Browser, open_table, root_conftest, state, wait_throws, wait_turn
from playwright.sync_api import Page, expect

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "web"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scale"))

from scaletools import Instance, Nginx

from bobing.storage.db import Database

pytestmark = pytest.mark.browser

OUTAGE_ERRORS = (
    r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/tables/\w+\?.*' failed",
    r"Failed to load resource",
)


@pytest.fixture
def proxied(tmp_path: Path) -> Iterator[tuple[Nginx, list[Instance]]]:
    conftest = root_conftest()
    postgres, redis = conftest.need_postgres(), conftest.need_redis()
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    if not Path(nginx).exists():
        pytest.skip("the proxy test needs nginx (apt-get install nginx-light)")
    schema = f"bobing_e2e_{uuid.uuid4().hex[:12]}"
    instances = [Instance(n, postgres, schema, redis, tmp_path) for n in ("a", "b")]
    proxy: Nginx | None = None
    try:
        for instance in instances:
            instance.start()
        proxy = Nginx(nginx, tmp_path, [i.url for i in instances])
        proxy.start()
        yield proxy, instances
    finally:
        if proxy is not None:
            proxy.stop()
        for instance in instances:
            instance.stop()

        async def drop() -> None:
            database = Database(postgres, schema=schema)
            try:
                await database.drop_schema()
            finally:
                await database.dispose()

        # In a thread of its own: this thread's event loop is the browser's (Playwright's
        # sync API stays open from test to test), so asyncio.run cannot run here.
        dropper = threading.Thread(target=asyncio.run, args=(drop(),))
        dropper.start()
        dropper.join()


def screen(page: Page) -> dict[str, object]:
    return {
        "log": page.locator(".log-item").all_inner_texts(),
        "holdings": page.locator("table.holdings").inner_text(),
    }


def lost_connection(pages: dict[str, Page], kill: Callable[[], None]) -> bool:
    """Run ``kill``; whether both pages then lost their socket (their instance died)."""
    for page in pages.values():  # the connection status, sampled every 20 ms
        page.evaluate(
            "() => { window.__seen = new Set(['open']); clearInterval(window.__probe);"
            " window.__probe = setInterval(() => window.__seen.add(window.bobing.connection),"
            " 20); }"
        )
    kill()
    next(iter(pages.values())).wait_for_timeout(3000)
    lost = [
        page.evaluate("() => [...window.__seen].some(s => s !== 'open')") for page in pages.values()
    ]
    assert lost[0] == lost[1], "the pages of one table were on different instances"
    return bool(lost[0])


def throw(pages: dict[str, Page], turn: int) -> None:
    host = next(iter(pages.values()))
    wait_turn(host, turn)
    pages[state(host)["next"]].get_by_role("button", name="掷骰子").click()
    for page in pages.values():
        wait_turn(page, turn + 1)


def test_a_page_behind_the_proxy_moves_to_a_live_instance(
    proxied: tuple[Nginx, list[Instance]], browser: Browser
) -> None:
    proxy, (first, second) = proxied
    host = browser.page(name="甲")
    code = open_table(host, proxy.url)
    host.get_by_label("你的名字").fill("甲")
    host.get_by_role("button", name="我也入座").click()
    guest = browser.page(name="乙")
    guest.goto(f"{proxy.url}/t/{code}")
    guest.get_by_label("你的名字").fill("乙")
    guest.get_by_role("button", name="入座").click()
    expect(host.locator(".seat-name")).to_have_text(["甲", "乙"])
    host.get_by_role("button", name="开始博饼").click()
    pages = {"甲": host, "乙": guest}
    for turn in (1, 2, 3):
        throw(pages, turn)
    before = {name: screen(page) for name, page in pages.items()}

    with browser.allow(*OUTAGE_ERRORS):
        # nginx keeps a table's sockets on one instance (a consistent hash of its code):
        # kill that one. Which one it is shows when it is gone.
        if not lost_connection(pages, first.kill):
            first.start()
            assert lost_connection(pages, second.kill), "no page lost its instance"
        for page in pages.values():
            expect(page.locator(".conn-dot.conn-open")).to_be_visible(timeout=60_000)
            expect(page.locator("#netbar")).to_be_hidden(timeout=60_000)
        for name, page in pages.items():
            assert screen(page) == before[name]
        throw(pages, 4)
        throw(pages, 5)
    wait_throws(guest, 5)
    assert state(host)["result"] == state(guest)["result"]
    expect(guest.locator(".log-thrown")).to_have_count(5)
    expect(host.locator(".log-thrown")).to_have_count(5)
