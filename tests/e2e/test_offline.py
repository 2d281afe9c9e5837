"""Phones on a bad network (issue 20): the page announces its modules and caches them, the app is
installable, a reload without a network still shows the table, and a throw made while a phone is
offline is applied exactly once when it comes back, and the phone is told so."""

from __future__ import annotations

import re

import pytest
from e2etools import CHROMIUM_ARGS, Browser, Server, create_table, open_table, state, wait_turn
from playwright.sync_api import Page, Playwright, Response, expect

pytestmark = pytest.mark.browser

OFFLINE_ERRORS = (
    r"WebSocket connection to 'ws://127\.0\.0\.1:\d+/ws/tables/\w+\?.*' failed",
    r"Failed to load resource: net::ERR_INTERNET_DISCONNECTED",
)
NO_NETWORK = "没有网络"


def seated_pair(browser: Browser, server: Server) -> tuple[dict[str, Page], str]:
    """Two phones at a started online table: 甲 (the host) and 乙."""
    host = browser.page(name="甲")
    code = open_table(host, server.url)
    host.get_by_label("你的名字").fill("甲")
    host.get_by_role("button", name="我也入座").click()
    expect(host.get_by_text("你已入座：甲")).to_be_visible()
    guest = browser.page(name="乙")
    guest.goto(f"{server.url}/t/{code}")
    guest.get_by_label("你的名字").fill("乙")
    guest.get_by_role("button", name="入座").click()
    expect(guest.get_by_text("你已入座：乙")).to_be_visible()
    host.get_by_role("button", name="开始博饼").click()
    return {"甲": host, "乙": guest}, code


def throw(pages: dict[str, Page], turn: int) -> str:
    """The next player throws for ``turn``; returns who threw."""
    host = next(iter(pages.values()))
    wait_turn(host, turn)
    nxt: str = state(host)["next"]
    pages[nxt].get_by_role("button", name="掷骰子").click()
    for page in pages.values():
        wait_turn(page, turn + 1)
    return nxt


def log(page: Page) -> list[str]:
    return page.locator(".log-item").all_inner_texts()


def test_first_load_announces_every_module_and_caches_it(browser: Browser, server: Server) -> None:
    page = browser.page(name="first")
    scripts: list[Response] = []
    page.on(
        "response", lambda r: scripts.append(r) if r.request.resource_type == "script" else None
    )
    # everything this phone's first visit takes from the network, the service worker's too
    downloads: list[str] = []

    def downloaded(response: Response) -> None:
        if response.request.sizes()["responseBodySize"] > 0:
            downloads.append(re.sub(r"^https?://[^/]+|\?.*$", "", response.url))

    page.context.on("response", downloaded)
    page.goto(server.url + "/")
    page.wait_for_selector(".order-statement .label")
    preloaded = page.eval_on_selector_all(
        'link[rel="modulepreload"]', "links => links.map(l => new URL(l.href).pathname)"
    )
    fetched = sorted({re.sub(r"^https?://[^/]+", "", r.url) for r in scripts})
    # every module the page ran was announced up front, by its hashed name, and nothing else
    assert fetched == sorted(preloaded)
    for response in scripts:
        headers = response.all_headers()
        assert headers["cache-control"] == "public, max-age=31536000, immutable"
        assert headers["content-encoding"] == "br", response.url
    manifest = page.request.get(server.url + "/manifest.webmanifest?lang=zh-Hans")
    assert manifest.headers["content-type"] == "application/manifest+json"
    assert manifest.json()["name"].startswith("博饼")
    worker = page.request.get(server.url + "/sw.js")
    assert worker.headers["content-type"].startswith("text/javascript")
    # the worker takes the page over (127.0.0.1 is a secure context)
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    assert page.evaluate("() => navigator.serviceWorker.controller.scriptURL").endswith("/sw.js")
    # issue 32: the worker's install took every file once, not again by its plain name
    page.wait_for_function(
        "async () => (await caches.keys()).length > 0"
        " && (await (await caches.open((await caches.keys())[0])).keys()).length > 40"
    )
    files = [re.sub(r"\.[0-9a-f]{10}\.", ".", path) for path in downloads]
    twice = sorted({path for path in files if files.count(path) > 1})
    assert not twice, twice
    assert "/i18n/zh-Hant.json" in files  # a catalogue the page did not load: precached once


SHIFTS = """
    window.__shifts = [];
    new PerformanceObserver((list) => {
        for (const e of list.getEntries()) window.__shifts.push(e.value);
    }).observe({ type: "layout-shift", buffered: true });
"""


def test_a_table_opens_on_its_lobby_alone_and_nothing_moves(
    browser: Browser, server: Server
) -> None:
    """What a guest opening a table's QR code waits for: the page paints with itself alone (no
    stylesheet, no icon to ask for), the lobby needs none of the game's modules (they come once
    it is complete, so the start does not wait for them), and nothing on screen moves meanwhile
    (no banner for a first connection that takes a moment)."""
    code = create_table(browser.page(name="host"), server.url)
    guest = browser.page(name="guest")
    asked: list[str] = []
    guest.on("request", lambda r: asked.append(re.sub(r"^https?://[^/]+", "", r.url)))
    guest.add_init_script(SHIFTS)
    guest.goto(f"{server.url}/t/{code}")
    expect(guest.locator(".order-line")).to_contain_text("六勃红")  # its rulebook's words
    before = list(asked)
    assert not [p for p in before if p.startswith(("/css/app.", "/favicon"))], before
    assert not [p for p in before if p.startswith(("/js/views/play.", "/js/celebrations."))]
    # each catalogue comes once, by its hashed name (the one the page preloads)
    catalogues = [p for p in before if p.startswith("/i18n/")]
    assert len(catalogues) == len(set(catalogues)), catalogues
    assert all(re.fullmatch(r"/i18n/[\w-]+\.[0-9a-f]{10}\.json", p) for p in catalogues)
    # then the game's screens arrive by themselves
    guest.wait_for_function(
        """() => performance.getEntriesByType("resource")
            .some((e) => new URL(e.name).pathname.startsWith("/js/views/play."))"""
    )
    expect(guest.locator("#netbar")).to_be_hidden()
    moved = sum(guest.evaluate("window.__shifts"))
    assert moved < 0.01, moved


def test_a_reload_without_network_shows_the_table_then_resyncs(
    browser: Browser, server: Server
) -> None:
    pages, code = seated_pair(browser, server)
    host, guest = pages["甲"], pages["乙"]
    turn = 1
    while turn == 1 or state(host)["next"] != "甲":  # offline while the host is to throw
        throw(pages, turn)
        turn += 1
    guest.wait_for_function("() => navigator.serviceWorker.controller !== null")
    before = log(guest)
    with browser.allow(*OFFLINE_ERRORS):
        guest.context.set_offline(True)
        # what the phone saved (a moment after it saw it) is what a reload shows
        guest.wait_for_function(
            """code => JSON.parse(localStorage.getItem('bobing.t.' + code)).state.last_seq
                === window.bobing.state.last_seq""",
            arg=code,
        )
        guest.reload()
        # the app itself, from the worker's cache: the table as this phone last saw it
        expect(guest.locator("#netbar")).to_contain_text(NO_NETWORK)
        expect(guest.locator(".log-item")).to_have_count(len(before))
        assert log(guest) == before, (log(guest), before)
        assert guest.url.endswith(f"/t/{code}")
        # live answers never come from a cache: the API fails without a network
        failed = guest.evaluate("() => fetch('/api/health').then(() => 'answered', () => 'failed')")
        assert failed == "failed"
        cached: list[str] = guest.evaluate(
            """async () => {
                const paths = [];
                for (const name of await caches.keys())
                    for (const r of await (await caches.open(name)).keys())
                        paths.push(new URL(r.url).pathname);
                return paths;
            }"""
        )
        assert "/" in cached and any(p.startswith("/js/") for p in cached)
        assert not [p for p in cached if p.startswith(("/api/", "/ws/"))]
        # the others play on meanwhile
        host.get_by_role("button", name="掷骰子").click()
        wait_turn(host, turn + 1)
        assert state(guest)["turn"] == turn
        guest.context.set_offline(False)
    # back: resynced from the log, the same game as everyone
    wait_turn(guest, turn + 1)
    expect(guest.locator("#netbar")).to_be_hidden()
    expect(guest.locator(".log-item")).to_have_count(len(log(host)))
    # the same lines (the throws' words come with the rulebook, asked for again once online)
    expect(guest.locator(".log-item")).to_have_text(log(host))
    assert state(guest)["result"] == state(host)["result"]


def test_a_throw_made_offline_for_ten_seconds_counts_once(browser: Browser, server: Server) -> None:
    pages, _code = seated_pair(browser, server)
    first = throw(pages, 1)
    host = pages["甲"]
    phone = pages["乙" if first == "甲" else "甲"]
    other = pages[first]
    assert state(host)["next"] != first
    cdp = phone.context.new_cdp_session(phone)
    cdp.send("Network.enable")
    conditions = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
    with browser.allow(*OFFLINE_ERRORS):
        cdp.send("Network.emulateNetworkConditions", {"offline": True, **conditions})
        phone.wait_for_function("() => !navigator.onLine")
        phone.get_by_role("button", name="掷骰子").click()
        expect(phone.locator("#netbar")).to_contain_text(NO_NETWORK)
        # ten seconds without a network, mid-turn: nobody else sees a throw meanwhile
        phone.wait_for_timeout(10_000)
        assert state(other)["turn"] == 2
        cdp.send("Network.emulateNetworkConditions", {"offline": False, **conditions})
        for page in pages.values():
            wait_turn(page, 3)
    expect(phone.locator(".toasts")).to_contain_text("你的第 2 掷已送达，只算一次")
    expect(phone.locator("#netbar")).to_be_hidden()
    for page in pages.values():
        expect(page.locator(".log-thrown")).to_have_count(2)
        assert state(page)["throw_count"] == 2
    assert log(phone) == log(other)
    assert state(phone)["result"] == state(other)["result"]


def test_plain_http_on_a_lan_says_what_phones_lose(
    playwright_instance: Playwright, chromium: str, server: Server
) -> None:
    # a LAN address, as `dev.py run` gives phones: not localhost, so not a secure context
    resolve = "--host-resolver-rules=MAP bobing.lan 127.0.0.1"
    lan = playwright_instance.chromium.launch(
        executable_path=chromium, args=[*CHROMIUM_ARGS, resolve]
    )
    try:
        page = lan.new_page(locale="en-GB")
        page.goto(f"http://bobing.lan:{server.port}/")
        page.wait_for_selector(".order-statement .label")
        assert page.evaluate("() => window.isSecureContext") is False
        note = page.locator("#secure-note")
        expect(note).to_be_visible()
        note.locator("summary").click()
        for words in (
            "Shake to throw",
            "throw button",
            "share sheet",
            "save the picture",
            "Copy",
            "without network",
        ):
            expect(note).to_contain_text(words)
        # no worker without HTTPS: the page still works online
        assert page.evaluate(
            "() => navigator.serviceWorker === undefined || "
            "navigator.serviceWorker.controller === null"
        )
        page.goto(f"http://bobing.lan:{server.port}/?lang=zh-Hans")
        expect(page.locator("#secure-note summary")).to_contain_text("HTTPS")
    finally:
        lan.close()
    local = playwright_instance.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
    try:
        page = local.new_page()
        page.goto(server.url + "/")
        page.wait_for_selector(".order-statement .label")
        expect(page.locator("#secure-note")).to_be_hidden()
    finally:
        local.close()
