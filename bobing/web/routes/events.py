"""REST under ``/api/events``: an organiser's event of many tables (docs/events.md).

The names of ``POST /api/events``, ``GET /api/events/{code}``, ``POST …/playoff`` and
``GET …/results`` are fixed by issue 11; the rest serve the organiser's screens.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from bobing.gatherings.draft import model_errors
from bobing.gatherings.export import results_csv, results_xlsx
from bobing.gatherings.service import GatheringService
from bobing.i18n import normalize_lang
from bobing.organizer import MAX_ROSTER_BYTES, read_roster
from bobing.tables.problems import ApiError
from bobing.web.routes.api import _PROBLEM, limit

ROSTER_PATH = "/api/events/roster"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

router = APIRouter(
    prefix="/api/events",
    tags=["events"],
    responses={
        400: {**_PROBLEM, "description": "malformed request"},
        401: {**_PROBLEM, "description": "the organiser's token is missing"},
        403: {**_PROBLEM, "description": "the token is not this event's organiser's"},
        404: {**_PROBLEM, "description": "no such event"},
        409: {**_PROBLEM, "description": "not possible in the event's current state"},
        413: {**_PROBLEM, "description": "body too large"},
        422: {**_PROBLEM, "description": "invalid field, people, prizes, budget or rules"},
    },
)

Auth = Annotated[str | None, Header(description="Bearer <organiser token>")]


class CreateEvent(BaseModel):
    """The body of ``POST /api/events`` (docs/events.md)."""

    model_config = ConfigDict(extra="forbid")

    name: Any = Field(description="1-40 characters, no HTML", examples=["三年二班中秋博饼"])
    date: Any = Field(default=None, description="YYYY-MM-DD", examples=["2026-10-06"])
    rules: Any = Field(default=None, description="a preset id or a rule object (RULES.md §5, §8)")
    mode: Any = Field(
        default="referee", description="online (phones) | pass_and_play | referee (组长)"
    )
    people: Any = Field(
        description="names, or {name, group} objects; distinct names",
        examples=[["张三", {"name": "李四", "group": "一组"}]],
    )
    tables: Any = Field(default=None, description="the number of tables (or table_size)")
    table_size: Any = Field(default=None, description="people per table (or tables)")
    seating: Any = Field(default="random", description="random | balanced | in_order")
    prizes: Any = Field(
        default=None,
        description="one table's prize set: {tier: [{name, count, value}]}",
        examples=[{"duitang": [{"name": "洗发水", "count": 2, "value": 40}]}],
    )
    budget: Any = Field(
        default=None,
        description="{contribution: per person, fixed_costs: [{name, amount}]}",
        examples=[{"contribution": 50, "fixed_costs": [{"name": "场地", "amount": 0}]}],
    )
    playoff_prize: Any = Field(default=None, description="{name, value} of the 王中王 prize")
    start_thrower: Any = Field(default=None, description="who throws the start dice")
    previous: Any = Field(default=None, description="last year's event code")
    time_limit: Any = Field(
        default=None, description="minutes each table plays before time is called (1-600)"
    )


class Control(BaseModel):
    """The body of ``POST /api/events/{code}/control``."""

    model_config = ConfigDict(extra="forbid")

    action: Any = Field(description="start | pause | resume | close")
    table: Any = Field(default=None, description="a table number; absent: every table")


class Playoff(BaseModel):
    """The body of ``POST /api/events/{code}/playoff``."""

    model_config = ConfigDict(extra="forbid")

    throws: Any = Field(default=1, description="throws each, 1-10")


class Claim(BaseModel):
    """The body of a seat claim or release."""

    model_config = ConfigDict(extra="forbid")

    name: Any = Field(description="the seated name", examples=["张三"])
    key: Any = Field(
        default=None,
        description="the seat's claim key (in the QR beside the name on the table card); "
        "not needed with the organiser's token",
    )


def events_of(request: Request) -> GatheringService:
    """The app's event service."""
    service: GatheringService = request.app.state.gatherings
    return service


def _lang(request: Request) -> str:
    wanted = request.query_params.get("lang") or request.headers.get("accept-language", "")
    return normalize_lang(wanted.split(",")[0].split(";")[0] if wanted else None)


@router.post("", status_code=201, summary="Create an event with its tables, seats named")
async def create_event(body: CreateEvent, request: Request) -> JSONResponse:
    """Every table is created and seated at once; the organiser and host tokens are shown once."""
    # An event counts as one creation against the address's rate, and one open event.
    creator = await limit(request, "create")
    created = await events_of(request).create(body.model_dump(), creator)
    return JSONResponse(
        created, status_code=201, headers={"Location": f"/api/events/{created['code']}"}
    )


@router.post("/preview", summary="What a create body would make (nothing is created)")
async def preview(body: CreateEvent, request: Request) -> dict[str, Any]:
    """``{"tables": [seats per table], "prize_set_value", "budget"}`` — the create form's
    summary line; the same checks as ``POST /api/events``."""
    return events_of(request).preview(body.model_dump())


@router.post("/roster", summary="Read a roster file (text, CSV or XLSX) into people")
async def roster(
    request: Request,
    format: Annotated[str, Query(description="text | csv | xlsx", max_length=8)] = "csv",
) -> dict[str, Any]:
    """The request body is the file; nothing is stored. ``{"people": [{name, group}]}``."""
    data = await request.body()
    if len(data) > MAX_ROSTER_BYTES:
        raise ApiError(
            "too_large",
            f"the roster has {len(data)} bytes; at most {MAX_ROSTER_BYTES}",
            size=len(data),
            limit=MAX_ROSTER_BYTES,
        )
    people = model_errors(read_roster, data, format)
    return {"people": [p.to_json() for p in people]}


@router.get("/{code}", summary="An event: every table's status and result, the playoff")
async def get_event(code: str, request: Request) -> dict[str, Any]:
    """``tables: [{number, code, status, result, …}]`` and ``playoff``."""
    return await events_of(request).get(code)


@router.post("/{code}/control", summary="Start, pause, resume or close one table or all")
async def control(
    code: str, body: Control, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """The organiser acts as the host of the event's tables."""
    return await events_of(request).control(code, authorization, body.action, body.table)


@router.post("/{code}/playoff", status_code=201, summary="Start the 状元王中王 playoff")
async def playoff(
    code: str, request: Request, body: Playoff | None = None, authorization: Auth = None
) -> JSONResponse:
    """A ranked session (RULES.md §8.2) between the table winners, once every table is over."""
    throws = 1 if body is None else body.throws
    created = await events_of(request).playoff(code, authorization, throws)
    return JSONResponse(created, status_code=201)


@router.post("/{code}/tables/{number}/claim", status_code=201, summary="Claim your seat")
async def claim(
    code: str, number: int, body: Claim, request: Request, authorization: Auth = None
) -> JSONResponse:
    """Scan the QR beside your name: a new player token for that seat, once (the organiser's
    token claims any seat on its person's behalf). Earlier tokens of the seat stop working."""
    await limit(request, "join")
    claimed = await events_of(request).claim(code, number, body.name, body.key, authorization)
    return JSONResponse(claimed, status_code=201)


@router.get("/{code}/seats", summary="Every seat's claim key and whether it is claimed (organiser)")
async def seats(code: str, request: Request, authorization: Auth = None) -> dict[str, Any]:
    """What the table cards print (each seat's claim QR) and who claimed what."""
    return await events_of(request).seats(code, authorization)


@router.post("/{code}/tables/{number}/release", summary="Free a claimed seat (organiser)")
async def release(
    code: str, number: int, body: Claim, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """Someone tapped the wrong name: the seat can be claimed again."""
    return await events_of(request).release(code, authorization, number, body.name)


@router.get("/{code}/results", summary="Who takes home what")
async def results(code: str, request: Request) -> dict[str, Any]:
    """``people`` with their prizes, each table's 状元, the 王中王."""
    return await events_of(request).results(code)


@router.get(
    "/{code}/results.csv",
    summary="The prize-desk list as CSV",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}},
)
async def results_as_csv(code: str, request: Request) -> Response:
    """One row per prize, by table; headers in the request's language."""
    data = await events_of(request).results(code)
    return Response(
        results_csv(data, _lang(request)).encode("utf-8"),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="bobing-event-{data["code"]}.csv"'},
    )


@router.get(
    "/{code}/results.xlsx",
    summary="The prize-desk list as XLSX",
    response_class=Response,
    responses={200: {"content": {XLSX: {}}}},
)
async def results_as_xlsx(code: str, request: Request) -> Response:
    """Sheets by table, by name, and the winners."""
    data = await events_of(request).results(code)
    return Response(
        results_xlsx(data, _lang(request)),
        media_type=XLSX,
        headers={"Content-Disposition": f'attachment; filename="bobing-event-{data["code"]}.xlsx"'},
    )


@router.get("/{code}/record", summary="The event record: every table's and the playoff's")
async def record(code: str, request: Request) -> dict[str, Any]:
    """Checkable whole with ``bobing verify`` once every table is over."""
    return await events_of(request).record(code)


@router.get("/{code}/next", summary="Next year's event from this one (a create body)")
async def next_year(code: str, request: Request) -> dict[str, Any]:
    """Same roster, rules, prizes and budget; last year's 状元 throws the start dice."""
    return await events_of(request).next_year(code)
