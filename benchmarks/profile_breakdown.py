"""Where a throw's server time goes: a py-spy profile of ``bobing serve`` split into its parts.

Record a profile of a server at the load to study (docs/perf-notes.md, "At the floor"), with
py-spy's raw output and native frames:

    py-spy record -p PID -d 15 -r 100 -f raw -o profile.txt --native

then split its busy samples (a thread waiting for work, for the GIL or in ``epoll_wait`` is not
busy) into the parts of a throw, each sample counted once, in the first part its stack matches:

    python benchmarks/profile_breakdown.py profile.txt [--others 15]

Each line is a part's share of the busy samples; ``--others`` lists the commonest innermost
Python frames of what no part matched.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

PARTS: tuple[tuple[str, str], ...] = (
    # most specific first: a sample belongs to the first part its stack matches
    ("commit: the SQLite thread", r"_connection_worker_thread|_write_batch_sync"),
    (
        "commit: the event loop's side (store, SQLAlchemy, hand-offs)",
        r"EventStore\._write|EventStore\._writer|EventStore\.append|run_sync_write|greenlet",
    ),
    ("decide: the command's plan and the engine's throw", r"\.plan \(|plan_throw|Game\.throw"),
    (
        "state: the runtime, its patch and the frame",
        r"_committed|refresh_state|state_patch|events_frame|dynamic_state|state_text",
    ),
    ("fan-out: the frame to each socket", r"MemoryBroker\.publish|Hub\._deliver|DirectWriter"),
    ("the ack to the thrower", r"Connection\.send \(bobing|WebSocketsSansIOProtocol\.send"),
    ("REST requests", r"RequestResponseCycle|httptools_impl\.py"),
    ("reading: the WebSocket protocol", r"data_received|ServerProtocol\.parse|uv__read"),
    ("reading: the command's JSON and checks", r"decode_frame|parse_command|JSONDecoder"),
    ("the command's other work (lock, roles, digest, outcome)", r"_receive \(bobing"),
    ("collector", r"gc_collect|collect_main"),
    ("event loop: polling and scheduling", r"epoll|uv_run|Loop__run"),
)
IDLE = re.compile(
    r"clock_nanosleep|pthread_cond_wait|pthread_cond_timedwait|sem_wait|futex_wait|"
    r"_queue_SimpleQueue_get|PyThread_acquire_lock_timed|epoll_wait \(|do_epoll_wait"
)
"""A stack whose innermost frames wait (for work, a lock, the GIL, the network) is idle."""


def breakdown(lines: list[str]) -> tuple[int, int, Counter[str], Counter[str]]:
    """Samples in all, busy samples, busy samples per part, and per innermost Python frame
    of the samples no part matched."""
    total = busy = 0
    parts: Counter[str] = Counter()
    others: Counter[str] = Counter()
    patterns = [(name, re.compile(pattern)) for name, pattern in PARTS]
    for line in lines:
        if not line.strip():
            continue
        stack, count_text = line.rsplit(" ", 1)
        count = int(count_text)
        total += count
        frames = stack.split(";")
        if IDLE.search(";".join(frames[-3:])):
            continue
        busy += count
        for name, pattern in patterns:
            if pattern.search(stack):
                parts[name] += count
                break
        else:
            python = [f for f in frames if ".py" in f]
            others[re.sub(r":\d+\)", ")", python[-1] if python else frames[-1])] += count
    return total, busy, parts, others


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("profile", type=Path, help="py-spy record -f raw output")
    parser.add_argument("--others", type=int, default=10, help="unmatched frames to list")
    args = parser.parse_args(argv)
    try:
        lines = args.profile.read_text().splitlines()
    except OSError as exc:
        print(f"cannot read {args.profile}: {exc.strerror}", file=sys.stderr)
        return 2
    total, busy, parts, others = breakdown(lines)
    if not busy:
        print(f"{args.profile}: no busy samples (is it py-spy's raw format?)", file=sys.stderr)
        return 2
    print(f"{busy} busy samples of {total}")
    for name, _ in PARTS:
        print(f"{100 * parts[name] / busy:5.1f} %  {name}")
    print(f"{100 * sum(others.values()) / busy:5.1f} %  other")
    for frame, count in others.most_common(args.others):
        print(f"   {100 * count / busy:5.1f} %  {frame}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
