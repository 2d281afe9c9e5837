"""What one Redis signal costs an instance, against the in-process broker as the baseline.

    .venv/bin/python benchmarks/bench_broker.py [--redis redis://…/0] [--messages 20000]

Two brokers stand for two instances. ``--messages`` messages of a throw's size (the frame of
a throw with its state, about 2.5 KB) are published by one and must all arrive, in order, at
the other; the rate is messages per second end to end, and the CPU time of this process per
message (both brokers live here, so it is the cost of publishing plus receiving). Measured
in the same run:

- ``memory://``: the in-process broker (a function call per subscriber) — the baseline;
- ``redis://``: :class:`RedisBroker` — queued, pipelined PUBLISH on one connection, a
  listener parsing each message, local-first delivery.

The ratio says what crossing instances costs compared with staying in one.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from bobing.realtime import MemoryBroker
from bobing.realtime.broker import Broker
from bobing.realtime.redis import RedisBroker
from bobing.web.serve import loop_factory

FRAME = (
    '{"type":"events","events":['
    + ",".join(['{"seq":1,"type":"x","data":"' + "y" * 200 + '"}'] * 4)
    + '],"state":{'
    + '"k":"'
    + "v" * 1500
    + '"}}'
)


async def run(publisher: Broker, subscriber: Broker, messages: int) -> tuple[float, float]:
    got = 0
    done = asyncio.Event()
    order_ok = True

    def handler(message: str) -> None:
        nonlocal got, order_ok
        got += 1
        if not message.startswith(f"{got} "):
            order_ok = False
        if got == messages:
            done.set()

    confirmed = asyncio.Event()
    subscriber.on_resync(lambda _channel, _again: confirmed.set())
    subscriber.subscribe("bobing:table:BENCH1", handler)
    if isinstance(subscriber, RedisBroker):
        await asyncio.wait_for(confirmed.wait(), 10)
    wall, cpu = time.perf_counter(), time.process_time()
    for i in range(1, messages + 1):
        await publisher.publish("bobing:table:BENCH1", f"{i} {i} {FRAME}")
        if i % 500 == 0:
            await asyncio.sleep(0)  # a server publishes between other work, not in one burst
    await asyncio.wait_for(done.wait(), 120)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert order_ok, "messages arrived out of order"
    return messages / wall, cpu / messages * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--messages", type=int, default=20_000)
    args = parser.parse_args()
    memory = MemoryBroker()
    rate_memory, cpu_memory = await run(memory, memory, args.messages)
    a, b = RedisBroker(args.redis), RedisBroker(args.redis)
    await a.start()
    await b.start()
    try:
        rate_redis, cpu_redis = await run(a, b, args.messages)
    finally:
        await a.close()
        await b.close()
    print(f"{args.messages:,} messages of {len(FRAME):,} bytes, publisher -> subscriber")
    print(
        f"memory://   {rate_memory:>12,.0f} messages/s   {cpu_memory:8.1f} us CPU each (baseline)"
    )
    print(f"redis://    {rate_redis:>12,.0f} messages/s   {cpu_redis:8.1f} us CPU each")
    print(f"CPU ratio redis / memory   {cpu_redis / cpu_memory:8.1f}x")


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main())
