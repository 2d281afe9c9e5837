"""The organiser's service: an event's tables created, watched, controlled and summed up.

The event model (:mod:`bobing.organizer`) decides seating, prize sets, the budget, the
playoff's field and who takes home what; the table service (:class:`TableService`) creates
and runs every table, so a table of an event is an ordinary table with its own log, and the
engine stays the one place of every rule. This module adds the organiser's token, seat claims
and the event record, and stores the event (:class:`GatheringStore`).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

from bobing.engine.rules import rules_from_json
from bobing.gatherings.collation import by_name
from bobing.gatherings.draft import (
    Draft,
    draft_event,
    event_prize_cost,
    model_errors,
    named_prizes,
    table_name,
)
from bobing.gatherings.years import champion_names, earlier_years, year_row
from bobing.organizer import (
    PLAYOFF_PRIZE,
    Person,
    parse_budget,
    parse_prize_set,
    playoff_field,
    playoff_rules,
    table_winner,
)
from bobing.organizer.budget import BudgetSummary, prize_cost
from bobing.organizer.customs import (
    START_MODES,
    parse_donated_sets,
    parse_start_thrower,
    table_start_thrower,
)
from bobing.organizer.playoff import check_throws
from bobing.organizer.prizes import table_prize_value
from bobing.organizer.programme import (
    Session,
    event_ranking,
    game_sessions,
    session_rules,
)
from bobing.organizer.results import event_results, prize_counts
from bobing.organizer.roster import parse_people
from bobing.organizer.seating import leaderless_tables
from bobing.storage.event_store import CodeTaken, iso, utcnow
from bobing.storage.gatherings import Gathering, GatheringStore, SeatClaimed
from bobing.tables.commands import need_start_thrower_open
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.state import RESULT_KEYS, close_at_once
from bobing.tables.tokens import (
    bearer_token,
    hash_token,
    new_token,
    normalize_code,
    with_free_code,
)

CONTROL_ACTIONS = ("start", "pause", "resume", "close")


def _result(runtime: Runtime) -> dict[str, Any] | None:
    """The §7 result of a table (with ``ranking`` in ranked mode), or None before it starts."""
    if runtime.game is None:
        return None
    full = runtime.game.result(events=False)
    out = {key: full[key] for key in RESULT_KEYS}
    # ranked prizes, and RULES.md §9.3's 分状元 and 反向博钱 (absent when off)
    for key in ("ranking", "zhuangyuan_cake", "payments"):
        if key in full:
            out[key] = full[key]
    if "sets" in full:  # 一二会 (RULES.md §10.2): each finished set hands over its own prizes
        out["set"] = full["set"]
        out["sets"] = [
            {key: done[key] for key in RESULT_KEYS if key in done} for done in full["sets"]
        ]
    return out


class GatheringService:
    """Events of one server: create, read, control, playoff, claims, results, record."""

    def __init__(self, tables: TableService, store: GatheringStore) -> None:
        self.tables = tables
        self.store = store
        self._session_locks: dict[str, asyncio.Lock] = {}
        """One session start at a time per event (a tap and "start on time" together)."""

    # -- creating ---------------------------------------------------------------------------

    def draft(self, body: Mapping[str, Any]) -> Draft:
        """Check a create body and seat the people (random seating draws here)."""
        return draft_event(body)

    def preview(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """What a create body would make: the table sizes, the rules every table gets and the
        budget (nothing stored)."""
        draft = self.draft(body)
        return {
            "tables": [len(table) for table in draft.seated],
            "rules": draft.rules_json,
            "prize_set_value": table_prize_value(draft.rules_json, draft.prize_set),
            "budget": draft.summary().to_json(),
            **self._leaders_preview(draft),
        }

    @staticmethod
    def _leaders_preview(draft: Draft) -> dict[str, Any]:
        """``leaders``: how many 组长 the roster marks and the tables the seating left without
        one (there were fewer than tables); absent when the roster marks none."""
        marked = sum(p.leader for p in draft.people)
        if not marked:
            return {}
        return {"leaders": {"marked": marked, "without": leaderless_tables(draft.seated)}}

    async def _make_tables(
        self, draft: Draft, code: str, creator: str | None
    ) -> tuple[list[dict[str, Any]], dict[str, dict[str, str]]]:
        """Create and seat every table of a draft under the event ``code``: the tables (with
        their host tokens) and each seat's claim key by table number.

        Everything was checked by the draft; should a table still fail (the database, say),
        every table made so far is deleted again before the error goes on: nothing is left.
        """
        named = named_prizes(draft.prize_set)
        throwers = draft.table_start_throwers()
        session = draft.first_session()

        async def make_table(
            number: int, members: list[Person], made_codes: list[str]
        ) -> tuple[dict[str, Any], dict[str, str]]:
            return await self._make_table(
                code,
                number,
                [p.name for p in members],
                throwers[number - 1],
                name=draft.name,
                mode=draft.mode,
                rules=draft.table_rules(),
                named=named,
                time_limit=draft.table_time_limit(),
                keep_photos=draft.keep_photos,
                creator=creator,
                tables=len(draft.seated),
                session=session,
                made_codes=made_codes,
            )

        made_codes: list[str] = []
        try:
            # The tables are made side by side: their appends share the store's group commits.
            # Each runs to its end (return_exceptions), so none is still adding a table when
            # the ones made are deleted.
            outcomes = await asyncio.gather(
                *(
                    make_table(n, members, made_codes)
                    for n, members in enumerate(draft.seated, start=1)
                ),
                return_exceptions=True,
            )
            for outcome in outcomes:
                if isinstance(outcome, BaseException):
                    raise outcome
        except BaseException:
            await self.tables.discard(made_codes)
            raise
        made = [o for o in outcomes if not isinstance(o, BaseException)]
        return [t for t, _ in made], {str(t["number"]): keys for t, keys in made}

    async def _make_table(
        self,
        code: str,
        number: int,
        players: list[str],
        thrower: str,
        *,
        name: str,
        mode: str,
        rules: dict[str, Any],
        named: dict[str, dict[str, Any]],
        time_limit: int | None,
        creator: str | None,
        tables: int,
        keep_photos: bool = False,
        session: int | None,
        made_codes: list[str],
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """One table of the event ``code``, its people seated in order and its start thrower
        named: the table (with its host token) and each seat's claim key."""
        created = await self.tables.create_table(
            name=table_name(name, number),
            mode=mode,
            rules=rules,
            named_prizes=named,
            time_limit=time_limit,
            keep_photos=keep_photos,
            creator=creator,
            gathering=code,
            event_tables=tables,
        )
        made_codes.append(created.code)
        keys: dict[str, str] = {}
        for person in players:  # in seat order: a table's seats are taken one by one
            # The seat's player token is thrown away: nobody holds it until the seat is
            # claimed with its card's claim key (or by the organiser).
            await self.tables.join(created.code, person)
            keys[person] = new_token("k")
        await self.tables.name_start_thrower(created.code, thrower)
        table: dict[str, Any] = {
            "number": number,
            "code": created.code,
            "host_token": created.host_token,
            "play_token": created.play_token,
            "players": players,
            "start_thrower": thrower,
        }
        if session is not None:
            table["session"] = session
        return table, keys

    @staticmethod
    def _stored(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
        keys = ("number", "code", "players", "start_thrower", "session", "past")
        return [{k: t[k] for k in keys if k in t} for t in tables]

    async def create(self, body: Mapping[str, Any], creator: str | None = None) -> dict[str, Any]:
        """Create the event and all its tables, seats named; the secrets are returned once.

        ``creator`` (a hash of the client's address) counts toward the open-event quota. An
        event that checks people in at the door (``check_in``) gets its tables later, from
        :meth:`seat`: ``tables`` is then empty here. All or nothing: a create that fails
        leaves no table behind.
        """
        draft = self.draft(body)
        if draft.previous is not None:
            # 历届: last year's event must exist (a miss like any code looked up: issue 16)
            await self.gathering(draft.previous)
        quota = self.tables.limits.open_events_per_address
        if (
            creator is not None
            and quota
            and await self.tables.store.open_gatherings(creator) >= quota
        ):
            raise ApiError(
                "too_many_events",
                f"this address already has {quota} open events; end one or wait for it to expire",
                limit=quota,
            )
        code = await self._free_code()
        tables: list[dict[str, Any]] = []
        claim_keys: dict[str, dict[str, str]] = {}
        if not draft.check_in:
            tables, claim_keys = await self._make_tables(draft, code, creator)
        spec = draft.spec()
        if draft.check_in:
            spec["layout"]["planned"] = len(draft.seated)
        organizer_token = new_token("o")
        gathering = Gathering(
            code=code,
            name=draft.name,
            organizer_token_hash=hash_token(organizer_token),
            spec=spec,
            tables=self._stored(tables),
            secrets={"claim_keys": claim_keys},
            playoff=None,
            created_at=utcnow(),
        )
        try:
            await self.store.create(gathering)
        except BaseException as exc:
            await self.tables.discard([t["code"] for t in tables])
            if isinstance(exc, CodeTaken):
                # Taken between the look-up and now (vanishingly rare).
                raise ApiError("conflict", "could not find a free event code; try again") from None
            raise
        return {"code": code, "organizer_token": organizer_token, "tables": tables}

    async def _free_code(self) -> str:
        """A code no event has yet (its tables are made under it before it is stored)."""

        async def unused(code: str) -> str:
            if await self.store.get(code) is not None:
                raise CodeTaken(code)
            return code

        return await with_free_code(unused, "event")

    # -- the door (签到) -----------------------------------------------------------------------

    @staticmethod
    def _seated(gathering: Gathering) -> bool:
        return bool(gathering.tables) or bool(gathering.secrets.get("seated"))

    @classmethod
    def _need_open_door(cls, gathering: Gathering) -> None:
        """409 unless the event checks people in and is not seated yet."""
        if not gathering.spec.get("check_in"):
            raise ApiError(
                "no_check_in",
                f"event {gathering.code} seats everyone on the roster; it has no check-in",
                code=gathering.code,
            )
        if cls._seated(gathering):
            raise ApiError(
                "already_seated",
                f"event {gathering.code} is seated already; the check-in is closed",
                code=gathering.code,
            )

    async def check_in(
        self, code: str, authorization: str | None, name: Any, present: Any = True
    ) -> dict[str, Any]:
        """The organiser ticks ``name`` as come (``present`` false undoes a wrong tick)."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        self._need_open_door(gathering)
        names = {p["name"] for p in gathering.spec.get("people", [])}
        if not isinstance(name, str) or name not in names:
            raise ApiError(
                "unknown_player",
                f"{str(name)[:40]!r} is not on the roster",
                name=str(name)[:40],
                code=gathering.code,
            )
        if not isinstance(present, bool):
            raise ApiError("invalid_field", "present must be true or false", field="present")
        await self.store.check_in(gathering.code, name, present)
        return {"name": name, "present": present}

    async def seat(self, code: str, authorization: str | None) -> dict[str, Any]:
        """Seat the people checked in and create the tables: the secrets, once (as create)."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        self._need_open_door(gathering)
        spec = gathering.spec
        body = {
            **{k: spec.get(k) for k in ("name", "date", "mode", "rules", "seating", "people")},
            **{k: spec.get(k) for k in ("prizes", "budget", "playoff_prize", "start_thrower")},
            "time_limit": spec.get("time_limit"),
            "programme": spec.get("programme"),
            "start_on_time": spec.get("start_on_time"),
            "keep_photos": spec.get("keep_photos"),
            **{k: v for k, v in (spec.get("layout") or {}).items() if k != "planned"},
        }
        draft = draft_event(body, present=gathering.present)
        tables, claim_keys = await self._make_tables(draft, gathering.code, None)
        if not await self.store.set_tables(
            gathering.code, self._stored(tables), {"claim_keys": claim_keys}
        ):
            await self.tables.discard([t["code"] for t in tables])
            raise ApiError(
                "already_seated", f"event {gathering.code} is seated already", code=gathering.code
            )
        return {"code": gathering.code, "tables": tables}

    # -- reading ----------------------------------------------------------------------------

    async def gathering(self, code: str) -> Gathering:
        """The stored event; event_not_found otherwise."""
        wanted = normalize_code(code)
        if len(wanted) > 16 or not wanted.isascii() or not wanted.isalnum():
            # not a code at all (PostgreSQL would also refuse a NUL in the query)
            shown = wanted[:16].encode("unicode_escape").decode("ascii")
            raise ApiError("event_not_found", f"no event {shown!r}", code=shown)
        found = await self.store.get(wanted)
        if found is None:
            raise ApiError("event_not_found", f"no event {wanted!r}", code=wanted)
        return found

    async def _all_over(self, gathering: Gathering, code: str, what: str) -> list[Runtime]:
        """Every table's runtime, once every table is over; else 409 ``code`` ("``what`` once
        every table is over"), naming the tables still playing."""
        runtimes = await self._runtimes(gathering)
        playing = [
            t["number"]
            for t, r in zip(gathering.tables, runtimes, strict=True)
            if r.status != "over"
        ]
        if playing:
            raise ApiError(
                code,
                f"{what} once every table is over; still playing: " + ", ".join(map(str, playing)),
                tables=", ".join(map(str, playing)),
            )
        return runtimes

    async def _runtimes(self, gathering: Gathering) -> list[Runtime]:
        return [await self.tables.fresh_runtime(t["code"]) for t in gathering.tables]

    async def get(self, code: str) -> dict[str, Any]:
        """The event: its plan, every table's status and §7 result, the playoff."""
        gathering = await self.gathering(code)
        runtimes = await self._runtimes(gathering)
        spec = gathering.spec
        prize_set = parse_prize_set(spec.get("prizes"))
        tables = []
        seat_of: dict[str, int] = {}
        leaders = {p["name"] for p in spec.get("people", []) if p.get("leader")}
        for table, runtime in zip(gathering.tables, runtimes, strict=True):
            result = _result(runtime)
            for name in table["players"]:
                seat_of[name] = table["number"]
            tables.append(
                {
                    "number": table["number"],
                    "code": table["code"],
                    "name": runtime.info.name,
                    "status": runtime.status,
                    "players": table["players"],
                    "claimed": sorted(
                        n for number, n in gathering.claims if number == table["number"]
                    ),
                    "next": runtime.game.next_player
                    if runtime.game is not None and runtime.status == "playing"
                    else None,
                    "throw_count": runtime.game.throw_count if runtime.game is not None else 0,
                    "close_at_once": close_at_once(runtime.game),
                    "last_throw": runtime.last_throw,
                    "result": result,
                    "zhuangyuan": table_winner(result),
                    "start_thrower": table.get("start_thrower"),
                    # the roster's 组长 at this table (its card names them)
                    "leaders": [n for n in table["players"] if n in leaders],
                    **({"session": table["session"]} if "session" in table else {}),
                }
            )
        people = [{**p, "table": seat_of.get(p["name"])} for p in spec.get("people", [])]
        per_table = table_prize_value(spec.get("rules") or {}, prize_set)
        budget = self._budget(gathering, per_table)
        return {
            "code": gathering.code,
            "name": gathering.name,
            "date": spec.get("date"),
            "mode": spec.get("mode"),
            "rules": spec.get("rules"),
            "seating": spec.get("seating"),
            "people": people,
            "prizes": spec.get("prizes"),
            "prize_set_value": per_table,
            "budget": budget.to_json(),
            "playoff_prize": spec.get("playoff_prize"),
            "start_thrower": spec.get("start_thrower"),
            "previous": spec.get("previous"),
            "time_limit": spec.get("time_limit"),
            "organizers": spec.get("organizers", []),
            "donated_sets": spec.get("donated_sets", []),
            "check_in": self._door(gathering),
            "keep_photos": bool(spec.get("keep_photos")),
            "created_at": iso(gathering.created_at),
            "tables": tables,
            "all_over": bool(runtimes) and all(r.status == "over" for r in runtimes),
            "playoff_field": playoff_field([t["result"] for t in tables]),
            "playoff": await self._playoff_view(gathering),
            **self._programme_view(gathering, runtimes),
        }

    @staticmethod
    def _programme_view(gathering: Gathering, runtimes: list[Runtime]) -> dict[str, Any]:
        """``programme`` (the run-sheet, RULES.md §10.2), ``session`` (the index of the game
        session the tables play now) and ``next_session`` (the next game session the
        organiser may start once every table is over, or null); absent without a programme."""
        programme = gathering.spec.get("programme")
        if not programme or not gathering.tables:
            return {"programme": programme} if programme else {}
        current = int(gathering.tables[0].get("session", 0))
        later = [i for i, s in enumerate(programme) if s["game"] != "none" and i > current]
        over = all(r.status == "over" for r in runtimes)
        return {
            "programme": programme,
            "start_on_time": bool(gathering.spec.get("start_on_time")),
            "session": current,
            "next_session": later[0] if later else None,
            "session_over": over,
        }

    def _budget(self, gathering: Gathering, per_table: float) -> BudgetSummary:
        """The budget summary of a stored event (as :meth:`Draft.summary` reads a draft):
        income from everyone who paid, the tables' sets less the donated ones."""
        spec = gathering.spec
        people = parse_people(spec.get("people", []))
        payers = [p.name for p in people if p.paid is not False]
        donated = parse_donated_sets(spec.get("donated_sets"))
        tables = len(gathering.tables) or int((spec.get("layout") or {}).get("planned", 0))
        programme = _sessions(spec.get("programme") or [])
        spent = (
            event_prize_cost(
                spec.get("rules") or {},
                parse_prize_set(spec.get("prizes")),
                programme,
                tables,
                self._playoff_value(spec),
                donated,
            )
            if programme
            else prize_cost(per_table, tables, self._playoff_value(spec), donated)
        )
        # Who came (RULES.md §10.1): those checked in once the door is closed; without a
        # check-in everyone on the roster is seated.
        came = (
            [n for n in payers if n in gathering.present]
            if spec.get("check_in") and self._seated(gathering)
            else None
        )
        return parse_budget(spec.get("budget")).summary(
            len(payers), spent, payers=payers, came=came, donated=donated
        )

    @staticmethod
    def _door(gathering: Gathering) -> dict[str, Any] | None:
        """The check-in: who came, and once seated the no-shows with what they paid."""
        spec = gathering.spec
        if not spec.get("check_in"):
            return None
        seated = GatheringService._seated(gathering)
        contribution = (spec.get("budget") or {}).get("contribution", 0)
        people = spec.get("people", [])
        return {
            "open": not seated,
            "present": [p["name"] for p in people if p["name"] in gathering.present],
            "no_shows": [
                {"name": p["name"], "paid": contribution if p.get("paid") is not False else 0}
                for p in people
                if seated and p["name"] not in gathering.present
            ],
        }

    @staticmethod
    def _playoff_value(spec: Mapping[str, Any]) -> float:
        prize = spec.get("playoff_prize") or {}
        return float(prize.get("value", 0) or 0)

    async def _playoff_view(self, gathering: Gathering) -> dict[str, Any] | None:
        playoff = gathering.playoff
        if playoff is None:
            return None
        runtime = await self.tables.fresh_runtime(playoff["code"])
        return {
            "code": playoff["code"],
            "status": runtime.status,
            "throws": playoff.get("throws"),
            "players": playoff.get("players", []),
            "prize": playoff.get("prize"),
            "next": runtime.game.next_player
            if runtime.game is not None and runtime.status == "playing"
            else None,
            "last_throw": runtime.last_throw,
            "result": _result(runtime),
        }

    # -- the organiser ------------------------------------------------------------------------

    def check_organizer(self, gathering: Gathering, authorization: str | None) -> None:
        """401 without a bearer token, 403 with a token that is not this event's organiser's."""
        if not authorization:
            raise ApiError(
                "unauthorized", "the organiser's token is required (Authorization: Bearer …)"
            )
        token = bearer_token(authorization)
        if token is None:
            raise ApiError("unauthorized", "Authorization must be 'Bearer <organiser token>'")
        if not hmac.compare_digest(hash_token(token), gathering.organizer_token_hash):
            raise ApiError(
                "forbidden",
                f"the token is not the organiser's of event {gathering.code}",
                action="organise",
            )

    async def control(
        self, code: str, authorization: str | None, action: Any, table: Any = None
    ) -> dict[str, Any]:
        """Start, pause, resume or close one table (``table`` = its number) or all of them.

        On all tables, each is changed only where the action applies (a table already over is
        not closed again); on one table, an action that does not apply is a 409.
        """
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        if action not in CONTROL_ACTIONS:
            raise ApiError(
                "invalid_field",
                f"invalid action {str(action)[:20]!r}; allowed: " + ", ".join(CONTROL_ACTIONS),
                field="action",
            )
        targets = gathering.tables
        if table is not None:
            exact = isinstance(table, int) and not isinstance(table, bool)
            targets = [t for t in gathering.tables if exact and t["number"] == table]
            if not targets:
                raise ApiError(
                    "invalid_field",
                    f"event {gathering.code} has no table {str(table)[:10]!r}",
                    field="table",
                )
        changed: list[dict[str, Any]] = []
        fallback = gathering.spec.get("start_thrower")
        for entry in targets:
            runtime = await self.tables.fresh_runtime(entry["code"])
            applies = {
                "start": runtime.status == "lobby",
                "pause": runtime.status == "playing",
                "resume": runtime.status == "paused",
                "close": runtime.status != "over",
            }[str(action)]
            if not applies and table is None:
                continue
            host = [runtime.info.host_token_hash]
            if action == "start":
                # At a referee table the start dice are real dice its 组长 types in (RULES.md
                # §9.4): the server never rolls them there; without them the first seat starts.
                if runtime.start_dice is None and runtime.info.mode != "referee":
                    who = entry.get("start_thrower") or table_start_thrower(
                        fallback, [Person(n) for n in runtime.names]
                    )
                    await self.tables.execute(
                        entry["code"], Command("start_dice", None, {"thrower": who}), host
                    )
                await self.tables.execute(entry["code"], Command("start", None, {}), host)
            else:
                command = {"close": "end"}.get(str(action), str(action))
                await self.tables.execute(entry["code"], Command(command, None, {}), host)
            runtime = await self.tables.runtime(entry["code"])
            changed.append({"number": entry["number"], "status": runtime.status})
        return {"action": action, "tables": changed}

    async def set_start_thrower(
        self, code: str, authorization: str | None, number: Any, value: Any
    ) -> dict[str, Any]:
        """The organiser chooses one table's start thrower (RULES.md §9.4): ``first_seat``,
        ``leader``, ``elder`` or a name, resolved against that table's seats; before the
        table's start dice are thrown."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        entry = next((t for t in gathering.tables if t["number"] == number), None)
        if entry is None or isinstance(number, bool):
            raise ApiError(
                "invalid_field",
                f"event {gathering.code} has no table {str(number)[:10]!r}",
                field="table",
            )
        runtime = await self.tables.fresh_runtime(entry["code"])
        need_start_thrower_open(runtime)
        roster = {p.name: p for p in parse_people(gathering.spec.get("people", []))}
        members = [roster.get(name, Person(name)) for name in entry["players"]]
        if isinstance(value, list):
            raise ApiError(
                "invalid_field", "a table's start thrower is one value", field="start_thrower"
            )
        checked = model_errors(parse_start_thrower, value, members)
        thrower = table_start_thrower(checked, members)
        await self.tables.name_start_thrower(entry["code"], thrower)
        tables = [
            {**t, "start_thrower": thrower} if t["number"] == number else t
            for t in gathering.tables
        ]
        await self.store.update_tables(gathering.code, tables)
        return {"table": number, "start_thrower": thrower}

    async def playoff(self, code: str, authorization: str | None, throws: Any) -> dict[str, Any]:
        """Start the 状元王中王 between the table winners (409 while a table is playing): its
        table is created with the winners seated in table order, locked and started."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        count = model_errors(check_throws, throws)
        if gathering.playoff is not None:
            raise ApiError(
                "playoff_exists",
                f"event {gathering.code} already has its playoff {gathering.playoff['code']}",
                code=gathering.code,
            )
        runtimes = await self._all_over(gathering, "tables_playing", "the playoff starts")
        field = playoff_field([_result(r) for r in runtimes])
        if len(field) < 2:
            raise ApiError(
                "playoff_too_small",
                f"a playoff needs two table winners or more; there are {len(field)}",
                count=len(field),
            )
        spec = gathering.spec
        prize = spec.get("playoff_prize") or {"name": PLAYOFF_PRIZE, "value": 0}
        rules = playoff_rules(
            spec["rules"], throws=count, prize=prize["name"], value=prize.get("value", 0)
        )
        rules["max_players"] = max(len(field), int(rules.get("max_players") or 0))
        created = await self.tables.create_table(
            name=table_name(gathering.name, 0).replace(" #0", " 王中王"),
            mode=spec.get("mode", "referee"),
            rules=rules,
            keep_photos=bool(spec.get("keep_photos")),
            gathering=gathering.code,
        )
        try:
            tokens = await self._seat_playoff(created.code, created.host_token, field)
            record = {
                "code": created.code,
                "throws": count,
                "players": field,
                "prize": prize,
                "tokens": tokens,
            }
            stored = await self.store.set_playoff(gathering.code, record)
        except BaseException:
            await self.tables.discard([created.code])
            raise
        if not stored:
            await self.tables.discard([created.code])
            raise ApiError(
                "playoff_exists",
                f"event {gathering.code} already has its playoff",
                code=gathering.code,
            )
        return {
            "code": created.code,
            "host_token": created.host_token,
            "play_token": created.play_token,
            "players": field,
        }

    # -- the programme (RULES.md §10.2) ----------------------------------------------------

    async def start_session(
        self, code: str, authorization: str | None, session: Any = None
    ) -> dict[str, Any]:
        """Start the programme's next game session (``session``: its index; None: the next):
        once every table is over, each table gets a new game with the same people in the same
        seats under the session's rules (its ``minutes`` the tables' time limit), and they
        start. The new tables' host tokens are returned once, as on create. The seats' claims
        are freed: each phone claims its seat at the new table again with its card's key."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        lock = self._session_locks.setdefault(gathering.code, asyncio.Lock())
        async with lock:
            return await self._start_session(await self.gathering(code), authorization, session)

    async def _start_session(
        self, gathering: Gathering, authorization: str | None, session: Any
    ) -> dict[str, Any]:
        spec = gathering.spec
        programme = spec.get("programme") or []
        if not programme or not gathering.tables:
            raise ApiError(
                "no_session",
                f"event {gathering.code} has no programme session to start",
                code=gathering.code,
            )
        current = int(gathering.tables[0].get("session", 0))
        later = [i for i in game_sessions(_sessions(programme)) if i > current]
        exact = session is None or (isinstance(session, int) and not isinstance(session, bool))
        wanted = later[0] if session is None and later else session
        if not exact or not later or wanted != later[0]:
            raise ApiError(
                "no_session",
                f"event {gathering.code} has no session {str(session)[:10]!r} to start next",
                code=gathering.code,
            )
        await self._all_over(gathering, "session_playing", "the next session starts")
        index = int(wanted)
        entry_session = programme[index]
        rules = session_rules(spec.get("rules") or {}, entry_session["game"])
        named = named_prizes(parse_prize_set(spec.get("prizes")))
        limit = entry_session.get("minutes") or spec.get("time_limit")
        made_codes: list[str] = []
        made: list[dict[str, Any]] = []
        try:
            for entry in gathering.tables:
                table, _ = await self._make_table(
                    gathering.code,
                    entry["number"],
                    list(entry["players"]),
                    entry.get("start_thrower") or entry["players"][0],
                    name=gathering.name,
                    mode=spec.get("mode", "referee"),
                    rules=rules,
                    named=named,
                    time_limit=limit,
                    keep_photos=bool(spec.get("keep_photos")),
                    creator=None,
                    tables=len(gathering.tables),
                    session=index,
                    made_codes=made_codes,
                )
                made.append(table)
        except BaseException:
            await self.tables.discard(made_codes)
            raise
        stored = [
            {
                **entry,
                "code": table["code"],
                "session": index,
                "past": [*entry.get("past", []), {"session": current, "code": entry["code"]}],
            }
            for entry, table in zip(gathering.tables, made, strict=True)
        ]
        await self.store.update_tables(gathering.code, self._stored(stored))
        for number, name in sorted(gathering.claims):
            await self.store.release(gathering.code, number, name)
        await self.control(gathering.code, authorization, "start")
        return {
            "session": index,
            "name": entry_session["name"],
            "tables": [
                {k: t[k] for k in ("number", "code", "host_token", "play_token", "players")}
                for t in made
            ],
        }

    async def _session_tables(self, gathering: Gathering) -> dict[int, list[dict[str, Any]]]:
        """Every game session played so far: its tables ``{"number", "code", "players",
        "result", "times"}`` in table order, by session index."""
        out: dict[int, list[dict[str, Any]]] = {}
        for entry in gathering.tables:
            played = [*entry.get("past", []), {"session": entry.get("session", 0), **entry}]
            for item in played:
                runtime = await self.tables.fresh_runtime(item["code"])
                out.setdefault(int(item["session"]), []).append(
                    {
                        "number": entry["number"],
                        "code": item["code"],
                        "players": entry["players"],
                        "result": _result(runtime),
                        "times": dict(runtime.throw_at),
                        "status": runtime.status,
                    }
                )
        return out

    async def _programme_results(
        self, gathering: Gathering, playoff: dict[str, Any] | None, playoff_prizes: list[Any]
    ) -> dict[str, Any]:
        """Who takes home what from every session (RULES.md §10.2): each cakes session's
        cakes, each ranked session's event-wide ranking, the 王中王."""
        spec = gathering.spec
        programme = _sessions(spec.get("programme") or [])
        prize_set = parse_prize_set(spec.get("prizes"))
        played = await self._session_tables(gathering)
        cakes = [i for i in sorted(played) if programme[i].game == "cakes"]
        base_index = cakes[0] if cakes else min(played)

        def without_ranking(tables: list[dict[str, Any]]) -> list[dict[str, Any]]:
            # a ranked session's tables hand out nothing of their own: the event ranks
            return [
                {
                    **t,
                    "result": None
                    if t["result"] is None
                    else {k: v for k, v in t["result"].items() if k != "ranking"},
                }
                for t in tables
            ]

        base_tables = played[base_index]
        if programme[base_index].game == "ranked":
            base_tables = without_ranking(base_tables)
        out = event_results(base_tables, prize_set, playoff=playoff, playoff_prizes=playoff_prizes)
        people = {p["name"]: p for p in out["people"]}
        for person in out["people"]:
            for prize in person["prizes"]:
                if prize.get("tier") != "wangzhongwang":
                    prize["session"] = base_index
        rules_json = spec.get("rules") or {}
        ranked_rules = (
            rules_from_json(session_rules(rules_json, "ranked"))
            if any(s.game == "ranked" for s in programme)
            else None
        )
        sessions: list[dict[str, Any]] = []
        for index, session in enumerate(programme):
            tables = played.get(index)
            row: dict[str, Any] = {**session.to_json(), "index": index}
            if session.game == "none":
                sessions.append(row)
                continue
            status = (
                "waiting"
                if tables is None
                else "over"
                if all(t["status"] == "over" for t in tables)
                else "playing"
            )
            row["status"] = status
            row["tables"] = [{"number": t["number"], "code": t["code"]} for t in tables or []]
            if session.game == "cakes" and tables is not None and index != base_index:
                extra = event_results(tables, prize_set)
                for person in extra["people"]:
                    for prize in person["prizes"]:
                        people[person["name"]]["prizes"].append({**prize, "session": index})
            if session.game == "ranked" and tables is not None and ranked_rules is not None:
                ranking = event_ranking(
                    ranked_rules,
                    [{**t, "ranking": (t["result"] or {}).get("ranking")} for t in tables],
                    ranked_rules.ranked_prizes or (),
                )
                row["ranking"] = ranking
                if status == "over":
                    for line in ranking:
                        if line["prize"] is not None:
                            people[line["player"]]["prizes"].append(
                                {
                                    "tier": None,
                                    "name": line["prize"],
                                    "value": line["value"] or 0,
                                    "session": index,
                                }
                            )
            sessions.append(row)
        for person in out["people"]:
            person["prize_counts"] = prize_counts(person["prizes"])
        out["sessions"] = sessions
        return out

    async def _seat_playoff(self, code: str, host_token: str, field: list[str]) -> dict[str, str]:
        """Seat the field at the playoff table in table order, lock it and start it: nobody
        else sits down and nobody starts it again; the first table's 状元 throws first. The
        seats' player tokens, by name."""
        tokens: dict[str, str] = {}
        for name in field:
            seat = await self.tables.join(code, name)
            tokens[name] = seat["player_token"]
        host = [hash_token(host_token)]
        await self.tables.execute(code, Command("lock", None, {"locked": True}), host)
        await self.tables.execute(code, Command("start", None, {}), host)
        return tokens

    # -- seats ------------------------------------------------------------------------------

    def _seat(self, gathering: Gathering, number: Any, name: Any) -> dict[str, Any]:
        """The event's table ``number`` if ``name`` sits there (invalid_field / unknown_player);
        ``number`` must be a whole number (not ``1.0``, ``"1"`` or ``true``)."""
        exact = isinstance(number, int) and not isinstance(number, bool)
        table = next((t for t in gathering.tables if exact and t["number"] == number), None)
        if table is None:
            raise ApiError(
                "invalid_field",
                f"event {gathering.code} has no table {str(number)[:10]!r}",
                field="table",
            )
        if not isinstance(name, str) or name not in table["players"]:
            raise ApiError(
                "unknown_player",
                f"{str(name)[:40]!r} has no seat at table {number}",
                name=str(name)[:40],
                code=table["code"],
            )
        return table

    @staticmethod
    def _claim_key(gathering: Gathering, number: int, name: str) -> str | None:
        keys = gathering.secrets.get("claim_keys", {}).get(str(number), {})
        key = keys.get(name)
        return key if isinstance(key, str) else None

    async def _new_player_token(self, table_code: str, name: str) -> str:
        """A fresh player token for the seat: every earlier token of it stops working.

        The table's own hand-off (``hand_seat`` then ``claim_seat``) does it, so the log says
        that the seat changed phones and the table's rules about seats stay in one place.
        """
        runtime = await self.tables.runtime(table_code)
        host = [runtime.info.host_token_hash]
        handed = await self.tables.execute(
            table_code, Command("hand_seat", None, {"player": name}), host
        )
        link = handed.reply["seat_token"]
        claimed = await self.tables.execute(
            table_code, Command("claim_seat", None, {}), [hash_token(link)]
        )
        return str(claimed.reply["player_token"])

    async def _revoke(self, table_code: str, name: str) -> None:
        """Every token of the seat stops working (a hand-off link nobody holds replaces them)."""
        runtime = await self.tables.runtime(table_code)
        host = [runtime.info.host_token_hash]
        await self.tables.execute(table_code, Command("hand_seat", None, {"player": name}), host)

    async def claim(
        self,
        code: str,
        number: Any,
        name: Any,
        key: Any = None,
        authorization: str | None = None,
    ) -> dict[str, Any]:
        """Take the seat named ``name`` at table ``number``: a new player token for it.

        The claim right is the seat's own key (the QR beside the name on the printed card);
        the organiser's token may claim any seat on its person's behalf, even one claimed
        already. Every claim makes a new token and revokes the earlier ones.
        """
        gathering = await self.gathering(code)
        organiser = authorization is not None
        if organiser:
            self.check_organizer(gathering, authorization)
        table = self._seat(gathering, number, name)
        if not organiser:
            expected = self._claim_key(gathering, int(number), name)
            if (
                not isinstance(key, str)
                or expected is None
                or not hmac.compare_digest(key.encode("utf-8"), expected.encode("utf-8"))
            ):
                if isinstance(key, str) and self._retired(gathering, int(number), name, key):
                    raise ApiError(
                        "claim_key_replaced",
                        f"the QR of {name!r} at table {number} was replaced by the organiser; "
                        "ask the organiser for the new one",
                        name=name,
                        table=number,
                    )
                raise ApiError(
                    "claim_key_required",
                    f"the seat of {name!r} at table {number} is claimed with the QR beside "
                    "that name on the table card",
                    name=name,
                    table=number,
                )
        if organiser:
            await self.store.release(gathering.code, int(number), name)
        try:
            await self.store.claim(gathering.code, int(number), name)
        except SeatClaimed:
            raise ApiError(
                "seat_claimed",
                f"the seat of {name!r} at table {number} was claimed already; "
                "the organiser can free it",
                name=name,
                table=number,
            ) from None
        try:
            token = await self._new_player_token(table["code"], name)
        except BaseException:
            await self.store.release(gathering.code, int(number), name)
            raise
        return {"code": table["code"], "table": number, "name": name, "player_token": token}

    async def release(
        self, code: str, authorization: str | None, number: Any, name: Any
    ) -> dict[str, Any]:
        """The organiser frees a seat (someone tapped the wrong name): its tokens stop working,
        and the seat can be claimed again."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        table = self._seat(gathering, number, name)
        await self._revoke(table["code"], name)
        freed = await self.store.release(gathering.code, int(number), name)
        # whoever kept (or photographed) the old card's QR cannot take the seat back
        key = await self._replace_key(gathering, int(number), name)
        return {"table": number, "name": name, "released": freed, "claim_key": key}

    async def new_key(
        self, code: str, authorization: str | None, number: Any, name: Any
    ) -> dict[str, Any]:
        """The organiser gives a seat a new claim key (a card was lost or photographed): the
        old card's QR is refused from now on; a seat already claimed stays claimed."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        self._seat(gathering, number, name)
        key = await self._replace_key(gathering, int(number), name)
        return {"table": number, "name": name, "claim_key": key}

    async def _replace_key(self, gathering: Gathering, number: int, name: str) -> str:
        key = new_token("k")
        old = self._claim_key(gathering, number, name) or ""
        await self.store.replace_claim_key(gathering.code, number, name, key, _key_hash(old))
        return key

    @staticmethod
    def _retired(gathering: Gathering, number: int, name: str, key: str) -> bool:
        """Whether ``key`` was the seat's claim key before the organiser replaced it."""
        retired = gathering.secrets.get("retired_keys", {}).get(str(number), {}).get(name, [])
        digest = _key_hash(key)
        return any(hmac.compare_digest(digest, old) for old in retired if isinstance(old, str))

    async def seats(self, code: str, authorization: str | None) -> dict[str, Any]:
        """The organiser's view of the seats: each one's claim key (for the table cards) and
        whether it was claimed."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        return {
            "code": gathering.code,
            "tables": [
                {
                    "number": table["number"],
                    "code": table["code"],
                    "seats": [
                        {
                            "name": name,
                            "claim_key": self._claim_key(gathering, table["number"], name),
                            "claimed": (table["number"], name) in gathering.claims,
                        }
                        for name in table["players"]
                    ],
                }
                for table in gathering.tables
            ],
        }

    async def years(self, code: str) -> dict[str, Any]:
        """历届 (RULES.md §10.3, ``GET /api/events/{code}/years``): this year's row and every
        earlier year's, last year first (:mod:`bobing.gatherings.years`)."""
        event = await self.get(code)

        async def load(earlier: str) -> dict[str, Any] | None:
            return None if await self.store.get(earlier) is None else await self.get(earlier)

        return {"year": year_row(event), "years": await earlier_years(event, load)}

    # -- results ------------------------------------------------------------------------------

    async def results(self, code: str) -> dict[str, Any]:
        """Who takes home what (``GET /api/events/{code}/results``)."""
        gathering = await self.gathering(code)
        runtimes = await self._runtimes(gathering)
        spec = gathering.spec
        tables = [
            {**t, "result": _result(r)} for t, r in zip(gathering.tables, runtimes, strict=True)
        ]
        playoff_result = None
        playoff_prizes: list[dict[str, Any]] = []
        if gathering.playoff is not None:
            runtime = await self.tables.fresh_runtime(gathering.playoff["code"])
            playoff_result = _result(runtime)
            playoff_prizes = list(runtime.info.rules.get("ranked_prizes") or [])
        if spec.get("programme") and gathering.tables:
            out = await self._programme_results(gathering, playoff_result, playoff_prizes)
        else:
            out = event_results(
                tables,
                parse_prize_set(spec.get("prizes")),
                ranked_prizes=list((spec.get("rules") or {}).get("ranked_prizes") or []),
                playoff=playoff_result,
                playoff_prizes=playoff_prizes,
            )
        groups = {p["name"]: p.get("group") for p in spec.get("people", [])}
        for person in out["people"]:
            person["group"] = groups.get(person["name"])
        # the by-name list's order, computed here only: the page shows it, the downloads use it
        out["by_name"] = [person["name"] for person in by_name(out["people"])]
        budget = self._budget(
            gathering,
            table_prize_value(spec.get("rules") or {}, parse_prize_set(spec.get("prizes"))),
        )
        door = self._door(gathering)
        kitty = [t["kitty"] for t in out["tables"] if t.get("kitty") is not None]
        return {
            "code": gathering.code,
            "name": gathering.name,
            "date": spec.get("date"),
            **out,
            "money": {
                "surplus": budget.surplus,
                "surplus_use": budget.surplus_use,
                "deficit": budget.deficit,
                "refunds": list(budget.refunds),
                "no_shows": [] if door is None else door["no_shows"],
                "donated_sets": [d.to_json() for d in budget.donated],
                # 反向博钱 (RULES.md §9.3): what every table's payers put in, together
                **({"kitty": round(sum(kitty), 2)} if kitty else {}),
            },
        }

    async def record(self, code: str) -> dict[str, Any]:
        """The event record: every table's §6 record with fairness, and the playoff's."""
        gathering = await self.gathering(code)
        tables = [
            {
                "number": t["number"],
                "code": t["code"],
                "record": await self.tables.record(t["code"]),
            }
            for t in gathering.tables
        ]
        playoff = None
        if gathering.playoff is not None:
            playoff = {
                "code": gathering.playoff["code"],
                "throws": gathering.playoff.get("throws"),
                "record": await self.tables.record(gathering.playoff["code"]),
            }
        # an evening's earlier sessions (RULES.md §10.2): their tables' records, kept apart
        # from ``tables`` (the last session's, whose winners the playoff seats)
        earlier = [
            {
                "session": past["session"],
                "number": t["number"],
                "code": past["code"],
                "record": await self.tables.record(past["code"]),
            }
            for t in gathering.tables
            for past in t.get("past", [])
        ]
        return {
            "event": {
                "code": gathering.code,
                "name": gathering.name,
                "date": gathering.spec.get("date"),
            },
            "tables": tables,
            "playoff": playoff,
            **({"earlier_sessions": earlier} if earlier else {}),
        }

    async def next_year(self, code: str) -> dict[str, Any]:
        """A new event's body from this one: same roster, rules, prizes and budget; this
        year's 状元 (the 王中王, or every table's 状元 without a playoff) organise it, throw the
        start dice at their tables and give its 会饼 (RULES.md §9.4). Nobody is named while a
        table or the playoff is still playing."""
        gathering = await self.gathering(code)
        spec = gathering.spec
        names = champion_names(await self.get(code)) or []
        previous = spec.get("start_thrower")
        earlier = previous if isinstance(previous, list) else [previous]
        mode = next((v for v in earlier if v in START_MODES), None)
        throwers: list[str] = [*names, *([mode] if mode else [])]
        layout = {k: v for k, v in (spec.get("layout") or {}).items() if k != "planned"}
        return {
            "name": gathering.name,
            "mode": spec.get("mode"),
            "rules": spec.get("rules"),
            "seating": spec.get("seating"),
            "people": spec.get("people"),
            **(layout or {"tables": len(gathering.tables)}),
            "prizes": spec.get("prizes"),
            "budget": spec.get("budget"),
            "playoff_prize": spec.get("playoff_prize"),
            "time_limit": spec.get("time_limit"),
            **({"programme": spec["programme"]} if spec.get("programme") else {}),
            **({"start_on_time": True} if spec.get("start_on_time") else {}),
            "start_thrower": None
            if not throwers
            else throwers[0]
            if len(throwers) == 1
            else throwers,
            "organizers": names,
            "donated_sets": [{"name": n, "new_son": False} for n in names],
            **({"check_in": True} if spec.get("check_in") else {}),
            **({"keep_photos": True} if spec.get("keep_photos") else {}),
            "previous": gathering.code,
        }


def _sessions(programme: list[dict[str, Any]]) -> tuple[Session, ...]:
    """A stored programme (checked on create) as its sessions."""
    return tuple(
        Session(
            name=str(s["name"]),
            game=str(s.get("game", "none")),
            starts=s.get("starts"),
            minutes=s.get("minutes"),
        )
        for s in programme
    )


def _key_hash(key: str) -> str:
    """A retired claim key as kept: its SHA-256 (it only has to be recognised, never shown)."""
    return hashlib.sha256(f"bobing-claim-key:{key}".encode()).hexdigest()
