"""What one client may ask of the table service: the server's input policy (sizes a table or an
event may set, stricter than the engine where they differ on purpose), every limit the browser
is served (``GET /api/limits``), and the rates, quotas and log size of :class:`Limits`
(docs/security.md).

Game limits live in the engine (``bobing.engine.switches``, ``bobing.engine.state``); the
organiser's in ``bobing.organizer``; the server's own below. Each is written once and read
everywhere else (docs/architecture.md, "Limits").
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from types import MappingProxyType

from bobing.engine.errors import InputError
from bobing.engine.events import EVENT_TYPES
from bobing.engine.state import MAX_NAME_LENGTH
from bobing.engine.switches import (
    DEFAULT_MAX_PLAYERS,
    MAX_PLAYERS,
    MAX_PRIZE_NAME,
    MAX_PRIZE_VALUE,
    MAX_ROUNDS,
    MIN_PLAYERS,
)
from bobing.organizer.budget import MAX_COST_NAME
from bobing.organizer.playoff import MAX_PLAYOFF_THROWS
from bobing.organizer.programme import MAX_SESSION_MINUTES, MAX_SESSION_NAME, MAX_SESSIONS
from bobing.organizer.roster import MAX_ROSTER_BYTES
from bobing.tables.tokens import CODE_ALPHABET, CODE_LENGTH
from bobing.vision.limits import UNSURE

# -- the server's input policy ---------------------------------------------------------------

MAX_TABLE_NAME = 40
"""Characters in a table's name (it heads every phone's screen and the big screen)."""
MAX_TIME_LIMIT = 600
"""The longest time limit a table may set, in minutes (ten hours: a whole evening)."""
MAX_TABLE_PRIZE_LINES = MAX_PLAYERS
"""Lines in a table's ranked prize list (the engine allows ``MAX_RANKED_LINES``): a table gives
one prize per seat, so a longer list could never be given out, and every phone shows it."""
MAX_TABLE_PRIZE_COUNT = MAX_PLAYERS
"""Prizes on one line of a table's ranked list (the engine allows ``MAX_PRIZE_COUNT``): more
than a table has seats could never be given out."""
MAX_EVENT_NAME = 40
"""Characters in an event's name (printed on every table card and the hall's title)."""
MAX_EVENT_TABLES = MAX_PLAYERS
"""Tables in one event: each sends its winner to the 状元王中王, one table of ``MAX_PLAYERS``."""
ANALYSIS_PLAYERS = 10
"""The table the odds page, ``/api/game-length``, the charts and ``bobing analysis simulate``
answer for unless asked: ten players, a family's table (not the engine's default seats)."""

UNDO_VOIDS = frozenset(EVENT_TYPES) | {"dice", "ended"}
"""The event types a ``throw_undone`` voids between its ``from_seq`` and itself: the game's own
events from the throw on (the fold drops them), the throw's ``dice`` and the end it brought."""

SERVED: Mapping[str, int] = MappingProxyType(
    {
        "min_players": MIN_PLAYERS,
        "max_players": MAX_PLAYERS,
        "default_players": DEFAULT_MAX_PLAYERS,
        "max_name_length": MAX_NAME_LENGTH,
        "max_prize_name": MAX_PRIZE_NAME,
        "max_prize_value": MAX_PRIZE_VALUE,
        "max_rounds": MAX_ROUNDS,
        "max_table_name": MAX_TABLE_NAME,
        "max_time_limit": MAX_TIME_LIMIT,
        "max_table_prize_lines": MAX_TABLE_PRIZE_LINES,
        "max_table_prize_count": MAX_TABLE_PRIZE_COUNT,
        "max_event_name": MAX_EVENT_NAME,
        "max_event_tables": MAX_EVENT_TABLES,
        "max_cost_name": MAX_COST_NAME,
        "max_roster_bytes": MAX_ROSTER_BYTES,
        "max_playoff_throws": MAX_PLAYOFF_THROWS,
        "max_sessions": MAX_SESSIONS,
        "max_session_name": MAX_SESSION_NAME,
        "max_session_minutes": MAX_SESSION_MINUTES,
        "code_length": CODE_LENGTH,
        "analysis_players": ANALYSIS_PLAYERS,
    }
)
"""Every limit the browser checks a form against, by the name ``GET /api/limits`` serves it
under; the values are the homes' constants, never copies."""


def served_limits() -> dict[str, object]:
    """The body of ``GET /api/limits``: ``limits`` (:data:`SERVED`), ``undo_voids``,
    ``code_alphabet`` (the characters of a table's code, for the join form's check) and
    ``photo_unsure_below`` (the confidence under which the pad marks a die read from a photo)."""
    return {
        "limits": dict(SERVED),
        "undo_voids": sorted(UNDO_VOIDS),
        "code_alphabet": CODE_ALPHABET,
        "photo_unsure_below": UNSURE,
    }


# -- rates, quotas, the log: set per server --------------------------------------------------

LIMIT_ENV_PREFIX = "BOBING_LIMIT_"
"""``BOBING_LIMIT_CREATE_PER_MINUTE=5`` sets :attr:`Limits.create_per_minute` (docs/security.md)."""


@dataclass(frozen=True, slots=True)
class Limits:
    """What one client may ask of the table service (docs/security.md, "Service limits").

    Every field can be set with ``bobing serve --limit NAME=VALUE`` or the environment variable
    ``BOBING_LIMIT_<NAME>``; 0 switches a rate limit or a quota off.
    """

    create_per_minute: float = 10
    """Tables one address may create per minute (bursts of the same size)."""
    join_per_minute: float = 30
    """Joins one address may send per minute."""
    analysis_per_minute: float = 60
    """``/api/odds``, ``/api/game-length`` and chart requests per address per minute."""
    misses_per_minute: float = 30
    """Wrong guesses (unknown table or event codes, wrong claim keys) one address may make per
    minute; once used up, its wrong guesses are refused (429) until the bucket refills, while
    right codes and keys are still answered."""
    lookups_per_minute: float = 240
    """Codes one address may look up per minute, hit or miss; a code it found in the last ten
    minutes costs nothing again (a room names a few codes over and over, a guesser new ones)."""
    reactions_per_minute: float = 40
    """Reactions (emoji) one address may send per minute, over every table and instance."""
    simulations_per_minute: float = 3
    """New game-length simulations (answers not yet cached) one address may start a minute."""
    preview_per_minute: float = 120
    """``POST /api/events/preview`` requests per address per minute (the create form asks
    once per pause in typing)."""
    roster_per_minute: float = 60
    """Roster files (``POST /api/events/roster``) one address may have read per minute."""
    roster_workers: int = 2
    """Roster files read at once, each in a worker thread (never on the event loop)."""
    roster_queue: int = 4
    """Roster files waiting for a worker before new ones are refused (503, Retry-After)."""
    photos_per_minute: float = 20
    """Photos of dice (``POST /api/tables/{code}/read-dice``) one address may have read per
    minute: a referee photographs each throw, one every few seconds at the fastest."""
    photo_workers: int = 1
    """Photos read at once, each in a worker process (the reader's Python holds a core for
    tens of milliseconds a photo: never on the event loop, never beside a table's throws)."""
    photo_queue: int = 4
    """Photos waiting for a worker before new ones are refused (503, Retry-After)."""
    kept_photos_pending: int = 8
    """Photos a ``keep_photos`` table keeps before a throw confirms them; past that the oldest
    unconfirmed one is dropped (a referee retakes a photo now and then, never eight times)."""
    kept_photo_bytes_per_table: int = 128 * 1024 * 1024
    """Bytes of photos one table may keep (each at most ``MAX_KEPT_PHOTO_BYTES``, about 200 KB
    in practice: 250 throws fit several times); past that new photos are read, not kept."""
    photo_views_per_minute: float = 120
    """Kept photos (``GET /api/tables/{code}/photos/{seq}``) one address may open per minute."""
    tarpit_seconds: float = 1
    """Seconds a rate-limited request waits for its 429 (slows a flood to its own pace)."""
    open_tables_per_address: int = 20
    """Tables one address may have open (not over) at once (an event's tables aside)."""
    open_events_per_address: int = 3
    """Events one address may have open (a table not over) at once; an event's tables count
    as the one event (a 30-table evening fits, ten 4-table events do not)."""
    analysis_workers: int = 1
    """Worker processes computing odds, game lengths and charts (never on the event loop)."""
    analysis_queue: int = 4
    """Computations waiting for a worker before new ones are refused (503, Retry-After)."""
    rulebook_workers: int = 1
    """Threads building the rulebook of a rule set not asked for lately (18-50 ms of the
    engine each, never on the event loop; started with the first, not with the server)."""
    rulebook_queue: int = 4
    """Rulebooks waiting for a worker before new ones are refused (503, Retry-After)."""
    analysis_timeout: float = 60
    """Seconds a request waits for its computation before a 503 (the result is still cached)."""
    worker_nice: int = 19
    """How far the worker processes step back for the event loop (``os.nice``): at 19 they
    take only what the tables leave; 0 runs them at the server's own priority."""
    max_events: int = 20_000
    """Events in one table's log; commands that would go past it are refused (log_full)."""
    snapshot_every: int = 500
    """Events between two stored snapshots of a table's fold (loading reads only the tail)."""
    rejoin_cooldown: float = 600
    """Seconds a name (and the address it joined from) removed by the host may not rejoin."""
    retention_over_days: float = 30
    """Days a finished table (and its record) stays downloadable before the sweep deletes it."""
    retention_idle_days: float = 7
    """Days an unfinished table may go without any event before the sweep deletes it."""
    sweep_every: float = 3600
    """Seconds between two retention sweeps."""
    shared_limits_wait: float = 0.5
    """Seconds a request waits for the Redis that holds the shared rate limits before this
    instance counts in its own buckets (for a few seconds: a broken Redis never stalls a
    request, nor lifts the limits)."""
    time_limit_minute: float = 60
    """Seconds one minute of a table's time limit lasts: 60; a rehearsal or a test shortens
    it (the table still says "1 minute" and counts down the shorter time)."""

    def replace(self, pairs: Iterable[tuple[str, str]], *, source: str) -> Limits:
        """These limits with ``NAME=VALUE`` pairs applied; a clear error names a bad one."""
        known = {f.name: f for f in fields(self)}
        changes: dict[str, float | int] = {}
        for name, text in pairs:
            key = name.strip().lower().replace("-", "_")
            spec = known.get(key)
            if spec is None:
                raise InputError(
                    f"unknown limit {name!r} in {source}; known: " + ", ".join(known),
                    code="unknown_limit",
                    name=name,
                )
            kind = int if spec.type in ("int", int) else float
            try:
                value = kind(text.strip())
            except ValueError:
                raise InputError(
                    f"invalid value {text!r} for limit {key} in {source}: "
                    f"expected a {'whole ' if kind is int else ''}number >= 0",
                    code="invalid_limit",
                    name=key,
                    value=text,
                ) from None
            if value < 0 or (isinstance(value, float) and not math.isfinite(value)):
                raise InputError(
                    f"invalid value {text!r} for limit {key} in {source}: must be >= 0",
                    code="invalid_limit",
                    name=key,
                    value=text,
                )
            changes[key] = value
        at_least_one = (
            "analysis_workers",
            "rulebook_workers",
            "roster_workers",
            "photo_workers",
            "snapshot_every",
            "sweep_every",
            "time_limit_minute",
        )
        for key in at_least_one:
            if changes.get(key) == 0:
                raise InputError(
                    f"limit {key} in {source} must be at least 1",
                    code="invalid_limit",
                    name=key,
                    value="0",
                )
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    @classmethod
    def from_env(cls, environ: Mapping[str, str], options: Iterable[str] = ()) -> Limits:
        """Defaults, then ``BOBING_LIMIT_*`` variables, then ``NAME=VALUE`` options."""
        env = [
            (key[len(LIMIT_ENV_PREFIX) :], value)
            for key, value in sorted(environ.items())
            if key.startswith(LIMIT_ENV_PREFIX)
        ]
        limits = cls().replace(env, source="the environment")
        pairs: list[tuple[str, str]] = []
        for option in options:
            name, sep, value = option.partition("=")
            if not sep:
                raise InputError(
                    f"invalid --limit {option!r}: expected NAME=VALUE", code="invalid_limit"
                )
            pairs.append((name, value))
        return limits.replace(pairs, source="--limit")
