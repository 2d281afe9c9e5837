"""What one Redis signal costs an instance, against the in-process broker as the baseline.

    .venv/bin/python benchmarks/bench_broker.py [--redis redis://…/0] [--messages 20000]

Two brokers stand for two instances. ``--messages`` messages of a throw's size (a live
``events`` frame of a throw at a table of ten, about 0.45 KB) are published by one and must all
arrive, in order, at the other; the rate is messages per second end to end, and the CPU time of
this process per message (both brokers live here, so it is the cost of publishing plus
receiving: what the instances pay for a throw at a table whose phones are on both; with table
affinity a table's channel is quiet and costs nothing). Measured in the same run:

- ``memory://``: the in-process broker (a function call per subscriber) — the baseline;
- ``redis://``, two ways of reading Redis's replies: redis-py's own parser in Python, and
  ``hiredis`` (its C parser, which redis-py uses whenever it is installed; ``bobing`` depends on
  ``redis[hiredis]``) — each :class:`RedisBroker` with queued, pipelined PUBLISH on one
  connection, a listener parsing each message, local-first delivery.

The ratios say what crossing instances costs compared with staying in one.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from bobing.process.loop import loop_factory
from bobing.realtime import MemoryBroker
from bobing.realtime.broker import Broker
from bobing.realtime.redis import RedisBroker

FRAME = (
    '{"type":"events","after":41,"common":{"at":"2026-09-17T12:00:00.000Z","throw":17,'
    '"player":"李四"},"events":[{"seq":42,"type":"dice","nonce":"' + "n" * 22 + '",'
    '"source":"server"},{"seq":43,"type":"thrown","dice":"4-4-4-4-2-1","hand":"sijin"},'
    '{"seq":44,"type":"award","tier":"sijin","from":"pool","to":"李四"}],'
    '"patch":[[["next"],"王五"],[["holdings","李四","sijin"],2],[["pool","sijin"],5],'
    '[["standing",3],{"player":"李四","cakes":4,"best":"sijin"}]]}'
)
"""A live frame of a throw at a table of ten, as docs/protocol.md describes it."""


class ParsedWith(RedisBroker):
    """A :class:`RedisBroker` whose connections read replies with ``parser`` (a redis-py
    parser class), so both parsers can be measured in one run."""

    def __init__(self, url: str, parser: Any) -> None:
        super().__init__(url)
        self.parser = parser

    def _client(self, module: Any) -> Any:
        client = super()._client(module)
        client.connection_pool.connection_kwargs["parser_class"] = self.parser
        return client


def parsers() -> dict[str, Any]:
    """redis-py's parsers to compare: its own (Python), and hiredis's when it is installed."""
    from redis._parsers import _AsyncHiredisParser, _AsyncRESP2Parser
    from redis.utils import HIREDIS_AVAILABLE

    found: dict[str, Any] = {"python parser": _AsyncRESP2Parser}
    if HIREDIS_AVAILABLE:
        found["hiredis"] = _AsyncHiredisParser
    return found


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
    parser.add_argument("--rounds", type=int, default=3, help="best of this many rounds each")
    args = parser.parse_args()
    size = len(FRAME.encode("utf-8"))
    best: dict[str, tuple[float, float]] = {}

    def keep(name: str, result: tuple[float, float]) -> None:
        if name not in best or result[1] < best[name][1]:
            best[name] = result

    for _ in range(args.rounds):  # interleaved, so a busy moment hits every contender
        memory = MemoryBroker()
        keep("memory://", await run(memory, memory, args.messages))
        for name, parser_class in parsers().items():
            a, b = ParsedWith(args.redis, parser_class), ParsedWith(args.redis, parser_class)
            await a.start()
            await b.start()
            try:
                keep(f"redis:// ({name})", await run(a, b, args.messages))
            finally:
                await a.close()
                await b.close()
    print(
        f"{args.messages:,} messages of {size:,} bytes, publisher -> subscriber "
        f"(best of {args.rounds} rounds)"
    )
    baseline = best["memory://"][1]
    for name, (rate, cpu) in best.items():
        ratio = "baseline" if name == "memory://" else f"{cpu / baseline:6.1f}x the baseline"
        print(f"{name:26} {rate:>10,.0f} messages/s {cpu:8.1f} us CPU each   {ratio}")
    if "redis:// (hiredis)" in best:
        saved = best["redis:// (python parser)"][1] - best["redis:// (hiredis)"][1]
        print(f"hiredis saves {saved:.1f} us of CPU per message")
    else:
        print("hiredis is not installed: pip install 'redis[hiredis]'")


if __name__ == "__main__":
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main())
