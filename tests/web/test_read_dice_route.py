"""``POST /api/tables/{code}/read-dice``: a referee's photo of the dice, read in a worker process
and forgotten (issue 31). The answer is ``bobing read-dice --json``'s for one photo; every bad
photo is refused with its code before or instead of being read; nothing is stored."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import TIMEOUT, create_table, join, running_server

from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.vision import MAX_PHOTO_BYTES, read_dice
from bobing.web.routes import api
from bobing.web.settings import Settings
from tests.vision.photos import HEIC, jpeg, png_header_only

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "dice-photos"
PHOTO = (FIXTURES / "valid_50.jpg").read_bytes()
"""Four dice, labelled 2 3 5 6 (``valid_50.txt``)."""
JPEG = {"Content-Type": "image/jpeg"}


def labelled_faces(name: str) -> list[int]:
    """The faces a fixture photo's label file gives (class 0–5 is face 1–6)."""
    text = (FIXTURES / name).with_suffix(".txt").read_text()
    return sorted(int(line.split()[0]) + 1 for line in text.splitlines() if line.strip())


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def read(
    http: httpx.AsyncClient,
    code: str,
    token: str | None,
    body: bytes = PHOTO,
    media: str | None = "image/jpeg",
    lang: str = "en",
) -> httpx.Response:
    headers = {"Accept-Language": lang}
    if media is not None:
        headers["Content-Type"] = media
    if token is not None:
        headers.update(bearer(token))
    return await http.post(f"/api/tables/{code}/read-dice", content=body, headers=headers)


@pytest.fixture
async def server(db_url: str) -> AsyncIterator[str]:
    """A server whose photo worker runs at the server's own priority (``worker_nice=0``): at
    19, beside a test run that keeps both cores busy, the worker gets about 1.5 % of a core,
    and a first photo (a spawned process importing OpenCV) outlasted the client's 30 s in CI.
    Its only work is this module's photos. Priority itself: test_analysis_routes.py's
    test_the_worker_processes_step_back_by_worker_nice."""
    async with running_server(Settings(db_url=db_url, limits=Limits(worker_nice=0))) as url:
        yield url


@pytest.fixture
async def referee(http: httpx.AsyncClient) -> dict[str, Any]:
    created = await create_table(http, mode="referee")
    created["player_token"] = (await join(http, created["code"], "甲"))["player_token"]
    return created


async def test_a_photo_is_read_as_the_cli_reads_it(
    http: httpx.AsyncClient, referee: dict[str, Any]
) -> None:
    response = await read(http, referee["code"], referee["host_token"])
    assert response.status_code == 200, response.text
    body = response.json()
    assert body == read_dice(PHOTO).as_json()  # bobing read-dice --json, one photo, no "file"
    assert sorted(d["face"] for d in body["dice"]) == labelled_faces("valid_50.jpg") == [2, 3, 5, 6]
    assert "dice_seen:4" in body["warnings"]


@pytest.mark.parametrize("media", ["image/png", "image/webp"])
async def test_png_and_webp_are_read(
    http: httpx.AsyncClient, referee: dict[str, Any], media: str
) -> None:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.open(io.BytesIO(PHOTO)).save(out, media.split("/")[1].upper(), lossless=True)
    response = await read(http, referee["code"], referee["host_token"], out.getvalue(), media)
    assert response.status_code == 200, response.text
    assert sorted(d["face"] for d in response.json()["dice"]) == [2, 3, 5, 6]


async def test_only_the_referee_may_have_dice_read(
    http: httpx.AsyncClient, referee: dict[str, Any]
) -> None:
    code = referee["code"]
    assert (await read(http, code, None)).json()["code"] == "forbidden"
    assert (await read(http, code, None)).status_code == 403
    wrong = await read(http, code, "not-a-token-of-this-table")
    assert (wrong.status_code, wrong.json()["code"]) == (401, "invalid_token")
    player = await read(http, code, referee["player_token"])  # not the referee
    assert (player.status_code, player.json()["code"]) == (403, "forbidden")
    other = await create_table(http, mode="referee")
    elsewhere = await read(http, code, other["host_token"])
    assert (elsewhere.status_code, elsewhere.json()["code"]) == (401, "invalid_token")
    missing = await read(http, "ZZZZZZ", referee["host_token"])
    assert missing.status_code == 404


async def test_the_thrower_may_when_the_table_lets_the_thrower_enter_faces(
    http: httpx.AsyncClient,
) -> None:
    created = await create_table(http, mode="referee", referee_thrower=True)
    player = (await join(http, created["code"], "甲"))["player_token"]
    assert (await read(http, created["code"], player)).status_code == 200


async def test_a_table_with_its_own_dice_has_no_photo_to_read(http: httpx.AsyncClient) -> None:
    created = await create_table(http, mode="online")
    response = await read(http, created["code"], created["host_token"])
    assert (response.status_code, response.json()["code"]) == (409, "wrong_mode")


@pytest.mark.parametrize(
    ("body", "media", "status", "code", "reason"),
    [
        (b"not a photo at all", "image/jpeg", 422, "invalid_photo", "photo_not_image"),
        (jpeg()[:2000], "image/jpeg", 422, "invalid_photo", "photo_truncated"),
        (b"", "image/jpeg", 422, "invalid_photo", "photo_empty"),
        (
            png_header_only(30_000, 30_000),
            "image/png",
            422,
            "invalid_photo",
            "photo_too_many_pixels",
        ),
        (png_header_only(8_000, 5_100), "image/png", 422, "invalid_photo", "photo_too_many_pixels"),
        (HEIC, "image/heic", 415, "unsupported_image", "photo_heic"),
        (HEIC, "image/heif", 415, "unsupported_image", "photo_heic"),
        (HEIC, "image/jpeg", 415, "unsupported_image", "photo_heic"),  # HEIC saved as .jpg
        (PHOTO, "image/gif", 415, "unsupported_image", "photo_format"),
        (PHOTO, "text/plain", 415, "unsupported_image", "photo_format"),
        (PHOTO, None, 415, "unsupported_image", "photo_format"),
    ],
    ids=[
        "not-an-image",
        "truncated",
        "empty",
        "png-bomb",
        "over-40-mp",
        "heic",
        "heif",
        "heic-as-jpeg",
        "gif-type",
        "text",
        "no-type",
    ],
)
async def test_every_bad_photo_is_refused_with_its_code(
    http: httpx.AsyncClient,
    referee: dict[str, Any],
    body: bytes,
    media: str | None,
    status: int,
    code: str,
    reason: str,
) -> None:
    response = await read(http, referee["code"], referee["host_token"], body, media)
    assert response.status_code == status, response.text
    problem = response.json()
    assert response.headers["content-type"].startswith("application/problem+json")
    assert (problem["code"], problem["params"]["reason"]) == (code, reason)
    if reason == "photo_too_many_pixels":
        assert problem["params"]["limit"] == 40_000_000
        assert str(problem["params"]["pixels"]) in problem["detail"]


async def test_heic_says_choose_jpeg_in_every_language(
    http: httpx.AsyncClient, referee: dict[str, Any]
) -> None:
    code, token = referee["code"], referee["host_token"]
    words = {"en": "choose JPEG", "zh-Hans": "请选 JPEG", "zh-Hant": "請選 JPEG"}
    for lang, wanted in words.items():
        problem = (await read(http, code, token, HEIC, "image/heic", lang)).json()
        assert wanted in problem["detail"], (lang, problem)
        assert "JPEG" in problem["title"]
    damaged = (await read(http, code, token, jpeg()[:2000], lang="zh-Hans")).json()
    assert damaged["detail"] == "照片读不了：照片损坏或不完整。"


async def test_over_8_mb_is_refused_while_it_is_read(
    http: httpx.AsyncClient, referee: dict[str, Any]
) -> None:
    code, token = referee["code"], referee["host_token"]
    big = b"\xff\xd8" + b"\x00" * MAX_PHOTO_BYTES
    declared = await read(http, code, token, big)
    assert (declared.status_code, declared.json()["code"]) == (413, "too_large")
    assert declared.json()["params"]["limit"] == MAX_PHOTO_BYTES

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(MAX_PHOTO_BYTES // 65_536 + 2):
            yield b"\x00" * 65_536

    chunked = await http.post(
        f"/api/tables/{code}/read-dice", content=chunks(), headers={**JPEG, **bearer(token)}
    )
    assert (chunked.status_code, chunked.json()["code"]) == (413, "too_large")
    # Exactly the limit is a photo's size, and read (as a bad one: it is no image).
    exact = await read(http, code, token, b"\x00" * MAX_PHOTO_BYTES)
    assert (exact.status_code, exact.json()["params"]["reason"]) == (422, "photo_not_image")


async def test_nothing_is_stored(
    http: httpx.AsyncClient, referee: dict[str, Any], tmp_path: Path
) -> None:
    code, token = referee["code"], referee["host_token"]
    before = (await http.get(f"/api/tables/{code}")).json()
    logged = (await http.get(f"/api/tables/{code}/events")).json()
    files = sorted(p.name for p in tmp_path.rglob("*"))
    for body in (PHOTO, jpeg()[:2000], b"x"):
        await read(http, code, token, body)
    after = (await http.get(f"/api/tables/{code}")).json()
    assert after == before  # no event, no seat, nothing of the photo in the log
    assert (await http.get(f"/api/tables/{code}/events")).json() == logged
    assert sorted(p.name for p in tmp_path.rglob("*")) == files
    assert not [p for p in tmp_path.rglob("*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")]


async def test_photos_are_rate_limited_per_address(db_url: str) -> None:
    settings = Settings(
        db_url=db_url, limits=Limits(photos_per_minute=2, tarpit_seconds=0, worker_nice=0)
    )
    async with (
        running_server(settings) as url,
        httpx.AsyncClient(base_url=url, timeout=TIMEOUT) as http,
    ):
        created = await create_table(http, mode="referee")
        answers = [
            (await read(http, created["code"], created["host_token"], b"x")).status_code
            for _ in range(3)
        ]
        assert answers == [422, 422, 429]


async def test_the_gate_refuses_photos_past_its_queue(monkeypatch: pytest.MonkeyPatch) -> None:
    gate = api.PhotoGate(Limits(photo_workers=1, photo_queue=1, worker_nice=0))
    try:
        first = asyncio.ensure_future(gate.read(PHOTO))
        second = asyncio.ensure_future(gate.read(PHOTO))
        await asyncio.sleep(0)  # both admitted: one reading, one waiting
        with pytest.raises(ApiError) as refused:
            await gate.read(PHOTO)
        assert refused.value.code == "busy" and refused.value.status == 503
        assert refused.value.params["retry_after"] >= 1
        readings = await asyncio.wait_for(asyncio.gather(first, second), TIMEOUT)
        assert [(sorted(r.faces), kept) for r, kept in readings] == [([2, 3, 5, 6], None)] * 2
        assert gate._admitted == 0
    finally:
        gate.close()
