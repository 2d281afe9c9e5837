"""Ranked sessions (RULES.md §8.2) simulated: one prize per person, by their best throw.

No cakes change hands and nothing ends a session early, so a session is simply ``rounds`` full
rounds (or play until time is called) in which each seat keeps its best throw. Every throw is
mapped to a *rank code* (larger is better; 0 for a 跳猴, which does not count) through a table
built from the engine's own :func:`bobing.engine.ranked.rank_key`, so the order of throws is
the engine's. A chunk of sessions is advanced in lockstep, one turn per step, like the kernel
of games for cakes; the ranking and the prizes are read off the best throws at the end.

Seats are numbered in play order from the starter (seat 1 starts), as everywhere in analysis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.analysis.bell import Bell
from bobing.analysis.limits import check_players, check_tiaohou
from bobing.analysis.outcomes import JUMP, OUTCOMES, multiset_index
from bobing.analysis.results import Distribution
from bobing.analysis.start import check_start, listed_seat_weights
from bobing.engine.errors import InputError
from bobing.engine.hands import HANDS
from bobing.engine.ranked import prize_units, rank_key
from bobing.engine.rules import Award, End, RankedPrize, RuleSet, Tiaohou

Array = NDArray[Any]

MAX_SIMULATED_ROUNDS = 1000
"""The longest ranked session the simulator plays, in rounds: a session ended by a time limit
rather than by ``rounds`` may last longer than the engine's ``MAX_ROUNDS``, but each simulated
game's arrays grow with its throws, so one request's work stays bounded."""

RANKED_ENDINGS: tuple[str, ...] = ("rounds", "closed")
"""``ended_by`` ids of a ranked session (RULES.md §8.2)."""
NO_THROW = len(HANDS)
"""The hand index of "no counted throw" (a player whose every throw was a 跳猴)."""
HAND_IDS: tuple[str | None, ...] = (*(str(h) for h in HANDS), None)
"""Hand ids by hand index (None: no counted throw)."""
_BIG = np.iinfo(np.int32).max
_CHUNK = 1 << 16


@lru_cache(maxsize=32)
def rank_table(rules: RuleSet) -> tuple[Array, Array]:
    """For each throw index (46 656 ordered throws, then 跳猴) its rank code (0 for 跳猴, then
    1.. from the worst throw up, equal throws equal), and for each code the hand index."""
    inverse, multisets = multiset_index()
    keys = []
    hands = []
    for dice in multisets:
        c = rules.classifier(dice)
        keys.append(rank_key(rules, c))
        hands.append(HANDS.index(c.hand))
    distinct = sorted(set(keys))
    code_of = {key: code for code, key in enumerate(distinct, start=1)}
    per_multiset = np.array([code_of[key] for key in keys], np.int64)
    table = np.zeros(OUTCOMES + 1, np.int16)
    table[:OUTCOMES] = per_multiset[inverse]
    table[JUMP] = 0
    hand_of_code = np.full(len(distinct) + 1, NO_THROW, np.int64)
    for code, hand in zip(per_multiset, hands, strict=True):
        hand_of_code[code] = hand  # equal rank keys are the same hand
    return table, hand_of_code


@dataclass(frozen=True, eq=False)
class RankedSpec:
    """A ranked session in numbers: the throw table, when it ends, and which place wins what."""

    players: int
    table: Array
    hand_of_code: Array
    rounds: int
    """Full rounds to play (0: until time is called)."""
    close_after: int
    """Time is called after this many throws (0: never)."""
    immediate: bool
    skip_on_jump: bool
    tiaohou: float
    line_of_place: Array
    """For each place (0 = first), the index of its prize's line in ``ranked_prizes``, or -1."""
    lines: int


def lines_by_place(prizes: Sequence[RankedPrize], players: int) -> Array:
    """For each place at a table of ``players`` (0 = first), the line of ``prizes`` its prize
    comes from, or -1 (one prize per person; the list read one unit of ``count`` at a time).

    >>> lines_by_place([RankedPrize("一等奖"), RankedPrize("二等奖", 2)], 4).tolist()
    [0, 1, 1, -1]
    """
    units = [line for line, prize in enumerate(prizes) for _ in range(prize.count)]
    places = np.full(players, -1, np.int64)
    take = min(players, len(units))
    places[:take] = units[:take]
    return places


def ranked_spec(
    rules: RuleSet,
    players: int,
    tiaohou: float = 0.0,
    *,
    close_after: int = 0,
    given_jumps: bool = False,
) -> RankedSpec:
    """Compile a ranked rule set for a table of ``players``."""
    if rules.award is not Award.RANKED:
        raise InputError(
            f'these rules play for cakes (award "{rules.award}"), not ranked prizes',
            code="award_not_ranked",
            value=str(rules.award),
        )
    if not rules.rounds and not close_after:
        raise InputError(
            "a ranked session without rounds only ends when time is called: give the rules "
            '"rounds" or a time limit (--minutes)',
            code="ranked_never_ends",
        )
    if not rules.rounds and close_after > MAX_SIMULATED_ROUNDS * players:
        raise InputError(
            f"a ranked session of {close_after} throws is too long to simulate: at most "
            f"{MAX_SIMULATED_ROUNDS} rounds ({MAX_SIMULATED_ROUNDS * players} throws at "
            f"{players} players)",
            code="ranked_too_long",
            value=close_after,
            maximum=MAX_SIMULATED_ROUNDS * players,
            rounds=MAX_SIMULATED_ROUNDS,
        )
    prizes: Sequence[RankedPrize] = rules.ranked_prizes or ()
    table, hand_of_code = rank_table(rules)
    return RankedSpec(
        players=players,
        table=table,
        hand_of_code=hand_of_code,
        rounds=rules.rounds or 0,
        close_after=close_after,
        immediate=rules.end is End.IMMEDIATE,
        skip_on_jump=rules.tiaohou is Tiaohou.VOID_SKIP_NEXT and (tiaohou > 0 or given_jumps),
        tiaohou=tiaohou,
        line_of_place=lines_by_place(prizes, players),
        lines=len(prizes),
    )


@dataclass(eq=False)
class RankedChunk:
    """Per-session results of one chunk: shapes (sessions,) and (seats, sessions)."""

    throws: Array
    turns: Array
    closed: Array
    """Time was called before ``rounds`` were over (``ended_by`` = ``closed``)."""
    best: Array
    """Each seat's best rank code (0: no counted throw)."""
    best_throw: Array
    """The throw number of each seat's best throw."""
    order: Array
    """Seats by place: ``order[0]`` is the first-ranked seat of every session."""


def run_ranked(
    spec: RankedSpec,
    n: int,
    seed: np.random.SeedSequence | int | None,
    given: Array | None = None,
) -> RankedChunk:
    """Play ``n`` ranked sessions (``given``: a (sessions, max throws) array of throw indices)."""
    p = spec.players
    rng = np.random.Generator(np.random.PCG64(seed))
    best = np.zeros((p, n), np.int16)
    best_throw = np.zeros((p, n), np.int32)
    skipped = np.zeros(n, np.int32)
    skip = np.zeros((p, n), bool) if spec.skip_on_jump else None
    last_turn = spec.rounds * p - 1 if spec.rounds else _BIG
    end_turn = np.full(n, last_turn, np.int64)
    closed = np.zeros(n, bool)
    games = np.arange(n)
    t = 0
    while True:
        live = end_turn >= t
        if not live.any():
            break
        s = t % p
        idle = ~live
        if skip is not None:
            lost = skip[s] & live
            skip[s] &= ~lost
            skipped += lost
            idle |= lost
        if given is None:
            u = rng.integers(0, OUTCOMES, size=n, dtype=np.int64)
            if spec.tiaohou > 0:
                u[rng.random(n) < spec.tiaohou] = JUMP
        else:
            width = given.shape[1]
            before = t - skipped
            if ((before >= width) & ~idle).any():
                raise InputError(f"given throws ran out after {width} throws")
            u = given[games, np.minimum(before, width - 1)]
        code = spec.table[u]
        code[idle] = 0
        if skip is not None:
            skip[s] |= (u == JUMP) & ~idle
        number = t + 1 - skipped  # the throw number of this turn's throw
        better = code > best[s]
        best[s, better] = code[better]
        best_throw[s, better] = number[better]
        if spec.close_after:
            due = np.flatnonzero(live & ~closed & (end_turn > t) & (number >= spec.close_after))
            if due.size:
                closed[due] = True
                end = np.full(due.size, t if spec.immediate else t + p - 1 - s, np.int64)
                if skip is not None:
                    # Turns lost to 跳猴 right after the bell are taken first (as the engine does).
                    lost_after = np.zeros(due.size, np.int64)
                    going = np.ones(due.size, bool)
                    for k in range(1, p + 1):
                        going &= skip[(s + k) % p, due]
                        if not going.any():
                            break
                        lost_after += going
                    end = np.maximum(end, t + lost_after)
                end_turn[due] = np.minimum(end_turn[due], end)
        t += 1
    seats = np.arange(p)[:, None]
    score = np.where(best > 0, best.astype(np.int64) * (1 << 32) - best_throw, -1 - seats)
    order = np.argsort(-score, axis=0, kind="stable")
    turns = end_turn + 1
    return RankedChunk(
        throws=(turns - skipped).astype(np.int64),
        turns=turns,
        closed=closed & (end_turn < last_turn),
        best=best,
        best_throw=best_throw,
        order=order,
    )


@dataclass(frozen=True, eq=False)
class RankedTally:
    """Sums over many ranked sessions (integers; merge in any order)."""

    players: int
    throws: Distribution
    ended: Array
    """Sessions per :data:`RANKED_ENDINGS`."""
    prizes: Array
    """Shape (seats, lines): how often each seat won a prize of each line."""
    first: Array
    """How often each seat ranked first."""
    place_hand: Array
    """Shape (places, hands + 1): the hand of the best throw at each place (last: none)."""

    @property
    def games(self) -> int:
        """How many sessions."""
        return self.throws.total

    def merged(self, other: RankedTally) -> RankedTally:
        """Both tallies together."""
        return RankedTally(
            self.players,
            self.throws.merged(other.throws),
            self.ended + other.ended,
            self.prizes + other.prizes,
            self.first + other.first,
            self.place_hand + other.place_hand,
        )

    @staticmethod
    def of_chunk(spec: RankedSpec, out: RankedChunk) -> RankedTally:
        """The tally of one chunk."""
        p = spec.players
        n = out.throws.size
        prizes = np.zeros((p, spec.lines), np.int64)
        place_hand = np.zeros((p, NO_THROW + 1), np.int64)
        columns = np.arange(n)
        for place in range(p):
            seat = out.order[place]
            line = int(spec.line_of_place[place])
            if line >= 0:
                prizes[:, line] += np.bincount(seat, minlength=p)
            hand = spec.hand_of_code[out.best[seat, columns]]
            place_hand[place] += np.bincount(hand, minlength=NO_THROW + 1)
        ended = np.array([n - int(out.closed.sum()), int(out.closed.sum())], np.int64)
        return RankedTally(
            p,
            Distribution.of(out.throws),
            ended,
            prizes,
            np.bincount(out.order[0], minlength=p).astype(np.int64),
            place_hand,
        )


@dataclass(frozen=True, eq=False)
class RankedResult:
    """What ``bobing simulate`` reports for ranked prizes."""

    rules: RuleSet
    players: int
    games: int
    seed: int
    tiaohou: float
    tally: RankedTally
    bell: Bell | None = None
    workers: int = field(default=1, compare=False)
    start: str = "first"
    """``first``: seats from the starter; ``dice``: listed players, the first throwing the
    two start dice."""

    def _by_seat(self, per_seat: Array) -> Array:
        """Per seat from the starter, or mixed per listed player with the two-dice start."""
        if self.start == "dice":
            mixed: Array = listed_seat_weights(self.rules, self.players) @ per_seat
            return mixed
        return per_seat

    @property
    def first(self) -> Array:
        """Each seat's chance of ranking first."""
        return self._by_seat(self.tally.first / self.games)

    @property
    def throws(self) -> Distribution:
        """Throws per session (a 跳猴 is a throw, a skipped turn is not)."""
        return self.tally.throws

    @property
    def ended_by(self) -> dict[str, float]:
        """Share of sessions ended by their rounds and by the bell."""
        return {
            reason: float(self.tally.ended[i]) / self.games
            for i, reason in enumerate(RANKED_ENDINGS)
        }

    @property
    def prizes(self) -> tuple[RankedPrize, ...]:
        """The prize list, best first."""
        return self.rules.ranked_prizes or ()

    def prize_chances(self) -> Array:
        """Shape (seats, lines): each seat's chance of winning a prize of each line."""
        return self._by_seat(self.tally.prizes / self.games)

    def expected_value(self) -> list[float] | None:
        """Each seat's expected prize value (None when the list has no values)."""
        values = [prize.value for prize in self.prizes]
        if all(v is None for v in values):
            return None
        worth = np.array([float(v or 0) for v in values])
        return [float(x) for x in self.prize_chances() @ worth]

    def hands_at(self, place: int) -> dict[str | None, float]:
        """The distribution of the hand of the best throw at ``place`` (0 = the winner's)."""
        counts = self.tally.place_hand[place]
        return {HAND_IDS[h]: float(counts[h]) / self.games for h in range(len(counts)) if counts[h]}

    def hands_by_prize(self) -> list[dict[str | None, float]]:
        """Per prize line, the distribution of the hands that won it (each unit counted)."""
        out: list[dict[str | None, float]] = []
        places = self.tally.place_hand
        line_of_place = lines_by_place(self.prizes, self.players)
        for line in range(len(self.prizes)):
            counts = places[line_of_place == line].sum(axis=0)
            total = counts.sum()
            out.append(
                {HAND_IDS[h]: float(counts[h]) / total for h in range(len(counts)) if counts[h]}
                if total
                else {}
            )
        return out

    def to_json(self) -> dict[str, Any]:
        """The ``bobing simulate --json`` object for a ranked session."""
        chances = self.prize_chances()
        value = self.expected_value()
        seats = []
        for seat in range(self.players):
            row = chances[seat]
            entry: dict[str, Any] = {
                "seat": seat + 1,
                "prizes": [round(float(x), 6) for x in row],
                "no_prize": round(max(0.0, 1.0 - float(row.sum())), 6),
                "first": round(float(self.first[seat]), 6),
            }
            if value is not None:
                entry["expected_value"] = round(value[seat], 4)
            seats.append(entry)
        rounded = [{str(k): round(v, 6) for k, v in dist.items()} for dist in self.hands_by_prize()]
        return {
            "award": "ranked",
            "games": self.games,
            "players": self.players,
            "rules": self.rules.overrides(),
            "seed": self.seed,
            "tiaohou": self.tiaohou,
            "start": self.start,
            "bell": self.bell.to_json() if self.bell is not None else None,
            "throws": self.throws.summary(),
            "ended_by": {k: round(v, 6) for k, v in self.ended_by.items()},
            "prizes": [prize.to_json() for prize in self.prizes],
            "seats": seats,
            "winning_hand": {str(k): round(v, 6) for k, v in self.hands_at(0).items()},
            "hands_by_prize": rounded,
        }


def simulate_ranked(
    rules: RuleSet,
    players: int,
    games: int,
    *,
    seed: int | None = None,
    tiaohou: float = 0.0,
    bell: Bell | None = None,
    chunk_size: int | None = None,
    start: str = "first",
) -> RankedResult:
    """Play ``games`` ranked sessions of ``players`` (seat 1 starts) and tally them.

    Sessions are short (``rounds`` × players turns), so they run in this process; the same
    ``seed`` gives the same result.
    """
    check_players(players)
    check_tiaohou(tiaohou)
    check_start(start)
    if games < 1:
        raise InputError(f"invalid number of games {games}: at least 1", value=games)
    spec = ranked_spec(rules, players, tiaohou, close_after=bell.throws if bell else 0)
    root = np.random.SeedSequence(seed)
    entropy = root.entropy
    assert isinstance(entropy, int)
    chunk = chunk_size or _CHUNK
    sizes = [chunk] * (games // chunk) + ([games % chunk] if games % chunk else [])
    tally: RankedTally | None = None
    for size, child in zip(sizes, root.spawn(len(sizes)), strict=True):
        part = RankedTally.of_chunk(spec, run_ranked(spec, size, child))
        tally = part if tally is None else tally.merged(part)
    assert tally is not None
    return RankedResult(rules, players, games, entropy, tiaohou, tally, bell, start=start)


@dataclass(frozen=True)
class RankedTrace:
    """How one ranked session went: per place the seat, its best throw's hand and number."""

    throws: int
    turns: int
    ended_by: str
    ranking: tuple[tuple[int, str | None, int | None, str | None], ...]
    """(seat, hand id or None, throw number or None, prize name or None) by place."""


def play_given_ranked(
    rules: RuleSet, players: int, throws: Sequence[Sequence[int]], *, close_after: int = 0
) -> list[RankedTrace]:
    """Play each session of ``throws`` (throw indices, :data:`JUMP` for 跳猴)."""
    width = max(len(row) for row in throws)
    given = np.zeros((len(throws), width), np.int64)
    for i, row in enumerate(throws):
        given[i, : len(row)] = row
    jumps = bool((given == JUMP).any())
    spec = ranked_spec(rules, players, close_after=close_after, given_jumps=jumps)
    out = run_ranked(spec, len(throws), 0, given)
    units = prize_units(rules.ranked_prizes)
    traces = []
    for g in range(len(throws)):
        ranking = []
        for place in range(players):
            seat = int(out.order[place, g])
            code = int(out.best[seat, g])
            hand = HAND_IDS[int(spec.hand_of_code[code])] if code else None
            number = int(out.best_throw[seat, g]) if code else None
            prize = units[place].name if place < len(units) else None
            ranking.append((seat, hand, number, prize))
        traces.append(
            RankedTrace(
                throws=int(out.throws[g]),
                turns=int(out.turns[g]),
                ended_by="closed" if out.closed[g] else "rounds",
                ranking=tuple(ranking),
            )
        )
    return traces


__all__ = [
    "HAND_IDS",
    "RANKED_ENDINGS",
    "RankedResult",
    "RankedSpec",
    "RankedTally",
    "RankedTrace",
    "play_given_ranked",
    "rank_table",
    "ranked_spec",
    "run_ranked",
    "simulate_ranked",
]
