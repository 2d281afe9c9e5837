"""A deployment's secrets are made once, on SQLite and PostgreSQL, and read back unchanged."""

from __future__ import annotations

import asyncio

from bobing.storage import Database


async def test_a_secret_is_made_once_even_when_asked_together(db: Database) -> None:
    made = await asyncio.gather(*(db.secret("address") for _ in range(5)))
    assert len(set(made)) == 1 and len(made[0]) == 64
    assert await db.secret("address") == made[0]
    assert await db.secret("other") != made[0]
