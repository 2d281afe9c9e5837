"""The CPU of a throw's state, patch and frame: what the table server does after each commit.

    .venv/bin/python benchmarks/bench_state.py [--players 10] [--throws 1000] [--repeat 5]

A real game is played once through the table service (SQLite in a temporary folder, server
dice, big prizes so that it lasts ``--throws`` throws), and every commit is recorded: the
plan it came from and the events the log stored. Then the commits are replayed ``--repeat``
times into a fresh runtime by the service's own code after a commit, and only that is timed
(CPU time, ``time.process_time``): ``TableService._committed`` (the fold of each event, their
JSON, the new state and its patch) and ``TableService._publish`` (the ``events`` frame; the
broker is a stub, the timers too). Nothing is decided again and nothing is written: the game
of each commit is the one the service decided.

It prints the CPU per throw of that (the best pass, and the median throw), after checking that
every replayed frame is the frame the service published, byte for byte, and that a client
applying the patches holds the state the server sends (``--no-check`` skips it). That the
frames are the ones the code before issue 32 sent is ``tests/web/test_state_patch.py``'s.
Run it against another checkout with ``PYTHONPATH=that/checkout`` for a before/after.

``--profile`` runs the replay under cProfile and prints the top functions.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import pstats
import statistics
import time
from typing import Any

from service_here import play, temporary_service

from bobing.realtime.broker import table_channel
from bobing.storage.event_store import StoredEvent
from bobing.tables.commands import Plan
from bobing.tables.frames import decode_events
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.state import refresh_state, state_text
from bobing.tables.tokens import hash_token

LONG_GAME = {
    "zhuangyuan": 1,
    "duitang": 200,
    "sanhong": 200,
    "sijin": 200,
    "erju": 400,
    "yixiu": 800,
}

Tape = list[tuple[Plan, list[StoredEvent]]]


class Recording(TableService):
    """The table service, recording every commit (its plan and the stored events)."""

    tape: Tape

    def _committed(self, runtime: Runtime, plan: Plan, stored: list[StoredEvent]) -> Any:
        self.tape.append((plan, stored))
        return super()._committed(runtime, plan, stored)


async def record(players: int, throws: int, rules: Any) -> tuple[Runtime, Tape, list[str]]:
    """The table's first runtime (as created), every commit since, and the frames published."""
    frames: list[str] = []
    async with temporary_service(Recording) as service:
        service.tape = []
        created = await service.create_table(name="state", prizes=LONG_GAME, rules=rules)
        code = created.code
        first = await service.runtime(code)
        start = Runtime(
            info=first.info,
            rules=first.rules,
            seats=[],
            status="lobby",
            last_seq=first.last_seq,
        )
        host = [hash_token(created.host_token)]
        service.broker.subscribe(table_channel(code), frames.append)
        await play(service, code, host, players, throws)
        return start, service.tape, frames


class Stub:
    """What ``_committed`` and ``_publish`` use of the service: the timers (no-op) and a
    broker that keeps the last message."""

    def __init__(self) -> None:
        self.messages: list[str] = []
        stub = self

        class Broker:
            async def publish(self, channel: str, message: str) -> None:
                stub.messages.append(message)

        self.broker = Broker()

    def _arm(self, runtime: Runtime) -> None:
        pass


def fresh(start: Runtime) -> Runtime:
    """A runtime as the table was created."""
    runtime = Runtime(
        info=start.info, rules=start.rules, seats=[], status="lobby", last_seq=start.last_seq
    )
    refresh_state(runtime)
    return runtime


def replay(start: Runtime, tape: Tape) -> tuple[float, list[float], Stub, Runtime]:
    """One pass: (CPU seconds of the throws' commits, each throw's, the stub, the runtime)."""
    stub = Stub()
    runtime = fresh(start)
    loop = asyncio.new_event_loop()
    throws: list[float] = []
    clock = time.process_time
    try:
        for plan, stored in tape:
            began = clock()
            logged = TableService._committed(stub, runtime, plan, stored)  # type: ignore[arg-type]
            coro = TableService._publish(stub, runtime, logged)  # type: ignore[arg-type]
            with contextlib.suppress(StopIteration):  # the stub broker never waits
                coro.send(None)
            took = clock() - began
            if any(e.type == "thrown" for e in stored):
                throws.append(took)
    finally:
        loop.close()
    return sum(throws), throws, stub, runtime


def check(start: Runtime, tape: Tape, published: list[str]) -> None:
    """The replayed frames are the published ones, and the patches lead to the states."""
    _, _, stub, runtime = replay(start, tape)
    assert stub.messages == published, "a replayed frame differs from the one published"
    state: dict[str, Any] | None = json.loads(state_text(fresh(start)))
    for message in stub.messages:
        frame = json.loads(message.split(" ", 2)[2])
        _, state = decode_events(frame, state)
    assert state == json.loads(state_text(runtime)), "the patched state is not the server's"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--throws", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="passes over the commits")
    parser.add_argument("--rules", default=None, help="a preset name (default: traditional)")
    parser.add_argument("--no-check", action="store_true", help="skip the byte-for-byte check")
    parser.add_argument("--profile", action="store_true", help="cProfile one pass")
    args = parser.parse_args()
    start, tape, published = asyncio.run(record(args.players, args.throws, args.rules))
    if not args.no_check:
        check(start, tape, published)
    if args.profile:
        profile = cProfile.Profile()
        profile.enable()
        replay(start, tape)
        profile.disable()
        pstats.Stats(profile).sort_stats("tottime").print_stats(25)
    passes = [replay(start, tape) for _ in range(args.repeat)]
    count = len(passes[0][1])
    best = min(total for total, *_ in passes)
    every = [t for _, throws, *_ in passes for t in throws]
    print(
        f"{count} throws at a table of {args.players} ({len(tape)} commits), "
        f"best of {args.repeat} passes: {best / count * 1e6:.1f} µs a throw "
        f"(median throw {statistics.median(every) * 1e6:.1f} µs)"
        + ("" if args.no_check else "; frames and states checked")
    )


if __name__ == "__main__":
    main()
