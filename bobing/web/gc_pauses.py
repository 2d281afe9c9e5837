"""Keeping the garbage collector's pauses short while thousands of sockets stay open.

CPython's full collection walks every tracked object. With 10,000 phones connected that is
millions of objects (each socket's protocol, transport, tasks and queues) and a pause of a
few hundred milliseconds — longer than the whole latency budget of a throw. A table's
sockets live for the whole game, so they are moved out of the collector's reach
(``gc.freeze()``) as the number of sockets grows; reference counting still frees them when
they close. Cycles among frozen objects are only reclaimed when enough of them have left:
once the sockets have dropped to half of what was frozen, the heap is unfrozen and collected
once (a deliberate pause, at a time when load is falling) and frozen again.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger("bobing.web")


class HeapKeeper:
    """Freezes the heap as sockets are added; collects it once when they have halved."""

    def __init__(
        self,
        connections: Callable[[], int],
        *,
        grow: float = 0.1,
        min_step: int = 200,
        reclaim_below: float = 0.5,
        reclaim_from: int = 1000,
    ) -> None:
        self.connections = connections
        self.grow = grow
        self.min_step = min_step
        self.reclaim_below = reclaim_below
        self.reclaim_from = reclaim_from
        self.frozen_at = 0
        """Open sockets when the heap was last frozen."""
        self.freezes = 0
        self.reclaims = 0

    def step(self) -> str | None:
        """Freeze or reclaim if the number of sockets says so; returns what it did."""
        live = self.connections()
        if live >= self.frozen_at + max(self.min_step, int(self.grow * self.frozen_at)):
            gc.freeze()
            self.frozen_at = live
            self.freezes += 1
            return "freeze"
        if self.frozen_at >= self.reclaim_from and live < self.frozen_at * self.reclaim_below:
            started = time.perf_counter()
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            log.info(
                "reclaimed the heap of %d closed sockets in %.0f ms",
                self.frozen_at - live,
                (time.perf_counter() - started) * 1000,
            )
            self.frozen_at = live
            self.reclaims += 1
            return "reclaim"
        return None

    async def run(self, every: float = 1.0) -> None:
        """Check every ``every`` seconds, forever."""
        while True:
            await asyncio.sleep(every)
            self.step()
