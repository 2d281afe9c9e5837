"""The event loop and the open-file limit of a process that holds many sockets, and the
priority of the worker processes beside it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when available (it comes with uvicorn[standard]; not on Windows):
    with a thousand sockets, the loop's own overhead is a large part of each frame's cost."""
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def raise_open_files(wanted: int | None = None) -> int:
    """Raise this process's open-file limit towards the hard limit; returns the new soft limit.

    Every socket is a file descriptor, and the usual soft limit (1024) is far below 10,000
    phones. Only root can raise the hard limit (``ulimit -Hn``, systemd ``LimitNOFILE=``).
    """
    try:
        import resource
    except ImportError:  # Windows: no such limit
        return wanted or 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    ceiling = 1 << 20 if hard == resource.RLIM_INFINITY else hard
    target = ceiling if wanted is None else min(wanted, ceiling)
    if target > soft:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return int(resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def background_priority(nice: int) -> None:
    """A worker process (analysis, photos) yields the CPU to the server's: the tables' throws
    come first (the initializer of their process pools)."""
    if nice:
        with contextlib.suppress(AttributeError, OSError):  # no os.nice on Windows
            os.nice(nice)


GIVE_WAY_EVERY = 0.001
"""Seconds a worker thread computes before it gives the interpreter back to the event loop."""


def giving_way(work: float = GIVE_WAY_EVERY) -> Callable[[], None]:
    """A call for the inner loop of pure-Python work in a thread beside the event loop: once
    ``work`` seconds have passed since it last gave way, it sleeps as long.

    A thread computing holds the interpreter lock until the loop has waited the switch
    interval (5 ms) for it, after every wake-up: a loop with many sockets wakes hundreds of
    times a second, and an honest client's p99 grew sixfold behind one such thread
    (docs/benchmarks.md). Sleeping hands the lock over at once, so the loop waits at most
    ``work`` seconds for it and has at least half of the interpreter while the thread works.
    """
    clock = time.perf_counter
    since = clock()

    def give_way() -> None:
        nonlocal since
        if clock() - since >= work:
            time.sleep(work)
            since = clock()

    return give_way
