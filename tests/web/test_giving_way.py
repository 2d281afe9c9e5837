"""A worker thread beside the event loop gives the interpreter back (issue 29).

A rulebook is built in a thread; pure Python there holds the interpreter lock until the loop
has waited the switch interval for it, after every one of the loop's wake-ups.
:func:`giving_way` makes such a thread sleep as long as it has worked, so the loop has at
least half. Nothing here waits for a clock: the thread's own CPU time is compared with the
wall time it took (a loaded machine only lowers the share).
"""

from __future__ import annotations

import threading
import time

from bobing.engine.presets import MODERN
from bobing.i18n.rulebook import rulebook
from bobing.process.loop import giving_way


def _share_of_cpu() -> float:
    """The share of its wall time a thread building rulebooks spent computing."""
    shares: list[float] = []

    def build() -> None:
        between = giving_way()
        wall, cpu = time.perf_counter(), time.thread_time()
        for _ in range(3):
            rulebook(MODERN, "en", between=between)
        shares.append((time.thread_time() - cpu) / (time.perf_counter() - wall))

    worker = threading.Thread(target=build)
    worker.start()
    worker.join()
    return shares[0]


def test_a_thread_giving_way_computes_at_most_about_half_the_time() -> None:
    assert _share_of_cpu() < 0.6


def test_giving_way_sleeps_only_after_its_slice_of_work() -> None:
    give_way = giving_way(work=3600)
    started = time.perf_counter()
    for _ in range(1000):
        give_way()  # an hour's slice: never sleeps
    assert time.perf_counter() - started < 1
