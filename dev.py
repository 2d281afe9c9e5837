#!/usr/bin/env python3
"""The project's two commands, needing nothing but Python 3.11+.

    python3 dev.py run            start the app (embedded SQLite; prints the address and a QR code)
    python3 dev.py test           ruff (lint and format), then the whole suite in parallel
                                  (pytest-xdist; BOBING_TEST_WORKERS workers) while mypy --strict
                                  and the front end's checks (prettier, tsc, eslint, node --test)
                                  run beside it; any failure fails the run
    python3 dev.py test --quick   only the fast layers (engine, golden vectors, properties,
                                  units), for the edit-test loop: under a minute

Tests: docs/architecture.md#tests (layers, markers, one file, how long each tier takes).

Both create ``.venv`` and install the project into it when it is missing or out of date: ``run``
only what the app needs, ``test`` also the test tools.
Extra arguments are passed on (``python3 dev.py test -k odds``, ``python3 dev.py run --port 9000``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".bobing-installed"


def ensure_venv(extras: str) -> None:
    """Create the virtual environment and install what the command needs.

    ``run`` needs only the runtime dependencies; ``test`` adds the test tools (ruff, mypy,
    pytest, Hypothesis, Playwright). A venv that has the test tools serves ``run`` as is.
    """
    if sys.version_info < (3, 11):  # noqa: UP036 -- dev.py must also run on older Pythons, to say so
        sys.exit("bobing needs Python 3.11 or newer")
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    have = STAMP.read_text().split() if STAMP.exists() else []
    if have[:1] == [want] and (extras == "" or extras in have[1:]):
        return
    steps = 3 if not (BIN / "python").exists() else 2
    step = 0

    def say(text: str) -> None:
        nonlocal step
        step += 1
        print(f"[{step}/{steps}] {text}", flush=True)

    if not (BIN / "python").exists():
        say("creating .venv ...")
        venv.EnvBuilder(with_pip=True).create(VENV)
    # The build backend's own deprecation notices are for us, not for someone starting the app.
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    pip = [str(BIN / "python"), "-m", "pip", "--disable-pip-version-check"]
    say("updating pip ...")
    subprocess.run([*pip, "-q", "install", "--upgrade", "pip"], check=True, env=env)
    target = ".[dev]" if extras else "."
    what = "bobing and its test tools" if extras else "bobing (what it needs to run)"
    say(f"installing {what} into .venv (pip shows each package) ...")
    subprocess.run(
        [*pip, "install", "--progress-bar", "on", "-e", target], check=True, cwd=ROOT, env=env
    )
    STAMP.write_text(" ".join([want, *([extras] if extras else [])]))


NODE_STAMP = ROOT / "node_modules" / ".bobing-installed"


def ensure_node_tools() -> bool:
    """Install the pinned front-end tools (package-lock.json) with npm; False when Node is absent.

    Without Node the front-end checks are skipped with a message, except in CI (``CI`` or
    ``BOBING_REQUIRE_NODE`` set), where they are required.
    """
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        if os.environ.get("CI") or os.environ.get("BOBING_REQUIRE_NODE"):
            sys.exit("Node.js 20+ and npm are required in CI for the front-end checks")
        print("skipping the front-end checks (prettier, tsc, eslint, node --test): no Node.js here")
        return False
    want = hashlib.sha256((ROOT / "package-lock.json").read_bytes()).hexdigest()
    if not NODE_STAMP.exists() or NODE_STAMP.read_text() != want:
        print("installing the pinned front-end tools (npm ci) ...", flush=True)
        subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"], check=True, cwd=ROOT
        )
        NODE_STAMP.write_text(want)
    return True


def frontend_checks() -> list[tuple[str, ...]]:
    """The front end's checks, like ruff's: format, types, lint, unit tests
    (docs/architecture.md)."""
    if not ensure_node_tools():
        return []
    tools = ROOT / "node_modules" / ".bin"
    scripts = ("bobing/web/static", "bobing/bench/phones.mjs")  # the app; the bench's Node client
    steps: list[tuple[str, ...]] = [(str(tools / "prettier"), "--check", *scripts)]
    if (ROOT / "jsconfig.json").exists():
        steps.append((str(tools / "tsc"), "--noEmit", "-p", "jsconfig.json"))
    if (ROOT / "eslint.config.js").exists():
        # eslint's recommended rules (eslint.config.js), on the app, the bench's Node client and
        # the unit tests
        steps.append((str(tools / "eslint"), *scripts, "tests/js", "eslint.config.js"))
    unit = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    if unit:
        steps.append(("node", "--test", *unit))
    return steps


QUICK = [
    "tests/engine",
    "tests/golden",
    "tests/gatherings",
    "tests/organizer",
    "tests/analysis",
    "tests/test_i18n.py",
    "tests/test_house_layers.py",
]
"""The layers ``test --quick`` runs: pure code, no server, database or browser; without the
``slow`` tests, and with fewer examples for each property (tests/conftest.py)."""


def test_workers() -> int:
    """How many pytest-xdist workers ``test`` runs: ``BOBING_TEST_WORKERS``, else a few more
    than the cores, since most tests wait on a server, a database or Chromium."""
    wanted = os.environ.get("BOBING_TEST_WORKERS", "")
    if wanted.isdigit() and int(wanted) > 0:
        return int(wanted)
    return min(8, (os.cpu_count() or 1) + 3)


def pytest_args(args: list[str]) -> list[str]:
    """pytest's arguments for ``test ARGS``: in parallel unless ARGS choose (``-n``, ``-p
    no:xdist``, ``--pdb``); ``--quick`` narrows the run to :data:`QUICK`."""
    quick = "--quick" in args
    args = [a for a in args if a != "--quick"]
    chosen = any(a in ("--pdb", "no:xdist") or a.startswith(("-n", "--numprocesses")) for a in args)
    # The quick layers are pure computation: one worker a core; the rest mostly waits.
    workers = (os.cpu_count() or 1) if quick else test_workers()
    parallel = [] if chosen else ["-n", str(workers), "--dist", "loadgroup"]
    narrow = ["-m", "not slow", "--hypothesis-profile=bobing-quick", *QUICK] if quick else []
    # The twenty slowest tests close every run's log: a test that grew slow is seen at once.
    durations = [] if any(a.startswith("--durations") for a in args) else ["--durations=20"]
    return [*parallel, *durations, *args, *narrow]


def run(*cmd: str) -> int:
    """Run a command from the venv, returning its exit code."""
    print("$", " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("run", "test"):
        print(__doc__)
        return 2
    ensure_venv("" if argv[0] == "run" else "dev")
    if argv[0] == "run":
        return run(str(BIN / "bobing"), "serve", *argv[1:])
    lint = [
        (str(BIN / "ruff"), "check", "bobing", "tests", "benchmarks", "dev.py"),
        (str(BIN / "ruff"), "format", "--check", "bobing", "tests", "benchmarks", "dev.py"),
    ]
    for step in lint:
        code = run(*step)
        if code:
            return code
    # The slower checks (about 40 s) run while pytest does, their output held until it ends:
    # the suite mostly waits on servers and Chromium, so they cost the run little time.
    slower = (
        [] if "--quick" in argv else [(str(BIN / "mypy"), "--strict", "bobing"), *frontend_checks()]
    )
    with ThreadPoolExecutor(1) as pool:
        checked = pool.submit(run_in_turn, slower)
        code = run(str(BIN / "python"), "-m", "pytest", *pytest_args(argv[1:]))
        failed, output = checked.result()
    if slower:
        print(output, end="", flush=True)
    if failed:
        print(f"dev.py: a check failed: {failed}", flush=True)
        return 1
    if slower:
        names = ", ".join(Path(step[0]).name for step in slower)
        print(f"dev.py: the checks beside the suite passed ({names})", flush=True)
    return 0 if code == 0 else code


def run_in_turn(steps: list[tuple[str, ...]]) -> tuple[str, str]:
    """Run ``steps`` one after another until one fails, output captured: the failed command
    (empty when all passed) and everything they printed."""
    output = []
    for step in steps:
        done = subprocess.run(step, cwd=ROOT, capture_output=True, text=True)
        output.append(f"$ {' '.join(step)}\n{done.stdout}{done.stderr}")
        if done.returncode:
            return " ".join(step), "".join(output)
    return "", "".join(output)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
