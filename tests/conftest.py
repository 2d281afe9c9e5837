"""Shared test settings: which optional real services are present, and which CI requires."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import settings

# No test is timed (speed is measured in benchmarks/): Hypothesis's default 200 ms deadline
# per example only measures how busy the two cores are, and a slow example it then replays
# fast is reported as Flaky (test_seating once failed so beside a running CI).
settings.register_profile("bobing", deadline=None)
settings.load_profile("bobing")


def _required(var: str) -> bool:
    return os.environ.get(var, "") not in ("", "0", "false")


POSTGRES_URL = os.environ.get("BOBING_TEST_POSTGRES_URL", "")
"""e.g. postgresql+asyncpg://postgres@127.0.0.1:5432/test; .ci/run sets it."""
REQUIRE_POSTGRES = _required("BOBING_REQUIRE_POSTGRES")
REDIS_URL = os.environ.get("BOBING_TEST_REDIS_URL", "")
"""e.g. redis://127.0.0.1:6379/0; .ci/run sets it."""
REQUIRE_REDIS = _required("BOBING_REQUIRE_REDIS")
REQUIRE_BROWSER = _required("BOBING_REQUIRE_BROWSER")
REQUIRE_NODE = _required("BOBING_REQUIRE_NODE")
CHROMIUM = os.environ.get("BOBING_CHROMIUM") or shutil.which("chromium") or ""
BROWSER_RERUNS = int(os.environ.get("BOBING_BROWSER_RERUNS", "1"))
"""A test that drives Chromium (the ``browser`` marker or fixture) shares two cores with the
server processes and everything else: one that fails is run once more from scratch (its own
pages, a fresh fixture server where it asks for one), and the summary lists it as ``RERUN``.
A test that fails twice fails; no other test is rerun."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        drives_chromium = item.get_closest_marker("browser") is not None or "browser" in getattr(
            item, "fixturenames", ()
        )
        if drives_chromium and item.get_closest_marker("flaky") is None:
            item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS, reruns_delay=1))


_FIRST_ATTEMPTS: list[pytest.TestReport] = []
"""The failed first attempt of every rerun test: pytest-rerunfailures reports it as ``rerun``
and prints none of it, so a flake's cause would be lost with the run."""


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.outcome == "rerun":
        _FIRST_ATTEMPTS.append(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for report in _FIRST_ATTEMPTS:
        terminalreporter.write_sep("_", f"first attempt of {report.nodeid} ({report.when})")
        terminalreporter.write_line(report.longreprtext)
        for title, content in report.sections:
            terminalreporter.write_sep("-", title)
            terminalreporter.write_line(content[-4000:])


def _absent(message: str, required: bool, variable: str) -> NoReturn:
    """Skip locally; fail where ``variable`` (set by .ci/run) makes the service required."""
    if required:
        pytest.fail(f"{message}, but {variable}=1 requires it")
    pytest.skip(message)


def need_postgres() -> str:
    """The PostgreSQL URL for tests, skipping (locally) or failing (in CI) when absent."""
    if not POSTGRES_URL:
        _absent(
            "PostgreSQL tests need BOBING_TEST_POSTGRES_URL (set by .ci/run)",
            REQUIRE_POSTGRES,
            "BOBING_REQUIRE_POSTGRES",
        )
    return POSTGRES_URL


def need_redis() -> str:
    """The Redis URL for tests, skipping (locally) or failing (in CI) when absent."""
    if not REDIS_URL:
        _absent(
            "multi-instance tests need BOBING_TEST_REDIS_URL (set by .ci/run)",
            REQUIRE_REDIS,
            "BOBING_REQUIRE_REDIS",
        )
    return REDIS_URL


def need_redis_server() -> str:
    """The redis-server executable (tests run a private one to restart it)."""
    found = shutil.which("redis-server")
    if not found:
        _absent(
            "the Redis restart test needs redis-server (apt-get install redis-server)",
            REQUIRE_REDIS,
            "BOBING_REQUIRE_REDIS",
        )
    return found


def need_node_module(path: Path, what: str) -> Path:
    """A file of the pinned front-end tools (``npm ci``, which ``dev.py test`` runs where Node
    is), skipping (locally) or failing (in CI) when absent."""
    if not path.exists():
        _absent(
            f"{what} needs the pinned front-end tools (npm ci; Node.js 20+)",
            REQUIRE_NODE,
            "BOBING_REQUIRE_NODE",
        )
    return path


def need_node() -> str:
    """The ``node`` executable, skipping (locally) or failing (in CI) when absent."""
    found = shutil.which("node")
    if not found:
        _absent(
            "this test runs the browser's modules in Node.js 20+",
            REQUIRE_NODE,
            "BOBING_REQUIRE_NODE",
        )
    return str(found)


def need_chromium() -> str:
    """The Chromium executable, skipping (locally) or failing (in CI) when absent."""
    if not CHROMIUM:
        _absent(
            "browser tests need the system chromium (apt-get install chromium)",
            REQUIRE_BROWSER,
            "BOBING_REQUIRE_BROWSER",
        )
    return CHROMIUM
