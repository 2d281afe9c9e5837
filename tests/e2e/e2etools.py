"""End-to-end tools: a real ``bobing serve`` process and headless Chromium via Playwright.

Every page opened through :class:`Browser.page` records console errors and page errors; a test
fails if any appear (see :meth:`Browser.assert_clean`).

Screenshots for the README are written to ``docs/screenshots/`` when ``BOBING_SCREENSHOTS=1``
(so an ordinary test run leaves the working tree untouched); otherwise to a temporary folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from playwright.sync_api import Browser as Chromium
from playwright.sync_api import (
    BrowserContext,
    ConsoleMessage,
    Page,
    Playwright,
    expect,
    sync_playwright,
)

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT_DIR = ROOT / "docs" / "screenshots"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 390, "height": 844}


def root_conftest() -> ModuleType:
    """tests/conftest.py (its need_chromium), loaded by path: conftest modules share a name."""
    spec = importlib.util.spec_from_file_location(
        "_bobing_root_conftest", ROOT / "tests" / "conftest.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TIMEOUT_MS = 30_000
"""Page actions and waits give up after this long; generous because CI runs on two loaded
cores, yet bounded (waits end as soon as their condition holds)."""
EXPECT_TIMEOUT_MS = 20_000
"""``expect(...)`` assertions retry this long (Playwright's own default is 5 s)."""


def _ephemeral_ports() -> range:
    """The range the kernel picks client ports from (Linux; the IANA range elsewhere)."""
    try:
        low, high = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()
        return range(int(low), int(high) + 1)
    except (OSError, ValueError):
        return range(49152, 65536)


def free_port() -> int:
    """A TCP port free right now on 127.0.0.1, outside the range of client ports.

    A server that is killed and restarted on its port (test_resilience) must get that port
    back. An ephemeral port could meanwhile be handed to some client socket — even to the
    browser's own reconnection attempt, which then connects to itself (TCP simultaneous open)
    and keeps the port busy. Ports below the ephemeral range are only ever taken by bind().
    """
    ephemeral = _ephemeral_ports()
    low, high = (10_000, ephemeral.start) if ephemeral.start > 11_000 else (1024, 65536)
    rng = random.SystemRandom()
    for _ in range(200):
        port = rng.randrange(low, high)
        if port in ephemeral:
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free TCP port in {low}-{high}")


class Server:
    """``bobing serve`` in its own process, on a fixed port and SQLite file (restartable)."""

    def __init__(
        self,
        db_path: Path,
        log_path: Path,
        *,
        host: str = "127.0.0.1",
        extra: list[str] | None = None,
    ) -> None:
        self.db_url = f"sqlite+aiosqlite:///{db_path}"
        self.log_path = log_path
        self.host = host
        self.extra = extra or []
        """More ``bobing serve`` options (``--public-url``)."""
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        bobing = Path(sys.executable).with_name("bobing")
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [str(bobing), "serve", "--host", self.host, "--port", str(self.port)]
                + ["--db", self.db_url]
                # One server and one address for every browser test: no per-address limits.
                + ["--limit", "create_per_minute=0", "--limit", "join_per_minute=0"]
                + ["--limit", "analysis_per_minute=0", "--limit", "open_tables_per_address=0"]
                + ["--limit", "simulations_per_minute=0", "--limit", "preview_per_minute=0"]
                + ["--limit", "roster_per_minute=0", "--limit", "open_events_per_address=0"]
                + ["--limit", "reactions_per_minute=0", "--limit", "misses_per_minute=0"]
                + ["--limit", "lookups_per_minute=0"]
                + self.extra,
                stdout=log,
                stderr=subprocess.STDOUT,
                env=dict(os.environ, PYTHONUNBUFFERED="1", BOBING_LANG="en"),
            )
        deadline = time.monotonic() + 2 * TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("bobing serve exited:\n" + self.log_path.read_text())
            with (
                contextlib.suppress(OSError, urllib.error.URLError),
                urllib.request.urlopen(self.url + "/api/health", timeout=5) as response,
            ):
                if response.status == 200:
                    return
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("bobing serve did not answer /api/health:\n" + self.log_path.read_text())

    def kill(self) -> None:
        """SIGKILL, like a crash: no shutdown hooks."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(TIMEOUT_MS / 1000)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(TIMEOUT_MS / 1000)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(TIMEOUT_MS / 1000)


@contextlib.contextmanager
def running_server(tmp: Path, **options: Any) -> Iterator[Server]:
    """A started server (``options``: :class:`Server`'s ``host`` and ``extra``)."""
    server = Server(tmp / "bobing.db", tmp / "serve.log", **options)
    server.start()
    try:
        yield server
    finally:
        server.stop()


DESCRIBE_JS = """() => {
  const s = window.bobing && window.bobing.state;
  const brief = s ? JSON.stringify({status: s.status, phase: s.phase, turn: s.turn,
      throw_count: s.throw_count, next: s.next}) : "no table state";
  const el = document.activeElement;
  const focus = el ? el.tagName + "." + el.className : "none";
  return `state ${brief}\\nfocus ${focus}\\n` + document.body.innerText.slice(0, 3000);
}"""


class SharedChromium:
    """The worker's one Playwright driver and one Chromium, open while browser tests follow
    one another (each test has contexts of its own: no cookie, storage or page is shared).

    Started by the first browser test; stopped (``stop``) by the test folders' conftest as soon
    as the next test is not a browser test: while the sync API is open its event loop counts
    as running in this thread, which would break the asyncio tests after it. A Chromium that
    crashed or was closed is launched anew for the next test.
    """

    def __init__(self) -> None:
        self._manager: Any = None
        self._playwright: Playwright | None = None
        self._chromium: Chromium | None = None

    def playwright(self) -> Playwright:
        if self._playwright is None:
            self._manager = sync_playwright()
            self._playwright = self._manager.__enter__()
        return self._playwright

    def chromium(self, executable: str) -> Chromium:
        if self._chromium is None or not self._chromium.is_connected():
            self._chromium = self.playwright().chromium.launch(
                executable_path=executable, args=CHROMIUM_ARGS
            )
        return self._chromium

    def stop(self) -> None:
        chromium, manager = self._chromium, self._manager
        self._chromium = self._playwright = self._manager = None
        if chromium is not None:
            with contextlib.suppress(Exception):
                chromium.close()
        if manager is not None:
            manager.__exit__(None, None, None)


SHARED_CHROMIUM = SharedChromium()


@contextlib.contextmanager
def open_browser(executable: str, shots: Path) -> Iterator[Browser]:
    """One test's :class:`Browser` on the shared Chromium: its contexts closed at the end, and
    the test failed by any console or page error its pages met."""
    b = Browser(SHARED_CHROMIUM.chromium(executable), shots)
    try:
        yield b
        b.assert_clean()
    finally:
        b.close()


def after_test(nextitem: Any) -> None:
    """Stop the shared Chromium unless the next test drives it too (tests/conftest.py marks
    every such test ``browser``); the browser folders' ``pytest_runtest_teardown`` calls it."""
    if nextitem is None or nextitem.get_closest_marker("browser") is None:
        SHARED_CHROMIUM.stop()


CSP_VIOLATIONS_JS = """
document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.effectiveDirective} blocked ${e.blockedURI || "inline"}`
    + ` at ${e.sourceFile}:${e.lineNumber} ${e.sample}`);
});
"""
"""Every CSP violation a page meets, written to its console as an error."""


class Browser:
    """Contexts and pages of one test, with every console error and page error collected."""

    def __init__(self, chromium: Chromium, shots: Path) -> None:
        self.browser = chromium
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []
        self.shots = shots

    def context(
        self, *, locale: str = "zh-CN", reduced_motion: bool = True, **kw: Any
    ) -> BrowserContext:
        options: dict[str, Any] = {
            "viewport": PHONE,
            "locale": locale,
            "reduced_motion": "reduce" if reduced_motion else "no-preference",
            "device_scale_factor": 2,
        }
        options.update(kw)
        ctx = self.browser.new_context(**options)
        ctx.set_default_timeout(TIMEOUT_MS)
        # Whatever the Content-Security-Policy blocks is a console error, so a test fails on it
        # (issue 29: the page must use nothing the policy forbids).
        ctx.add_init_script(CSP_VIOLATIONS_JS)
        self.contexts.append(ctx)
        return ctx

    def page(self, ctx: BrowserContext | None = None, name: str = "page", **kw: Any) -> Page:
        page = (ctx or self.context(**kw)).new_page()
        page.on("console", lambda msg: self._console(name, msg))
        page.on("pageerror", lambda exc: self.errors.append(f"{name}: page error: {exc}"))
        return page

    def _console(self, name: str, msg: ConsoleMessage) -> None:
        if msg.type != "error":
            return
        if any(p.search(msg.text) for p in self.allowed):
            return
        self.errors.append(f"{name}: console error: {msg.text}")

    @contextlib.contextmanager
    def allow(self, *patterns: str) -> Iterator[None]:
        """Accept console errors matching ``patterns`` inside the block (an expected outage)."""
        compiled = [re.compile(p) for p in patterns]
        self.allowed.extend(compiled)
        try:
            yield
        finally:
            for p in compiled:
                self.allowed.remove(p)

    def shot(self, page: Page, name: str, *, full_page: bool = False) -> Path:
        """A screenshot for the README (docs/screenshots/NAME.png with BOBING_SCREENSHOTS=1)."""
        path = self.shots / f"{name}.png"
        page.screenshot(path=str(path), full_page=full_page, animations="disabled")
        return path

    def describe(self) -> str:
        """What every open page shows (address, table state, focus, text), for a failure."""
        lines = []
        for ctx in self.contexts:
            for page in ctx.pages:
                try:
                    seen = page.evaluate(DESCRIBE_JS)
                except Exception as exc:  # a closed or crashed page still gets its line
                    seen = f"(cannot read: {exc})"
                lines.append(f"--- {page.url}\n{seen}")
        lines += ["--- console and page errors:", *self.errors]
        return "\n".join(lines)

    def assert_clean(self) -> None:
        assert not self.errors, "console or page errors:\n" + "\n".join(self.errors)

    def close(self) -> None:
        """Close this test's contexts (the shared Chromium stays open for the next test)."""
        for ctx in self.contexts:
            with contextlib.suppress(Exception):
                ctx.close()


def saved_state(page: Page, code: str) -> dict[str, Any]:
    """The table state the page has saved for ``code`` (what a reload would show first)."""
    state: dict[str, Any] = page.evaluate(
        "code => (JSON.parse(localStorage.getItem('bobing.t.' + code) || '{}').state || {})", code
    )
    return state


MODE_LABEL = {"online": "各自手机", "pass_and_play": "一机轮流", "referee": "真骰子裁判"}
TIER_LABEL = {
    "zhuangyuan": "状元",
    "duitang": "对堂",
    "sanhong": "三红",
    "sijin": "四进",
    "erju": "二举",
    "yixiu": "一秀",
}


def create_table(
    page: Page,
    base: str,
    *,
    mode: str = "online",
    name: str | None = None,
    prizes: dict[str, int] | None = None,
    named: dict[str, tuple[str, int]] | None = None,
    switches: dict[str, str] | None = None,
) -> str:
    """Start a table from the home page (zh-Hans labels; ``switches``: rule switches set in its
    自定义规则开关, such as :data:`NEVER_ENDS`); returns its code."""
    page.goto(base + "/")
    page.wait_for_selector(".order-statement .label")
    if name is not None:
        page.get_by_label("桌名").fill(name)
    page.get_by_label(MODE_LABEL[mode]).check()
    if prizes or named:
        page.get_by_text("饼数与奖品").click()
        for tier, count in (prizes or {}).items():
            page.locator(f'input[data-tier="{tier}"]').fill(str(count))
            page.locator(f'input[data-tier="{tier}"]').dispatch_event("change")
        for tier, (prize, value) in (named or {}).items():
            page.locator(f'input[data-named="{tier}"]').fill(prize)
            page.locator(f'input[data-named="{tier}"]').dispatch_event("change")
            page.locator(f'input[data-value="{tier}"]').fill(str(value))
            page.locator(f'input[data-value="{tier}"]').dispatch_event("change")
    if switches:
        page.get_by_text("自定义规则开关").click()
        for switch, value in switches.items():
            chosen = page.locator(f'select[data-switch="{switch}"]')
            chosen.select_option(value)
            expect(chosen).to_have_value(value)
    page.get_by_role("button", name="开桌").click()
    page.wait_for_url(re.compile(r"/t/[2-9A-Z]{6}$"))
    page.wait_for_selector(".lobby")
    return page.url.rsplit("/", 1)[1]


NEVER_ENDS: dict[str, str] = {"liubohong": "zhuangyuan", "liubohei": "take_one"}
"""Switches under which no throw ends the game: 六勃红 is the top 状元 and 六勃黑 takes a cake.
Under a preset 6 rolls in 46,656 end it (a CI run met one in a test that played on)."""

PLAYS_ON: dict[str, Any] = {"preset": "traditional", **NEVER_ENDS}
"""The traditional rules under :data:`NEVER_ENDS`."""


def open_table(
    page: Page, base: str, *, mode: str = "online", rules: dict[str, Any] = PLAYS_ON
) -> str:
    """A table made through the API (by default under :data:`PLAYS_ON`), opened on ``page`` as
    its host at ``base``; returns its code. For tests that throw the server's random dice and
    must play on."""
    made = call(base, "POST", "/api/tables", {"name": "中秋博饼", "mode": mode, "rules": rules})
    code: str = made["code"]
    # the device keeps the host's tokens, as the home page's form does
    goto_with_tokens(page, base, code, hostToken=made["host_token"], playToken=made["play_token"])
    page.wait_for_selector(".lobby")
    return code


def goto_with_tokens(page: Page, base: str, code: str, path: str = "", **saved: str | None) -> None:
    """Open table ``code`` (and ``path`` in it) on ``page`` with ``saved`` in the device's storage
    (``hostToken``, ``playToken``, ``playerToken``: what creating or joining leaves there)."""
    page.goto(base + "/")
    page.evaluate(
        "([code, saved]) => localStorage.setItem('bobing.t.' + code, JSON.stringify(saved))",
        [code, saved],
    )
    page.goto(f"{base}/t/{code}{path}")


def state(page: Page) -> dict[str, Any]:
    """The table state the page shows (window.bobing.state)."""
    value: dict[str, Any] = page.evaluate("() => window.bobing.state")
    return value


def wait_turn(page: Page, turn: int) -> None:
    """Wait until the page's state has ``turn`` as the next throw number."""
    page.wait_for_function("n => window.bobing.state && window.bobing.state.turn >= n", arg=turn)


def wait_status(page: Page, status: str) -> None:
    page.wait_for_function(
        "s => window.bobing.state && window.bobing.state.status === s", arg=status
    )


def wait_throws(page: Page, count: int) -> None:
    """Wait until the page's state counts at least ``count`` throws."""
    page.wait_for_function(
        "n => window.bobing.state && window.bobing.state.throw_count >= n", arg=count
    )


def call(
    server: Server | str, method: str, path: str, body: Any = None, token: str | None = None
) -> Any:
    """One JSON request to ``server`` (or the base URL given; the organiser's or host's
    ``token`` as Bearer), its JSON answer (``None`` for an empty one); an error status raises
    ``HTTPError``."""
    data = None if body is None else json.dumps(body).encode()
    base = server if isinstance(server, str) else server.url
    request = urllib.request.Request(base + path, data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"null")


def start_event(server: Server, created: dict[str, Any]) -> None:
    """The organiser starts every table of the event ``created`` (``POST /api/events``'s
    answer), as the dashboard's "start" does."""
    call(
        server,
        "POST",
        f"/api/events/{created['code']}/control",
        {"action": "start"},
        created["organizer_token"],
    )
