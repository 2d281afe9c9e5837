"""Fixtures of the security tests: real ``bobing serve`` processes, real sockets, real Chromium.

The tools live with the web and end-to-end tests (``tests/web/webtools.py``,
``tests/e2e/e2etools.py``); this folder reuses them.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
for folder in (HERE.parent / "web", HERE.parent / "e2e"):
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    """Headless Chromium (skipped locally without it, required in CI), errors collected."""
    from e2etools import EXPECT_TIMEOUT_MS, open_browser, root_conftest
    from playwright.sync_api import expect

    chromium = root_conftest().need_chromium()
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with open_browser(chromium, tmp_path) as b:
        yield b


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Stop the shared Chromium unless the next test drives it too (as tests/e2e/conftest.py)."""
    try:
        yield
    finally:
        e2etools = sys.modules.get("e2etools")
        if e2etools is not None:
            e2etools.after_test(nextitem)
