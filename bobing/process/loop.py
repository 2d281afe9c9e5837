"""The event loop and the open-file limit of a process that holds many sockets, and the
priority of the worker processes beside it."""

from __future__ import annotations

import asyncio
import contextlib
import os
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
