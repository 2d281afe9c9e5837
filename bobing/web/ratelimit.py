"""Per-address rate limits: a token bucket per (action, address), answered ``rate_limited``.

:class:`RateLimiter` keeps its buckets in this process. Memory is bounded: at most
:data:`MAX_KEYS` buckets, the least recently used forgotten first (a forgotten bucket is full
again, which only errs towards letting an honest client in).

:class:`SharedRateLimiter` keeps them in Redis (the broker's server), so several instances
behind one proxy allow an address the rate once, not once each. One atomic script takes a
token, on Redis's own clock (the instances' clocks never disagree about a bucket). When Redis
does not answer within its ``timeout`` (the ``shared_limits_wait`` limit), the instance counts
in its own buckets until Redis is back (:data:`SHARED_RETRY` seconds later): a broken Redis
never stalls a request or lifts the limits, it only makes them per instance for a while.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from bobing.realtime.broker import broker_scheme
from bobing.realtime.redis import _redis_module, safe_url
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError

log = logging.getLogger("bobing.web")

MAX_KEYS = 50_000
DEFAULT_WAIT = Limits().shared_limits_wait
"""Seconds a request waits for Redis unless the server says otherwise (its limits)."""
SHARED_RETRY = 5.0
"""Seconds between two tries of a Redis that did not answer."""
FOUND_FOR = 600.0
"""Seconds an address may look a code it found up again without drawing on its look-ups."""


class RateLimiter:
    """``check(action, address)`` takes one token from that bucket or raises ``rate_limited``."""

    def __init__(
        self,
        per_minute: dict[str, float],
        *,
        clock: Callable[[], float] = time.monotonic,
        max_keys: int = MAX_KEYS,
        secret: str = "",
    ) -> None:
        self.per_minute = per_minute
        self.clock = clock
        self.max_keys = max_keys
        self.secret = secret
        """The deployment's key of address hashes (:meth:`address_key`)."""
        self._buckets: OrderedDict[tuple[str, str], tuple[float, float]] = OrderedDict()
        self._found: OrderedDict[tuple[str, str], float] = OrderedDict()

    async def look_up(self, address: str | None, name: str) -> None:
        """Before a look-up by code (``name``: ``tables/CODE``, ``events/CODE``): free when
        the address found that code lately, else one ``lookup`` token (hit or miss, so a
        guesser tries at most ``lookups_per_minute`` codes a minute, while a room behind one
        address, which names a few codes over and over, never runs out)."""
        key = (address or "?", name)
        found = self._found.get(key)
        if found is not None and self.clock() - found < FOUND_FOR:
            return
        await self.acquire("lookup", address or "?")
        self.found(address, name)  # taken back by :meth:`missed` when it is no code

    def found(self, address: str | None, name: str) -> None:
        """``address`` found the code ``name`` (a look-up, or a claim with the right key):
        its look-ups of it are free for :data:`FOUND_FOR` seconds."""
        key = (address or "?", name)
        self._found[key] = self.clock()
        self._found.move_to_end(key)
        while len(self._found) > self.max_keys:
            self._found.popitem(last=False)

    def missed(self, address: str | None, name: str) -> None:
        """``name`` was no code: its next look-up from ``address`` draws on the look-ups."""
        self._found.pop((address or "?", name), None)

    async def acquire(self, action: str, address: str, cost: float = 1) -> None:
        """Allow one ``action`` from ``address`` now, or raise a 429 with ``retry_after``
        (what every route calls; here it never waits). ``cost=0`` only asks whether a token
        is left (a bucket counting failures: refuse while it is empty, take on a failure)."""
        self.check(action, address, cost)

    def check(self, action: str, address: str, cost: float = 1) -> None:
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
            raise refusal(action, rate, tokens)
        self._buckets[key] = (tokens - cost, now)
        while len(self._buckets) > self.max_keys:
            self._buckets.popitem(last=False)

    def address_key(self, address: str | None) -> str:
        """A client address as stored for quotas and in Redis keys (:func:`address_key`)."""
        return address_key(address, self.secret)

    async def close(self) -> None:
        """Let go of what the limiter holds (nothing, in this process)."""


def refusal(action: str, rate: float, tokens: float) -> ApiError:
    """The ``rate_limited`` problem for a bucket holding ``tokens`` (< 1) at ``rate`` a minute."""
    wait = max(1, math.ceil((1 - tokens) / (rate / 60)))
    return ApiError(
        "rate_limited",
        f"too many {action} requests from this address: at most {rate:g} a minute; "
        f"try again in {wait} s",
        action=action,
        limit=int(rate) if rate == int(rate) else rate,
        retry_after=wait,
    )


TAKE_TOKEN = """
local capacity = tonumber(ARGV[1])
local per_second = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_second)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / per_second) + 1)
return {allowed, tostring(tokens)}
"""
"""Take ``cost`` tokens (0: only look) from the bucket ``KEYS[1]`` (capacity, refill per
second) if one is left: ``{1|0, tokens}``.
The bucket expires once it would be full again, so Redis keeps only the busy ones."""


class SharedRateLimiter(RateLimiter):
    """The buckets in Redis (``redis://…``), shared by every instance that uses the same one."""

    def __init__(
        self,
        per_minute: dict[str, float],
        url: str,
        *,
        prefix: str = "bobing:rate:",
        timeout: float = DEFAULT_WAIT,
        retry: float = SHARED_RETRY,
        clock: Callable[[], float] = time.monotonic,
        secret: str = "",
    ) -> None:
        super().__init__(per_minute, clock=clock, secret=secret)
        self.url = url
        self.prefix = prefix
        self.timeout = timeout
        self.retry = retry
        self._client: Any = None
        self._script: Any = None
        self._down_until = 0.0
        self.fallbacks = 0
        """Requests counted in this instance's buckets because Redis did not answer."""
        self.redis_tries = 0
        """Requests sent to Redis (answered or not)."""

    async def acquire(self, action: str, address: str, cost: float = 1) -> None:
        rate = self.per_minute.get(action, 0)
        if rate <= 0:
            return
        if self.clock() < self._down_until:
            self.fallbacks += 1
            self.check(action, address, cost)
            return
        self.redis_tries += 1
        try:
            allowed, tokens = await asyncio.wait_for(
                self._take(action, address, rate, cost), self.timeout
            )
        except Exception as exc:  # Redis down, slow or refusing: count here for a while
            log.warning(
                "rate limits: Redis %s did not answer (%s); counting in this instance for %g s",
                safe_url(self.url),
                type(exc).__name__,
                self.retry,
            )
            self._down_until = self.clock() + self.retry
            self.fallbacks += 1
            self.check(action, address, cost)
            return
        if not allowed:
            raise refusal(action, rate, tokens)

    async def _take(
        self, action: str, address: str, rate: float, cost: float
    ) -> tuple[bool, float]:
        if self._script is None:
            self._client = _redis_module().from_url(
                self.url,
                decode_responses=True,
                socket_connect_timeout=self.timeout,
                socket_timeout=self.timeout,
            )
            self._script = self._client.register_script(TAKE_TOKEN)
        key = f"{self.prefix}{action}:{self.address_key(address)}"
        reply = await self._script(keys=[key], args=[max(rate, 1.0), rate / 60, cost])
        return bool(int(reply[0])), float(reply[1])

    async def close(self) -> None:
        if self._client is not None:
            client, self._client, self._script = self._client, None, None
            await client.aclose()


def rate_limiter(
    per_minute: dict[str, float],
    broker_url: str,
    *,
    deployment: str = "",
    secret: str = "",
    wait: float = DEFAULT_WAIT,
) -> RateLimiter:
    """The limiter for a server: shared through Redis when the broker is Redis, else local.

    ``deployment`` names what the instances share (their database): instances of one
    deployment share their buckets; another deployment on the same Redis has its own.
    ``secret`` is the deployment's key of address hashes (``Database.secret("address")``).
    """
    if broker_scheme(broker_url) != "memory":
        scope = hashlib.sha256(f"bobing-deployment:{deployment}".encode()).hexdigest()[:16]
        return SharedRateLimiter(
            per_minute, broker_url, prefix=f"bobing:rate:{scope}:", secret=secret, timeout=wait
        )
    return RateLimiter(per_minute, secret=secret)


def address_key(address: str | None, secret: str = "") -> str:
    """A client address as stored for quotas and in Redis keys: an HMAC-SHA-256 keyed with the
    deployment's secret, never the address itself, and not reversible by hashing every
    address (an unkeyed hash of an IPv4 address is: there are only 2**32 of them). The server
    always passes its secret (:meth:`RateLimiter.address_key`)."""
    message = f"bobing-address:{address or '?'}".encode()
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


NO_SUCH_CODE = frozenset({"table_not_found", "event_not_found"})
"""Answers that mean "no such code"."""
MISSES = NO_SUCH_CODE | {"claim_key_required"}
"""Answers to a wrong guess (a code, a claim key): counted per address
(``Limits.misses_per_minute``); a right code or key never is."""


def code_name(kind: str, code: str) -> str:
    """What :meth:`RateLimiter.look_up` remembers of a code: ``tables/ABCDEF``."""
    return f"{kind}/{code.strip().upper()[:16]}"


async def count_miss(limiter: RateLimiter, address: str | None) -> ApiError | None:
    """A wrong guess from the address: one miss; the ``rate_limited`` refusal to answer
    instead once it has used up its misses (so a guesser's wrong codes are refused, while
    the right codes and keys of everybody else behind that address are still answered)."""
    try:
        await limiter.acquire("miss", address or "?")
    except ApiError as refused:
        return refused
    return None
