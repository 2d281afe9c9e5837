"""Shared test settings: which optional real services are present, and which CI requires."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any, NoReturn

import pytest
from hypothesis import settings

# No test is timed (speed is measured in benchmarks/): Hypothesis's default 200 ms deadline
# per example only measures how busy the two cores are, and a slow example it then replays
# fast is reported as Flaky (test_seating once failed so beside a running CI).
settings.register_profile("bobing", deadline=None)
settings.register_profile("bobing-quick", deadline=None, max_examples=10)
"""``dev.py test --quick`` (``--hypothesis-profile=bobing-quick``): every property, fewer cases."""
settings.load_profile("bobing")


# The servers the tests start run their worker processes at the server's own priority: beside
# five test workers and Chromium on two cores, a worker at nice 19 (the product's default) gets
# about 1.5 % of a core (CFS weights 15 against 1024), and a half-second simulation took 30 s
# to 90 s (test_odds_page, test_a_full_analysis_queue_answers_busy). A test that sets the limit
# itself still can.
os.environ.setdefault("BOBING_LIMIT_WORKER_NICE", "0")


def _required(var: str) -> bool:
    return os.environ.get(var, "") not in ("", "0", "false")


WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""``gw0``, ``gw1``, ... in a worker of a parallel run (pytest-xdist); empty in a serial run."""


def _worker_services() -> None:
    """Give this worker a PostgreSQL database and a Redis database of its own.

    Tests make their own schemas, tables and channels, but a worker's database also holds what
    they share by name (advisory locks, LISTEN channels, leftovers of a killed run), and a
    restarted server must find its own data only. The URLs in the environment are rewritten, so
    the servers the tests start inherit them. Runs once per worker process (the module is also
    loaded by path from the test folders, which must not rewrite the rewritten URLs).
    """
    if not WORKER or os.environ.get("BOBING_TEST_WORKER_SERVICES") == WORKER:
        return
    os.environ["BOBING_TEST_WORKER_SERVICES"] = WORKER
    index = int(WORKER.removeprefix("gw") or 0)
    pg = os.environ.get("BOBING_TEST_POSTGRES_URL", "")
    if pg:
        from sqlalchemy.engine import make_url

        url = make_url(pg)
        name = f"{url.database or 'test'}_{WORKER}"
        try:
            asyncio.run(_create_database(url.set(drivername="postgresql"), name))
        except OSError:  # no server: the PostgreSQL tests skip or fail with their own message
            pass
        else:
            os.environ["BOBING_TEST_POSTGRES_URL"] = url.set(database=name).render_as_string(
                hide_password=False
            )
    redis = os.environ.get("BOBING_TEST_REDIS_URL", "")
    if redis:
        base, _, db = redis.rpartition("/")
        if base.startswith("redis") and db.isdigit():
            os.environ["BOBING_TEST_REDIS_URL"] = f"{base}/{int(db) + 1 + index}"


async def _create_database(server: Any, name: str) -> None:
    import asyncpg

    connection = await asyncpg.connect(server.render_as_string(hide_password=False))
    try:
        if not await connection.fetchval("SELECT 1 FROM pg_database WHERE datname = $1", name):
            await connection.execute(f'CREATE DATABASE "{name}"')
    except asyncpg.DuplicateDatabaseError:  # another run's worker made it meanwhile
        pass
    finally:
        await connection.close()


_worker_services()

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


BROWSER_WORKERS = int(os.environ.get("BOBING_BROWSER_WORKERS", "2"))
"""How many workers of a parallel run drive Chromium (one each) while the others run the rest:
more would only share the two cores between more browsers and servers."""
BROWSER_TAIL_WORKERS = int(os.environ.get("BOBING_BROWSER_TAIL_WORKERS", "3"))
"""How many workers may drive Chromium at once once every other test has been handed out (a
worker left without work takes browser files then, up to this many)."""
POSTGRES_FIXTURES = {"postgres_url", "cluster", "schema"}


def drives_chromium(item: pytest.Item) -> bool:
    """Whether the test drives Chromium (the ``browser`` marker or a Playwright fixture)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    return item.get_closest_marker("browser") is not None or bool(
        fixtures & {"browser", "playwright_instance"}
    )


def _needs_postgres(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    params = callspec.params.values() if callspec is not None else ()
    return "postgresql" in params or bool(
        set(getattr(item, "fixturenames", ())) & POSTGRES_FIXTURES
    )


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist puts the groups into the test ids
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Markers from what a test uses; the groups the parallel run schedules by (see
    :class:`_Scheduling`): ``browser`` and ``slow`` tests."""
    for item in items:
        if drives_chromium(item):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.xdist_group("browser"))
            if item.get_closest_marker("flaky") is None:
                item.add_marker(pytest.mark.flaky(reruns=BROWSER_RERUNS, reruns_delay=1))
        elif item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.xdist_group("slow"))
        if _needs_postgres(item) and item.get_closest_marker("postgres") is None:
            item.add_marker(pytest.mark.postgres)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """The parallel run's schedule (``dev.py test`` runs ``-n N --dist loadgroup``)."""
    from xdist.scheduler import LoadGroupScheduling

    class _Scheduling(LoadGroupScheduling):  # type: ignore[misc]
        """Browser tests, a file at a time, on the first :data:`BROWSER_WORKERS` workers;
        ``slow`` tests one at a time and first on the others, then every other file.

        The browser workers run only browser tests while there are any, so each keeps one
        Chromium open from test to test; the others take the slow tests first, so none of
        them starts last and keeps the run waiting, and once every other test is handed out
        they take browser files too, up to :data:`BROWSER_TAIL_WORKERS` browsers at once; a
        worker that finds no work it may take stops.
        """

        def _split_scope(self, nodeid: str) -> str:
            head, _, group = nodeid.rpartition("@")
            if head and "]" not in group:
                if group == "browser":
                    return "browser@" + head.split("::")[0]
                if group == "slow":
                    return nodeid
            return nodeid.split("::")[0]

        def _browser_node(self, node: Any) -> bool:
            return node in self.nodes[:BROWSER_WORKERS]

        def _browsing(self, node: Any) -> bool:
            """Whether ``node`` has browser tests still to run."""
            return any(
                scope.startswith("browser@") and not all(unit.values())
                for scope, unit in self.assigned_work.get(node, {}).items()
            )

        def _pick(self, node: Any) -> str | None:
            scopes = list(self.workqueue)
            browser = [s for s in scopes if s.startswith("browser@")]
            slow = [s for s in scopes if s.endswith("@slow")]
            rest = [s for s in scopes if s not in browser and s not in slow]
            if self._browser_node(node):
                order = [browser, slow, rest]
            else:
                busy = sum(self._browsing(n) for n in self.nodes)
                tail = self._browsing(node) or busy < BROWSER_TAIL_WORKERS
                order = [slow, rest, browser if tail else []]
            for kind in order:
                if kind:
                    return kind[0]
            return None

        def _assign_work_unit(self, node: Any) -> None:
            scope = self._pick(node)
            if scope is None:  # only browser files are left, for the browser workers
                node.shutdown()
                return
            work_unit = self.workqueue.pop(scope)
            self.assigned_work.setdefault(node, {})[scope] = work_unit
            collection = self.registered_collections[node]
            node.send_runtest_some(
                [collection.index(nodeid) for nodeid, done in work_unit.items() if not done]
            )

    return _Scheduling(config, log)


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
