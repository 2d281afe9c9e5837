"""Classification speed: the precomputed lookup table against a straightforward classifier.

    .venv/bin/python benchmarks/bench_classify.py [--throws N] [--repeat R]

Random ordered throws are generated first (seeded); then each classifier runs over all of them
in the same process, best of R runs. The baseline is the engine's direct, Counter-based
``classify_multiset`` (sort, count faces, walk RULES.md §2), which is what the table replaces.
``classify_many`` (:mod:`bobing.analysis.batch`) classifies the same throws as one ``(N, 6)``
NumPy array: hand, tier, kicker and bonus arrays in one vectorised lookup.
"""

from __future__ import annotations

import argparse
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from bobing.analysis.batch import classify_many
from bobing.engine.hands import HANDS, Classification, classify_multiset
from bobing.engine.presets import PRESETS


def best_rate(work: Callable[[], object], items: int, repeat: int) -> float:
    """Items per second of the fastest of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - start)
    return items / best


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--throws", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)

    rng = random.Random(20240917)
    throws = [tuple(rng.randint(1, 6) for _ in range(6)) for _ in range(args.throws)]
    texts = ["".join(map(str, t)) for t in throws[: args.throws // 10]]
    rules = PRESETS["traditional"]
    classifier = rules.classifier  # built once per rule set (46656 entries)

    def table() -> list[Classification]:
        return [classifier(t) for t in throws]

    def baseline() -> list[Classification]:
        return [classify_multiset(t) for t in throws]

    def from_text() -> list[Classification]:
        return [rules.classify(s) for s in texts]

    array = np.array(throws, dtype=np.int8)

    def batch() -> object:
        return classify_many(array, rules)

    assert table()[:1000] == baseline()[:1000], "the two classifiers disagree"
    sample = classify_many(array[:1000], rules)
    assert [HANDS[h] for h in sample.hand.tolist()] == [c.hand for c in table()[:1000]]
    batch()  # build (and cache) the tables outside the timing
    many = best_rate(batch, len(throws), args.repeat)
    fast = best_rate(table, len(throws), args.repeat)
    slow = best_rate(baseline, len(throws), max(1, args.repeat // 2))
    text = best_rate(from_text, len(texts), args.repeat)

    print(f"python {platform.python_version()} on {platform.machine()}, {args.throws:,} throws")
    print(f"rules.classifier(t)      {fast:>14,.0f} classifications/s")
    print(f"classify_multiset(t)     {slow:>14,.0f} classifications/s   (baseline)")
    print(f"rules.classify('444412') {text:>14,.0f} classifications/s   (parse + lookup)")
    print(f"classify_many(array)     {many:>14,.0f} classifications/s   (NumPy batch)")
    print(f"ratio table / baseline   {fast / slow:>14.1f}x")
    print(f"ratio batch / table      {many / fast:>14.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
