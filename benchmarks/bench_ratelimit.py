"""What a shared rate limit costs a request, against the in-process limiter as the baseline.

    .venv/bin/python benchmarks/bench_ratelimit.py [--redis redis://…/0] [--requests 5000]

Each limiter takes ``--requests`` tokens one after the other, every request from a different
address (so each takes a fresh bucket and none is refused), and the figure is the wall time
per request, median and 99th percentile, and the CPU time of this process per request:

- ``local``: :class:`RateLimiter`, buckets in the process — the baseline;
- ``redis``: :class:`SharedRateLimiter`, one atomic script per request on a Redis every
  instance shares (a round trip on loopback here).

The ratio says what sharing the limits between instances adds to a create, join or analysis
request (throws and other WebSocket commands are not rate-limited and pay nothing).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid

from bobing.web.ratelimit import RateLimiter, SharedRateLimiter


async def measure(limiter: RateLimiter, requests: int) -> dict[str, float]:
    waits = []
    cpu = time.process_time()
    for i in range(requests):
        started = time.perf_counter()
        await limiter.acquire("join", f"10.{i // 65536}.{i // 256 % 256}.{i % 256}")
        waits.append(time.perf_counter() - started)
    cpu = time.process_time() - cpu
    waits.sort()
    return {
        "p50_us": statistics.median(waits) * 1e6,
        "p99_us": waits[int(len(waits) * 0.99)] * 1e6,
        "cpu_us": cpu / requests * 1e6,
    }


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--requests", type=int, default=5000)
    args = parser.parse_args()
    rates = {"join": 30.0}
    local = RateLimiter(rates)
    shared = SharedRateLimiter(rates, args.redis, prefix=f"bobing:bench:{uuid.uuid4().hex}:")
    try:
        await measure(shared, 200)  # connect and load the script first
        results = {
            "local": await measure(local, args.requests),
            "redis": await measure(shared, args.requests),
        }
        if shared.fallbacks:
            raise SystemExit(f"Redis did not answer {shared.fallbacks} times: not a measurement")
    finally:
        await shared.close()
    for name, row in results.items():
        print(
            f"{name:6} p50 {row['p50_us']:8.1f} µs   p99 {row['p99_us']:8.1f} µs   "
            f"CPU {row['cpu_us']:7.1f} µs per request"
        )
    base, other = results["local"], results["redis"]
    print(
        f"redis / local: p50 {other['p50_us'] / base['p50_us']:.0f}×, "
        f"CPU {other['cpu_us'] / base['cpu_us']:.0f}× "
        f"(+{other['p50_us'] - base['p50_us']:.0f} µs a request)"
    )


if __name__ == "__main__":
    asyncio.run(main())
