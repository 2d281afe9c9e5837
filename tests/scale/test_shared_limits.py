"""Rate limits shared through Redis: several instances allow an address the rate once, not once
each; another deployment on the same Redis counts apart; a Redis that does not answer makes the
limits per instance for a while, never absent and never slow."""

from __future__ import annotations

import uuid

import httpx
import pytest
from scaletools import Cluster, free_port
from webtools import SMALL_PRIZES, TIMEOUT

from bobing.tables.problems import ApiError
from bobing.web.ratelimit import SharedRateLimiter, rate_limiter


async def test_two_instances_share_one_create_rate(cluster: Cluster, redis_url: str) -> None:
    a, b = (i.url for i in cluster(2, redis_url, limits=("create_per_minute=4",)))
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


async def test_deployments_on_one_redis_count_apart(redis_url: str) -> None:
    run = uuid.uuid4().hex
    first = rate_limiter({"join": 2}, redis_url, deployment=f"db-one-{run}")
    second = rate_limiter({"join": 2}, redis_url, deployment=f"db-two-{run}")
    twin = rate_limiter({"join": 2}, redis_url, deployment=f"db-one-{run}")
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
