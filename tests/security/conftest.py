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
    from e2etools import EXPECT_TIMEOUT_MS, Browser, root_conftest
    from playwright.sync_api import expect, sync_playwright

    chromium = root_conftest().need_chromium()
    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    with sync_playwright() as playwright:
        b = Browser(playwright, chromium, tmp_path)
        try:
            yield b
            b.assert_clean()
        finally:
            b.close()
