"""How fast the game engine plays: throws per second over whole games, with baselines.

    .venv/bin/python benchmarks/bench_game.py [--throws 300000] [--repeat 5] [--players 10]

Whole games under the default (traditional) rules, dice pre-generated from a seeded RNG, each
game started and played to the end (a lights-off grab settled from a seeded RNG). Measured in
the same run, on the same throws:

- ``classify``: only looking up each throw's hand (the floor: what any engine must do);
- ``bare loop``: a minimal mutable re-implementation (pool, standings, final round; no events,
  no 追, no 跳猴) — what the event log, immutable states and validation cost on top.

Prints the best of ``--repeat`` interleaved rounds for each, and the ratios.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable, Sequence

from bobing.engine.game import Game
from bobing.engine.hands import ORDINARY_HAND_TIER, TIERS, Hand
from bobing.engine.presets import DEFAULT_RULES

RULES = DEFAULT_RULES


def pregenerate(count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` throws of six faces from a seeded RNG."""
    rng = random.Random(seed)
    return [tuple(rng.choices(range(1, 7), k=6)) for _ in range(count)]


def run_engine(throws: Sequence[tuple[int, ...]], players: Sequence[str]) -> tuple[int, int]:
    """Play whole games through :class:`Game` until the throws run out: (throws used, games)."""
    grab_rng = random.Random(1)
    used = games = 0
    total = len(throws)
    while True:
        game = Game(RULES, players)
        game.start()
        throw = game.throw
        while game.state.phase == "main" or game.state.phase == "final":
            if used == total:
                return used, games
            throw(throws[used])
            used += 1
        if game.state.phase == "grab":
            game.grab(rng=grab_rng)
        games += 1


def run_classify(throws: Sequence[tuple[int, ...]], players: Sequence[str]) -> tuple[int, int]:
    """Only classify every throw."""
    classify = RULES.classifier
    for dice in throws:
        classify(dice)
    return len(throws), 0


_TIER_INDEX = {tier: i for i, tier in enumerate(TIERS)}
_ENDING = {Hand.LIUBOHONG, Hand.LIUBOHEI}


def run_bare(throws: Sequence[tuple[int, ...]], players: Sequence[str]) -> tuple[int, int]:
    """A minimal mutable game loop with the same turn structure, for comparison."""
    classify = RULES.classifier
    key = RULES.zhuangyuan_key
    order = set(RULES.zhuangyuan_order)
    size = len(players)
    used = games = 0
    total = len(throws)
    while used < total:
        pool = list(RULES.prizes)
        held = [[0] * len(TIERS) for _ in players]
        standing: list[tuple[tuple[int, int, int], int] | None] = [None] * size
        turn = 0
        last_turn = -1
        while used < total:
            seat = turn % size
            c = classify(throws[used])
            used += 1
            if c.hand in _ENDING:
                break
            if c.hand in order:
                standing[seat] = (key(c), used)
            else:
                tier = ORDINARY_HAND_TIER.get(c.hand)
                if tier is not None and pool[_TIER_INDEX[tier]]:
                    pool[_TIER_INDEX[tier]] -= 1
                    held[seat][_TIER_INDEX[tier]] += 1
            if last_turn < 0 and sum(pool[1:]) == 0 and any(standing):
                last_turn = (turn // size + 1) * size - 1
            if turn == last_turn:
                break
            turn += 1
        games += 1
    return used, games


Runner = Callable[[Sequence[tuple[int, ...]], Sequence[str]], tuple[int, int]]


def measure(
    runners: dict[str, Runner],
    throws: Sequence[tuple[int, ...]],
    players: Sequence[str],
    repeat: int,
) -> dict[str, tuple[float, int, int]]:
    """Best throws/s of each runner over ``repeat`` rounds (interleaved, so that a busy
    machine slows them alike), with the throws and games of a run."""
    best: dict[str, tuple[float, int, int]] = dict.fromkeys(runners, (0.0, 0, 0))
    for _ in range(repeat):
        for name, fn in runners.items():
            start = time.perf_counter()
            used, games = fn(throws, players)
            rate = used / (time.perf_counter() - start)
            if rate > best[name][0]:
                best[name] = (rate, used, games)
    return best


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=300_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args(argv)
    players = [f"p{i}" for i in range(args.players)]
    throws = pregenerate(args.throws, args.seed)
    runners: dict[str, Runner] = {"engine": run_engine, "classify": run_classify, "bare": run_bare}
    best = measure(runners, throws, players, args.repeat)
    engine, used, games = best["engine"]
    classify = best["classify"][0]
    bare, _, bare_games = best["bare"]
    print(
        f"rules: {RULES.preset}, {args.players} players, {used} throws in {games} whole games"
        f" (best of {args.repeat})"
    )
    print(f"{'engine (Game.throw)':<24}{engine:>12,.0f} throws/s")
    print(
        f"{'baseline: classify':<24}{classify:>12,.0f} throws/s   "
        f"engine costs {classify / engine:.1f}x classify"
    )
    print(
        f"{'baseline: bare loop':<24}{bare:>12,.0f} throws/s   "
        f"engine costs {bare / engine:.1f}x the bare loop ({bare_games} games)"
    )
    verdict = "meets" if engine >= 100_000 else "misses"
    print(f"target 100,000 throws/s: {verdict} ({engine / 100_000:.2f}x)")


if __name__ == "__main__":
    main()
