"""A phone's first load, measured by Lighthouse against a real ``bobing serve`` (issue 20).

    .venv/bin/python benchmarks/bench_frontend.py [--runs 3] [--json]

Starts ``bobing serve`` on a fresh SQLite file, creates a table, and runs Lighthouse 12 (pinned
in benchmarks/frontend/package.json, installed there with ``npm ci`` on first use) ``--runs``
times on ``/`` and on ``/t/CODE``: its default mobile form factor with simulated slow 4G, in
the system's headless Chromium (``CHROME_PATH``, default /usr/bin/chromium). Prints the median
of each audit and the budgets with pass/fail:

- ``/t/CODE``: largest contentful paint ≤ 2.0 s and performance ≥ 0.95;
- ``/t/CODE``: ≤ 150 KiB transferred for the first load.

Where Node is absent it says so and exits 0 (not a test; docs/benchmarks.md holds the results).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "frontend"
LIGHTHOUSE = HERE / "node_modules" / ".bin" / "lighthouse"
BOBING = Path(sys.executable).with_name("bobing")
CHROME = os.environ.get("CHROME_PATH", "/usr/bin/chromium")
AUDITS = {
    "performance": ("categories", "performance"),
    "accessibility": ("categories", "accessibility"),
    "seo": ("categories", "seo"),
    "lcp_s": ("audits", "largest-contentful-paint"),
    "fcp_s": ("audits", "first-contentful-paint"),
    "tti_s": ("audits", "interactive"),
    "tbt_s": ("audits", "total-blocking-time"),
    "cls": ("audits", "cumulative-layout-shift"),
    "speed_index_s": ("audits", "speed-index"),
    "transferred_kib": ("audits", "total-byte-weight"),
    "requests": ("audits", "network-requests"),
}
BUDGETS = (
    ("/t/CODE", "lcp_s", "≤", 2.0),
    ("/t/CODE", "performance", "≥", 0.95),
    ("/t/CODE", "transferred_kib", "≤", 150.0),
)


def ensure_lighthouse() -> bool:
    """Lighthouse installed from its lock file; False (with a message) where Node is absent."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        print(
            "bench_frontend: skipped — Node.js (node and npm) is not installed; Lighthouse needs it"
        )
        return False
    if not Path(CHROME).exists():
        print(f"bench_frontend: skipped — no Chromium at {CHROME} (set CHROME_PATH)")
        return False
    if not LIGHTHOUSE.exists():
        print("bench_frontend: installing Lighthouse (npm ci in benchmarks/frontend) …")
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=HERE, check=True)
    return True


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def healthy(url: str) -> bool:
    """Whether the server answers its health check."""
    try:
        with urllib.request.urlopen(url + "/api/health", timeout=5) as response:
            return bool(response.status == 200)
    except OSError:
        return False


@contextlib.contextmanager
def serving(folder: Path) -> Iterator[str]:
    """``bobing serve`` on a free port and a fresh SQLite file; yields its URL."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (folder / "serve.log").open("wb")
    proc = subprocess.Popen(
        [str(BOBING), "serve", "--host", "127.0.0.1", "--port", str(port)]
        + ["--db", f"sqlite+aiosqlite:///{folder / 'bench.db'}"],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not healthy(url):
            if proc.poll() is not None:
                raise RuntimeError("bobing serve exited: see " + str(folder / "serve.log"))
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        proc.wait(30)
        log.close()


def create_table(base: str) -> str:
    """A fresh table's code (the page a guest opens from the QR code)."""
    body = json.dumps({"name": "测试桌"}).encode()
    request = urllib.request.Request(
        base + "/api/tables", body, {"Content-Type": "application/json"}, method="POST"
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        code: str = json.load(response)["code"]
        return code


def lighthouse(url: str, out: Path) -> dict[str, float]:
    """One Lighthouse run (mobile, simulated slow 4G): the audits of AUDITS."""
    subprocess.run(
        [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={out}"]
        + ["--only-categories=performance,accessibility,seo,best-practices"]
        + ["--chrome-flags=--headless=new --no-sandbox --disable-gpu"],
        check=True,
        env=dict(os.environ, CHROME_PATH=CHROME),
    )
    report: dict[str, Any] = json.loads(out.read_text())
    found: dict[str, float] = {}
    for name, (kind, key) in AUDITS.items():
        item = report[kind][key]
        if kind == "categories":
            found[name] = float(item["score"])
        elif name == "requests":
            found[name] = float(len(item["details"]["items"]))
        elif name == "cls":
            found[name] = float(item["numericValue"])
        elif name == "transferred_kib":
            found[name] = float(item["numericValue"]) / 1024
        else:
            found[name] = float(item["numericValue"]) / 1000
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the medians as JSON")
    args = parser.parse_args()
    if not ensure_lighthouse():
        return 0
    version = subprocess.run(
        [str(LIGHTHOUSE), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    medians: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp, serving(Path(tmp)) as base:
        code = create_table(base)
        for page, path in (("/", "/"), ("/t/CODE", f"/t/{code}")):
            runs = [
                lighthouse(base + path, Path(tmp) / f"run-{len(medians)}-{i}.json")
                for i in range(args.runs)
            ]
            medians[page] = {k: statistics.median(r[k] for r in runs) for k in AUDITS}
    if args.json:
        print(json.dumps(medians, indent=2))
    print(f"Lighthouse {version}, {args.runs} runs per page, medians (mobile, simulated slow 4G)")
    print(f"{'audit':<18}" + "".join(f"{page:>12}" for page in medians))
    for key in AUDITS:
        print(f"{key:<18}" + "".join(f"{medians[page][key]:>12.2f}" for page in medians))
    failed = 0
    for page, key, sense, limit in BUDGETS:
        value = medians[page][key]
        ok = value <= limit if sense == "≤" else value >= limit
        failed += not ok
        print(f"budget {page} {key} {sense} {limit}: {value:.2f}  {'pass' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
