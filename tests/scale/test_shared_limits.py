"""Rate limits shared through Redis: several instances allow an address the rate once, not once
each; another deployment on the same Redis counts apart; a Redis that does not answer makes the
limits per instance for a while, never absent and never slow."""

from __future__ import annotations

import uuid

import httpx
import pytest
from scaletools import Cluster, free_port
from webtools import SMALL_PRIZES, TIMEOUT, Client, create_table, join

from bobing.tables.problems import ApiError
from bobing.web.ratelimit import SharedRateLimiter, rate_limiter

# Seconds the limiters and servers here wait for Redis: these tests are about what is shared,
# not about a slow Redis (the last test's), and on a loaded CI machine a first connection may
# take longer than the product's half second (a fallback then failed the count in a CI run).
PATIENT = 10.0


async def test_two_instances_share_one_create_rate(cluster: Cluster, redis_url: str) -> None:
    """Two `bobing serve` instances share one create rate through Redis. Long by the start of
    two instances on PostgreSQL (about 5 s alone; more while the run keeps both cores busy)."""
    a, b = (
        i.url
        for i in cluster(
            2, redis_url, limits=("create_per_minute=4", f"shared_limits_wait={PATIENT}")
        )
    )
    body = {"name": "限速", "mode": "online", "prizes": SMALL_PRIZES}
    statuses = []
    for base in (a, b, a, b, a, b):
        async with httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http:
            response = await http.post("/api/tables", json=body)
        statuses.append(response.status_code)
        if response.status_code == 429:
            problem = response.json()
            assert problem["code"] == "rate_limited", problem
            assert problem["params"]["limit"] == 4
            assert int(response.headers["Retry-After"]) >= 1
    # each instance alone would have allowed 4 (8 in all); together they allow 4
    assert statuses == [201, 201, 201, 201, 429, 429]


async def test_two_instances_share_one_reaction_rate(cluster: Cluster, redis_url: str) -> None:
    """Issue 16: reactions were limited per sender in each instance's memory only, so
    alternating two instances stored 92 reactions in 6 s against 4 on one."""
    a, b = (
        i.url
        for i in cluster(
            2, redis_url, limits=("reactions_per_minute=4", f"shared_limits_wait={PATIENT}")
        )
    )
    async with httpx.AsyncClient(base_url=a, timeout=TIMEOUT) as http:
        created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
        code = created["code"]
        tokens = [created["host_token"]]
        for name in ("甲", "乙"):
            tokens.append((await join(http, code, name))["player_token"])
    # Three senders (the per-sender gap never applies), each on both instances.
    replies = []
    for base in (a, b):
        for token in tokens:
            client = await Client.connect(base, code, [token])
            replies.append(await client.command("react", emoji="👏"))
            await client.close()
    codes = [r["type"] if r["type"] == "ack" else r["code"] for r in replies]
    # each instance alone would have allowed all six; together they allow the rate, 4
    assert codes == ["ack"] * 4 + ["rate_limited"] * 2, codes


async def test_deployments_on_one_redis_count_apart(redis_url: str) -> None:
    run = uuid.uuid4().hex
    first = rate_limiter({"join": 2}, redis_url, deployment=f"db-one-{run}", wait=PATIENT)
    second = rate_limiter({"join": 2}, redis_url, deployment=f"db-two-{run}", wait=PATIENT)
    twin = rate_limiter({"join": 2}, redis_url, deployment=f"db-one-{run}", wait=PATIENT)
    try:
        assert isinstance(first, SharedRateLimiter)
        await first.acquire("join", "10.0.0.7")
        await twin.acquire("join", "10.0.0.7")  # the same deployment: the second token
        with pytest.raises(ApiError) as refused:
            await first.acquire("join", "10.0.0.7")
        assert refused.value.code == "rate_limited"
        assert refused.value.params["retry_after"] >= 1
        await first.acquire("join", "10.0.0.8")  # another address has its own bucket
        await second.acquire("join", "10.0.0.7")  # another deployment too
        await second.acquire("join", "10.0.0.7")
        assert first.fallbacks == twin.fallbacks == second.fallbacks == 0
    finally:
        for limiter in (first, second, twin):
            await limiter.close()


async def test_an_unreachable_redis_falls_back_to_this_instance(redis_url: str) -> None:
    # nothing listens on this port: every try fails at once, then Redis is not tried for a while
    limiter = SharedRateLimiter(
        {"create": 2}, f"redis://127.0.0.1:{free_port()}/0", timeout=0.5, retry=60
    )
    try:
        await limiter.acquire("create", "10.0.0.9")
        await limiter.acquire("create", "10.0.0.9")
        with pytest.raises(ApiError) as refused:
            await limiter.acquire("create", "10.0.0.9")
        assert refused.value.code == "rate_limited"
        assert limiter.fallbacks == 3
        # one failed try, then Redis is left alone until `retry` has passed
        assert limiter.redis_tries == 1
    finally:
        await limiter.close()
    # a memory broker keeps the limits in the process
    assert not isinstance(rate_limiter({"create": 2}, "memory://"), SharedRateLimiter)
