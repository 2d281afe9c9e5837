"""Whole-game simulation speed: the NumPy kernel against a per-throw pure-Python simulation.

    .venv/bin/python benchmarks/bench_simulate.py [--players 10] [--rules traditional]
        [--repeat 5] [--baseline-games 600] [--kernel-games 131072] [--games 2000000]

Both play complete games of the same rules (every switch the same) in this process. The
baseline is :func:`bobing.analysis.simulate.simulate_reference`: one game at a time, one throw
at a time (six ``random.randint`` dice, a dictionary lookup to classify, the RULES.md §4
steps in plain Python). The kernel is :func:`bobing.analysis.simulate.simulate`.

Baseline and one-worker kernel runs of about a second each alternate ``--repeat`` times and
the best rate of each counts, so a burst of load on a shared machine hurts both alike. Then
``--games`` games run over every core, twice, and must give the same result as with one
worker. The engine's own
``Game`` (events, immutable state) is timed too, for scale.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import sys
import time
from collections.abc import Callable, Sequence

from bobing.analysis.simulate import simulate, simulate_reference
from bobing.engine.dice import SeededDice
from bobing.engine.game import Game, Phase
from bobing.engine.rules import RuleSet, load_rules


def rate(work: Callable[[], object], items: int) -> float:
    """Items per second of one run."""
    start = time.perf_counter()
    work()
    return items / (time.perf_counter() - start)


def engine_games(rules: RuleSet, players: int, games: int) -> None:
    """Play games through the engine's Game with seeded dice."""
    names = [f"p{i}" for i in range(players)]
    dice = SeededDice(1)
    grab = random.Random(2)
    for _ in range(games):
        game = Game(rules, names)
        game.start()
        while not game.is_over:
            if game.phase is Phase.GRAB:
                game.grab(rng=grab)
            else:
                game.throw(dice.roll())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--rules", default="traditional")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--baseline-games", type=int, default=600)
    parser.add_argument("--kernel-games", type=int, default=131_072)
    parser.add_argument("--engine-games", type=int, default=60)
    parser.add_argument("--games", type=int, default=2_000_000)
    args = parser.parse_args(argv)
    rules = load_rules(args.rules)
    n = args.players
    cores = os.cpu_count() or 1
    print(
        f"python {platform.python_version()} on {platform.machine()}, {cores} cores; "
        f"rules {args.rules}, {n} players"
    )

    baseline = kernel = 0.0
    for r in range(args.repeat):
        baseline = max(
            baseline,
            rate(
                lambda r=r: simulate_reference(rules, n, args.baseline_games, seed=r),
                args.baseline_games,
            ),
        )
        kernel = max(
            kernel,
            rate(
                lambda r=r: simulate(rules, n, args.kernel_games, seed=r, workers=1),
                args.kernel_games,
            ),
        )
    engine = rate(lambda: engine_games(rules, n, args.engine_games), args.engine_games)

    parallel = 0.0
    results = []
    for _ in range(2):
        start = time.perf_counter()
        results.append(simulate(rules, n, args.games, seed=1, workers=cores))
        parallel = max(parallel, args.games / (time.perf_counter() - start))
    check = simulate(rules, n, min(args.games, 300_000), seed=1, workers=1)
    again = simulate(rules, n, min(args.games, 300_000), seed=1, workers=cores)
    assert check.to_json() == again.to_json(), "the number of workers changed the result"
    assert results[0].to_json() == results[1].to_json()

    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    rows = [
        ("baseline (pure Python)", baseline, f"best of {args.repeat} x {args.baseline_games:,}"),
        ("engine Game (for scale)", engine, f"{args.engine_games:,} games"),
        ("kernel, 1 worker", kernel, f"best of {args.repeat} x {args.kernel_games:,}"),
        (f"kernel, {cores} workers", parallel, f"best of 2 x {args.games:,}"),
    ]
    for label, value, note in rows:
        print(f"{label:<26}{value:>12,.0f} games/s   ({note})")
    print(f"{'ratio kernel / baseline':<26}{kernel / baseline:>12.0f}x   (1 worker)")
    print(f"{'ratio kernel / baseline':<26}{parallel / baseline:>12.0f}x   ({cores} workers)")
    print(
        f"mean throws {results[0].throws.mean:.2f} (exact 228.07 for traditional, 10 players); "
        f"peak RSS {rss:.0f} MB, largest worker {rss_children:.0f} MB"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
