"""The "规则与概率" page's data: exact odds, how long a game takes, and the two charts.

``/api/odds`` is the exact per-throw distribution (milliseconds). ``/api/game-length`` is the
Markov chain's exact expectations plus a modest seeded simulation for the spread and the seats;
the charts are drawn from that simulation. Every computation runs off the event loop in a
small worker pool (one thread by default: that bounds the memory the chain needs), behind a
bounded queue and a timeout (:class:`AnalysisCache`), and its result is kept in a small LRU per
app: the same rules and table size always give the same numbers and the same bytes. Each
address has a rate limit (docs/security.md).

Rules come from ``?rules=`` (a preset id or alias, or a rule object as JSON text), from
``?table=CODE`` (that table's rules, fixed when it was created), or from the body of
``POST /api/odds``. A rule file path is never read.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import APIRouter, Body, Query, Request
from fastapi.responses import JSONResponse, Response

from bobing.analysis.bell import MAX_MINUTES, SECONDS_PER_THROW, Bell
from bobing.analysis.limits import MAX_PLAYERS, MIN_PLAYERS
from bobing.analysis.odds import odds as exact_odds
from bobing.engine.errors import BobingError
from bobing.engine.hands import TIERS
from bobing.engine.presets import DEFAULT_RULES
from bobing.engine.rules import RuleSet
from bobing.i18n import request_language
from bobing.process.loop import background_priority
from bobing.tables import json_input
from bobing.tables.limits import ANALYSIS_PLAYERS, Limits
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.service import TableService
from bobing.tables.validation import preset_rules, web_rules
from bobing.web.edge.problems import problem_responses
from bobing.web.edge.rate import count_request

if TYPE_CHECKING:
    from bobing.analysis.simulate import SimulationResult

# NumPy and matplotlib (bobing.analysis.markov, simulate, plots) are imported on first use, so a
# server whose page nobody opens never loads them.

T = TypeVar("T")

GAMES = 20_000
"""Games simulated per (rules, players): enough for p50/p90 to within a throw or two."""
SEED = 2013
"""The simulation's fixed seed: the same request always gives the same numbers and pictures."""
THROW_BUDGET = 5_000_000
"""At most about this many throws per simulation (big custom prize sets get fewer games)."""
MIN_GAMES = 500
CACHE_SIZE = 32
"""Entries per LRU (game lengths; charts keep twice as many, one per language)."""
RETRY_AFTER = 5
"""Seconds a client is asked to wait when the workers are busy."""
MAX_AGE = 3600
"""Seconds browsers may reuse an answer: it depends only on its URL (a table's rules are fixed)."""
CHARTS = ("length", "seats")

router = APIRouter(
    prefix="/api",
    tags=["analysis"],
    responses=problem_responses(
        {
            400: "malformed request",
            404: "no such table",
            422: "invalid rules or number of players",
            429: "too many requests from this address (Retry-After)",
            503: "the workers are busy or the database is unreachable (Retry-After)",
        }
    ),
)

RulesParam = Annotated[
    str | None,
    Query(
        description="a preset id or alias (traditional, modern, jinhua, 通行 …) or a rule object"
        " of RULES.md §5 as JSON text; default traditional",
        examples=["modern"],
    ),
]
TableParam = Annotated[
    str | None,
    Query(description="a table code: use that table's rules (instead of rules=)"),
]
PlayersParam = Annotated[
    int,
    Query(ge=MIN_PLAYERS, le=MAX_PLAYERS, description="players at the table"),
]
MinutesParam = Annotated[
    int | None,
    Query(
        ge=1,
        le=MAX_MINUTES,
        description="a time limit in minutes: the answer says how many games it would cut"
        f" short at {SECONDS_PER_THROW:g} s a throw",
    ),
]
LangParam = Annotated[
    str | None,
    Query(description="chart labels: zh-Hans (default), zh-Hant or en; else Accept-Language"),
]


# -- rules --------------------------------------------------------------------------------------


def _checked(rules: RuleSet) -> RuleSet:
    if rules.total_cakes == 0:
        message = "the rules play for no cakes at all"
        raise ApiError("invalid_rules", message, message=message)
    return rules


def rules_of(value: Any) -> RuleSet:
    """Rules from a preset id or alias, a rule object, or a rule object as JSON text."""
    try:
        if value is None:
            return DEFAULT_RULES
        if isinstance(value, str):
            text = value.strip()
            if not text.startswith("{"):
                return preset_rules(text)
            try:
                value = json_input.loads(text, what="rules")
            except ApiError as error:
                if error.code != "malformed":
                    raise
                try:
                    json.loads(text)
                    reason = "not valid JSON"
                except ValueError as exc:
                    reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
                message = f"rules {text[:80]!r} are not valid JSON ({reason})"
                raise ApiError("invalid_rules", message, message=message, value=text[:80]) from None
        return _checked(web_rules(value))
    except BobingError as exc:
        raise from_bobing(exc) from None


async def requested_rules(request: Request, rules: Any, table: str | None) -> RuleSet:
    """The rules a request asks about: ``table`` (that table's rules) or ``rules``."""
    if table is not None:
        if rules is not None:
            raise ApiError(
                "invalid_field",
                "give either rules or table, not both",
                field="table",
                message="give either rules or table, not both",
            )
        service: TableService = request.app.state.service
        return (await service.runtime(table)).rules
    return rules_of(rules)


def rules_key(rules: RuleSet) -> str:
    """A cache key for rules: every switch, in a fixed order."""
    return json.dumps(rules.to_json(), sort_keys=True, ensure_ascii=False)


def chart_lang(request: Request, lang: str | None) -> str:
    """``?lang=``, else the first Accept-Language tag, normalized."""
    return request_language(lang, request.headers.get("accept-language"))


# -- the computations ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class GameLengthReport:
    """What ``/api/game-length`` answers, and the simulation the charts are drawn from."""

    json: dict[str, Any]
    result: SimulationResult


def games_for(rules: RuleSet, exact_mean: float | None) -> int:
    """Games to simulate: :data:`GAMES`, fewer when games are long (big custom prize sets)."""
    mean = exact_mean
    if mean is None:
        # No exact chain (too many pool states). A rough length: the throws it takes to win
        # the slowest tier's cakes, unless a game-ending throw (六勃红 …) usually comes first.
        tiers = exact_odds(rules).tiers
        slowest = max(
            (
                rules.prize_count(tier) / tiers[tier].share.probability
                for tier in TIERS[1:]
                if rules.prize_count(tier) and tiers[tier].share.count
            ),
            default=1.0,
        )
        from bobing.analysis.simulate import OUTCOMES, outcome_classes

        classes, _ = outcome_classes(rules)
        ending = sum(oc.count for oc in classes if oc.effect) / OUTCOMES
        mean = min(slowest, 1 / ending) if ending else slowest
    return max(MIN_GAMES, min(GAMES, int(THROW_BUDGET / max(mean, 1.0))))


def time_limit_share(report: GameLengthReport, minutes: int) -> dict[str, Any]:
    """What a time limit of ``minutes`` does to these games at the assumed pace: the throw the
    bell follows and the share of games still going then (RULES.md §8.1 calls time on them)."""
    bell = Bell(minutes, SECONDS_PER_THROW)
    return {
        **bell.to_json(),
        "runs_past": round(report.result.throws.share_above(bell.throws), 4),
    }


def _distribution(result: SimulationResult, name: str) -> dict[str, Any]:
    dist = result.throws if name == "throws" else result.rounds
    summary: dict[str, Any] = dist.summary()
    summary["p5"] = dist.quantile(0.05)
    summary["p95"] = dist.quantile(0.95)
    return summary


def game_length(rules: RuleSet, players: int) -> GameLengthReport:
    """The exact expectations (when the chain applies) and a seeded simulation."""
    from bobing.analysis.markov import exact_or_none
    from bobing.analysis.simulate import simulate

    exact = exact_or_none(rules, players)
    games = games_for(rules, exact.throws_mean if exact is not None else None)
    result = simulate(rules, players, games, seed=SEED, workers=1)
    result = replace(result, exact=exact)
    sim = result.to_json()
    for key in ("rules", "exact", "players", "tiaohou"):
        sim.pop(key)
    sim["throws"] = _distribution(result, "throws")
    sim["rounds"] = _distribution(result, "rounds")
    body = {
        "players": players,
        "rules": rules.overrides(),
        "exact": exact.to_json() if exact is not None else None,
        "simulation": sim,
    }
    return GameLengthReport(body, result)


_DRAWING = threading.Lock()
"""matplotlib's settings are process-wide: one chart at a time."""


def chart(report: GameLengthReport, kind: str, lang: str) -> bytes:
    """One chart as SVG bytes."""
    from bobing.analysis import plots

    draw = plots.length_svg if kind == "length" else plots.seats_svg
    with _DRAWING:
        return draw(report.result, lang, compact=True).encode("utf-8")


class AnalysisCache:
    """Small LRUs of computed answers, computed off the event loop.

    A computation runs once however many ask at once, in a worker thread or process
    (:attr:`Limits.analysis_workers`, or ``workers``; started with the first computation, not
    with the server); at most :attr:`Limits.analysis_queue` (or ``queue``) more wait for one,
    beyond that a request is refused at once (``busy``, 503 with ``Retry-After``); a request
    waits at most :attr:`Limits.analysis_timeout` seconds (``busy`` too), while the computation
    goes on and its result is cached for the next asker. Charts are drawn one at a time
    (matplotlib's settings are process-wide).
    """

    def __init__(
        self,
        size: int = CACHE_SIZE,
        limits: Limits | None = None,
        *,
        processes: bool = False,
        workers: int | None = None,
        queue: int | None = None,
        name: str = "analysis",
    ) -> None:
        self.size = size
        self.limits = limits or Limits()
        self.odds: OrderedDict[Hashable, dict[str, Any]] = OrderedDict()
        self.lengths: OrderedDict[Hashable, GameLengthReport] = OrderedDict()
        self.charts: OrderedDict[Hashable, bytes] = OrderedDict()
        self._pending: dict[Hashable, asyncio.Future[Any]] = {}
        workers = max(1, self.limits.analysis_workers if workers is None else workers)
        self._workers = workers
        self._queue = self.limits.analysis_queue if queue is None else queue
        self._executor: Executor
        if processes:
            # Worker processes: a simulation holds the GIL for seconds, which in a thread
            # would still stall the event loop (and every table's throws) in turns.
            self._executor = ProcessPoolExecutor(
                max_workers=workers,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=background_priority,
                initargs=(self.limits.worker_nice,),
            )
        else:
            self._executor = ThreadPoolExecutor(
                max_workers=workers, thread_name_prefix=f"bobing-{name}"
            )

    def close(self) -> None:
        """Stop the workers; a worker process in the middle of a computation is ended."""
        processes = getattr(self._executor, "_processes", None) or {}
        self._executor.shutdown(wait=False, cancel_futures=True)
        for process in list(processes.values()):
            process.terminate()

    async def get(
        self,
        store: OrderedDict[Hashable, T],
        key: Hashable,
        compute: Callable[..., T],
        size: int,
        *,
        args: tuple[Any, ...] = (),
        on_miss: Callable[[], Awaitable[None]] | None = None,
    ) -> T:
        """The cached value of ``key``, ``compute(*args)`` in a worker on a miss (with worker
        processes ``compute`` is a module-level function and ``args`` can be pickled);
        ``on_miss`` may refuse a new computation (a rate limit) by raising."""
        if key in store:
            store.move_to_end(key)
            return store[key]
        if key not in self._pending:
            self._check_room()
            if on_miss is not None:
                await on_miss()
                if key in store:  # computed by another request while the limiter answered
                    store.move_to_end(key)
                    return store[key]
        pending = self._pending.get(key)
        if pending is None:
            self._check_room()
            pending = asyncio.ensure_future(self._compute(store, key, compute, args, size))
            self._pending[key] = pending
            pending.add_done_callback(lambda done: self._settled(key, done))
        # Shielded: a client that goes away does not cancel what others are waiting for.
        timeout = self.limits.analysis_timeout or None
        try:
            value: T = await asyncio.wait_for(asyncio.shield(pending), timeout)
        except TimeoutError:
            raise ApiError(
                "busy",
                f"the computation takes longer than {timeout:g} s; it goes on, and its "
                "answer will be ready for a later request",
                retry_after=RETRY_AFTER,
            ) from None
        return value

    def _check_room(self) -> None:
        room = self._workers + self._queue
        if len(self._pending) >= room:
            raise ApiError(
                "busy",
                f"{len(self._pending)} computations are under way or waiting; "
                "try again in a few seconds",
                retry_after=RETRY_AFTER,
            )

    def _settled(self, key: Hashable, done: asyncio.Future[Any]) -> None:
        self._pending.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here: a waiter that left must not leave it unseen

    async def _compute(
        self,
        store: OrderedDict[Hashable, T],
        key: Hashable,
        compute: Callable[..., T],
        args: tuple[Any, ...],
        size: int,
    ) -> T:
        loop = asyncio.get_running_loop()
        value = await loop.run_in_executor(self._executor, compute, *args)
        store[key] = value
        while len(store) > size:
            store.popitem(last=False)
        return value


async def limit_analysis(request: Request) -> None:
    """Count one analysis request against the client's address (``rate_limited`` when over)."""
    await count_request(request, "analysis")


def cache_of(request: Request) -> AnalysisCache:
    """The app's analysis cache (made on first use)."""
    state = request.app.state
    cache: AnalysisCache | None = getattr(state, "analysis_cache", None)
    if cache is None:
        cache = AnalysisCache()
        state.analysis_cache = cache
    return cache


async def cached_length(request: Request, rules: RuleSet, players: int) -> GameLengthReport:
    """The game-length report of ``rules`` at ``players``, from the cache when possible."""
    cache = cache_of(request)
    key = (rules_key(rules), players)

    async def count_simulation() -> None:
        await count_request(request, "simulation")

    return await cache.get(
        cache.lengths,
        key,
        _length_task,
        cache.size,
        args=(rules, players),
        on_miss=count_simulation,
    )


async def cached_odds(request: Request, rules: RuleSet) -> dict[str, Any]:
    """The exact odds of ``rules`` as JSON, from the cache when possible."""
    cache = cache_of(request)
    return await cache.get(cache.odds, rules_key(rules), _odds_task, 4 * cache.size, args=(rules,))


# What the workers run: module-level (a worker process finds them by name) and looked up at
# call time (a test may count the calls of game_length and chart in thread mode).


def _length_task(rules: RuleSet, players: int) -> GameLengthReport:
    return game_length(rules, players)


def _odds_task(rules: RuleSet) -> dict[str, Any]:
    json_body: dict[str, Any] = exact_odds(rules).to_json()
    return json_body


def _chart_task(report: GameLengthReport, kind: str, lang: str) -> bytes:
    return chart(report, kind, lang)


def _cached_json(body: dict[str, Any]) -> JSONResponse:
    return JSONResponse(body, headers={"Cache-Control": f"public, max-age={MAX_AGE}"})


# -- routes -------------------------------------------------------------------------------------


@router.get("/odds", summary="Exact odds of one throw under a rule set")
async def odds_get(
    request: Request, rules: RulesParam = None, table: TableParam = None
) -> JSONResponse:
    """Per hand, per tier (at the start of a game), the 状元 order and kickers (``bobing odds``)."""
    await limit_analysis(request)
    chosen = await requested_rules(request, rules, table)
    return _cached_json(await cached_odds(request, chosen))


@router.post("/odds", summary="Exact odds of one throw under a posted rule object")
async def odds_post(
    request: Request,
    rules: Annotated[
        dict[str, Any],
        Body(
            description="a rule object of RULES.md §5",
            examples=[{"preset": "modern", "chase": {"tiers": ["duitang"]}}],
        ),
    ],
) -> dict[str, Any]:
    """As ``GET /api/odds``, for rules that are not a preset."""
    await limit_analysis(request)
    return await cached_odds(request, rules_of(rules))


@router.get("/game-length", summary="How long a game lasts: exact means and a simulation")
async def game_length_get(
    request: Request,
    players: PlayersParam = ANALYSIS_PLAYERS,
    rules: RulesParam = None,
    table: TableParam = None,
    minutes: MinutesParam = None,
) -> JSONResponse:
    """``exact``: the Markov chain's means (null where it does not apply); ``simulation``:
    20 000 seeded games (fewer for huge prize sets) with p5/p50/p90/p95/p99, how games end
    and the seats' fairness; ``seconds_per_throw``: the pace that turns throws into minutes;
    with ``minutes``, ``time_limit``: the throw time is called after at that pace and the
    share of games still going then (``runs_past``)."""
    await limit_analysis(request)
    chosen = await requested_rules(request, rules, table)
    report = await cached_length(request, chosen, players)
    body = {**report.json, "seconds_per_throw": SECONDS_PER_THROW}
    if minutes is not None:
        body["time_limit"] = time_limit_share(report, minutes)
    return _cached_json(body)


@router.get(
    "/charts/{kind}.svg",
    summary="A chart of the simulation: length or seats",
    response_class=Response,
    responses={200: {"content": {"image/svg+xml": {}}}},
)
async def chart_svg(
    request: Request,
    kind: str,
    players: PlayersParam = ANALYSIS_PLAYERS,
    rules: RulesParam = None,
    table: TableParam = None,
    lang: LangParam = None,
) -> Response:
    """``length``: the distribution of throws per game; ``seats``: cakes and the 状元 per seat."""
    await limit_analysis(request)
    if kind not in CHARTS:
        raise ApiError("not_found", f"no chart {kind!r}", path=request.url.path)
    chosen = await requested_rules(request, rules, table)
    language = chart_lang(request, lang)
    report = await cached_length(request, chosen, players)
    cache = cache_of(request)
    key = (rules_key(chosen), players, kind, language)
    svg = await cache.get(
        cache.charts, key, _chart_task, 2 * cache.size, args=(report, kind, language)
    )
    return Response(
        svg,
        media_type="image/svg+xml",
        headers={
            "Cache-Control": f"public, max-age={MAX_AGE}",
            # Opened on its own, the picture may not run anything (it is only text and paths).
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
            "X-Content-Type-Options": "nosniff",
        },
    )
