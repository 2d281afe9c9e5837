"""Photos kept as evidence (issue 31): a referee table created with ``keep_photos`` keeps each
confirmed throw's photo (a small JPEG without metadata) beside its ``dice`` event; the record
says which throws have one; ``GET /api/tables/{code}/photos/{seq}`` shows it. A table that
did not ask keeps nothing. On SQLite and on PostgreSQL."""

from __future__ import annotations

import io
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from webtools import (
    TIMEOUT,
    command_over_http,
    create_table,
    join,
    new_id,
    root_conftest,
    running_server,
)

from bobing.storage import Database, PhotoStore
from bobing.tables.limits import Limits
from bobing.vision import MAX_PHOTO_BYTES
from bobing.vision.limits import KEPT_PHOTO_SIDE, MAX_KEPT_PHOTO_BYTES
from bobing.web.settings import Settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"
PHOTO = (FIXTURES / "valid_50.jpg").read_bytes()
LIMITS = Limits(worker_nice=0, tarpit_seconds=0, kept_photos_pending=2)


class Server:
    def __init__(self, http: httpx.AsyncClient, db: Database) -> None:
        self.http = http
        self.photos = PhotoStore(db)


@pytest.fixture(params=["sqlite", "postgresql"])
async def server(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Server]:
    schema = None
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'photos.sqlite3'}"
    else:
        url = root_conftest().need_postgres()
        schema = f"bobing_ph_{uuid.uuid4().hex[:12]}"
    database = Database(url, schema=schema)
    try:
        async with (
            running_server(Settings(db_url=url, db_schema=schema, limits=LIMITS)) as base,
            httpx.AsyncClient(base_url=base, timeout=TIMEOUT) as http,
        ):
            yield Server(http, database)
    finally:
        if schema is not None:
            await database.drop_schema()
        await database.dispose()


async def playing(http: httpx.AsyncClient, **options: Any) -> dict[str, Any]:
    created = await create_table(http, mode="referee", **options)
    for name in ("甲", "乙"):
        await join(http, created["code"], name)
    await command_over_http(http, created["code"], created["host_token"], {"type": "start"})
    return created


async def read(http: httpx.AsyncClient, table: dict[str, Any], body: bytes = PHOTO) -> Any:
    response = await http.post(
        f"/api/tables/{table['code']}/read-dice",
        content=body,
        headers={"Content-Type": "image/jpeg", "Authorization": f"Bearer {table['host_token']}"},
    )
    assert response.status_code == 200, response.text
    return response.json()


async def throw(http: httpx.AsyncClient, table: dict[str, Any], **fields: Any) -> httpx.Response:
    return await http.post(
        f"/api/tables/{table['code']}/commands",
        json={"id": new_id(), "type": "throw", "dice": "123456", **fields},
        headers={"Authorization": f"Bearer {table['host_token']}"},
    )


async def test_a_confirmed_throws_photo_is_kept_and_shown(server: Server) -> None:
    http = server.http
    table = await playing(http, keep_photos=True)
    assert (await http.get(f"/api/tables/{table['code']}")).json()["keep_photos"] is True
    reading = await read(http, table)
    assert sorted(d["face"] for d in reading["dice"]) == [2, 3, 5, 6]
    photo_id = reading["photo_id"]
    assert isinstance(photo_id, str) and await server.photos.count(table["code"]) == 1
    answer = await throw(http, table, photo_id=photo_id)
    assert answer.status_code == 200, answer.text
    await throw(http, table)  # throw 2: typed, no photo
    record = (await http.get(f"/api/tables/{table['code']}/record")).json()
    (kept,) = record["photos"]["throws"]
    assert record["photos"]["kept"] is True and kept["throw"] == 1
    events = (await http.get(f"/api/tables/{table['code']}/events")).json()["events"]
    dice = next(e for e in events if e["seq"] == kept["seq"])
    assert (dice["type"], dice["throw"], dice["photo"]) == ("dice", 1, photo_id)

    shown = await http.get(f"/api/tables/{table['code']}/photos/{kept['seq']}")
    assert shown.status_code == 200
    assert shown.headers["content-type"] == "image/jpeg"
    assert shown.headers["cache-control"].startswith("private")
    assert shown.headers["x-content-type-options"] == "nosniff"
    assert len(shown.content) <= MAX_KEPT_PHOTO_BYTES < MAX_PHOTO_BYTES
    image = Image.open(io.BytesIO(shown.content))
    assert image.format == "JPEG" and max(image.size) <= KEPT_PHOTO_SIDE
    assert not image.getexif()  # where and with what it was taken is not kept
    # the typed throw has none; a seq that is no throw has none
    for seq in (kept["seq"] + 1, 10_000):
        missing = await http.get(f"/api/tables/{table['code']}/photos/{seq}")
        assert (missing.status_code, missing.json()["code"]) == (404, "not_found")
    # a photo confirms one throw
    again = await throw(http, table, photo_id=photo_id)
    assert (again.status_code, again.json()["params"]["field"]) == (422, "photo_id")


async def test_nothing_is_kept_when_the_table_did_not_ask(server: Server) -> None:
    http = server.http
    table = await playing(http)
    assert (await http.get(f"/api/tables/{table['code']}")).json()["keep_photos"] is False
    reading = await read(http, table)
    assert "photo_id" not in reading
    assert (await throw(http, table)).status_code == 200
    refused = await throw(http, table, photo_id="abc")
    assert (refused.status_code, refused.json()["params"]["field"]) == (422, "photo_id")
    assert await server.photos.count() == 0
    record = (await http.get(f"/api/tables/{table['code']}/record")).json()
    assert "photos" not in record
    events = (await http.get(f"/api/tables/{table['code']}/events")).json()["events"]
    seq = next(e["seq"] for e in events if e["type"] == "dice")
    assert "photo" not in next(e for e in events if e["seq"] == seq)
    assert (await http.get(f"/api/tables/{table['code']}/photos/{seq}")).status_code == 404


async def test_unconfirmed_photos_are_bounded_and_undone_ones_hidden(server: Server) -> None:
    http = server.http
    table = await playing(http, keep_photos=True)
    ids = [(await read(http, table))["photo_id"] for _ in range(3)]
    assert await server.photos.count(table["code"]) == LIMITS.kept_photos_pending == 2
    dropped = await throw(http, table, photo_id=ids[0])  # the oldest went
    assert dropped.status_code == 422, dropped.text
    assert (await throw(http, table, photo_id=ids[2])).status_code == 200
    record = (await http.get(f"/api/tables/{table['code']}/record")).json()
    seq = record["photos"]["throws"][0]["seq"]
    assert (await http.get(f"/api/tables/{table['code']}/photos/{seq}")).status_code == 200
    await command_over_http(http, table["code"], table["host_token"], {"type": "undo"})
    record = (await http.get(f"/api/tables/{table['code']}/record")).json()
    assert record["photos"]["throws"] == []
    assert (await http.get(f"/api/tables/{table['code']}/photos/{seq}")).status_code == 404


async def test_only_a_referee_table_keeps_photos(server: Server) -> None:
    for body in ({"mode": "online", "keep_photos": True}, {"mode": "referee", "keep_photos": 1}):
        response = await server.http.post("/api/tables", json={"name": "桌", **body})
        assert response.status_code == 422, response.text
