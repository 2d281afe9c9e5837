"""``bobing_photos`` (issue 31): photos a ``keep_photos`` table keeps, on SQLite and PostgreSQL.

Pending until a throw links them, the oldest unconfirmed dropped past the table's count, a
table's bytes capped, and gone with the table (deleted or swept)."""

from __future__ import annotations

from datetime import timedelta

from bobing.storage import Database, EventStore, KeptPhoto, PhotoStore, TableInfo
from bobing.storage.event_store import utcnow
from tests.storage.storetools import table_info

JPEG = "image/jpeg"


def info(code: str) -> TableInfo:
    return table_info(
        code,
        mode="referee",
        status="playing",
        settings={"keep_photos": True},
        server_seed="s" * 64,
        created_at=utcnow(),
    )


async def keep(photos: PhotoStore, code: str, photo_id: str, data: bytes, n: int = 0) -> bool:
    return await photos.keep(
        code,
        photo_id,
        KeptPhoto(JPEG, data),
        at=utcnow() + timedelta(seconds=n),
        pending=2,
        table_bytes=100,
    )


async def test_a_photo_waits_for_its_throw_then_is_the_throws(
    db: Database, store: EventStore
) -> None:
    await store.create_table(info("PHO234"), [])
    photos = PhotoStore(db)
    assert await keep(photos, "PHO234", "a1", b"\xff\xd8one")
    assert await photos.is_pending("PHO234", "a1")
    assert await photos.photo("PHO234", 7) is None  # not linked yet
    assert await photos.link("PHO234", "a1", 7)
    assert not await photos.link("PHO234", "a1", 8)  # one photo confirms one throw
    assert not await photos.is_pending("PHO234", "a1")
    assert await photos.photo("PHO234", 7) == KeptPhoto(JPEG, b"\xff\xd8one")
    assert not await photos.link("PHO234", "nope", 9)
    assert await photos.photo("ZZZ234", 7) is None  # another table's seq 7 is not this one


async def test_the_oldest_unconfirmed_go_and_a_tables_bytes_are_capped(
    db: Database, store: EventStore
) -> None:
    await store.create_table(info("PHO234"), [])
    photos = PhotoStore(db)
    assert await keep(photos, "PHO234", "linked", b"x" * 10)
    await photos.link("PHO234", "linked", 3)
    for n, photo_id in enumerate(("p1", "p2", "p3"), start=1):
        assert await keep(photos, "PHO234", photo_id, b"y" * 10, n)
    # two pending at most: p1 (the oldest unconfirmed) is gone; the linked one stays
    assert [await photos.is_pending("PHO234", p) for p in ("p1", "p2", "p3")] == [
        False,
        True,
        True,
    ]
    assert await photos.photo("PHO234", 3) is not None
    assert await photos.count("PHO234") == 3
    # 30 bytes kept, the cap is 100: 71 more do not fit, 70 do
    assert not await keep(photos, "PHO234", "big", b"z" * 71, 9)
    assert await photos.count("PHO234") == 3
    await photos.link("PHO234", "p2", 5)
    await photos.link("PHO234", "p3", 6)
    assert await keep(photos, "PHO234", "fits", b"z" * 70, 10)


async def test_photos_go_with_their_table(db: Database, store: EventStore) -> None:
    for code in ("PHO234", "KEP234", "OLD234"):
        await store.create_table(info(code), [])
    photos = PhotoStore(db)
    for n, code in enumerate(("PHO234", "KEP234", "OLD234")):
        await keep(photos, code, f"p{n}", b"x", n)
    await store.delete_tables(["PHO234"])
    assert await photos.count("PHO234") == 0
    assert await photos.count() == 2
    swept = await store.sweep(
        over_before=utcnow() + timedelta(days=1), idle_before=utcnow() + timedelta(days=1)
    )
    assert sorted(swept) == ["KEP234", "OLD234"]
    assert await photos.count() == 0
