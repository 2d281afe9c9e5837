"""End-to-end fixtures: a real ``bobing serve`` process and headless Chromium (see e2etools)."""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path

import pytest
from e2etools import (
    EXPECT_TIMEOUT_MS,
    SCREENSHOT_DIR,
    SHARED_CHROMIUM,
    Browser,
    Server,
    after_test,
    open_browser,
    root_conftest,
    running_server,
)
from playwright.sync_api import Playwright, expect

expect.set_options(timeout=EXPECT_TIMEOUT_MS)


@pytest.fixture(scope="session")
def chromium() -> str:
    path: str = root_conftest().need_chromium()
    return path


@pytest.fixture
def playwright_instance(chromium: str) -> Playwright:
    """The worker's Playwright driver (see :class:`e2etools.SharedChromium`)."""
    return SHARED_CHROMIUM.playwright()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """After the test's own teardown: stop Chromium unless the next test drives it."""
    try:
        yield
    finally:
        after_test(nextitem)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory, chromium: str) -> Iterator[Server]:
    """One server for the tests that do not restart it."""
    with running_server(tmp_path_factory.mktemp("serve")) as srv:
        yield srv


@pytest.fixture
def shots_dir(tmp_path: Path) -> Path:
    if os.environ.get("BOBING_SCREENSHOTS", "") not in ("", "0"):
        SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
        return SCREENSHOT_DIR
    return tmp_path


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item,
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A failed browser test's report shows what each of its pages showed when it failed."""
    report = yield
    browser = getattr(item, "funcargs", {}).get("browser")
    if report.when == "call" and report.failed and isinstance(browser, Browser):
        report.sections.append(("pages when it failed", browser.describe()))
        for name in ("server", "fresh_server"):
            server = item.funcargs.get(name)
            if isinstance(server, Server) and server.log_path.exists():
                tail = server.log_path.read_text(errors="replace").splitlines()[-30:]
                report.sections.append((f"{name} log (last lines)", "\n".join(tail)))
    return report


@pytest.fixture
def browser(chromium: str, shots_dir: Path) -> Iterator[Browser]:
    with open_browser(chromium, shots_dir) as b:
        yield b


@pytest.fixture
def fresh_server(tmp_path: Path, chromium: str) -> Iterator[Server]:
    """A server of this test's own (it may be killed and restarted)."""
    with running_server(tmp_path) as srv:
        yield srv
