"""Per-address rate limits: a token bucket per (action, address), answered ``rate_limited``.

The buckets live in this process (several instances each allow the rate; a shared store is
the scale-out step, docs/security.md). Memory is bounded: at most :data:`MAX_KEYS` buckets, the
least recently used forgotten first (a forgotten bucket is full again, which only errs towards
letting an honest client in).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict
from collections.abc import Callable

from bobing.web.problems import ApiError

MAX_KEYS = 50_000


class RateLimiter:
    """``check(action, address)`` takes one token from that bucket or raises ``rate_limited``."""

    def __init__(
        self,
        per_minute: dict[str, float],
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()

    def check(self, action: str, address: str) -> None:
        """Allow one ``action`` from ``address`` now, or raise a 429 with ``retry_after``."""
        rate = self.per_minute.get(action, 0)
        if rate <= 0:
            return
        capacity = max(rate, 1.0)
        per_second = rate / 60
        now = self.clock()
        key = (action, address)
        tokens, then = self._buckets.pop(key, (capacity, now))
        tokens = min(capacity, tokens + (now - then) * per_second)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            wait = math.ceil((1 - tokens) / per_second)
            raise ApiError(
                "rate_limited",
                f"too many {action} requests from this address: at most {rate:g} a minute; "
                f"try again in {wait} s",
                action=action,
                limit=int(rate) if rate == int(rate) else rate,
                retry_after=wait,
            )
        self._buckets[key] = (tokens - 1, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)


def address_key(address: str | None) -> str:
    """A client address as stored for quotas: hashed, never the address itself."""
    return hashlib.sha256(f"bobing-address:{address or '?'}".encode()).hexdigest()
