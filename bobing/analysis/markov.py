"""Exact expectations of a whole game by a Markov chain over pool states.

The state before a turn is (cakes left per non-状元 tier, whether any 状元 standing exists,
the seat whose turn it is). Holdings and the standings themselves do not change how long a
game lasts, so they are left out; 追 moves cakes between players and never touches the pool.
The traditional set has 3·5·9·17·33 = 75 735 pool states, times 2 × the seats.

A throw either ends the game at once (六勃红/六勃黑/遍地锦 per the rules), or moves to a state
with fewer cakes or with a standing, or leaves the state as it is (the next seat throws). Once
every non-状元 cake is claimed and a standing exists, what is left is a fixed window of turns
(RULES.md §4 step 7: the rest of the round, one more round, or none; a 状元 that only comes
after the pool ran out finishes its round), cut short only by another ending throw, which is
summed in closed form. States are solved from the empty pool upwards; the turns of one state
at the different seats form a cycle, solved exactly per state.

The chain covers every switch except 跳猴 under ``tiaohou`` = ``void_skip_next`` (the skip
flags of every seat would multiply the states by 2**players): with ``tiaohou`` probability
0 it does not matter, and under ``void`` a 跳猴 is simply a throw that changes nothing.
The switches of RULES.md §9 are covered exactly too: none of them changes the pool's path or
which throws end a game (a 六勃红 under a higher 插金花, §9.2, still ends it; ``chase.until``
moves cakes between players only; ``liubohong_duitang``, ``zhuangyuan_cake`` and ``money``
act once the game is over).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.analysis.limits import check_players, check_tiaohou
from bobing.analysis.outcomes import EFFECT_REASON, GAME_ENDINGS, Effect, outcome_classes
from bobing.engine.errors import InputError
from bobing.engine.rules import Award, End, RuleSet, Tiaohou

Array = NDArray[Any]

MAX_CELLS = 3_000_000
"""Pool states × seats beyond which the chain is refused (memory: 96 bytes per cell)."""

# Reward channels.
_THROWS, _ROUNDS = 0, 1
_ENDED = {1: 2, 2: 3, 3: 4}  # GAME_ENDINGS index → channel
_EXHAUSTED_FIRST = 5
_CHANNELS = 6


@dataclass(frozen=True)
class GameLength:
    """Exact expectations for one game at a table of ``players`` (seat 1 starts)."""

    players: int
    throws_mean: float
    """Expected throws (a 跳猴 is a throw)."""
    rounds_mean: float
    """Expected rounds begun."""
    ended_by: dict[str, float]
    """Probability of each way of ending (RULES.md §7 ids)."""
    exhausted_before_zhuangyuan: float
    """Probability that every non-状元 cake is gone before anyone has a 状元 hand."""
    states: int
    """Pool states in the chain."""

    def to_json(self) -> dict[str, Any]:
        """``{"throws_mean", "rounds_mean", "ended_by", "exhausted_before_zhuangyuan", ...}``."""
        return {
            "players": self.players,
            "throws_mean": self.throws_mean,
            "rounds_mean": self.rounds_mean,
            "ended_by": dict(self.ended_by),
            "exhausted_before_zhuangyuan": self.exhausted_before_zhuangyuan,
            "states": self.states,
        }


@dataclass(frozen=True)
class _Move:
    """Throw outcomes that act alike on the chain, with their total probability."""

    prob: float
    tier: int  # 1..5, or 6
    bonus: int  # 1..5, or 6
    zhuangyuan: bool
    chajinhua: bool
    ending: int  # GAME_ENDINGS index, 0 = does not end the game
    take_one: bool = False  # 六勃黑 take_one: one cake of the best tier left


def _moves(rules: RuleSet, tiaohou: float) -> list[_Move]:
    classes, _ = outcome_classes(rules)
    grouped: dict[tuple[int, int, bool, bool, int, bool], float] = defaultdict(float)
    for oc in classes:
        ending = EFFECT_REASON.get(oc.effect, 0)
        key = (oc.tier, oc.bonus, oc.key > 0, oc.chajinhua_duitang, ending,
               oc.effect is Effect.TAKE_ONE)  # fmt: skip
        grouped[key] += (1.0 - tiaohou) * oc.count / 6**6
    if tiaohou > 0:
        grouped[(6, 6, False, False, 0, False)] += tiaohou
    return [_Move(p, *key) for key, p in grouped.items() if p > 0]


def _window_rewards(n: int, start: int, turns: int, q: float, q_by: dict[int, float]) -> Array:
    """Rewards of ``turns`` more turns from seat ``start``, each ending the game w.p. ``q``."""
    out = np.zeros(_CHANNELS)
    alive = 1.0
    for i in range(turns):
        out[_THROWS] += alive
        if (start + i) % n == 0:
            out[_ROUNDS] += alive
        for reason, share in q_by.items():
            out[_ENDED[reason]] += alive * share
        alive *= 1.0 - q
    return out


def _final_windows(n: int, end: End, q: float, q_by: dict[int, float]) -> tuple[Array, Array]:
    """Rewards of the final phase opened by a throw at seat ``k``, shape (channels, n) each:
    under ``end``, and when it only finishes the round (a 状元 after the pool ran out)."""
    finish = np.stack(
        [_window_rewards(n, (k + 1) % n, n - 1 - k, q, q_by) for k in range(n)], axis=1
    )
    if end is End.FINISH_ROUND:
        return finish, finish
    if end is End.IMMEDIATE:
        return np.zeros((_CHANNELS, n)), finish
    more = np.stack(
        [_window_rewards(n, (k + 1) % n, 2 * n - 1 - k, q, q_by) for k in range(n)], axis=1
    )
    return more, finish


def expected_game_length(rules: RuleSet, players: int, *, tiaohou: float = 0.0) -> GameLength:
    """Exact expected throws and rounds of a game (seat 1 starts), and how it ends.

    ``tiaohou`` is the probability that a throw is a 跳猴. Raises :class:`InputError` for
    ``tiaohou`` > 0 under ``void_skip_next``, and for prize counts too large to enumerate.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> round(expected_game_length(TRADITIONAL, 10).throws_mean, 1)
    228.1
    """
    check_players(players)
    check_tiaohou(tiaohou)
    if rules.award is Award.RANKED:
        raise InputError(
            "no exact game length for ranked prizes: a session lasts its rounds (or until time"
            " is called), not until the cakes are gone",
            code="ranked_no_exact",
            value=str(rules.award),
        )
    if tiaohou > 0 and rules.tiaohou is Tiaohou.VOID_SKIP_NEXT:
        raise InputError(
            "no exact game length with 跳猴 under tiaohou=void_skip_next (every seat's skip flag"
            " would be part of the state); simulate instead, or use tiaohou=void",
            value=tiaohou,
        )
    n = players
    radix = np.array([c + 1 for c in rules.prizes[1:]], np.int64)
    states = int(np.prod(radix))
    if states * n > MAX_CELLS:
        raise InputError(
            f"the prize counts {list(rules.prizes)} make {states} pool states: too many for"
            " the exact chain; simulate instead",
            value=list(rules.prizes),
        )
    stride = np.ones(5, np.int64)
    for i in range(3, -1, -1):
        stride[i] = stride[i + 1] * radix[i + 1]
    digits = np.stack(np.unravel_index(np.arange(states), tuple(radix)), axis=1).astype(np.int64)
    level = digits.sum(axis=1)
    moves = _moves(rules, tiaohou)

    q_by: dict[int, float] = defaultdict(float)
    for move in moves:
        if move.ending:
            q_by[move.ending] += move.prob
    q = sum(q_by.values())
    per_rule, finish_round = _final_windows(n, rules.end, q, q_by)

    value = np.zeros((_CHANNELS, 2, states, n))
    base = np.zeros((_CHANNELS, n))
    base[_THROWS, :] = 1.0
    base[_ROUNDS, 0] = 1.0
    after = (np.arange(n) + 1) % n  # the next seat
    terminal = {reason: np.eye(_CHANNELS)[_ENDED[reason]] for reason in q_by}

    for lv in range(int(level.max()) + 1):
        idx = np.flatnonzero(level == lv)
        c = digits[idx]
        for z in (1, 0):
            if lv == 0 and z == 1:
                # Every cake claimed and a standing: not a state of the chain. The throw that
                # gets there opens the final window instead (summed in closed form above), so
                # nothing ever moves into it; and with no throw that ends the game it would be
                # a state that is never left (its cycle solve would divide by zero).
                continue
            m = idx.size
            acc = np.broadcast_to(base, (m, _CHANNELS, n)).transpose(1, 0, 2).copy()
            stay = np.zeros(m)
            for move in moves:
                if move.ending:
                    acc += move.prob * terminal[move.ending][:, None, None]
                    continue
                nxt = idx.copy()
                if move.tier < 6:
                    nxt -= stride[move.tier - 1] * (c[:, move.tier - 1] > 0)
                if move.bonus < 6:
                    nxt -= stride[move.bonus - 1] * (c[:, move.bonus - 1] > 0)
                if move.take_one:
                    # The first tier (对堂 … 一秀) that still has a cake, if any.
                    has = c > 0
                    first = np.where(has.any(axis=1), has.argmax(axis=1), -1)
                    nxt -= np.where(first >= 0, stride[np.maximum(first, 0)], 0)
                if move.chajinhua:
                    nxt -= stride[0] * np.minimum(c[:, 0], 2)
                z_next = 1 if (z or move.zhuangyuan) else 0
                same = (nxt == idx) & (z_next == z)
                stay += move.prob * same
                moved = ~same
                if not moved.any():
                    continue
                final = moved & (nxt == 0) & (z_next == 1)
                cont = moved & ~final
                if final.any():
                    window = np.where(idx[final] == 0, 0, 1)  # exhausted before this throw?
                    rewards = np.where(
                        window[None, :, None] == 1, per_rule[:, None, :], finish_round[:, None, :]
                    )
                    acc[:, final, :] += move.prob * rewards
                if cont.any():
                    ahead = value[:, z_next, nxt[cont]][:, :, after]
                    acc[:, cont, :] += move.prob * ahead
                    if z_next == 0:
                        first = (nxt[cont] == 0) & (idx[cont] != 0)
                        acc[_EXHAUSTED_FIRST, np.flatnonzero(cont)[first], :] += move.prob
            # Solve v_k = acc_k + stay * v_{k+1} around the cycle of seats.
            power = np.ones(m)
            total = np.zeros((_CHANNELS, m))
            for k in range(n):
                total += power * acc[:, :, k]
                power = power * stay
            v = np.empty((_CHANNELS, m, n))
            v[:, :, 0] = total / (1.0 - power)
            for k in range(n - 1, 0, -1):
                nxt_k = (k + 1) % n
                v[:, :, k] = acc[:, :, k] + stay * v[:, :, nxt_k]
            value[:, z, idx, :] = v

    start = value[:, 0, int((digits[-1] * stride).sum()), 0]
    ended = dict.fromkeys(GAME_ENDINGS, 0.0)
    for reason, channel in _ENDED.items():
        ended[GAME_ENDINGS[reason]] = float(start[channel])
    ended["exhausted"] = 1.0 - sum(ended[r] for r in GAME_ENDINGS[1:])
    return GameLength(
        players=n,
        throws_mean=float(start[_THROWS]),
        rounds_mean=float(start[_ROUNDS]),
        ended_by=ended,
        exhausted_before_zhuangyuan=float(start[_EXHAUSTED_FIRST]),
        states=states,
    )


def exact_or_none(rules: RuleSet, players: int, *, tiaohou: float = 0.0) -> GameLength | None:
    """:func:`expected_game_length`, or None where the chain does not apply."""
    try:
        return expected_game_length(rules, players, tiaohou=tiaohou)
    except InputError:
        return None


__all__ = ["GameLength", "exact_or_none", "expected_game_length"]
