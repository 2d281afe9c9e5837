"""The rate-limit call of a route: one action counted against the client's address."""

from __future__ import annotations

from starlette.requests import Request

from bobing.web.ratelimit import RateLimiter, address_key


async def count_request(request: Request, action: str) -> str:
    """Count one ``action`` against the request's client address (``rate_limited`` when over;
    nothing is counted by an app without a limiter) and return the hashed address, for
    quotas: the one way a route takes from a rate."""
    address = request.client.host if request.client is not None else None
    limiter: RateLimiter | None = getattr(request.app.state, "rate_limiter", None)
    if limiter is None:
        return address_key(address)
    await limiter.acquire(action, address or "?")
    return limiter.address_key(address)
