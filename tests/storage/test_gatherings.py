"""The events store on SQLite and PostgreSQL: create once, read back, playoff once, claim once."""

from __future__ import annotations

import pytest

from bobing.storage import Database
from bobing.storage.event_store import CodeTaken, utcnow
from bobing.storage.gatherings import Gathering, GatheringStore, SeatClaimed


def gathering(code: str = "EVT234") -> Gathering:
    return Gathering(
        code=code,
        name="班级博饼",
        organizer_token_hash="a" * 64,
        spec={"mode": "referee", "people": [{"name": "张三", "group": None}]},
        tables=[{"number": 1, "code": "TAB234", "players": ["张三", "李四"]}],
        secrets={"seats": {"1": {"张三": "p_x"}}},
        playoff=None,
        created_at=utcnow(),
    )


async def test_create_read_playoff_and_claims(db: Database) -> None:
    store = GatheringStore(db)
    await store.create(gathering())
    with pytest.raises(CodeTaken):
        await store.create(gathering())
    got = await store.get("EVT234")
    assert got is not None
    assert (got.name, got.tables, got.secrets, got.playoff) == (
        "班级博饼",
        [{"number": 1, "code": "TAB234", "players": ["张三", "李四"]}],
        {"seats": {"1": {"张三": "p_x"}}},
        None,
    )
    assert await store.get("NOPE22") is None
    assert await store.set_playoff("EVT234", {"code": "PLY234", "throws": 1})
    assert not await store.set_playoff("EVT234", {"code": "OTHER2", "throws": 1})
    got = await store.get("EVT234")
    assert got is not None and got.playoff == {"code": "PLY234", "throws": 1}
    await store.claim("EVT234", 1, "张三")
    with pytest.raises(SeatClaimed):
        await store.claim("EVT234", 1, "张三")
    got = await store.get("EVT234")
    assert got is not None and got.claims == {(1, "张三")}
    assert await store.release("EVT234", 1, "张三")
    assert not await store.release("EVT234", 1, "张三")
