"""REST under ``/api``: health, presets, tables, joining, the log, records and results."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
from collections import OrderedDict
from collections.abc import Hashable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TYPE_CHECKING, Annotated, Any

import brotli
from fastapi import APIRouter, Body, Header, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from bobing.analysis.dice_check import check_record, real_dice
from bobing.engine.presets import DEFAULT_RULES, PRESETS
from bobing.i18n import normalize_lang, request_language
from bobing.i18n.rulebook import draft_spec, rulebook
from bobing.process.loop import background_priority, giving_way
from bobing.tables.commands import verify_read_dice
from bobing.tables.limits import Limits, served_limits
from bobing.tables.problems import ApiError
from bobing.tables.protocol import (
    STATE_CHANGING,
    command_schema,
    pong,
    read_command,
)
from bobing.tables.service import PAGE, TableService
from bobing.tables.tokens import bearer_token, hash_token
from bobing.tables.validation import preset_rules, web_rules
from bobing.vision.errors import PhotoError
from bobing.vision.limits import FORMATS, KEPT_MEDIA_TYPE
from bobing.web.assets import accepted_encodings
from bobing.web.edge.invite import invite_base
from bobing.web.edge.problems import problem_responses
from bobing.web.edge.rate import count_request, found_codes
from bobing.web.qr import MAX_QR_TEXT, qr_path
from bobing.web.routes.analysis import AnalysisCache

if TYPE_CHECKING:
    from bobing.vision import Reading

router = APIRouter(
    prefix="/api",
    responses=problem_responses(
        {
            400: "malformed request",
            404: "no such table",
            409: "not possible in the table's current state",
            413: "body too large",
            415: "a photo that is not JPEG, PNG or WebP",
            422: "invalid field, name, rules, dice or photo",
            429: "rate limit or quota reached (see Retry-After)",
            503: "the database is unreachable, or the photo readers are busy (Retry-After)",
        }
    ),
)


class CreateTable(BaseModel):
    """The body of ``POST /api/tables``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(description="table name, 1-40 characters, no HTML", examples=["中秋博饼"])
    mode: str = Field(
        default="online", description="online | pass_and_play | referee", examples=["online"]
    )
    rules: str | dict[str, Any] | None = Field(
        default=None,
        description="a preset id or alias, or a rule object of RULES.md §5 (default traditional)",
        examples=["traditional", {"preset": "modern", "chase": {"tiers": ["duitang"]}}],
    )
    prizes: dict[str, int] | None = Field(
        default=None,
        description="prize counts per tier, overriding the rules'",
        examples=[{"zhuangyuan": 1, "duitang": 2, "sanhong": 4, "sijin": 8, "erju": 16}],
    )
    named_prizes: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="optional prize name and value per tier",
        examples=[{"zhuangyuan": {"name": "金月饼", "value": 188}}],
    )
    referee_thrower: bool = Field(
        default=False,
        description="referee tables: the player whose turn it is may submit faces too",
    )
    keep_photos: bool = Field(
        default=False,
        description="referee tables: keep each confirmed throw's photo as evidence (read-dice "
        "answers a photo_id, the throw names it; docs/vision.md)",
    )
    time_limit: int | None = Field(
        default=None,
        description="minutes of play (1-600) from the start; then time is called by itself "
        "(RULES.md §8.1: the round is finished, the best 状元 standing takes the 状元 cake)",
        examples=[30],
    )


class Join(BaseModel):
    """The body of ``POST /api/tables/{code}/join``."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: str = Field(description="display name, 1-24 characters, no HTML", examples=["甲"])


MAX_SEQ = 2**31 - 1
"""The largest sequence number a log can hold (``bobing_events.seq`` is a 32-bit integer)."""


def service_of(request: Request) -> TableService:
    """The app's table service."""
    service: TableService = request.app.state.service
    return service


@router.get("/health", summary="Liveness: ok once the database answers")
async def health(request: Request) -> dict[str, str]:
    """``{"status": "ok"}``, or a 503 problem while the database is unreachable."""
    if not await request.app.state.db.ping():
        raise ApiError("unavailable", "the database does not answer")
    return {"status": "ok"}


@router.get("/invite", summary="The address to invite other phones with")
async def invite(request: Request) -> dict[str, Any]:
    """``{"base", "lan", "loopback_only"}``: the base URL for invite links and QR codes (the
    ``--public-url`` when one is set, a LAN address when the browser is on 127.0.0.1), every LAN
    URL, and whether only this machine can reach the server (then no phone can join: the UI
    warns)."""
    host = request.headers.get("host") or (request.url.hostname or "")
    origin = f"{request.url.scheme}://{host}" if host else str(request.base_url).rstrip("/")
    public_url = request.app.state.settings.public_url
    return invite_base(getattr(request.app.state, "listen", None), host, origin, public_url)


@router.get("/presets", summary="The rule presets, as full rule objects")
async def presets() -> dict[str, Any]:
    """Every preset of RULES.md §5 and the default."""
    return {
        "presets": {name: rules.to_json() for name, rules in PRESETS.items()},
        "default": DEFAULT_RULES.preset,
    }


@router.get("/limits", summary="Every limit a form checks, and what an undo voids")
async def limits() -> dict[str, object]:
    """``limits``: each size the server holds a form to, by name (``max_rounds``, ``max_players``,
    ``max_table_name``, ``analysis_players``, …; the browser has no copy of them),
    ``undo_voids``: the event types a ``throw_undone`` voids between its ``from_seq`` and
    itself, and ``code_alphabet``: the characters a table's code is made of."""
    return served_limits()


@router.post("/rulebook", summary="A rule set explained: every throw, the 状元 order, every switch")
async def rulebook_route(
    request: Request,
    body: Annotated[
        str | dict[str, Any],
        Body(
            description="a preset id or alias, or a rule object of RULES.md §5 (being edited: "
            "its zhuangyuan_order is brought in line with its effects)",
            examples=[{"preset": "modern", "wuzi_bonus": True}],
        ),
    ],
    lang: Annotated[
        str | None, Query(description="zh-Hans (default), zh-Hant or en; else Accept-Language")
    ] = None,
    accept_language: Annotated[str | None, Header()] = None,
) -> Response:
    """What the browser shows of a rule set, computed by the engine (the browser has no rules):
    ``rules`` (complete), ``throws`` (all 462 multisets by sorted dice: hand, tier, kicker,
    bonus, face, name, why, effect, rank — as ``bobing classify --json``), ``levels``,
    ``ranking``, ``order``, ``switches`` (each choice switch: label, options, meaning, whether
    it applies) and ``lines`` (every switch in words)."""
    spec = draft_spec(body) if isinstance(body, dict) else body
    language = request_language(lang, accept_language)
    key = (json.dumps(spec, sort_keys=True, ensure_ascii=False), language)
    # A rule set not asked for lately (a preset's too) costs the address an analysis request
    # and is built by a rulebook worker thread, never on the event loop; a kept one is free.
    gate: AnalysisCache = request.app.state.rulebook_cache

    async def count_analysis() -> None:
        await count_request(request, "analysis")

    text, packed = await gate.get(
        _rulebooks(request),
        key,
        rulebook_bytes,
        MAX_RULEBOOKS,
        args=(spec, language),
        on_miss=count_analysis,
    )
    if "br" in accepted_encodings(request.headers.get("accept-encoding", "")):
        headers = {"Content-Encoding": "br", "Vary": "Accept-Encoding"}
        return Response(packed, media_type="application/json", headers=headers)
    return Response(text, media_type="application/json")  # gzipped by the middleware


MAX_RULEBOOKS = 64
"""Rulebooks kept (a table's phones ask for the same rules, in one of three languages)."""
RULEBOOK_BROTLI_QUALITY = 5
"""Quick enough for a rulebook's first request (115 KB of JSON in about 2 ms), and a quarter
smaller than gzip: a table's lobby waits for its rulebook's words on a phone's first load."""


def _rulebooks(request: Request) -> OrderedDict[Hashable, tuple[bytes, bytes]]:
    """The app's rulebooks by rule object and language (as sent: plain and brotli), most
    recently asked last."""
    books: OrderedDict[Hashable, tuple[bytes, bytes]] | None = getattr(
        request.app.state, "rulebooks", None
    )
    if books is None:
        books = request.app.state.rulebooks = OrderedDict()
    return books


def rulebook_bytes(spec: str | dict[str, Any], lang: str) -> tuple[bytes, bytes]:
    """The rulebook of a preset name or rule object as sent, plain JSON and brotli (what a
    rulebook worker runs: reading the rules, 18-50 ms of the engine, the compression)."""
    # A name is a preset, never a path: nothing a request sends is opened.
    rules = preset_rules(spec) if isinstance(spec, str) else web_rules(spec)
    text = json.dumps(rulebook(rules, lang, between=giving_way()), ensure_ascii=False).encode()
    return text, brotli.compress(text, quality=RULEBOOK_BROTLI_QUALITY)


class QrText(BaseModel):
    """The body of ``POST /api/qr`` (a body, not a query: seat links carry tokens)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: str = Field(
        min_length=1,
        max_length=MAX_QR_TEXT,
        description="the text to encode, usually a link",
        examples=["https://bobing.example/t/K7Q2MX"],
    )


@router.post("/qr", summary="A QR code of a link, as one SVG path")
async def qr_code(body: QrText) -> dict[str, Any]:
    """``{"size", "path"}``: the smallest QR code (error level M, segno) of ``text``, ``size``
    modules square with its quiet zone, every dark module in one SVG path."""
    code = qr_path(body.text)
    return {"size": code.size, "path": code.path}


@router.post("/tables", status_code=201, summary="Create a table")
async def create_table(body: CreateTable, request: Request) -> JSONResponse:
    """Create a table; the host token (and a pass-and-play table's play token) is shown once."""
    creator = await count_request(request, "create")
    created = await service_of(request).create_table(
        name=body.name,
        mode=body.mode,
        rules=body.rules,
        prizes=body.prizes,
        named_prizes=body.named_prizes,
        referee_thrower=body.referee_thrower,
        keep_photos=body.keep_photos,
        creator=creator,
        time_limit=body.time_limit,
    )
    found_codes(request, "tables", created.code)  # its maker looks it up for free
    return JSONResponse(
        {
            "code": created.code,
            "host_token": created.host_token,
            "play_token": created.play_token,
            "ws_url": f"/ws/tables/{created.code}",
            "table": created.state,
        },
        status_code=201,
        headers={"Location": f"/api/tables/{created.code}"},
    )


@router.get("/tables/{code}", summary="A table's state", response_class=JSONResponse)
async def table_state(code: str, request: Request) -> Response:
    """Settings, seats, whose turn, the §7 result, the log head and the fairness commitment."""
    text = await service_of(request).state_json(code)
    return Response(text.encode("utf-8"), media_type="application/json")


@router.post("/tables/{code}/join", status_code=201, summary="Take a seat")
async def join(
    code: str,
    body: Join,
    request: Request,
    authorization: Annotated[
        str | None, Header(description="Bearer <host token>: seat players while locked")
    ] = None,
) -> JSONResponse:
    """Seat a display name; the player token is returned once. Refused while the host has
    locked the lobby (``lobby_locked``), unless the host's own token comes with it."""
    await count_request(request, "join")
    hashes = [hash_token(token) for token in _bearer(authorization)]
    reply = await service_of(request).join(code, body.name, hashes)
    return JSONResponse(reply, status_code=201)


def _bearer(authorization: str | None) -> list[str]:
    if not authorization:
        return []
    token = bearer_token(authorization)
    if token is None:
        raise ApiError("invalid_token", "Authorization must be 'Bearer <token>'")
    return [token]


@router.get("/tables/{code}/events", summary="The event log after a sequence number")
async def events(
    code: str,
    request: Request,
    after: Annotated[int, Query(ge=0, le=MAX_SEQ, description="the last seq already seen")] = 0,
    limit: Annotated[int, Query(ge=1, le=PAGE)] = PAGE,
) -> dict[str, Any]:
    """Events with ``seq > after``, oldest first."""
    return await service_of(request).events(code, after, limit)


@router.get("/tables/{code}/record", summary="The game record (RULES.md §6) with fairness")
async def record(code: str, request: Request) -> dict[str, Any]:
    """Replayable with ``bobing adjudicate``; checkable with ``bobing verify`` once over."""
    return await service_of(request).record(code)


@router.get("/tables/{code}/dice", summary="Are these dice fair? (RULES.md §10.3)")
async def dice(code: str, request: Request) -> dict[str, Any]:
    """Each face's count over every die thrown, the chi-square test against 1/6 each, its
    ``verdict`` (``fair`` | ``suspect`` | ``too_few``) and the sentence for people (``text``, in
    the request's language); ``real_dice`` says whether the throws were real dice (a referee
    table's): the server's own dice are checked by ``bobing verify``."""
    record = await service_of(request).record(code)
    language = request_language(
        request.query_params.get("lang"), request.headers.get("accept-language")
    )
    return {"real_dice": real_dice(record), **check_record(record).report(language)}


@router.get(
    "/tables/{code}/results.csv",
    summary="Results as CSV",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
async def results(
    code: str,
    request: Request,
    lang: Annotated[
        str | None,
        Query(
            max_length=20,
            description="zh-Hans | zh-Hant | en: headers and hand names for people; "
            "without it the columns are the stable ids",
        ),
    ] = None,
) -> Response:
    """One row per seat: cakes per tier, total, prize value, the 状元 hand."""
    text = await service_of(request).results_csv(
        code, None if lang is None else normalize_lang(lang)
    )
    return Response(
        text.encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="bobing-{code.upper()}.csv"'},
    )


@router.post(
    "/tables/{code}/commands",
    summary="Send a table command over HTTP",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": command_schema()[0]}},
        }
    },
)
async def command(
    code: str,
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer <token>")] = None,
) -> dict[str, Any]:
    """The WebSocket commands (docs/protocol.md) for clients without a socket; returns the ack."""
    parsed = read_command(await request.body())
    if parsed.type == "ping":
        return pong(parsed.id)
    if parsed.type not in STATE_CHANGING:
        raise ApiError(
            "unknown_command",
            f"{parsed.type!r} is only meaningful on a WebSocket",
            command=parsed.type,
        )
    hashes = [hash_token(token) for token in _bearer(authorization)]
    if hashes:
        runtime = await service_of(request).runtime(code)
        if not runtime.knows(hashes[0]):
            raise ApiError("invalid_token", f"the token does not belong to table {runtime.code}")
    if parsed.type == "react":
        await count_request(request, "react")
    outcome = await service_of(request).execute(code, parsed, hashes)
    return outcome.ack(parsed.id)


READ_DICE_PATH = "/api/tables/{code}/read-dice"
PHOTO_TYPES = tuple(f"image/{name.lower()}" for name in FORMATS)
"""The media types of a photo of the dice: the formats ``bobing.vision`` reads."""
HEIC_TYPES = ("image/heic", "image/heif")
"""An iPhone's own photos: refused with the reader's advice (choose JPEG)."""
UNSUPPORTED = ("photo_heic", "photo_format")
"""The reader's refusals that are the photo's format, not its content (415, not 422)."""
PHOTO_RETRY_AFTER = 2
"""Seconds a refused photo is told to wait (``Retry-After``): a photo reads in well under one."""


class PhotoGate:
    """Photos are read in worker processes, at most ``photo_workers`` at once and
    ``photo_queue`` waiting; past that a photo is refused ``busy`` (503, Retry-After).

    The reader bounds what one photo may cost (``bobing/vision/photo.py``: bytes, pixels,
    bombs); this bounds how many are read at once, and keeps the reader's Python (and its
    OpenCV) off the event loop. The pool starts with the first photo: a server whose
    tables all roll their own dice never loads the reader.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._workers = max(1, limits.photo_workers)
        self._executor: ProcessPoolExecutor | None = None
        self._admitted = 0

    async def read(self, data: bytes, *, keep: bool = False) -> tuple[Reading, bytes | None]:
        """The dice of the photo, read in a worker, and with ``keep`` the JPEG to keep of it
        (``bobing.vision.read_and_keep``); ``PhotoError`` if it is no photo."""
        room = self._workers + self.limits.photo_queue
        if self._admitted >= room:
            raise ApiError(
                "busy",
                f"{self._admitted} photos are being read or waiting; "
                f"try again in {PHOTO_RETRY_AFTER} s",
                retry_after=PHOTO_RETRY_AFTER,
            )
        from bobing.vision import read_and_keep, read_dice

        self._admitted += 1
        try:
            loop = asyncio.get_running_loop()
            try:
                if keep:
                    kept: tuple[Reading, bytes] = await loop.run_in_executor(
                        self._pool(), read_and_keep, data
                    )
                    return kept
                reading: Reading = await loop.run_in_executor(self._pool(), read_dice, data)
            except BrokenProcessPool:
                # A worker died (killed, out of memory): the next photo gets a new pool.
                self.close()
                raise ApiError(
                    "busy",
                    f"the photo reader stopped; try again in {PHOTO_RETRY_AFTER} s",
                    retry_after=PHOTO_RETRY_AFTER,
                ) from None
            return reading, None
        finally:
            self._admitted -= 1

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self._workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=background_priority,
                initargs=(self.limits.worker_nice,),
            )
        return self._executor

    def close(self) -> None:
        """Stop the workers; one in the middle of a photo is ended."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        processes = getattr(executor, "_processes", None) or {}
        executor.shutdown(wait=False, cancel_futures=True)
        for process in list(processes.values()):
            process.terminate()


@router.post(
    "/tables/{code}/read-dice",
    summary="Read the dice of a photo (a referee table's real dice); kept only with keep_photos",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {t: {"schema": {"type": "string", "format": "binary"}} for t in PHOTO_TYPES},
        }
    },
)
async def read_dice_route(
    code: str,
    request: Request,
    authorization: Annotated[
        str | None,
        Header(description="Bearer <host token> (or the thrower's, see referee_thrower)"),
    ] = None,
) -> dict[str, object]:
    """The body is the photo (JPEG, PNG or WebP, at most 8 MB and 40 megapixels); the answer
    is what ``bobing read-dice --json`` prints for one photo: ``{"dice": [{"face", "box",
    "confidence"}], "warnings"}``. The photo is read in a worker and forgotten: nothing is
    logged, stored or thrown (the referee confirms the faces with an ordinary ``throw``).
    At a table created with ``keep_photos`` the photo is kept (re-encoded as a small JPEG,
    docs/vision.md) pending, and the answer adds ``photo_id``: the throw that sends it links
    the photo to that throw (``null``: the table's photos are at their cap, not kept)."""
    hashes = [hash_token(token) for token in _bearer(authorization)]
    runtime = await service_of(request).runtime(code)
    if hashes and not runtime.knows(hashes[0]):
        raise ApiError("invalid_token", f"the token does not belong to table {runtime.code}")
    verify_read_dice(runtime, runtime.roles(hashes))
    media = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if media not in PHOTO_TYPES:
        reason = (
            PhotoError("HEIC photos are not read: choose JPEG", code="photo_heic")
            if media in HEIC_TYPES
            else PhotoError(
                f"photos in {media or 'no format'} are not read: choose JPEG",
                code="photo_format",
                format=media or "?",
            )
        )
        raise ApiError("unsupported_image", reason.message, type=media, reason=reason)
    data = await request.body()
    await count_request(request, "photo")
    gate: PhotoGate = request.app.state.photo_gate
    keep = bool(runtime.info.settings.get("keep_photos"))
    try:
        reading, jpeg = await gate.read(data, keep=keep)
    except PhotoError as exc:
        # HEIC bytes sent as a JPEG are still "choose JPEG"; every other reason is the photo's
        refused = "unsupported_image" if exc.code in UNSUPPORTED else "invalid_photo"
        raise ApiError(refused, exc.message, **exc.params, reason=exc) from None
    answer = reading.as_json()
    if jpeg is not None:
        answer["photo_id"] = await service_of(request).keep_photo(runtime.code, jpeg)
    return answer


@router.get(
    "/tables/{code}/photos/{seq}",
    summary="The photo kept as a throw's evidence (a keep_photos table)",
    response_class=Response,
    responses={200: {"content": {KEPT_MEDIA_TYPE: {}}}},
)
async def kept_photo(
    code: str,
    seq: Annotated[int, Path(ge=1, le=MAX_SEQ, description="the seq of the throw's dice event")],
    request: Request,
) -> Response:
    """Whoever may read the table's log may see its kept photos (docs/security.md): the
    record's ``photos.throws`` lists them by throw number and ``seq``. ``not_found`` for a
    throw with no photo (never kept, or undone)."""
    await count_request(request, "photo_view")
    photo = await service_of(request).photo(code, seq)
    return Response(
        photo.data,
        media_type=photo.media_type,
        headers={"Cache-Control": "private, max-age=3600", "X-Content-Type-Options": "nosniff"},
    )
