"""An honest lobby's latency while strangers send hundreds of distinct rule sets (issue 29).

    .venv/bin/python benchmarks/bench_rulebook.py [--strangers 4950] [--addresses 90]
        [--concurrency 30] [--seconds 20]

One real ``bobing serve`` (its own process, a temporary SQLite file, ``X-Forwarded-For``
believed from 127.0.0.1 so the strangers come from ``--addresses`` addresses). An honest
client, in a process of its own (the strangers' client loop must not delay its clock), asks
every 20 ms for what a table's phones ask for (the table by its code, the preset's rulebook,
the limits) and records each answer's time: first alone (the baseline, ``--seconds``), then
while the strangers post ``--strangers`` distinct rule objects (each one a rulebook to build:
18-50 ms of the engine), ``--concurrency`` at a time. Prints the honest client's median, p99
and worst in both phases, what the strangers got (200, 429 rate_limited, 503 busy) and the
machine's load average. The goal: the honest p99 under 150 ms throughout.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from itertools import count
from pathlib import Path
from typing import Any

import httpx

from bobing.web.serve import bind

HONEST_EVERY = 0.02
"""Seconds between two of the honest client's requests."""
HONEST_ASKS: list[tuple[str, str, Any]] = [
    ("GET", "/api/tables/{code}", None),
    ("POST", "/api/rulebook", "traditional"),
    ("GET", "/api/limits", None),
]
"""What a table's phone asks for: its table, its rulebook (kept: free), the limits."""


def rule_objects(n: int) -> list[dict[str, Any]]:
    """``n`` distinct valid rule objects (the presets with other prize counts)."""
    out = []
    for i in range(n):
        prizes = {
            "zhuangyuan": 1,
            "duitang": 2,
            "sanhong": 4,
            "sijin": 8,
            "erju": 1 + i // 99,
            "yixiu": 1 + i % 99,
        }
        out.append({"preset": ("traditional", "modern", "jinhua")[i % 3], "prizes": prizes})
    return out


async def honest(base: str, code: str, stop: asyncio.Event) -> list[float]:
    """Ask what a phone asks, one request every ``HONEST_EVERY`` s, until ``stop``; each
    answer's time (an error counts as the time it took to fail, and is said)."""
    times = []
    errors = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for i in count():
            if stop.is_set():
                break
            method, path, body = HONEST_ASKS[i % len(HONEST_ASKS)]
            start = time.perf_counter()
            try:
                response = await http.request(method, path.format(code=code), json=body)
                response.raise_for_status()
            except httpx.HTTPError:
                errors += 1
            times.append(time.perf_counter() - start)
            await asyncio.sleep(HONEST_EVERY)
    if errors:
        print(f"honest client: {errors} errors", file=sys.stderr)
    return times


def honest_process(base: str, code: str) -> None:
    """The honest client in a process of its own (the strangers' client loop must not delay
    its measurements): asks until its standard input closes, then prints its times."""
    stop = asyncio.Event()

    async def run() -> list[float]:
        loop = asyncio.get_running_loop()
        waiting = loop.run_in_executor(None, sys.stdin.read)
        waiting.add_done_callback(lambda _: stop.set())
        return await honest(base, code, stop)

    print(json.dumps(asyncio.run(run())))


class Honest:
    """The honest client's process for one phase."""

    def __init__(self, base: str, code: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--honest", base, code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def stop(self) -> list[float]:
        out, _ = self.process.communicate("", timeout=120)
        times: list[float] = json.loads(out)
        return times


async def strangers(
    base: str, specs: list[dict[str, Any]], addresses: int, at_once: int
) -> Counter[str]:
    got: Counter[str] = Counter()
    queue: asyncio.Queue[tuple[int, dict[str, Any]]] = asyncio.Queue()
    for item in enumerate(specs):
        queue.put_nowait(item)

    async def one(http: httpx.AsyncClient) -> None:
        while not queue.empty():
            i, spec = queue.get_nowait()
            address = f"10.{i % addresses // 250}.{i % addresses % 250}.1"
            try:
                response = await http.post(
                    "/api/rulebook", json=spec, headers={"X-Forwarded-For": address}
                )
                got[str(response.status_code)] += 1
            except httpx.HTTPError as exc:
                got[type(exc).__name__] += 1

    async with httpx.AsyncClient(
        base_url=base, timeout=60, limits=httpx.Limits(max_connections=at_once)
    ) as http:
        await asyncio.gather(*(one(http) for _ in range(at_once)))
    return got


def summary(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    return (
        f"{len(ms)} requests: median {statistics.median(ms):.1f} ms, p99 {p99:.1f} ms, "
        f"worst {ms[-1]:.1f} ms"
    )


async def measure(base: str, args: argparse.Namespace) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = await http.post("/api/tables", json={"name": "honest"})
        created.raise_for_status()
        code = created.json()["code"]
    alone = Honest(base, code)
    await asyncio.sleep(args.seconds)
    baseline = alone.stop()
    print(f"honest client alone:            {summary(baseline)}", flush=True)
    beside = Honest(base, code)
    await asyncio.sleep(1)  # its first requests answered before the strangers come
    start = time.perf_counter()
    got = await strangers(base, rule_objects(args.strangers), args.addresses, args.concurrency)
    took = time.perf_counter() - start
    loaded = beside.stop()
    print(f"honest client beside strangers: {summary(loaded)}")
    answers = ", ".join(f"{code}: {n}" for code, n in sorted(got.items()))
    print(
        f"strangers: {args.strangers} distinct rule sets from {args.addresses} addresses "
        f"in {took:.1f} s ({answers}); load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strangers", type=int, default=4950)
    parser.add_argument("--addresses", type=int, default=90)
    parser.add_argument("--concurrency", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--honest", nargs=2, metavar=("BASE", "CODE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.honest:
        honest_process(*args.honest)
        return
    with tempfile.TemporaryDirectory() as folder:
        sock = bind("127.0.0.1", 0)
        port = sock.getsockname()[1]
        sock.close()
        bobing = Path(sys.executable).with_name("bobing")
        server = subprocess.Popen(
            [str(bobing), *f"serve --host 127.0.0.1 --port {port}".split()]
            + ["--db", f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}"]
            + ["--forwarded-allow-ips", "127.0.0.1"],
            stdout=subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    httpx.get(base + "/api/health", timeout=1).raise_for_status()
                    break
                except httpx.HTTPError:
                    time.sleep(0.05)
            asyncio.run(measure(base, args))
        finally:
            server.terminate()
            server.wait(30)


if __name__ == "__main__":
    main()
