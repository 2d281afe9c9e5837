"""What many games add up to: histograms, per-seat sums and the ``bobing simulate`` report.

Everything here is integers until it is reported, so tallies of chunks merge in any order and
the same seed gives the same bytes whatever the number of worker processes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.analysis.bell import Bell
from bobing.analysis.kernel import ChunkOutcome
from bobing.analysis.markov import GameLength
from bobing.analysis.outcomes import GAME_ENDINGS, REASONS, GameTrace
from bobing.analysis.start import listed_seat_weights
from bobing.engine.hands import TIERS, Tier
from bobing.engine.rules import RuleSet

Array = NDArray[Any]


@dataclass(frozen=True, eq=False)
class Distribution:
    """A distribution of whole numbers kept as a histogram (``counts[v]`` games had ``v``)."""

    counts: Array

    @property
    def total(self) -> int:
        """How many games."""
        return int(self.counts.sum())

    @property
    def mean(self) -> float:
        """The average."""
        values = np.arange(len(self.counts))
        return float((values * self.counts).sum() / self.total)

    @property
    def std(self) -> float:
        """The standard deviation."""
        values = np.arange(len(self.counts), dtype=np.float64)
        mean = self.mean
        return float(np.sqrt(((values - mean) ** 2 * self.counts).sum() / self.total))

    @property
    def max(self) -> int:
        """The largest value seen."""
        return int(np.flatnonzero(self.counts)[-1])

    @property
    def min(self) -> int:
        """The smallest value seen."""
        return int(np.flatnonzero(self.counts)[0])

    def quantile(self, q: float) -> int:
        """The smallest value with at least a share ``q`` of games at or below it."""
        cumulative = np.cumsum(self.counts)
        need = max(1, math.ceil(round(q * self.total, 6)))
        return int(np.searchsorted(cumulative, need, side="left"))

    def share_above(self, value: int) -> float:
        """The share of games with more than ``value``.

        >>> Distribution.of([1, 2, 2, 5]).share_above(2)
        0.25
        """
        return float(self.counts[max(0, value + 1) :].sum() / self.total)

    def summary(self) -> dict[str, float | int]:
        """``{"mean", "p50", "p90", "p99", "max"}`` (plus ``std`` and ``min``)."""
        return {
            "mean": round(self.mean, 4),
            "std": round(self.std, 4),
            "min": self.min,
            "p50": self.quantile(0.5),
            "p90": self.quantile(0.9),
            "p99": self.quantile(0.99),
            "max": self.max,
        }

    @staticmethod
    def of(values: Array | Sequence[int]) -> Distribution:
        """The distribution of some values."""
        return Distribution(np.bincount(np.asarray(values, np.int64)).astype(np.int64))

    def merged(self, other: Distribution) -> Distribution:
        """Both distributions together."""
        size = max(len(self.counts), len(other.counts))
        counts = np.zeros(size, np.int64)
        counts[: len(self.counts)] += self.counts
        counts[: len(other.counts)] += other.counts
        return Distribution(counts)


@dataclass(frozen=True)
class SeatStats:
    """One seat, counted in play order from the starter (seat 1 starts)."""

    seat: int
    cakes_mean: float
    cakes_by_tier: dict[Tier, float]
    zhuangyuan_rate: float

    def to_json(self) -> dict[str, Any]:
        """``{"seat", "cakes_mean", "cakes_by_tier", "zhuangyuan_rate"}``."""
        return {
            "seat": self.seat,
            "cakes_mean": round(self.cakes_mean, 6),
            "cakes_by_tier": {str(t): round(v, 6) for t, v in self.cakes_by_tier.items()},
            "zhuangyuan_rate": round(self.zhuangyuan_rate, 6),
        }


@dataclass(frozen=True, eq=False)
class Tally:
    """Sums over many games, mergeable in any order (all integers)."""

    players: int
    throws: Distribution
    rounds: Distribution
    ended: Array
    exhausted_first: int
    seat_tier: Array
    bell_rang: int = 0
    """Games the bell reached while they were still being played."""

    @property
    def games(self) -> int:
        """How many games."""
        return self.throws.total

    def merged(self, other: Tally) -> Tally:
        """Both tallies together."""
        return Tally(
            self.players,
            self.throws.merged(other.throws),
            self.rounds.merged(other.rounds),
            self.ended + other.ended,
            self.exhausted_first + other.exhausted_first,
            self.seat_tier + other.seat_tier,
            self.bell_rang + other.bell_rang,
        )

    @staticmethod
    def of_chunk(players: int, out: ChunkOutcome) -> Tally:
        """The tally of one kernel chunk."""
        rounds = (out.turns.astype(np.int64) - 1) // players + 1
        return Tally(
            players,
            Distribution.of(out.throws),
            Distribution.of(rounds),
            np.bincount(out.reason.astype(np.int64), minlength=len(REASONS)).astype(np.int64),
            int(out.exhausted_first.sum()),
            out.seat_tier.astype(np.int64),
            int(out.closed.sum()) if out.closed is not None else 0,
        )

    @staticmethod
    def of_traces(players: int, traces: Sequence[GameTrace]) -> Tally:
        """The tally of games played by :func:`play_reference`."""
        ended = np.zeros(len(REASONS), np.int64)
        seat_tier = np.zeros((players, 6), np.int64)
        for trace in traces:
            ended[REASONS.index(trace.ended_by)] += 1
            seat_tier += np.asarray(trace.holdings, np.int64)
            if trace.zhuangyuan >= 0 and not any(row[0] for row in trace.holdings):
                seat_tier[trace.zhuangyuan, 0] += 1  # 分状元: the seat named 状元, as the kernel
        return Tally(
            players,
            Distribution.of([trace.throws for trace in traces]),
            Distribution.of([trace.rounds for trace in traces]),
            ended,
            sum(trace.exhausted_first for trace in traces),
            seat_tier,
        )


@dataclass(frozen=True, eq=False)
class SimulationResult:
    """What ``bobing simulate`` reports."""

    rules: RuleSet
    players: int
    games: int
    seed: int
    tiaohou: float
    tally: Tally
    exact: GameLength | None = None
    workers: int = field(default=1, compare=False)
    bell: Bell | None = None
    """Time called after ``bell.throws`` throws (RULES.md §8.1), if a time limit was given."""
    start: str = "first"
    """``first``: seats are counted in play order from the starter; ``dice``: seat ``j`` is the
    ``j``-th listed player, the first throwing the two start dice (:mod:`.start`)."""

    @property
    def throws(self) -> Distribution:
        """Throws per game (a 跳猴 is a throw, a skipped turn is not)."""
        return self.tally.throws

    @property
    def rounds(self) -> Distribution:
        """Rounds per game (a round started counts)."""
        return self.tally.rounds

    @property
    def ended_by(self) -> dict[str, float]:
        """Share of games per way of ending (RULES.md §7 ids; ``closed`` only with a bell)."""
        reasons = REASONS if self.bell is not None else GAME_ENDINGS
        return {reason: float(self.tally.ended[i]) / self.games for i, reason in enumerate(reasons)}

    @property
    def over_before_bell(self) -> float:
        """Share of games over before the bell (with a bell; 1.0 without)."""
        return 1.0 - self.tally.bell_rang / self.games

    @property
    def zhuangyuan_unawarded(self) -> float:
        """Share of games that end with nobody holding the 状元 cake (a close before any 状元
        hand leaves it in the pool)."""
        return max(0.0, 1.0 - float(self.tally.seat_tier[:, 0].sum()) / self.games)

    @property
    def exhausted_first(self) -> float:
        """Share of games in which every non-状元 cake was gone before anyone had a 状元."""
        return self.tally.exhausted_first / self.games

    @property
    def seats(self) -> list[SeatStats]:
        """Per seat from the starter (or per listed player with the two-dice start): expected
        cakes (per tier) and the chance of the 状元 cake."""
        per = self.tally.seat_tier / self.games
        if self.start == "dice":
            per = listed_seat_weights(self.rules, self.players) @ per
        return [
            SeatStats(
                seat=i + 1,
                cakes_mean=float(per[i].sum()),
                cakes_by_tier={tier: float(per[i, k]) for k, tier in enumerate(TIERS)},
                zhuangyuan_rate=float(per[i, 0]),
            )
            for i in range(self.players)
        ]

    def to_json(self) -> dict[str, Any]:
        """The ``bobing simulate --json`` object."""
        return {
            "games": self.games,
            "players": self.players,
            "rules": self.rules.overrides(),
            "seed": self.seed,
            "tiaohou": self.tiaohou,
            "start": self.start,
            "throws": self.throws.summary(),
            "rounds": self.rounds.summary(),
            "ended_by": {k: round(v, 6) for k, v in self.ended_by.items()},
            "exhausted_before_zhuangyuan": round(self.exhausted_first, 6),
            "seats": [seat.to_json() for seat in self.seats],
            "exact": self.exact.to_json() if self.exact is not None else None,
            "bell": self._bell_json(),
        }

    def _bell_json(self) -> dict[str, Any] | None:
        if self.bell is None:
            return None
        return {
            **self.bell.to_json(),
            "over_before_bell": round(self.over_before_bell, 6),
            "all_cakes_claimed": round(1.0 - self.ended_by["closed"], 6),
            "zhuangyuan_unawarded": round(self.zhuangyuan_unawarded, 6),
        }


__all__ = ["Distribution", "SeatStats", "SimulationResult", "Tally"]
