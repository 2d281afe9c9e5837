"""Running many whole games: chunks, seeds and worker processes (``bobing simulate``).

The games themselves are played by the kernel (:mod:`bobing.analysis.kernel`) and summed in
:mod:`bobing.analysis.results`. Chunks are independent: each gets its own seed from
``numpy.random.SeedSequence.spawn``, so the result depends on the seed and the number of games
only, never on the number of worker processes. :func:`simulate_reference` gives the same
report from the plain reference (:mod:`bobing.analysis.reference`), one game at a time.

The names most callers need (the report types, the throw indices, the reference) are importable
from here too.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext

import numpy as np

from bobing.analysis.bell import Bell
from bobing.analysis.kernel import KernelSpec, kernel_spec, play_given, run_chunk
from bobing.analysis.limits import MAX_PLAYERS, MIN_PLAYERS, check_players, check_tiaohou
from bobing.analysis.markov import exact_or_none
from bobing.analysis.outcomes import (
    JUMP,
    OUTCOMES,
    REASONS,
    GameTrace,
    OutcomeClass,
    outcome_classes,
)
from bobing.analysis.reference import play_reference
from bobing.analysis.results import Distribution, SeatStats, SimulationResult, Tally
from bobing.analysis.start import check_start
from bobing.engine.errors import InputError
from bobing.engine.rules import Award, RuleSet

_DEFAULT_CHUNK = 1 << 17


def default_chunk(players: int) -> int:
    """Games per chunk: about 30 MB of state whatever the table size."""
    return max(1024, min(_DEFAULT_CHUNK, (1 << 21) // players))


def default_workers(games: int) -> int:
    """Worker processes worth starting for ``games`` games (1 for small runs)."""
    if games < 200_000:
        return 1
    return max(1, min(os.cpu_count() or 1, 32))


def _mp_context() -> BaseContext:
    """fork where it is safe (no re-import of the caller's ``__main__``), else spawn.

    fork is safe here when no other Python thread runs (a web server's threads might hold
    locks); NumPy's native BLAS threads do not matter, the kernel never calls BLAS.
    """
    methods = get_all_start_methods()
    single = threading.active_count() == 1
    fork = "fork" in methods and sys.platform != "darwin" and single
    return get_context("fork" if fork else "spawn")


def _chunk_tally(job: tuple[KernelSpec, int, np.random.SeedSequence]) -> Tally:
    spec, n, seed = job
    return Tally.of_chunk(spec.players, run_chunk(spec, n, seed))


def simulate(
    rules: RuleSet,
    players: int,
    games: int,
    *,
    seed: int | None = None,
    tiaohou: float = 0.0,
    workers: int | None = None,
    chunk_size: int | None = None,
    exact: bool = False,
    bell: Bell | None = None,
    start: str = "first",
) -> SimulationResult:
    """Play ``games`` whole games of ``players`` (seat 1 starts) and tally them.

    Same ``seed`` → same result, whatever ``workers`` is. ``exact`` adds the Markov-chain
    expectation (:func:`bobing.analysis.markov.expected_game_length`) where it applies (not
    with a ``bell``: time is called after ``bell.throws`` throws, RULES.md §8.1). Ranked
    sessions are :func:`bobing.analysis.ranked.simulate_ranked`.
    """
    check_players(players)
    check_tiaohou(tiaohou)
    check_start(start)
    if games < 1:
        raise InputError(f"invalid number of games {games}: at least 1", value=games)
    root = np.random.SeedSequence(seed)
    entropy = root.entropy
    assert isinstance(entropy, int)
    if rules.award is Award.RANKED:
        raise InputError(
            "these rules award ranked prizes (one per person, by best throw): there is no game"
            " for cakes to simulate; a ranked session lasts its rounds (simulate_ranked)",
            code="simulate_ranked_rules",
            value=str(rules.award),
        )
    spec = kernel_spec(rules, players, tiaohou, close_after=bell.throws if bell else 0)
    chunk = chunk_size or default_chunk(players)
    sizes = [chunk] * (games // chunk) + ([games % chunk] if games % chunk else [])
    jobs = list(zip([spec] * len(sizes), sizes, root.spawn(len(sizes)), strict=True))
    used = min(workers or default_workers(games), len(jobs))
    if used <= 1:
        tallies = [_chunk_tally(job) for job in jobs]
    else:
        with warnings.catch_warnings():
            # Python 3.12+ warns about fork() in a process with threads (NumPy's BLAS pool);
            # the workers only run the kernel, which never touches BLAS.
            warnings.simplefilter("ignore", DeprecationWarning)
            with ProcessPoolExecutor(used, mp_context=_mp_context()) as pool:
                tallies = list(pool.map(_chunk_tally, jobs))
    tally = tallies[0]
    for other in tallies[1:]:
        tally = tally.merged(other)
    length = None
    if exact and bell is None:
        length = exact_or_none(rules, players, tiaohou=tiaohou)
    return SimulationResult(
        rules, players, games, entropy, tiaohou, tally, length, used, bell, start
    )


def simulate_reference(
    rules: RuleSet, players: int, games: int, *, seed: int = 0, tiaohou: float = 0.0
) -> SimulationResult:
    """The same tally from :func:`play_reference`, one game at a time (the baseline)."""
    check_players(players)
    check_tiaohou(tiaohou)
    rng = random.Random(seed)
    traces = [play_reference(rules, players, rng=rng, tiaohou=tiaohou) for _ in range(games)]
    return SimulationResult(rules, players, games, seed, tiaohou, Tally.of_traces(players, traces))


__all__ = [
    "JUMP",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OUTCOMES",
    "REASONS",
    "Distribution",
    "GameTrace",
    "OutcomeClass",
    "SeatStats",
    "SimulationResult",
    "Tally",
    "check_players",
    "check_tiaohou",
    "outcome_classes",
    "play_given",
    "play_reference",
    "simulate",
    "simulate_reference",
]
