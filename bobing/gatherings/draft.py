"""What an organiser sends to create an event, checked: the draft of an event.

Every check that is a rule of the event model is the model's (:mod:`bobing.organizer`); its
refusals become 422 problems whose detail is the model's own sentence in the reader's
language (:class:`EventInputError`). The table rules are checked as for any table
(:func:`bobing.tables.validation.parse_rules`).
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.switches import MAX_PRIZE_NAME
from bobing.i18n.errors import localize
from bobing.organizer import (
    PLAYOFF_PRIZE,
    Budget,
    BudgetSummary,
    Person,
    PrizeSet,
    parse_budget,
    parse_people,
    parse_prize_set,
    seat_people,
)
from bobing.organizer.budget import prize_cost
from bobing.organizer.customs import (
    DonatedSet,
    parse_donated_sets,
    parse_organizers,
    parse_start_thrower,
    table_start_thrower,
)
from bobing.organizer.prizes import table_prize_value
from bobing.organizer.programme import (
    Session,
    game_sessions,
    parse_programme,
    programme_prize_cost,
    ranked_value,
    session_rules,
)
from bobing.organizer.text import amount, display_text, name_key
from bobing.tables.limits import MAX_EVENT_NAME, MAX_EVENT_TABLES
from bobing.tables.problems import ApiError
from bobing.tables.tokens import normalize_code
from bobing.tables.validation import MODES, parse_named_prizes, parse_rules, parse_time_limit

"""At most as many tables as a table has seats at most: the playoff seats every table's 状元."""
MODE_ALIASES = {"phones": "online", "one_device": "pass_and_play", "组长": "referee"}


class EventInputError(ApiError):
    """An organiser's input the event model refused: its text is the model's, localized."""

    def __init__(self, error: BobingError) -> None:
        params = {k: v for k, v in error.params.items() if isinstance(v, str | int | float)}
        super().__init__(
            "invalid_event", error.message, field=str(error.params.get("key", "")), **params
        )
        self.error = error

    def detail(self, lang: str | None) -> str:
        """The model's own message in the reader's language (quoting the input)."""
        return localize(self.error, lang)


def model_errors(call: Any, *args: Any, **kwargs: Any) -> Any:
    """Run a model function; its input errors become 422 problems."""
    try:
        return call(*args, **kwargs)
    except BobingError as exc:
        raise EventInputError(exc) from None


def table_name(event: str, number: int) -> str:
    suffix = f" #{number}"
    return event[: MAX_EVENT_NAME - len(suffix)].rstrip() + suffix


def named_prizes(prize_set: PrizeSet) -> dict[str, dict[str, Any]]:
    """The table's own one-name-per-tier display: several goods joined, the average value."""
    out: dict[str, dict[str, Any]] = {}
    for tier, items in prize_set.tiers:
        count = sum(i.count for i in items)
        if not items or not count:
            continue
        name = " / ".join(i.name for i in items)
        if len(name) > MAX_PRIZE_NAME:
            name = name[: MAX_PRIZE_NAME - 1] + "…"
        value = sum(i.count * i.value for i in items) / count
        out[tier] = {"name": name, "value": int(value) if value == int(value) else round(value, 2)}
    return out


def parse_date(value: Any) -> str | None:
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value).isoformat()
        except ValueError:
            pass
    raise ApiError(
        "invalid_field", f"date must be YYYY-MM-DD, not {str(value)[:40]!r}", field="date"
    )


@dataclass(frozen=True, slots=True)
class Draft:
    """A checked create body, its people seated."""

    name: str
    date: str | None
    mode: str
    prize_set: PrizeSet
    rules_json: dict[str, Any]
    people: tuple[Person, ...]
    seating: str
    seated: list[list[Person]]
    budget: Budget
    playoff_prize: dict[str, Any]
    start_thrower: str | list[str] | None
    previous: str | None
    time_limit: int | None = None
    """Minutes each table plays before time is called (RULES.md §8.1), or None."""
    check_in: bool = False
    """Seat only the people checked in at the door (签到): no table exists until then."""
    layout: Mapping[str, Any] | None = None
    """``tables`` / ``table_size`` as asked, kept to seat the people present later."""
    donated_sets: tuple[DonatedSet, ...] = ()
    organizers: tuple[str, ...] = ()
    programme: tuple[Session, ...] = ()
    """The evening's sessions (RULES.md §10.2); empty: the tables play one game."""
    start_on_time: bool = False
    """The organiser's "start on time": the dashboard starts each game session at its time."""
    keep_photos: bool = False
    """Referee tables keep each confirmed throw's photo as evidence (docs/vision.md)."""

    def first_session(self) -> int | None:
        """The index of the programme's first game session (the tables made first play it)."""
        games = game_sessions(self.programme)
        return games[0] if games else None

    def table_rules(self, session: int | None = None) -> dict[str, Any]:
        """The rules a table of ``session`` (None: the first game session) is made with."""
        index = self.first_session() if session is None else session
        if index is None:
            return self.rules_json
        return session_rules(self.rules_json, self.programme[index].game)

    def table_time_limit(self, session: int | None = None) -> int | None:
        """A session's ``minutes`` (its bell, §8.1), else the event's time limit."""
        index = self.first_session() if session is None else session
        if index is not None and self.programme[index].minutes is not None:
            return self.programme[index].minutes
        return self.time_limit

    def payers(self) -> list[str]:
        """Everyone who paid (roster order): all, unless the roster has a ``paid`` column."""
        return [p.name for p in self.people if p.paid is not False]

    def summary(self) -> BudgetSummary:
        """The budget: income from everyone who paid, every table's prizes less the donated
        sets, and the 王中王 prize."""
        spent = event_prize_cost(
            self.rules_json,
            self.prize_set,
            self.programme,
            len(self.seated),
            float(self.playoff_prize.get("value") or 0),
            self.donated_sets,
        )
        payers = self.payers()
        return self.budget.summary(len(payers), spent, payers=payers, donated=self.donated_sets)

    def table_start_throwers(self) -> list[str]:
        """Who throws the start dice at each table (RULES.md §9.4), table order."""
        return [table_start_thrower(self.start_thrower, members) for members in self.seated]

    def spec(self) -> dict[str, Any]:
        """What is stored of the plan (§9.4's keys only where used, so old events read the same)."""
        customs: dict[str, Any] = {}
        if self.check_in:
            customs["check_in"] = True
            customs["layout"] = dict(self.layout or {})
        if self.donated_sets:
            customs["donated_sets"] = [d.to_json() for d in self.donated_sets]
        if self.organizers:
            customs["organizers"] = list(self.organizers)
        if self.programme:
            customs["programme"] = [s.to_json() for s in self.programme]
        if self.start_on_time:
            customs["start_on_time"] = True
        if self.keep_photos:
            customs["keep_photos"] = True
        return {
            **customs,
            "name": self.name,
            "date": self.date,
            "mode": self.mode,
            "rules": self.rules_json,
            "seating": self.seating,
            "people": [p.to_json() for p in self.people],
            "prizes": self.prize_set.to_json(),
            "budget": self.budget.to_json(),
            "playoff_prize": self.playoff_prize,
            "start_thrower": self.start_thrower,
            "previous": self.previous,
            "time_limit": self.time_limit,
        }


def _refuse_look_alikes(people: tuple[Person, ...]) -> None:
    """Two names that look the same (:func:`name_key`) could not sit at one table: refused
    before anything is created, whatever the seating draws."""
    seen: dict[str, str] = {}
    for person in people:
        key = name_key(person.name)
        other = seen.setdefault(key, person.name)
        if other != person.name:
            raise ApiError(
                "names_look_alike",
                f"the names {other!r} and {person.name!r} look the same; "
                "tell them apart on the roster",
                name=other,
                other=person.name,
            )


def draft_event(body: Mapping[str, Any], present: frozenset[str] | None = None) -> Draft:
    """Check a create body and seat the people (random seating draws here); with ``present``
    (the names checked in at the door), only they are seated."""
    name = model_errors(display_text, body.get("name"), key="name", limit=MAX_EVENT_NAME)
    date = parse_date(body.get("date"))
    mode = body.get("mode", "referee")
    mode = MODE_ALIASES.get(mode, mode) if isinstance(mode, str) else mode
    if mode not in MODES:
        raise ApiError(
            "invalid_field",
            f"invalid mode {str(mode)[:40]!r}; allowed: " + ", ".join(MODES),
            field="mode",
            value=str(mode)[:40],
        )
    prize_set = model_errors(parse_prize_set, body.get("prizes"))
    rule_set = parse_rules(body.get("rules"), prize_set.counts() or None)
    rules_json = rule_set.to_json()
    people: tuple[Person, ...] = model_errors(parse_people, body.get("people"))
    _refuse_look_alikes(people)
    parse_named_prizes(named_prizes(prize_set))  # what each table is created with
    seating = body.get("seating", "random")
    max_size = rule_set.max_players
    check_in = body.get("check_in") or False
    if not isinstance(check_in, bool):
        raise ApiError("invalid_field", "check_in must be true or false", field="check_in")
    keep_photos = body.get("keep_photos") or False
    if not isinstance(keep_photos, bool):
        raise ApiError("invalid_field", "keep_photos must be true or false", field="keep_photos")
    if keep_photos and mode != "referee":
        raise ApiError(
            "invalid_field",
            f"{mode} tables roll their own dice: only referee tables keep photos",
            field="keep_photos",
        )
    seated: list[list[Person]] = model_errors(
        seat_people,
        people if present is None else tuple(p for p in people if p.name in present),
        seating=seating,
        tables=body.get("tables"),
        size=body.get("table_size"),
        max_size=max_size,
        rng=random.SystemRandom(),
    )
    if len(seated) > MAX_EVENT_TABLES:
        raise ApiError(
            "invalid_field",
            f"an event has at most {MAX_EVENT_TABLES} tables, not {len(seated)}",
            field="tables",
        )
    budget = model_errors(parse_budget, body.get("budget"))
    playoff_prize = playoff_prize_of(body.get("playoff_prize"))
    start_thrower = model_errors(parse_start_thrower, body.get("start_thrower"), people)
    ranked_list = rules_json.get("award") == "ranked" and bool(rules_json.get("ranked_prizes"))
    programme: tuple[Session, ...] = model_errors(
        parse_programme, body.get("programme"), ranked_list=ranked_list
    )
    start_on_time = body.get("start_on_time") or False
    if not isinstance(start_on_time, bool):
        raise ApiError(
            "invalid_field", "start_on_time must be true or false", field="start_on_time"
        )
    for game in sorted({s.game for s in programme} - {"none"}):
        # every session's tables are checked now: nothing fails when the organiser starts it
        parse_rules(session_rules(rules_json, game), prize_set.counts() or None)
    previous = body.get("previous")
    if previous is not None and not isinstance(previous, str):
        raise ApiError("invalid_field", "previous must be an event code", field="previous")
    return Draft(
        name=name,
        date=date,
        mode=str(mode),
        prize_set=prize_set,
        rules_json=rules_json,
        people=people,
        seating=str(seating),
        seated=seated,
        budget=budget,
        playoff_prize=playoff_prize,
        start_thrower=start_thrower,
        previous=normalize_code(previous) if previous else None,
        time_limit=parse_time_limit(body.get("time_limit")),
        check_in=check_in,
        keep_photos=keep_photos,
        layout={k: body[k] for k in ("tables", "table_size") if body.get(k) is not None},
        donated_sets=model_errors(parse_donated_sets, body.get("donated_sets")),
        organizers=tuple(model_errors(parse_organizers, body.get("organizers"))),
        programme=programme,
        start_on_time=start_on_time and bool(programme),
    )


def event_prize_cost(
    rules: Mapping[str, Any],
    prize_set: PrizeSet,
    programme: tuple[Session, ...],
    tables: int,
    playoff: float,
    donated: tuple[DonatedSet, ...],
) -> float:
    """What the event's prizes cost: every table's set (or ranked list) and the 王中王 prize,
    less the donated sets; with a programme, each session's prizes (RULES.md §10.2)."""
    if not programme:
        return prize_cost(table_prize_value(rules, prize_set), tables, playoff, donated)
    given = sum(d.sets for d in donated)
    return (
        programme_prize_cost(programme, prize_set.value(), tables, ranked_value(rules), given)
        + playoff
    )


def playoff_prize_of(value: Any) -> dict[str, Any]:
    if value is None:
        return {"name": PLAYOFF_PRIZE, "value": 0}
    if not isinstance(value, Mapping) or set(value) - {"name", "value"}:
        raise ApiError(
            "invalid_field", "playoff_prize must be {name, value}", field="playoff_prize"
        )
    prize_name = model_errors(
        display_text,
        value.get("name", PLAYOFF_PRIZE),
        key="playoff_prize.name",
        limit=MAX_PRIZE_NAME,
    )
    worth = model_errors(amount, value.get("value", 0), key="playoff_prize.value", limit=1_000_000)
    return {"name": prize_name, "value": worth}
