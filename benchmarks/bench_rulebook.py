"""An honest lobby's latency while strangers send hundreds of distinct rule sets (issue 29).

    .venv/bin/python benchmarks/bench_rulebook.py [--strangers 4950] [--addresses 90]
        [--concurrency 30] [--seconds 20]

One real ``bobing serve`` (its own process, a temporary SQLite file, ``X-Forwarded-For``
believed from 127.0.0.1 so the strangers come from ``--addresses`` addresses). An honest
client asks every 20 ms for what a table's phones ask for (the preset's rulebook, the limits,
the health check) and records each answer's time: first alone (the baseline, ``--seconds``),
then while the strangers post ``--strangers`` distinct rule objects (each one a rulebook to
build: 18-50 ms of the engine), ``--concurrency`` at a time. Prints the honest client's
median, p99 and worst in both phases and what the strangers got (200, 429 rate_limited, 503
busy). The goal: the honest p99 under 150 ms throughout.
"""

from __future__ import annotations

import argparse
import asyncio
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
    ("POST", "/api/rulebook", "traditional"),
    ("GET", "/api/limits", None),
    ("GET", "/api/health", None),
]


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


async def honest(base: str, stop: asyncio.Event) -> list[float]:
    times = []
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        for i in count():
            if stop.is_set():
                break
            method, path, body = HONEST_ASKS[i % len(HONEST_ASKS)]
            start = time.perf_counter()
            response = await http.request(method, path, json=body)
            times.append(time.perf_counter() - start)
            response.raise_for_status()
            await asyncio.sleep(HONEST_EVERY)
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
            response = await http.post(
                "/api/rulebook", json=spec, headers={"X-Forwarded-For": address}
            )
            got[str(response.status_code)] += 1

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
    stop = asyncio.Event()
    alone = asyncio.create_task(honest(base, stop))
    await asyncio.sleep(args.seconds)
    stop.set()
    baseline = await alone
    print(f"honest client alone:          {summary(baseline)}", flush=True)
    stop = asyncio.Event()
    beside = asyncio.create_task(honest(base, stop))
    start = time.perf_counter()
    got = await strangers(base, rule_objects(args.strangers), args.addresses, args.concurrency)
    took = time.perf_counter() - start
    stop.set()
    loaded = await beside
    print(f"honest client beside strangers: {summary(loaded)}")
    answers = ", ".join(f"{code}: {n}" for code, n in sorted(got.items()))
    print(
        f"strangers: {args.strangers} distinct rule sets from {args.addresses} addresses "
        f"in {took:.1f} s ({answers})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strangers", type=int, default=4950)
    parser.add_argument("--addresses", type=int, default=90)
    parser.add_argument("--concurrency", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        sock = bind("127.0.0.1", 0)
        port = sock.getsockname()[1]
        sock.close()
        bobing = Path(sys.executable).with_name("bobing")
        server = subprocess.Popen(
            [
                str(bobing),
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--db",
                f"sqlite+aiosqlite:///{Path(folder) / 'bench.sqlite3'}",
                "--forwarded-allow-ips",
                "127.0.0.1",
            ],
            env={
                **os.environ,
                "BOBING_LIMIT_WORKER_NICE": os.environ.get("BOBING_LIMIT_WORKER_NICE", "19"),
            },
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
