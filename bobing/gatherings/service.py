"""The organiser's service: an event's tables created, watched, controlled and summed up.

The event model (:mod:`bobing.organizer`) decides seating, prize sets, the budget, the
playoff's field and who takes home what; the table service (:class:`TableService`) creates
and runs every table, so a table of an event is an ordinary table with its own log, and the
engine stays the one place of every rule. This module adds the organiser's token, seat claims
and the event record, and stores the event (:class:`GatheringStore`).
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
from collections.abc import Mapping
from typing import Any

from bobing.gatherings.draft import (
    Draft,
    draft_event,
    model_errors,
    named_prizes,
    table_name,
)
from bobing.organizer import (
    PLAYOFF_PRIZE,
    Person,
    parse_budget,
    parse_prize_set,
    playoff_field,
    playoff_rules,
    table_winner,
)
from bobing.organizer.playoff import check_throws
from bobing.organizer.prizes import table_prize_value
from bobing.organizer.results import event_results
from bobing.storage.event_store import CodeTaken, iso, utcnow
from bobing.storage.gatherings import Gathering, GatheringStore, SeatClaimed
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService
from bobing.tables.state import RESULT_KEYS
from bobing.tables.tokens import CODE_ALPHABET, CODE_LENGTH, hash_token, new_token, normalize_code

CONTROL_ACTIONS = ("start", "pause", "resume", "close")


def _result(runtime: Runtime) -> dict[str, Any] | None:
    """The §7 result of a table (with ``ranking`` in ranked mode), or None before it starts."""
    if runtime.game is None:
        return None
    full = runtime.game.result(events=False)
    out = {key: full[key] for key in RESULT_KEYS}
    if "ranking" in full:
        out["ranking"] = full["ranking"]
    return out


class GatheringService:
    """Events of one server: create, read, control, playoff, claims, results, record."""

    def __init__(self, tables: TableService, store: GatheringStore) -> None:
        self.tables = tables
        self.store = store

    # -- creating ---------------------------------------------------------------------------

    def draft(self, body: Mapping[str, Any]) -> Draft:
        """Check a create body and seat the people (random seating draws here)."""
        return draft_event(body)

    def preview(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """What a create body would make: the table sizes and the budget (nothing stored)."""
        draft = self.draft(body)
        return {
            "tables": [len(table) for table in draft.seated],
            "prize_set_value": table_prize_value(draft.rules_json, draft.prize_set),
            "budget": draft.summary().to_json(),
        }

    async def create(self, body: Mapping[str, Any], creator: str | None = None) -> dict[str, Any]:
        """Create the event and all its tables, seats named; the secrets are returned once.

        ``creator`` (a hash of the client's address) counts toward the open-event quota.
        """
        draft = self.draft(body)
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
        name, mode, rules_json = draft.name, draft.mode, draft.rules_json
        named = named_prizes(draft.prize_set)

        async def make_table(
            number: int, members: list[Person], made_codes: list[str]
        ) -> tuple[dict[str, Any], dict[str, str]]:
            created = await self.tables.create_table(
                name=table_name(name, number),
                mode=mode,
                rules=rules_json,
                named_prizes=named,
                time_limit=draft.time_limit,
                creator=creator,
                gathering=code,
            )
            made_codes.append(created.code)
            keys: dict[str, str] = {}
            for person in members:  # in seat order: a table's seats are taken one by one
                # The seat's player token is thrown away: nobody holds it until the seat is
                # claimed with its card's claim key (or by the organiser).
                await self.tables.join(created.code, person.name)
                keys[person.name] = new_token("k")
            table = {
                "number": number,
                "code": created.code,
                "host_token": created.host_token,
                "play_token": created.play_token,
                "players": [p.name for p in members],
            }
            return table, keys

        # Everything was checked by the draft; should a table still fail (the database, say),
        # every table made so far is deleted again: a failed create leaves nothing behind.
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
            made = [o for o in outcomes if not isinstance(o, BaseException)]
            return await self._store_gathering(code, draft, made)
        except BaseException:
            await self.tables.discard(made_codes)
            raise

    async def _free_code(self) -> str:
        """A code no event has yet (its tables are made under it before it is stored)."""
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            if await self.store.get(code) is None:
                return code
        raise ApiError("conflict", "could not find a free event code; try again")

    async def _store_gathering(
        self, code: str, draft: Draft, made: list[tuple[dict[str, Any], dict[str, str]]]
    ) -> dict[str, Any]:
        name = draft.name
        tables = [table for table, _ in made]
        claim_keys = {str(table["number"]): keys for table, keys in made}
        spec = draft.spec()
        organizer_token = new_token("o")
        stored_tables = [{k: t[k] for k in ("number", "code", "players")} for t in tables]
        gathering = Gathering(
            code=code,
            name=name,
            organizer_token_hash=hash_token(organizer_token),
            spec=spec,
            tables=stored_tables,
            secrets={"claim_keys": claim_keys},
            playoff=None,
            created_at=utcnow(),
        )
        try:
            await self.store.create(gathering)
        except CodeTaken:
            # Taken between the look-up and now (vanishingly rare): the caller deletes the
            # tables made under it.
            raise ApiError("conflict", "could not find a free event code; try again") from None
        return {"code": code, "organizer_token": organizer_token, "tables": tables}

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
                    "last_throw": runtime.last_throw,
                    "result": result,
                    "zhuangyuan": table_winner(result),
                }
            )
        people = [{**p, "table": seat_of.get(p["name"])} for p in spec.get("people", [])]
        per_table = table_prize_value(spec.get("rules") or {}, prize_set)
        budget = parse_budget(spec.get("budget")).summary(
            len(people), per_table * len(gathering.tables) + self._playoff_value(spec)
        )
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
            "created_at": iso(gathering.created_at),
            "tables": tables,
            "all_over": all(r.status == "over" for r in runtimes),
            "playoff_field": playoff_field([t["result"] for t in tables]),
            "playoff": await self._playoff_view(gathering),
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
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError("unauthorized", "Authorization must be 'Bearer <organiser token>'")
        if not hmac.compare_digest(hash_token(token.strip()), gathering.organizer_token_hash):
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
            targets = [t for t in gathering.tables if t["number"] == table]
            if isinstance(table, bool) or not targets:
                raise ApiError(
                    "invalid_field",
                    f"event {gathering.code} has no table {str(table)[:10]!r}",
                    field="table",
                )
        changed: list[dict[str, Any]] = []
        thrower = gathering.spec.get("start_thrower")
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
                if runtime.start_dice is None:
                    who = thrower if thrower in runtime.names else runtime.names[0]
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

    async def playoff(self, code: str, authorization: str | None, throws: Any) -> dict[str, Any]:
        """Start the 状元王中王 between the table winners (409 while a table is playing)."""
        gathering = await self.gathering(code)
        self.check_organizer(gathering, authorization)
        count = model_errors(check_throws, throws)
        if gathering.playoff is not None:
            raise ApiError(
                "playoff_exists",
                f"event {gathering.code} already has its playoff {gathering.playoff['code']}",
                code=gathering.code,
            )
        runtimes = await self._runtimes(gathering)
        playing = [
            t["number"]
            for t, r in zip(gathering.tables, runtimes, strict=True)
            if r.status != "over"
        ]
        if playing:
            raise ApiError(
                "tables_playing",
                "the playoff starts once every table is over; still playing: "
                + ", ".join(map(str, playing)),
                tables=", ".join(map(str, playing)),
            )
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
        )
        tokens: dict[str, str] = {}
        for name in field:
            seat = await self.tables.join(created.code, name)
            tokens[name] = seat["player_token"]
        record = {
            "code": created.code,
            "throws": count,
            "players": field,
            "prize": prize,
            "tokens": tokens,
        }
        if not await self.store.set_playoff(gathering.code, record):
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

    # -- seats ------------------------------------------------------------------------------

    def _seat(self, gathering: Gathering, number: Any, name: Any) -> dict[str, Any]:
        """The event's table ``number`` if ``name`` sits there (invalid_field / unknown_player)."""
        table = next((t for t in gathering.tables if t["number"] == number), None)
        if table is None or isinstance(number, bool):
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
        return {"table": number, "name": name, "released": freed}

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
        return {
            "code": gathering.code,
            "name": gathering.name,
            "date": spec.get("date"),
            **out,
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
        return {
            "event": {
                "code": gathering.code,
                "name": gathering.name,
                "date": gathering.spec.get("date"),
            },
            "tables": tables,
            "playoff": playoff,
        }

    async def next_year(self, code: str) -> dict[str, Any]:
        """A new event's body from this one: same roster, rules, prizes and budget; last
        year's 状元 (the 王中王, or the only table's 状元) throws the start dice."""
        gathering = await self.gathering(code)
        results = await self.results(code)
        spec = gathering.spec
        champion = results["wangzhongwang"]
        if champion is None:
            winners = [t["zhuangyuan"] for t in results["tables"] if t["zhuangyuan"]]
            champion = winners[0] if len(winners) == 1 else None
        return {
            "name": gathering.name,
            "mode": spec.get("mode"),
            "rules": spec.get("rules"),
            "seating": spec.get("seating"),
            "people": spec.get("people"),
            "tables": len(gathering.tables),
            "prizes": spec.get("prizes"),
            "budget": spec.get("budget"),
            "playoff_prize": spec.get("playoff_prize"),
            "time_limit": spec.get("time_limit"),
            "start_thrower": None if champion is None else champion["player"],
            "previous": gathering.code,
        }
