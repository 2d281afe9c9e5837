"""Issue 16, low: the address hashes in Redis keys and quotas are keyed with a deployment secret.

Before the fix they were an unkeyed SHA-256 of ``bobing-address:`` and the address, which anyone
reverses by hashing the 2**32 IPv4 addresses (127.0.0.1 came back from a Redis key). The key is
a random secret stored once in the database, so every instance of a deployment shares it and
a restart keeps it.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from bobing.storage import Database
from bobing.web.ratelimit import RateLimiter, address_key

UNKEYED = hashlib.sha256(b"bobing-address:127.0.0.1").hexdigest()


async def test_the_secret_is_made_once_and_shared(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
    first, second = Database(url), Database(url)
    await first.migrate()
    try:
        secret = await first.secret("address")
        assert len(secret) == 64 and int(secret, 16) >= 0
        assert await second.secret("address") == secret  # another instance, same database
        assert await first.secret("address") == secret  # and again: made once
    finally:
        await first.dispose()
        await second.dispose()
    other = Database(f"sqlite+aiosqlite:///{tmp_path / 'other.sqlite3'}")
    await other.migrate()
    try:
        assert await other.secret("address") != secret  # another deployment, another key
    finally:
        await other.dispose()


def test_address_keys_are_keyed() -> None:
    one, two = RateLimiter({}, secret="a" * 64), RateLimiter({}, secret="b" * 64)
    assert one.address_key("127.0.0.1") != UNKEYED
    assert one.address_key("127.0.0.1") != two.address_key("127.0.0.1")
    assert one.address_key("127.0.0.1") == address_key("127.0.0.1", "a" * 64)
    assert len(one.address_key("127.0.0.1")) == 64
