"""The programme of an evening (RULES.md §10.2): sessions one after another.

The 2013 party (000): 会餐 18:00–19:00 · 博饼 19:00–19:30 · 状元摇奖 19:30–20:00. Each session is
``{"name", "starts": "HH:MM" (optional), "minutes" (optional), "game"}``: ``none`` is a slot on
the run-sheet (会餐, 颁奖), ``cakes`` plays every table's prize set (会饼, §4), ``ranked`` plays
the event's ranked prize list (§8.2) with the same people at the same tables, each person's
best throw of that session across all tables ranked event-wide (equal hands: the earlier throw
by the server's clock), one prize each.

Standard library and engine only: the service creates a session's tables with
:func:`session_rules` and hands the finished tables' rankings to :func:`event_ranking`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError
from bobing.engine.ranked import RankKey, prize_units, rank_key
from bobing.engine.switches import RankedPrize, RuleSet
from bobing.organizer.text import display_text

GAMES = ("none", "cakes", "ranked")
MAX_SESSIONS = 12
MAX_SESSION_NAME = 24
MAX_SESSION_MINUTES = 600
_HHMM = re.compile(r"^([01][0-9]|2[0-3]):[0-5][0-9]$")


@dataclass(frozen=True, slots=True)
class Session:
    """One session of the evening's run-sheet."""

    name: str
    game: str = "none"
    starts: str | None = None
    """``HH:MM`` on the event's day, or None."""
    minutes: int | None = None
    """How long it lasts: a game session calls time at every table at its bell (§8.1)."""

    def to_json(self) -> dict[str, Any]:
        """``{"name", "starts", "minutes", "game"}`` as the create body has it."""
        return {
            "name": self.name,
            "starts": self.starts,
            "minutes": self.minutes,
            "game": self.game,
        }


EVENING_2013 = (
    Session("会餐", "none", "18:00", 60),
    Session("博饼", "cakes", "19:00", 30),
    Session("状元摇奖", "ranked", "19:30", 30),
)
"""Seed 000's evening (活动时程): dinner, the 会饼, then the ranked prizes."""


def _fail(message: str, code: str, **params: Any) -> InputError:
    return InputError(message[:300], code=code, key="programme", **params)


def parse_programme(value: Any, *, ranked_list: bool) -> tuple[Session, ...]:
    """A create body's ``programme`` checked (None or ``[]``: no programme).

    ``ranked_list``: whether the event's rules carry a ranked prize list (§8.2), which a
    ``ranked`` session plays. A programme has at least one game session; the ``starts``
    times, where given, do not go back.

    >>> [s.game for s in parse_programme([s.to_json() for s in EVENING_2013], ranked_list=True)]
    ['none', 'cakes', 'ranked']
    >>> parse_programme([{"name": "会餐"}], ranked_list=False)
    Traceback (most recent call last):
    ...
    bobing.engine.errors.InputError: a programme needs a session with a game (cakes or ranked)
    """
    if value is None or value == []:
        return ()
    if not isinstance(value, list) or len(value) > MAX_SESSIONS:
        raise _fail(
            f"programme must be a list of at most {MAX_SESSIONS} sessions",
            "programme_not_list",
            limit=MAX_SESSIONS,
        )
    sessions = tuple(_parse_session(n, item) for n, item in enumerate(value, start=1))
    if not any(s.game != "none" for s in sessions):
        raise _fail(
            "a programme needs a session with a game (cakes or ranked)", "programme_no_game"
        )
    ranked = next((s for s in sessions if s.game == "ranked"), None)
    if ranked is not None and not ranked_list:
        raise _fail(
            f"session {ranked.name!r} plays the ranked prizes, but the event has no ranked "
            "prize list",
            "programme_no_ranked_list",
            name=ranked.name,
        )
    last: Session | None = None
    for session in sessions:
        if session.starts is None:
            continue
        if last is not None and last.starts is not None and session.starts < last.starts:
            raise _fail(
                f"session {session.name!r} starts at {session.starts}, before "
                f"{last.name!r} at {last.starts}",
                "programme_time_order",
                name=session.name,
                starts=session.starts,
                before=last.name,
            )
        last = session
    return sessions


def _parse_session(number: int, item: Any) -> Session:
    if not isinstance(item, Mapping) or set(item) - {"name", "starts", "minutes", "game"}:
        raise _fail(
            f"programme session {number} must be {{name, starts, minutes, game}}",
            "session_not_object",
            number=number,
        )
    name = display_text(item.get("name"), key="programme.name", limit=MAX_SESSION_NAME)
    game = item.get("game", "none")
    if game not in GAMES:
        raise _fail(
            f"session {name!r}: game must be none, cakes or ranked, not {str(game)[:20]!r}",
            "session_bad_game",
            name=name,
            value=str(game)[:20],
        )
    starts = item.get("starts")
    if starts in (None, ""):
        starts = None
    elif not isinstance(starts, str) or not _HHMM.match(starts):
        raise _fail(
            f"session {name!r}: starts must be a time HH:MM (19:30), not {str(starts)[:20]!r}",
            "session_bad_starts",
            name=name,
            value=str(starts)[:20],
        )
    minutes = item.get("minutes")
    if minutes in (None, ""):
        minutes = None
    elif (
        isinstance(minutes, bool)
        or not isinstance(minutes, int)
        or not 1 <= minutes <= MAX_SESSION_MINUTES
    ):
        raise _fail(
            f"session {name!r}: minutes must be a whole number from 1 to "
            f"{MAX_SESSION_MINUTES}, not {str(minutes)[:20]!r}",
            "session_bad_minutes",
            name=name,
            value=str(minutes)[:20],
            limit=MAX_SESSION_MINUTES,
        )
    return Session(name=name, game=str(game), starts=starts, minutes=minutes)


def game_sessions(programme: Sequence[Session]) -> list[int]:
    """The indexes of the sessions that play, in order."""
    return [i for i, s in enumerate(programme) if s.game != "none"]


def session_rules(event_rules: Mapping[str, Any], game: str) -> dict[str, Any]:
    """The rule object of one game session's tables: ``cakes`` the event's rules playing the
    prize set (no ranked list, no rounds); ``ranked`` the event's ranked rules (§8.2)."""
    rules = dict(event_rules)
    if game == "cakes":
        for key in ("ranked_prizes", "rounds"):
            rules.pop(key, None)
        rules["award"] = "cakes"
    else:
        rules["award"] = "ranked"
    return rules


def ranked_value(event_rules: Mapping[str, Any]) -> float:
    """What the event's ranked prize list costs (given once, event-wide)."""
    return float(
        sum(
            int(p.get("count", 1)) * (p.get("value") or 0)
            for p in event_rules.get("ranked_prizes") or []
        )
    )


def programme_prize_cost(
    programme: Sequence[Session], set_value: float, tables: int, ranked: float, given: int
) -> float:
    """Every session's prizes: each ``cakes`` session a prize set at every table (less the
    ``given`` donated sets, once), each ``ranked`` session the ranked list once.

    >>> programme_prize_cost(EVENING_2013, 300, 2, 1270, 0)
    1870.0
    """
    cakes = sum(s.game == "cakes" for s in programme)
    ranked_sessions = sum(s.game == "ranked" for s in programme)
    sets = max(0, cakes * tables - min(tables, given) if cakes else 0)
    return float(set_value * sets + ranked * ranked_sessions)


@dataclass(frozen=True, slots=True)
class _Best:
    player: str
    table: int
    seat: int
    hand: str | None
    dice: str | None
    throw: int | None
    at: str | None
    key: RankKey | None


def event_ranking(
    rules: RuleSet,
    tables: Sequence[Mapping[str, Any]],
    prizes: Sequence[RankedPrize],
) -> list[dict[str, Any]]:
    """A ranked session ranked event-wide: every person's best throw of the session across
    all tables (each table's §8.2 ``ranking`` has it), best first; equal throws: the earlier
    by the server's clock (``times``: throw number → ISO time, per table), then table order.
    People with no counted throw come last, in table and seat order. One prize each, in the
    order of the list.

    ``tables``: ``{"number", "players", "ranking": [§8.2 rows], "times": {throw: iso}}``.
    → ``[{"player", "table", "hand", "dice", "throw", "at", "prize", "value"}]``.
    """
    bests: list[_Best] = []
    for table in tables:
        rows = {str(r.get("player")): r for r in table.get("ranking") or []}
        times: Mapping[Any, Any] = table.get("times") or {}
        for seat, name in enumerate(table.get("players") or []):
            row = rows.get(name) or {}
            dice = row.get("dice")
            throw = row.get("throw")
            key = None
            if isinstance(dice, str) and dice:
                key = rank_key(rules, rules.classify(dice))
            at = times.get(throw) if throw is not None else None
            bests.append(
                _Best(
                    player=name,
                    table=int(table["number"]),
                    seat=seat,
                    hand=row.get("hand") if key is not None else None,
                    dice=dice if key is not None else None,
                    throw=throw if key is not None else None,
                    at=None if at is None else str(at),
                    key=key,
                )
            )
    thrown = sorted(
        (b for b in bests if b.key is not None),
        key=lambda b: (
            tuple(-k for k in b.key or ()),
            b.at or "~",
            b.table,
            b.throw or 0,
        ),
    )
    waiting = [b for b in bests if b.key is None]
    units = prize_units(prizes)
    out: list[dict[str, Any]] = []
    for place, best in enumerate([*thrown, *waiting]):
        unit = units[place] if place < len(units) else None
        out.append(
            {
                "player": best.player,
                "table": best.table,
                "hand": best.hand,
                "dice": best.dice,
                "throw": best.throw,
                "at": best.at,
                "prize": None if unit is None else unit.name,
                "value": None if unit is None else unit.value,
            }
        )
    return out


__all__ = [
    "EVENING_2013",
    "GAMES",
    "MAX_SESSIONS",
    "Session",
    "event_ranking",
    "game_sessions",
    "parse_programme",
    "programme_prize_cost",
    "ranked_value",
    "session_rules",
]
