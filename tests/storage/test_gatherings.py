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


async def test_check_ins_and_seating_once(db: Database) -> None:
    store = GatheringStore(db)
    await store.create(
        Gathering(
            code="DOOR23",
            name="签到",
            organizer_token_hash="a" * 64,
            spec={"check_in": True, "people": [{"name": "张三"}, {"name": "李四"}]},
            tables=[],
            secrets={"seats": {}},
            playoff=None,
            created_at=utcnow(),
        )
    )
    await store.check_in("DOOR23", "张三", True)
    await store.check_in("DOOR23", "张三", True)  # a second tick changes nothing
    await store.check_in("DOOR23", "李四", True)
    await store.check_in("DOOR23", "李四", False)  # a wrong tick undone
    got = await store.get("DOOR23")
    assert got is not None and got.present == {"张三"}
    tables = [{"number": 1, "code": "TAB999", "players": ["张三"]}]
    assert await store.set_tables("DOOR23", tables, {"seats": {"1": {"张三": "p_y"}}})
    assert not await store.set_tables("DOOR23", [], {"seats": {}})
    got = await store.get("DOOR23")
    assert got is not None and got.tables == tables
    assert got.secrets == {"seats": {"1": {"张三": "p_y"}}, "seated": True}
    assert not await store.set_tables("NOPE22", tables, {})
