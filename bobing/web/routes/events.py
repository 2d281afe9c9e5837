"""REST under ``/api/events``: an organiser's event of many tables (docs/events.md).

The names of ``POST /api/events``, ``GET /api/events/{code}``, ``POST …/playoff`` and
``GET …/results`` are fixed by issue 11; the rest serve the organiser's screens.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from bobing.analysis.dice_check import event_report
from bobing.engine.game import MAX_NAME_LENGTH, MAX_PLAYERS
from bobing.engine.switches import MAX_PRIZE_NAME
from bobing.gatherings.draft import MODE_ALIASES, model_errors
from bobing.gatherings.export import results_csv, results_xlsx
from bobing.gatherings.service import CONTROL_ACTIONS, GatheringService
from bobing.organizer import MAX_ROSTER_BYTES, Person, read_roster
from bobing.organizer.budget import MAX_AMOUNT, MAX_COST_NAME, MAX_COSTS
from bobing.organizer.playoff import MAX_PLAYOFF_THROWS
from bobing.organizer.prizes import MAX_VALUE
from bobing.organizer.programme import EVENING_2013, MAX_SESSIONS
from bobing.organizer.roster import MAX_GROUP_LENGTH, MAX_PEOPLE
from bobing.organizer.seating import SEATINGS
from bobing.tables.limits import MAX_EVENT_NAME, MAX_EVENT_TABLES, MAX_TIME_LIMIT, Limits
from bobing.tables.problems import ApiError
from bobing.tables.validation import MODES
from bobing.web.edge.lang import request_lang
from bobing.web.edge.problems import problem_responses
from bobing.web.edge.rate import count_request, found_codes

ROSTER_PATH = "/api/events/roster"
ROSTER_RETRY_AFTER = 2
"""Seconds a refused roster upload is told to wait (``Retry-After``)."""
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

router = APIRouter(
    prefix="/api/events",
    tags=["events"],
    responses=problem_responses(
        {
            400: "malformed request",
            401: "the organiser's token is missing",
            403: "the token is not this event's organiser's",
            404: "no such event",
            409: "not possible in the event's current state",
            413: "body too large",
            422: "invalid field, people, prizes, budget or rules",
        }
    ),
)

Auth = Annotated[str | None, Header(description="Bearer <organiser token>")]


def _typed(schema: dict[str, Any]) -> WithJsonSchema:
    """The JSON schema a field is documented with. The value itself is checked by the
    gatherings layer (``gatherings/draft.py``), whose problems name the field in the user's
    language; pydantic's own messages would not."""
    return WithJsonSchema(schema)


_TEXT = {"type": "string", "minLength": 1}
_WHOLE = {"type": "integer", "minimum": 1}
_PERSON = {
    "anyOf": [
        {**_TEXT, "maxLength": MAX_NAME_LENGTH},
        {
            "type": "object",
            "properties": {
                "name": {**_TEXT, "maxLength": MAX_NAME_LENGTH},
                "group": {"type": "string", "maxLength": MAX_GROUP_LENGTH},
            },
            "required": ["name"],
        },
    ]
}
_PRIZE = {
    "type": "object",
    "properties": {
        "name": {**_TEXT, "maxLength": MAX_PRIZE_NAME},
        "count": _WHOLE,
        "value": {"type": "number", "minimum": 0, "maximum": MAX_VALUE},
    },
    "required": ["name"],
}
_RULES = {
    "anyOf": [
        {"type": "string", "description": "a preset id"},
        {"type": "object", "description": "a rule object"},
    ]
}
_OR_NULL: dict[str, Any] = {"type": "null"}


_NAME = {**_TEXT, "maxLength": MAX_NAME_LENGTH}
_NAMES = {"type": "array", "items": _NAME, "maxItems": MAX_PEOPLE}
_START_THROWER = {"anyOf": [_NAME, _NAMES]}
_DONATED = {
    "type": "array",
    "maxItems": MAX_PEOPLE,
    "items": {
        "type": "object",
        "properties": {"name": _NAME, "new_son": {"type": "boolean"}},
        "required": ["name"],
    },
}


def _optional(schema: dict[str, Any]) -> WithJsonSchema:
    return _typed({"anyOf": [schema, _OR_NULL]})


class CreateEvent(BaseModel):
    """The body of ``POST /api/events`` (docs/events.md)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[Any, _typed({**_TEXT, "maxLength": MAX_EVENT_NAME})] = Field(
        description="1-40 characters, no HTML", examples=["三年二班中秋博饼"]
    )
    date: Annotated[Any, _optional({"type": "string", "format": "date"})] = Field(
        default=None, description="YYYY-MM-DD", examples=["2026-10-06"]
    )
    rules: Annotated[Any, _optional(_RULES)] = Field(
        default=None, description="a preset id or a rule object (RULES.md §5, §8)"
    )
    mode: Annotated[Any, _typed({"enum": [*MODES, *MODE_ALIASES]})] = Field(
        default="referee", description="online (phones) | pass_and_play | referee (组长)"
    )
    people: Annotated[
        Any, _typed({"type": "array", "items": _PERSON, "minItems": 1, "maxItems": MAX_PEOPLE})
    ] = Field(
        description="names, or {name, group} objects; distinct names",
        examples=[["张三", {"name": "李四", "group": "一组"}]],
    )
    tables: Annotated[Any, _optional({**_WHOLE, "maximum": MAX_EVENT_TABLES})] = Field(
        default=None, description="the number of tables (or table_size)"
    )
    table_size: Annotated[Any, _optional({**_WHOLE, "maximum": MAX_PLAYERS})] = Field(
        default=None, description="people per table (or tables)"
    )
    seating: Annotated[Any, _typed({"enum": list(SEATINGS)})] = Field(
        default="random", description="random | balanced | in_order"
    )
    prizes: Annotated[
        Any,
        _optional({"type": "object", "additionalProperties": {"type": "array", "items": _PRIZE}}),
    ] = Field(
        default=None,
        description="one table's prize set: {tier: [{name, count, value}]}",
        examples=[{"duitang": [{"name": "洗发水", "count": 2, "value": 40}]}],
    )
    budget: Annotated[
        Any,
        _optional(
            {
                "type": "object",
                "properties": {
                    "contribution": {"type": "number", "minimum": 0, "maximum": MAX_AMOUNT},
                    "fixed_costs": {
                        "type": "array",
                        "maxItems": MAX_COSTS,
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {**_TEXT, "maxLength": MAX_COST_NAME},
                                "amount": {"type": "number", "minimum": 0, "maximum": MAX_AMOUNT},
                            },
                        },
                    },
                },
            }
        ),
    ] = Field(
        default=None,
        description="{contribution: per person, fixed_costs: [{name, amount}]}",
        examples=[{"contribution": 50, "fixed_costs": [{"name": "场地", "amount": 0}]}],
    )
    playoff_prize: Annotated[Any, _optional(_PRIZE)] = Field(
        default=None, description="{name, value} of the 王中王 prize"
    )
    start_thrower: Annotated[Any, _optional(_START_THROWER)] = Field(
        default=None,
        description="who throws each table's start dice: first_seat | leader | elder | a name, "
        "or a list (names throw at their own table; the one mode elsewhere)",
    )
    check_in: Annotated[Any, _optional({"type": "boolean"})] = Field(
        default=None, description="true: seat only the people checked in at the door"
    )
    organizers: Annotated[Any, _optional(_NAMES)] = Field(
        default=None, description="the organisers' names"
    )
    donated_sets: Annotated[Any, _optional(_DONATED)] = Field(
        default=None,
        description="prize sets given, cost 0: [{name, new_son}] (two sets with a new son)",
    )
    previous: Annotated[Any, _optional({**_TEXT, "maxLength": 20})] = Field(
        default=None, description="last year's event code"
    )
    time_limit: Annotated[Any, _optional({**_WHOLE, "maximum": MAX_TIME_LIMIT})] = Field(
        default=None, description="minutes each table plays before time is called (1-600)"
    )
    programme: Annotated[Any, _optional({"type": "array", "maxItems": MAX_SESSIONS})] = Field(
        default=None,
        description="the evening's sessions (RULES.md §10.2): [{name, starts: HH:MM, minutes, "
        "game: none | cakes | ranked}]",
        examples=[[s.to_json() for s in EVENING_2013]],
    )
    start_on_time: Annotated[Any, _optional({"type": "boolean"})] = Field(
        default=None,
        description="true: the organiser's dashboard starts each game session at its time",
    )
    keep_photos: Annotated[Any, _optional({"type": "boolean"})] = Field(
        default=None,
        description="true (referee tables only): each table keeps every confirmed throw's photo "
        "as evidence (docs/vision.md)",
    )


class Control(BaseModel):
    """The body of ``POST /api/events/{code}/control``."""

    model_config = ConfigDict(extra="forbid")

    action: Annotated[Any, _typed({"enum": list(CONTROL_ACTIONS)})] = Field(
        description="start | pause | resume | close"
    )
    table: Annotated[Any, _optional(_WHOLE)] = Field(
        default=None, description="a table number; absent: every table"
    )


class Playoff(BaseModel):
    """The body of ``POST /api/events/{code}/playoff``."""

    model_config = ConfigDict(extra="forbid")

    throws: Annotated[Any, _typed({**_WHOLE, "maximum": MAX_PLAYOFF_THROWS})] = Field(
        default=1, description="throws each, 1-10"
    )


class SessionStart(BaseModel):
    """The body of ``POST /api/events/{code}/session``."""

    model_config = ConfigDict(extra="forbid")

    session: Annotated[Any, _optional({**_WHOLE, "maximum": MAX_SESSIONS})] = Field(
        default=None, description="the programme's index of the session; absent: the next"
    )


class CheckIn(BaseModel):
    """The body of a check-in at the door."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[Any, _typed(_NAME)] = Field(
        description="a name on the roster", examples=["张三"]
    )
    present: Annotated[Any, _typed({"type": "boolean"})] = Field(
        default=True, description="false undoes a wrong tick"
    )


class StartThrower(BaseModel):
    """The body of choosing one table's start thrower."""

    model_config = ConfigDict(extra="forbid")

    start_thrower: Annotated[Any, _typed(_NAME)] = Field(
        description="first_seat | leader | elder | a name at the table", examples=["elder"]
    )


class Claim(BaseModel):
    """The body of a seat claim or release."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[Any, _typed({**_TEXT, "maxLength": MAX_NAME_LENGTH})] = Field(
        description="the seated name", examples=["张三"]
    )
    key: Annotated[Any, _optional({**_TEXT, "maxLength": 100})] = Field(
        default=None,
        description="the seat's claim key (in the QR beside the name on the table card); "
        "not needed with the organiser's token",
    )


def events_of(request: Request) -> GatheringService:
    """The app's event service."""
    service: GatheringService = request.app.state.gatherings
    return service


@router.post("", status_code=201, summary="Create an event with its tables, seats named")
async def create_event(body: CreateEvent, request: Request) -> JSONResponse:
    """Every table is created and seated at once; the organiser and host tokens are shown once."""
    # An event counts as one creation against the address's rate, and one open event.
    creator = await count_request(request, "create")
    created = await events_of(request).create(body.model_dump(), creator)
    # The organiser made the event and its tables: looking them up costs it nothing.
    found_codes(request, "events", created["code"])
    found_codes(request, "tables", *(table["code"] for table in created["tables"]))
    return JSONResponse(
        created, status_code=201, headers={"Location": f"/api/events/{created['code']}"}
    )


@router.post("/preview", summary="What a create body would make (nothing is created)")
async def preview(body: CreateEvent, request: Request) -> dict[str, Any]:
    """``{"tables": [seats per table], "prize_set_value", "budget"}`` — the create form's
    summary line; the same checks as ``POST /api/events``."""
    await count_request(request, "preview")
    return events_of(request).preview(body.model_dump())


class RosterGate:
    """Roster files are read in worker threads, at most ``roster_workers`` at once and
    ``roster_queue`` waiting; past that a file is refused ``busy`` (503, Retry-After).

    The reader bounds what one file may cost (:mod:`bobing.organizer.xlsx`); this bounds how
    many are read at once, so the memory of all of them is bounded and the event loop, which
    never reads one, keeps answering every table.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._workers = asyncio.Semaphore(max(1, limits.roster_workers))
        self._admitted = 0

    async def read(self, data: bytes, fmt: str) -> tuple[Person, ...]:
        """The people of the file, read off the event loop."""
        room = max(1, self.limits.roster_workers) + self.limits.roster_queue
        if self._admitted >= room:
            raise ApiError(
                "busy",
                f"{self._admitted} roster files are being read or waiting; "
                f"try again in {ROSTER_RETRY_AFTER} s",
                retry_after=ROSTER_RETRY_AFTER,
            )
        self._admitted += 1
        try:
            async with self._workers:
                people: tuple[Person, ...] = await asyncio.to_thread(
                    model_errors, read_roster, data, fmt
                )
                return people
        finally:
            self._admitted -= 1


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
    await count_request(request, "roster")
    gate: RosterGate = request.app.state.roster_gate
    people = await gate.read(data, format)
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


@router.post("/{code}/checkin", summary="Check someone in at the door (organiser)")
async def check_in(
    code: str, body: CheckIn, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """``{"name", "present"}``; 409 ``already_seated`` once the tables are seated."""
    return await events_of(request).check_in(code, authorization, body.name, body.present)


@router.post("/{code}/seat", status_code=201, summary="Seat the people checked in (organiser)")
async def seat(code: str, request: Request, authorization: Auth = None) -> JSONResponse:
    """Only the people present are seated; the tables and their tokens, once, as on create."""
    seated = await events_of(request).seat(code, authorization)
    found_codes(request, "tables", *(table["code"] for table in seated["tables"]))
    return JSONResponse(seated, status_code=201)


@router.post("/{code}/playoff", status_code=201, summary="Start the 状元王中王 playoff")
async def playoff(
    code: str, request: Request, body: Playoff | None = None, authorization: Auth = None
) -> JSONResponse:
    """A ranked session (RULES.md §8.2) between the table winners, once every table is over."""
    throws = 1 if body is None else body.throws
    created = await events_of(request).playoff(code, authorization, throws)
    found_codes(request, "tables", created["code"])
    return JSONResponse(created, status_code=201)


@router.post("/{code}/session", status_code=201, summary="Start the next session (organiser)")
async def start_session(
    code: str, request: Request, body: SessionStart | None = None, authorization: Auth = None
) -> JSONResponse:
    """The programme's next game session (RULES.md §10.2), once every table is over: a new game
    at each table with the same people, started; the new tables' host tokens, once."""
    session = None if body is None else body.session
    started = await events_of(request).start_session(code, authorization, session)
    found_codes(request, "tables", *(table["code"] for table in started["tables"]))
    return JSONResponse(started, status_code=201)


@router.post("/{code}/tables/{number}/claim", status_code=201, summary="Claim your seat")
async def claim(
    code: str, number: int, body: Claim, request: Request, authorization: Auth = None
) -> JSONResponse:
    """Scan the QR beside your name: a new player token for that seat, once (the organiser's
    token claims any seat on its person's behalf). Earlier tokens of the seat stop working.

    The right key draws on no rate (the join bucket is for taking seats by name) and is no
    look-up (the key decides; the event and its table count as found after): nobody behind
    the guests' address can keep them out; a wrong key is a miss (docs/security.md)."""
    claimed = await events_of(request).claim(code, number, body.name, body.key, authorization)
    # The guest found the event and its table: looking them up costs it nothing from now on.
    found_codes(request, "events", code)
    found_codes(request, "tables", claimed["code"])
    return JSONResponse(claimed, status_code=201)


@router.get("/{code}/seats", summary="Every seat's claim key and whether it is claimed (organiser)")
async def seats(code: str, request: Request, authorization: Auth = None) -> dict[str, Any]:
    """What the table cards print (each seat's claim QR) and who claimed what."""
    return await events_of(request).seats(code, authorization)


@router.post("/{code}/tables/{number}/start_thrower", summary="Choose a table's start thrower")
async def start_thrower(
    code: str, number: int, body: StartThrower, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """Organiser, before the table's start dice: ``{"table", "start_thrower"}`` (the name)."""
    return await events_of(request).set_start_thrower(
        code, authorization, number, body.start_thrower
    )


@router.post("/{code}/tables/{number}/release", summary="Free a claimed seat (organiser)")
async def release(
    code: str, number: int, body: Claim, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """Someone tapped the wrong name: the seat can be claimed again, with a new claim key
    (``claim_key`` in the answer; the old card's QR is refused, ``claim_key_replaced``)."""
    return await events_of(request).release(code, authorization, number, body.name)


@router.post("/{code}/tables/{number}/new_key", summary="Give a seat a new claim key (organiser)")
async def new_key(
    code: str, number: int, body: Claim, request: Request, authorization: Auth = None
) -> dict[str, Any]:
    """A card was lost or photographed: ``{"name"}`` → ``{"table", "name", "claim_key"}``; the
    old card's QR is refused from now on (``claim_key_replaced``)."""
    return await events_of(request).new_key(code, authorization, number, body.name)


@router.get("/{code}/results", summary="Who takes home what")
async def results(code: str, request: Request) -> dict[str, Any]:
    """``people`` with their prizes, each table's 状元, the 王中王, and ``dice``: are the real
    dice fair (RULES.md §10.3), per referee table and for the whole event (``event`` null
    without a referee table)."""
    service = events_of(request)
    out = await service.results(code)
    record = await service.record(code)
    tables = [(table["number"], table["record"]) for table in record["tables"]]
    return {**out, "dice": event_report(tables, request_lang(request))}


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
        results_csv(data, request_lang(request)).encode("utf-8"),
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
        results_xlsx(data, request_lang(request)),
        media_type=XLSX,
        headers={"Content-Disposition": f'attachment; filename="bobing-event-{data["code"]}.xlsx"'},
    )


@router.get("/{code}/record", summary="The event record: every table's and the playoff's")
async def record(code: str, request: Request) -> dict[str, Any]:
    """Checkable whole with ``bobing verify`` once every table is over."""
    return await events_of(request).record(code)


@router.get("/{code}/years", summary="历届: this year and every earlier one")
async def years(code: str, request: Request) -> dict[str, Any]:
    """``year`` (this event) and ``years`` (every earlier one, last year first, following
    ``previous``), each row its date, 状元 or 王中王, organisers and 会饼 givers (RULES.md
    §10.3; the fields: docs/events.md)."""
    return await events_of(request).years(code)


@router.get("/{code}/next", summary="Next year's event from this one (a create body)")
async def next_year(code: str, request: Request) -> dict[str, Any]:
    """Same roster, rules, prizes and budget; last year's 状元 throws the start dice."""
    return await events_of(request).next_year(code)
