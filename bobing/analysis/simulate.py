"""Whole games, many at once: a NumPy kernel over games, and a plain per-game reference.

Both follow RULES.md §4 under every switch of §5. The kernel advances a chunk of games in
lockstep, one turn per step (all games of a chunk are at the same seat on the same step), and
treats the few throws that need more than "take one cake of a tier" (状元 hands, 插金花's 对堂,
四进's bonus, 追, the 六勃 and 遍地锦 endings) on the small subset of games that threw them.
Chunks are independent: each gets its own seed from ``numpy.random.SeedSequence.spawn``, so the
result depends on the seed and the number of games only, never on the number of worker
processes.

:func:`play_reference` is a straightforward one-game-at-a-time implementation of the same
rules in pure Python. It is the baseline of ``benchmarks/bench_simulate.py``, and the tests
play identical throws through it, through the kernel (:func:`play_given`) and through the game
engine, and require identical outcomes.

Seats are numbered in play order from the starter (seat 0 here, seat 1 in reports), so the
play direction never matters: 追's "backwards" is simply towards lower seat numbers.
"""

from __future__ import annotations

import math
import os
import random
import sys
import threading
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache
from multiprocessing import get_all_start_methods, get_context
from multiprocessing.context import BaseContext
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from bobing.engine.errors import InputError
from bobing.engine.hands import ORDERED_THROWS, ORDINARY_HAND_TIER, TIERS, Hand, Tier
from bobing.engine.rules import (
    BiandijinEffect,
    ChajinhuaDuitang,
    ChajinhuaLugu,
    ChaseFrom,
    End,
    LiuboheiEffect,
    LiubohongEffect,
    RuleSet,
    Standing,
    Tiaohou,
)

if TYPE_CHECKING:
    from bobing.analysis.markov import GameLength

Array = NDArray[Any]

OUTCOMES = 6**6
"""Ordered throws of six dice; a throw is drawn as an index into :data:`ORDERED_THROWS`."""
JUMP = OUTCOMES
"""The throw index that stands for 跳猴 in given throw sequences."""
MIN_PLAYERS = 2
MAX_PLAYERS = 30
"""The analysis accepts larger tables than the engine's 12 seats: events do seat 13."""
REASONS: tuple[str, ...] = ("exhausted", "liubohong", "liubohei", "biandijin")
"""``ended_by`` ids of RULES.md §7, indexed by the kernel's reason codes."""

_NO_TIER = 6  # a dummy seventh pool column that is always empty
_NONE_CODE = _NO_TIER
_BIG = np.iinfo(np.int32).max
_MAX_TURNS = 1_000_000
_DEFAULT_CHUNK = 1 << 17


class Effect(IntEnum):
    """What a throw does beyond taking cakes and setting a standing."""

    NONE = 0
    SWEEP_ALL = 1  # 六勃红 take_all_end
    TAKE_REST = 2  # 六勃红 take_remaining_end (also a 状元 hand)
    GRAB = 3  # 六勃黑 grab_end
    END_SHARE = 4  # 六勃黑 zhuangyuan_end_share (also a 状元 hand)
    BIANDIJIN = 5  # 遍地锦 take_remaining_end


_EFFECT_REASON = {
    Effect.SWEEP_ALL: 1,
    Effect.TAKE_REST: 1,
    Effect.GRAB: 2,
    Effect.END_SHARE: 2,
    Effect.BIANDIJIN: 3,
}


# -- outcome classes --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class OutcomeClass:
    """Throws that act alike under a rule set (same tiers, same 状元 key, same effect)."""

    tier: int
    """TIERS index of the ordinary tier won (1..5), or 6 for none."""
    bonus: int
    """TIERS index of 四进's bonus tier, or 6."""
    key: int
    """The 状元 key as one integer (larger is better), 0 when not a 状元 hand."""
    effect: Effect
    chajinhua_duitang: bool
    """插金花 taking up to two 对堂 cakes at once."""
    count: int = 0
    """Ordered throws (out of 46656) in this class."""

    @property
    def rare(self) -> bool:
        """Whether the kernel handles this class outside the plain "take one cake" path."""
        return bool(self.key or self.effect or self.bonus != _NO_TIER or self.chajinhua_duitang)


def encode_key(key: tuple[int, int, int]) -> int:
    """One integer ordering 状元 keys like the tuples of :meth:`RuleSet.zhuangyuan_key`.

    >>> encode_key((5, 12, 0)) > encode_key((5, 11, 6)) > encode_key((4, 12, 12))
    True
    """
    level, a, b = key
    return (level << 8) | (a << 4) | b


@lru_cache(maxsize=1)
def _multiset_inverse() -> tuple[Array, list[tuple[int, ...]]]:
    """For every ordered throw index, the index of its multiset in a list of the 462."""
    u = np.arange(OUTCOMES)
    digits = np.stack([(u // 6 ** (5 - i)) % 6 + 1 for i in range(6)], axis=1)
    digits.sort(axis=1)
    enc = digits @ (7 ** np.arange(5, -1, -1))
    _, first, inverse = np.unique(enc, return_index=True, return_inverse=True)
    multisets = [tuple(int(x) for x in digits[i]) for i in first]
    return inverse.astype(np.int64), multisets


def _outcome_class(rules: RuleSet, dice: tuple[int, ...]) -> OutcomeClass:
    c = rules.classifier(dice)
    hand = c.hand
    key = encode_key(rules.zhuangyuan_key(c)) if rules.is_zhuangyuan_hand(hand) else 0
    effect = Effect.NONE
    tier = _NO_TIER
    bonus = _NO_TIER
    chj = False
    if hand is Hand.LIUBOHONG:
        if rules.liubohong is LiubohongEffect.TAKE_ALL_END:
            effect, key = Effect.SWEEP_ALL, 0
        elif rules.liubohong is LiubohongEffect.TAKE_REMAINING_END:
            effect = Effect.TAKE_REST
    elif hand is Hand.BIANDIJIN:
        if rules.biandijin is BiandijinEffect.TAKE_REMAINING_END:
            effect, key = Effect.BIANDIJIN, 0
    elif hand is Hand.LIUBOHEI:
        if rules.liubohei is LiuboheiEffect.GRAB_END:
            effect, key = Effect.GRAB, 0
        elif rules.liubohei is LiuboheiEffect.ZHUANGYUAN_END_SHARE:
            effect = Effect.END_SHARE
        elif rules.liubohei is LiuboheiEffect.IGNORE:
            key = 0
    elif hand is Hand.CHAJINHUA:
        chj = rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
    elif hand in ORDINARY_HAND_TIER:
        tier = TIERS.index(ORDINARY_HAND_TIER[hand])
        if c.bonus:
            bonus = TIERS.index(c.bonus[0])
    return OutcomeClass(tier, bonus, key, effect, chj)


@lru_cache(maxsize=64)
def outcome_classes(rules: RuleSet) -> tuple[tuple[OutcomeClass, ...], Array]:
    """The distinct outcome classes under ``rules`` (with throw counts) and, for each of the
    46656 ordered throws, the index of its class."""
    inverse, multisets = _multiset_inverse()
    classes: dict[OutcomeClass, int] = {}
    per_multiset = np.empty(len(multisets), np.int64)
    for i, ms in enumerate(multisets):
        oc = _outcome_class(rules, ms)
        per_multiset[i] = classes.setdefault(oc, len(classes))
    index = per_multiset[inverse]
    counts = np.bincount(index, minlength=len(classes))
    with_counts = tuple(
        OutcomeClass(oc.tier, oc.bonus, oc.key, oc.effect, oc.chajinhua_duitang, int(counts[i]))
        for oc, i in classes.items()
    )
    return with_counts, index


# -- the compiled form the kernel uses --------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KernelSpec:
    """Everything the kernel needs, as plain numbers and small arrays (pickled to workers)."""

    players: int
    prizes: tuple[int, ...]
    table: Array
    """Throw index (0..46656, the last being 跳猴) → code; ``code & 7`` is the ordinary tier,
    codes ≥ 8 are rare and ``(code >> 3) - 1`` indexes the ``rare_*`` arrays."""
    rare_bonus: Array
    rare_key: Array
    rare_effect: Array
    rare_chj: Array
    chj_level: int
    exempt: bool
    best: bool
    chase_mask: Array
    chase_latest: bool
    slot_offset: tuple[int, ...]
    slots: int
    end_rounds: int
    """0: immediate, 1: finish_round, 2: one_more_round."""
    skip_on_jump: bool
    tiaohou: float

    @property
    def chase_on(self) -> bool:
        """Whether 追 is on for some tier."""
        return bool(self.chase_mask.any())


def kernel_spec(
    rules: RuleSet, players: int, tiaohou: float = 0.0, *, given_jumps: bool = False
) -> KernelSpec:
    """Compile ``rules`` for the kernel (``given_jumps``: given throws may contain 跳猴)."""
    classes, index = outcome_classes(rules)
    codes = np.empty(len(classes), np.uint16)
    rare: list[OutcomeClass] = []
    for i, oc in enumerate(classes):
        if oc.rare:
            rare.append(oc)
            codes[i] = 8 * len(rare) + oc.tier
        else:
            codes[i] = oc.tier
    table = np.empty(OUTCOMES + 1, np.uint16)
    table[:OUTCOMES] = codes[index]
    table[JUMP] = _NONE_CODE
    order = rules.zhuangyuan_order
    chj_level = len(order) - order.index(Hand.CHAJINHUA) if Hand.CHAJINHUA in order else -1
    chase_mask = np.zeros(_NO_TIER + 1, bool)
    offsets = [0] * 6
    slots = 0
    if rules.chase is not None:
        for tier in rules.chase.tiers:
            chase_mask[TIERS.index(tier)] = True
        for i in range(1, 6):
            if chase_mask[i]:
                offsets[i] = slots
                slots += rules.prizes[i]
    end_rounds = {End.IMMEDIATE: 0, End.FINISH_ROUND: 1, End.ONE_MORE_ROUND: 2}[rules.end]
    return KernelSpec(
        players=players,
        prizes=tuple(rules.prizes),
        table=table,
        rare_bonus=np.array([oc.bonus for oc in rare], np.int64),
        rare_key=np.array([oc.key for oc in rare], np.int32),
        rare_effect=np.array([int(oc.effect) for oc in rare], np.int64),
        rare_chj=np.array([oc.chajinhua_duitang for oc in rare], bool),
        chj_level=chj_level,
        exempt=rules.chajinhua_lugu is ChajinhuaLugu.EXEMPT,
        best=rules.standing is Standing.BEST,
        chase_mask=chase_mask,
        chase_latest=rules.chase is not None and rules.chase.source is ChaseFrom.LATEST,
        slot_offset=tuple(offsets),
        slots=slots,
        end_rounds=end_rounds,
        skip_on_jump=rules.tiaohou is Tiaohou.VOID_SKIP_NEXT and (tiaohou > 0 or given_jumps),
        tiaohou=tiaohou,
    )


# -- the kernel -------------------------------------------------------------------------------


@dataclass(eq=False)
class ChunkOutcome:
    """Per-game results of one chunk (``holdings`` and ``grabbed`` only when asked for)."""

    throws: Array
    turns: Array
    reason: Array
    winner: Array
    """The seat holding the 状元 cake (only with ``detail``; -1 otherwise)."""
    exhausted_first: Array
    seat_tier: Array
    """Cakes per seat and tier, summed over the chunk's games: shape (players, 6)."""
    holdings: Array | None = None
    """Final holdings per game, seat and tier: shape (games, players, 6)."""
    grabbed: Array | None = None
    """The part of ``holdings`` that came from the lights-off grab."""


class _Chunk:
    """The state of the games of one chunk that are still being played.

    The game index is the last axis of every array, so that the current seat's holdings
    (``hold[seat]``, shape (7, games)) are one contiguous block, and the cake taken by game
    ``g`` of tier ``k`` sits at the same flat index ``k * games + g`` in ``pool`` and in
    ``hold[seat]``.
    """

    _PER_GAME = (
        "gid",
        "pool",
        "hold",
        "has_zy",
        "skey",
        "stime",
        "end_turn",
        "mode",
        "reason",
        "skipped",
        "exh",
        "live",
        "skip",
        "slot_holder",
        "slot_time",
        "slot_prot",
    )

    def __init__(self, spec: KernelSpec, n: int) -> None:
        p = spec.players
        self.spec = spec
        self.gid: Array = np.arange(n, dtype=np.int64)
        self.pool: Array = np.zeros((7, n), np.int16)
        self.pool[:6] = np.asarray(spec.prizes, np.int16)[:, None]
        self.hold: Array = np.zeros((p, 7, n), np.int16)
        self.has_zy: Array = np.zeros(n, bool)
        self.skey: Array = np.zeros((p, n), np.int32)
        self.stime: Array = np.zeros((p, n), np.int32)
        self.end_turn: Array = np.full(n, _BIG, np.int32)
        self.mode: Array = np.zeros(n, np.int8)  # 0: resolve standings, 1: decided, 2: grab
        self.reason: Array = np.zeros(n, np.int8)
        self.skipped: Array = np.zeros(n, np.int32)  # turns lost to 跳猴; throws = turns - this
        self.exh: Array = np.zeros(n, bool)
        self.live: Array = np.ones(n, bool)
        self.skip: Array | None = np.zeros((p, n), bool) if spec.skip_on_jump else None
        k = spec.slots
        self.slot_holder: Array | None = np.full((k, n), -1, np.int8) if k else None
        self.slot_time: Array | None = np.zeros((k, n), np.int32) if k else None
        self.slot_prot: Array | None = np.zeros((k, n), bool) if k else None
        self.dead = 0
        self._index()

    def _index(self) -> None:
        self.size = len(self.gid)
        self.games: Array = np.arange(self.size, dtype=np.int64)
        # Throw index → start of its tier's row in ``pool`` (row 6, always empty, for none).
        self.row_of: Array = (self.spec.table & 7).astype(np.int64) * self.size

    def left(self, g: Array) -> Array:
        """Non-状元 cakes still unclaimed in games ``g``."""
        left: Array = self.pool[1:6, g].sum(axis=0)
        return left

    def compress(self) -> None:
        """Drop finished games."""
        keep = np.flatnonzero(self.live)
        for name in self._PER_GAME:
            value = getattr(self, name)
            if value is not None:
                setattr(self, name, value.take(keep, axis=-1))
        self.dead = 0
        self._index()


def run_chunk(
    spec: KernelSpec,
    n: int,
    seed: np.random.SeedSequence | int | None,
    *,
    given: Array | None = None,
    detail: bool = False,
) -> ChunkOutcome:
    """Play ``n`` games to the end (``given``: a (games, max throws) array of throw indices)."""
    return _Kernel(spec, n, seed, given, detail).run()


class _Kernel:
    def __init__(
        self,
        spec: KernelSpec,
        n: int,
        seed: np.random.SeedSequence | int | None,
        given: Array | None,
        detail: bool,
    ) -> None:
        self.spec = spec
        self.n = n
        self.rng = np.random.Generator(np.random.PCG64(seed))
        self.given = given
        self.st = _Chunk(spec, n)
        p = spec.players
        self.out = ChunkOutcome(
            throws=np.zeros(n, np.int32),
            turns=np.zeros(n, np.int32),
            reason=np.zeros(n, np.int8),
            winner=np.full(n, -1, np.int8),
            exhausted_first=np.zeros(n, bool),
            seat_tier=np.zeros((p, 6), np.int64),
            holdings=np.zeros((n, p, 6), np.int16) if detail else None,
            grabbed=np.zeros((n, p, 6), np.int16) if detail else None,
        )
        self.next_end = _BIG
        self.prizes = np.asarray(spec.prizes, np.int64)
        self.offsets = np.asarray(spec.slot_offset, np.int64)

    # The step ------------------------------------------------------------------------------

    def run(self) -> ChunkOutcome:
        spec, st = self.spec, self.st
        p = spec.players
        t = 0
        while st.dead < st.size:
            if t >= _MAX_TURNS:  # pragma: no cover - needs absurd prize counts
                raise InputError(f"a simulated game ran past {_MAX_TURNS} turns")
            s = t % p
            a = st.size
            # Who throws: a skipped turn (跳猴 earlier) and finished games do not.
            idle: Array | None = None
            if st.skip is not None:
                skipped = st.skip[s].copy()
                if skipped.any():
                    st.skip[s] = False
                    st.skipped += skipped
                    idle = skipped
            if st.dead:
                idle = ~st.live if idle is None else idle | ~st.live
            jump: Array | None = None
            if self.given is None:
                u: Array = self.rng.integers(0, OUTCOMES, size=a, dtype=np.uint32)
                if spec.tiaohou > 0:
                    jump = self.rng.random(a) < spec.tiaohou
                    u[jump] = JUMP
            else:
                width = self.given.shape[1]
                thrown = t - st.skipped
                over = thrown >= width
                if idle is not None:
                    over &= ~idle
                if over.any():
                    raise InputError(f"given throws ran out after {width} throws")
                u = self.given[st.gid, np.minimum(thrown, width - 1)]
                jump = u == JUMP
            if idle is not None:
                u[idle] = JUMP  # nothing happens: the table maps it to no tier
                if jump is not None:
                    jump &= ~idle
            if st.skip is not None and jump is not None:
                st.skip[s, jump] = True
            # The common case: an ordinary tier takes one cake if one is left. Game g's cake
            # of tier k is at k * a + g in both the pool and the thrower's holdings.
            code: Array = spec.table[u]
            flat = st.row_of[u] + st.games
            pool = st.pool.reshape(-1)
            avail = pool[flat] > 0
            took = np.flatnonzero(avail)
            emptied = took
            if took.size:
                cell = flat[took]
                pool[cell] -= 1
                st.hold[s].reshape(-1)[cell] += 1
                if st.slot_holder is not None:
                    tt = (code[took] & 7).astype(np.int64)
                    chased_tier = spec.chase_mask[tt]
                    if chased_tier.any():
                        self._record_slots(took[chased_tier], tt[chased_tier], s, t)
                emptied = took[pool[cell] == 0]
            if spec.chase_on:
                tier = code & 7
                missed = np.flatnonzero(~avail & spec.chase_mask[tier])
                if missed.size:
                    missed = missed[st.left(missed) > 0]
                    self._chase(missed, tier[missed].astype(np.int64), s, t)
            rare = np.flatnonzero(code >= 8)
            if rare.size:
                self._rare(rare, code[rare], s, t)
                emptied = np.concatenate([emptied, rare])
            if emptied.size:
                self._check_exhausted(emptied, s, t)
            if t >= self.next_end:
                self._finish(np.flatnonzero(st.end_turn == t), t)
                self.next_end = int(st.end_turn.min()) if st.size else _BIG
                if st.dead > max(64, st.size >> 3) and st.dead < st.size:
                    st.compress()
            t += 1
        return self.out

    # Pieces --------------------------------------------------------------------------------

    def _take_bonus(self, g: Array, tiers: Array, s: int, t: int) -> None:
        """Games ``g`` each win one cake of ``tiers`` (四进's bonus) if one is left; a bonus
        never chases (the engine's reading of RULES.md §4 step 6)."""
        st, spec = self.st, self.spec
        have = st.pool[tiers, g] > 0
        gi, ti = g[have], tiers[have]
        if gi.size:
            st.pool[ti, gi] -= 1
            st.hold[s, ti, gi] += 1
            if st.slot_holder is not None:
                chased_tier = spec.chase_mask[ti]
                if chased_tier.any():
                    self._record_slots(gi[chased_tier], ti[chased_tier], s, t)

    def _record_slots(self, g: Array, tiers: Array, s: int, t: int) -> None:
        """Note who took the cake of a chased tier just taken from the pool, and when."""
        st = self.st
        assert st.slot_holder is not None and st.slot_time is not None
        slot = self.offsets[tiers] + self.prizes[tiers] - st.pool[tiers, g] - 1
        st.slot_holder[slot, g] = s
        st.slot_time[slot, g] = t

    def _chase(self, g: Array, tiers: Array, s: int, t: int) -> None:
        """追: games ``g`` take a cake of ``tiers`` from another player (RULES.md §4 step 6)."""
        st, spec = self.st, self.spec
        assert st.slot_holder is not None and st.slot_time is not None
        assert st.slot_prot is not None
        p = spec.players
        for tier in np.unique(tiers):
            gt = g[tiers == tier]
            lo = spec.slot_offset[tier]
            hi = lo + spec.prizes[tier]
            if hi == lo or not gt.size:
                continue
            holder = st.slot_holder[lo:hi, gt].astype(np.int64)  # (slots, games)
            eligible = (holder >= 0) & (holder != s) & ~st.slot_prot[lo:hi, gt]
            if spec.chase_latest:
                score = np.where(eligible, st.slot_time[lo:hi, gt], -1)
                slot = score.argmax(axis=0)
            else:
                score = np.where(eligible, (s - holder) % p, p + 1)
                slot = score.argmin(axis=0)
            column = np.arange(gt.size)
            found = eligible[slot, column]
            gt, slot, column = gt[found], slot[found], column[found]
            if not gt.size:
                continue
            victim = holder[slot, column]
            st.hold[victim, tier, gt] -= 1
            st.hold[s, tier, gt] += 1
            st.slot_holder[lo + slot, gt] = s
            st.slot_time[lo + slot, gt] = t

    def _rare(self, g: Array, codes: Array, s: int, t: int) -> None:
        spec, st = self.spec, self.st
        j = (codes >> 3).astype(np.int64) - 1
        bonus = spec.rare_bonus[j]
        b = bonus != _NO_TIER
        if b.any():
            self._take_bonus(g[b], bonus[b], s, t)
        key = spec.rare_key[j]
        z = key > 0
        if z.any():
            gz, kz = g[z], key[z]
            current = st.skey[s, gz]
            update = np.ones(gz.size, bool)
            if spec.exempt and spec.chj_level > 0:
                update &= (current >> 8) != spec.chj_level
            if spec.best:
                update &= kz > current
            st.skey[s, gz[update]] = kz[update]
            st.stime[s, gz[update]] = t
            st.has_zy[gz] = True
        chj = spec.rare_chj[j]
        if chj.any():
            self._chajinhua(g[chj], s, t)
        effect = spec.rare_effect[j]
        e = effect > 0
        if e.any():
            self._effects(g[e], effect[e], s, t)

    def _chajinhua(self, g: Array, s: int, t: int) -> None:
        """插金花 takes min(2, 对堂 left) 对堂 cakes at once; 追 never takes them back."""
        st, spec = self.st, self.spec
        before = st.pool[1, g].astype(np.int64)
        k = np.minimum(before, 2)
        st.pool[1, g] -= k.astype(np.int16)
        st.hold[s, 1, g] += k.astype(np.int16)
        if st.slot_holder is not None and spec.chase_mask[1]:
            assert st.slot_time is not None and st.slot_prot is not None
            first = spec.slot_offset[1] + spec.prizes[1] - before
            for i in (0, 1):
                rows = k > i
                gi, slot = g[rows], first[rows] + i
                st.slot_holder[slot, gi] = s
                st.slot_time[slot, gi] = t
                st.slot_prot[slot, gi] = True

    def _effects(self, g: Array, effect: Array, s: int, t: int) -> None:
        st = self.st
        for value in np.unique(effect):
            kind = Effect(int(value))
            gg = g[effect == value]
            if kind is Effect.SWEEP_ALL:
                st.hold[:, :, gg] = 0
                st.hold[s, :6, gg] = self.prizes[None, :]
                st.pool[:, gg] = 0
                st.mode[gg] = 1
            elif kind is Effect.TAKE_REST:
                st.hold[s, 1:6, gg] += st.pool[1:6, gg].T
                st.pool[1:6, gg] = 0
                st.mode[gg] = 0
            elif kind is Effect.BIANDIJIN:
                st.hold[s, :6, gg] += st.pool[:6, gg].T
                st.pool[:, gg] = 0
                st.mode[gg] = 1
            elif kind is Effect.GRAB:
                st.mode[gg] = 2
            else:
                st.mode[gg] = 0
            st.reason[gg] = _EFFECT_REASON[kind]
            st.end_turn[gg] = t
            self.next_end = min(self.next_end, t)

    def _check_exhausted(self, g: Array, s: int, t: int) -> None:
        """RULES.md §4 step 7: every non-状元 cake claimed and a standing exists → final."""
        st, spec = self.st, self.spec
        g = g[st.end_turn[g] == _BIG]
        g = g[st.left(g) == 0]
        if not g.size:
            return
        zy = st.has_zy[g]
        final = g[zy]
        if final.size:
            # A 状元 that comes after the pool ran out only finishes its round, whatever
            # ``end`` says; otherwise ``end`` decides.
            p = spec.players
            round_end = t + p - 1 - s
            per_rule = t if spec.end_rounds == 0 else t + spec.end_rounds * p - 1 - s
            end = np.where(st.exh[final], round_end, per_rule)
            st.end_turn[final] = end
            self.next_end = min(self.next_end, int(end.min()))
        st.exh[g[~zy]] = True

    def _finish(self, g: Array, t: int) -> None:
        """Games ``g`` are over after turn ``t``: award the 状元 cake, record, retire them."""
        st, spec, out = self.st, self.spec, self.out
        p = spec.players
        mode = st.mode[g]
        normal = g[mode == 0]
        if normal.size:
            score = st.skey[:, normal].astype(np.int64) * (1 << 32) - st.stime[:, normal]
            best = score.argmax(axis=0)
            st.hold[best, 0, normal] += 1
            st.pool[0, normal] = 0
        grab = g[mode == 2]
        if grab.size:
            counts = st.pool[:6, grab].T.astype(np.int64)  # (games, tier)
            shares = self.rng.multinomial(counts, np.full(p, 1.0 / p))  # (games, tier, seat)
            st.hold[:, :6, grab] += shares.transpose(2, 1, 0).astype(np.int16)
            st.pool[:, grab] = 0
            if out.grabbed is not None:
                out.grabbed[st.gid[grab]] = shares.transpose(0, 2, 1)
        held = st.hold[:, :6].take(g, axis=2)  # (seat, tier, games)
        gid = st.gid[g]
        out.throws[gid] = t + 1 - st.skipped[g]
        out.turns[gid] = t + 1
        out.reason[gid] = st.reason[g]
        out.exhausted_first[gid] = st.exh[g]
        out.seat_tier += held.sum(axis=2)
        if out.holdings is not None:
            out.winner[gid] = held[:, 0, :].argmax(axis=0)
            out.holdings[gid] = held.transpose(2, 0, 1)
        st.live[g] = False
        st.end_turn[g] = _BIG
        st.dead += g.size


# -- the plain reference ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameTrace:
    """How one game went, by seat in play order from the starter."""

    throws: int
    turns: int
    ended_by: str
    holdings: tuple[tuple[int, ...], ...]
    """Final cakes per seat and tier (TIERS order), grab included."""
    grabbed: tuple[tuple[int, ...], ...]
    """The part of ``holdings`` that came from the lights-off grab."""
    zhuangyuan: int
    """The seat holding the 状元 cake at the end."""
    exhausted_first: bool
    """Every non-状元 cake was gone before anyone had a 状元 hand."""

    @property
    def rounds(self) -> int:
        """Rounds begun (the last may be partial)."""
        return (self.turns - 1) // len(self.holdings) + 1


def play_reference(
    rules: RuleSet,
    players: int,
    *,
    rng: random.Random | None = None,
    tiaohou: float = 0.0,
    throws: Sequence[int] | None = None,
) -> GameTrace:
    """Play one game throw by throw, the straightforward way (RULES.md §4).

    Throws come from ``throws`` (indices into :data:`ORDERED_THROWS`, :data:`JUMP` for 跳猴)
    or from ``rng`` (a die at a time; a throw is 跳猴 with probability ``tiaohou``). ``rng``
    also drives the lights-off grab.
    """
    rng = rng or random.Random(0)
    n = players
    classify = rules.classifier
    prizes = list(rules.prizes)
    pool = prizes[:]
    hold = [[0] * 6 for _ in range(n)]
    grabbed = [[0] * 6 for _ in range(n)]
    standing: list[tuple[tuple[int, int, int], int, bool] | None] = [None] * n
    skip = [False] * n
    chase = rules.chase
    chase_tiers = {TIERS.index(tier) for tier in chase.tiers} if chase else set()
    holders: dict[int, list[list[int]]] = {tier: [] for tier in chase_tiers}
    left = sum(pool[1:])
    given: Iterator[int] | None = iter(throws) if throws is not None else None
    thrown = turn = 0
    end_turn = -1
    ended_by = "exhausted"
    exhausted_first = False
    decided = False  # the 状元 cake already has its owner (a sweep or the grab)
    end_rounds = {End.IMMEDIATE: 0, End.FINISH_ROUND: 1, End.ONE_MORE_ROUND: 2}[rules.end]

    def take(seat: int, tier: int, *, bonus: bool = False) -> None:
        nonlocal left
        if pool[tier] > 0:
            pool[tier] -= 1
            hold[seat][tier] += 1
            left -= 1
            if tier in holders:
                holders[tier].append([seat, turn, 0])
        elif tier in holders and left > 0 and not bonus:
            candidates = [e for e in holders[tier] if e[0] != seat and not e[2]]
            if not candidates:
                return
            if chase is not None and chase.source is ChaseFrom.LATEST:
                victim = max(candidates, key=lambda e: e[1])
            else:
                victim = min(candidates, key=lambda e: (seat - e[0]) % n)
            hold[victim[0]][tier] -= 1
            hold[seat][tier] += 1
            holders[tier].remove(victim)
            holders[tier].append([seat, turn, 0])

    def stand(seat: int, key: tuple[int, int, int], chajinhua: bool) -> None:
        current = standing[seat]
        if current is not None:
            if current[2] and rules.chajinhua_lugu is ChajinhuaLugu.EXEMPT:
                return
            if rules.standing is Standing.BEST and key <= current[0]:
                return
        standing[seat] = (key, turn, chajinhua)

    while True:
        s = turn % n
        over = False
        if skip[s]:
            skip[s] = False
        else:
            thrown += 1
            dice: tuple[int, ...] | None = None
            if given is not None:
                u = next(given)
                if u != JUMP:
                    dice = ORDERED_THROWS[u]
            elif not (tiaohou > 0 and rng.random() < tiaohou):
                dice = tuple(rng.randint(1, 6) for _ in range(6))
            if dice is None:
                if rules.tiaohou is Tiaohou.VOID_SKIP_NEXT:
                    skip[s] = True
            else:
                c = classify(dice)
                hand = c.hand
                if hand is Hand.LIUBOHONG and rules.liubohong is LiubohongEffect.TAKE_ALL_END:
                    hold = [[0] * 6 for _ in range(n)]
                    hold[s] = prizes[:]
                    pool = [0] * 6
                    over, decided, ended_by = True, True, "liubohong"
                elif (
                    hand is Hand.BIANDIJIN and rules.biandijin is BiandijinEffect.TAKE_REMAINING_END
                ):
                    for k in range(6):
                        hold[s][k] += pool[k]
                    pool = [0] * 6
                    over, decided, ended_by = True, True, "biandijin"
                elif hand is Hand.LIUBOHEI and rules.liubohei is LiuboheiEffect.GRAB_END:
                    for k in range(6):
                        for _ in range(pool[k]):
                            who = rng.randrange(n)
                            hold[who][k] += 1
                            grabbed[who][k] += 1
                    pool = [0] * 6
                    over, decided, ended_by = True, True, "liubohei"
                elif rules.is_zhuangyuan_hand(hand):
                    stand(s, rules.zhuangyuan_key(c), hand is Hand.CHAJINHUA)
                    immediate = rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
                    if hand is Hand.CHAJINHUA and immediate:
                        k = min(2, pool[1])
                        pool[1] -= k
                        hold[s][1] += k
                        left -= k
                        if 1 in holders:
                            holders[1].extend([s, turn, 1] for _ in range(k))
                    if hand is Hand.LIUBOHONG and rules.liubohong is (
                        LiubohongEffect.TAKE_REMAINING_END
                    ):
                        for k in range(1, 6):
                            hold[s][k] += pool[k]
                            pool[k] = 0
                        over, ended_by = True, "liubohong"
                    if hand is Hand.LIUBOHEI and rules.liubohei is (
                        LiuboheiEffect.ZHUANGYUAN_END_SHARE
                    ):
                        over, ended_by = True, "liubohei"
                elif hand in ORDINARY_HAND_TIER:
                    take(s, TIERS.index(ORDINARY_HAND_TIER[hand]))
                    for extra in c.bonus:
                        take(s, TIERS.index(extra), bonus=True)
        if not over and end_turn < 0 and left == 0:
            if any(standing):
                if exhausted_first or end_rounds == 1:
                    end_turn = turn + n - 1 - s  # finish this round
                elif end_rounds == 2:
                    end_turn = turn + 2 * n - 1 - s  # and one more
                else:
                    end_turn = turn
            else:
                exhausted_first = True
        if over or turn == end_turn:
            break
        turn += 1
    if not decided:
        best = max(
            (seat for seat in range(n) if standing[seat] is not None),
            key=lambda seat: (standing[seat][0], -standing[seat][1]),  # type: ignore[index]
        )
        hold[best][0] += 1
    winner = next(seat for seat in range(n) if hold[seat][0])
    return GameTrace(
        throws=thrown,
        turns=turn + 1,
        ended_by=ended_by,
        holdings=tuple(tuple(row) for row in hold),
        grabbed=tuple(tuple(row) for row in grabbed),
        zhuangyuan=winner,
        exhausted_first=exhausted_first,
    )


def play_given(
    rules: RuleSet, players: int, throws: Sequence[Sequence[int]], *, seed: int = 0
) -> list[GameTrace]:
    """Play each game of ``throws`` (throw indices, :data:`JUMP` for 跳猴) through the kernel."""
    width = max(len(row) for row in throws)
    given = np.full((len(throws), width), 0, np.int64)
    for i, row in enumerate(throws):
        given[i, : len(row)] = row
    spec = kernel_spec(rules, players, given_jumps=bool((given == JUMP).any()))
    out = run_chunk(spec, len(throws), seed, given=given, detail=True)
    assert out.holdings is not None and out.grabbed is not None
    return [
        GameTrace(
            throws=int(out.throws[i]),
            turns=int(out.turns[i]),
            ended_by=REASONS[int(out.reason[i])],
            holdings=tuple(tuple(int(x) for x in row) for row in out.holdings[i]),
            grabbed=tuple(tuple(int(x) for x in row) for row in out.grabbed[i]),
            zhuangyuan=int(out.winner[i]),
            exhausted_first=bool(out.exhausted_first[i]),
        )
        for i in range(len(throws))
    ]


# -- results ----------------------------------------------------------------------------------


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
        )

    @staticmethod
    def of_traces(players: int, traces: Sequence[GameTrace]) -> Tally:
        """The tally of games played by :func:`play_reference`."""
        ended = np.zeros(len(REASONS), np.int64)
        seat_tier = np.zeros((players, 6), np.int64)
        for trace in traces:
            ended[REASONS.index(trace.ended_by)] += 1
            seat_tier += np.asarray(trace.holdings, np.int64)
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
        """Share of games per way of ending (RULES.md §7 ids)."""
        return {reason: float(self.tally.ended[i]) / self.games for i, reason in enumerate(REASONS)}

    @property
    def exhausted_first(self) -> float:
        """Share of games in which every non-状元 cake was gone before anyone had a 状元."""
        return self.tally.exhausted_first / self.games

    @property
    def seats(self) -> list[SeatStats]:
        """Per seat from the starter: expected cakes (per tier) and the chance of the 状元 cake."""
        per = self.tally.seat_tier / self.games
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
            "throws": self.throws.summary(),
            "rounds": self.rounds.summary(),
            "ended_by": {k: round(v, 6) for k, v in self.ended_by.items()},
            "exhausted_before_zhuangyuan": round(self.exhausted_first, 6),
            "seats": [seat.to_json() for seat in self.seats],
            "exact": self.exact.to_json() if self.exact is not None else None,
        }


# -- running many games -----------------------------------------------------------------------


def check_players(players: int) -> None:
    """Raise :class:`InputError` unless a table of ``players`` can be simulated."""
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InputError(
            f"invalid number of players {players}: a table seats {MIN_PLAYERS} to {MAX_PLAYERS}"
            " (the game itself seats at most 12)",
            value=players,
        )


def check_tiaohou(tiaohou: float) -> None:
    """Raise :class:`InputError` unless ``tiaohou`` is a probability below 1."""
    if not 0.0 <= tiaohou < 1.0:
        raise InputError(
            f"invalid 跳猴 probability {tiaohou!r}: a number from 0 up to (not including) 1",
            value=tiaohou,
        )


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
) -> SimulationResult:
    """Play ``games`` whole games of ``players`` (seat 1 starts) and tally them.

    Same ``seed`` → same result, whatever ``workers`` is. ``exact`` adds the Markov-chain
    expectation (:func:`bobing.analysis.markov.expected_game_length`) where it applies.
    """
    check_players(players)
    check_tiaohou(tiaohou)
    if games < 1:
        raise InputError(f"invalid number of games {games}: at least 1", value=games)
    root = np.random.SeedSequence(seed)
    entropy = root.entropy
    assert isinstance(entropy, int)
    spec = kernel_spec(rules, players, tiaohou)
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
    if exact:
        from bobing.analysis.markov import exact_or_none

        length = exact_or_none(rules, players, tiaohou=tiaohou)
    return SimulationResult(rules, players, games, entropy, tiaohou, tally, length, used)


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
    "OUTCOMES",
    "REASONS",
    "Distribution",
    "GameTrace",
    "OutcomeClass",
    "SeatStats",
    "SimulationResult",
    "Tally",
    "outcome_classes",
    "play_given",
    "play_reference",
    "simulate",
    "simulate_reference",
]
