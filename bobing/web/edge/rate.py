"""The rate-limit call of a route: one action counted against the client's address."""

from __future__ import annotations

from starlette.requests import Request

from bobing.web.ratelimit import RateLimiter, address_key, code_name


async def count_request(request: Request, action: str) -> str:
    """Count one ``action`` against the request's client address (``rate_limited`` when over;
    nothing is counted by an app without a limiter) and return the hashed address, for
    quotas: the one way a route takes from a rate."""
    address = client_address(request)
    limiter: RateLimiter | None = getattr(request.app.state, "rate_limiter", None)
    if limiter is None:
        return address_key(address)
    await limiter.acquire(action, address or "?")
    return limiter.address_key(address)


def client_address(request: Request) -> str | None:
    """The address a request came from, as the rate limits key it (None: unknown)."""
    return request.client.host if request.client is not None else None


def found_codes(request: Request, kind: str, *codes: str) -> None:
    """The client found these codes of ``kind`` (``tables``, ``events``): it made them, or
    claimed a seat with the right key. Looking them up costs its address nothing from now on
    (:meth:`RateLimiter.look_up`): an organiser who made 40 tables, or a room of guests, never
    runs out of look-ups on codes it was given."""
    limiter: RateLimiter | None = getattr(request.app.state, "rate_limiter", None)
    if limiter is None:
        return
    address = client_address(request)
    for code in codes:
        limiter.found(address, code_name(kind, code))
