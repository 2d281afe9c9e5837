"""The NumPy kernel: a chunk of whole games advanced in lockstep, one turn per step.

All games of a chunk are at the same seat on the same step. A throw is an index into the 46 656
ordered throws, mapped through a table compiled from the rule set (:func:`kernel_spec`) to the
ordinary tier it wins or to "rare"; the common case (take one cake of a tier) is a few
whole-array operations, and the few throws that need more (状元 hands, 插金花's 对堂, 四进's bonus,
追, the 六勃 and 遍地锦 endings) are handled on the small subset of games that threw them.

Seats are numbered in play order from the starter (seat 0 here, seat 1 in reports), so the
play direction never matters: 追's "backwards" is simply towards lower seat numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.analysis.outcomes import (
    CLOSED,
    EFFECT_REASON,
    JUMP,
    NO_TIER,
    OUTCOMES,
    REASONS,
    Effect,
    GameTrace,
    OutcomeClass,
    encode_key,
    outcome_classes,
)
from bobing.engine.errors import InputError
from bobing.engine.hands import TIERS, Hand
from bobing.engine.rules import (
    ChajinhuaDuitang,
    ChajinhuaLugu,
    ChaseFrom,
    ChaseUntil,
    End,
    LiubohongDuitang,
    LiubohongEffect,
    RuleSet,
    Standing,
    Tiaohou,
    ZhuangyuanCake,
)

Array = NDArray[Any]

_NONE_CODE = NO_TIER
_BIG = np.iinfo(np.int32).max
_MAX_TURNS = 1_000_000


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
    chj_at_end: bool = False
    """插金花 takes the 对堂 cakes left on winning the 状元 (``chajinhua_duitang``: ``at_end``)."""
    spare_chj: bool = False
    """六勃红's sweep leaves the cakes 插金花 brought with their holder."""
    close_after: int = 0
    """Time is called after this many throws (RULES.md §8.1); 0: never."""
    chase_to_end: bool = False
    """追 goes on after every other cake is claimed (``chase.until`` = ``end``, §9.3)."""
    guard_chj: bool = False
    """§9.2: 插金花 ranks above a 六勃红 that sweeps (take_all_end, friendly_end(_sanhong)), so a
    standing 插金花 keeps the 状元 cake (and what it brought) from the sweep."""
    lbh_key: int = 0
    """The 状元 key of 六勃红 (its standing under §9.2)."""
    lbh_at_end: int = -1
    """The 状元 level of 六勃红 when a winning 六勃红 takes the 对堂 left (``liubohong_duitang``
    = ``at_end``); -1: off."""
    shared: bool = False
    """分状元: the 状元 is named but nobody holds the cake (``zhuangyuan_cake`` = ``shared``)."""

    @property
    def chase_on(self) -> bool:
        """Whether 追 is on for some tier."""
        return bool(self.chase_mask.any())

    @property
    def track_chj(self) -> bool:
        """Whether the kernel counts the 对堂 cakes 插金花 brought (a sweep may spare them)."""
        return self.spare_chj or self.guard_chj


def kernel_spec(
    rules: RuleSet,
    players: int,
    tiaohou: float = 0.0,
    *,
    given_jumps: bool = False,
    close_after: int = 0,
) -> KernelSpec:
    """Compile ``rules`` for the kernel (``given_jumps``: given throws may contain 跳猴;
    ``close_after``: time is called after that many throws)."""
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
    chase_mask = np.zeros(NO_TIER + 1, bool)
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
    lbh_level = len(order) - order.index(Hand.LIUBOHONG)
    sweeping = rules.liubohong in (
        LiubohongEffect.TAKE_ALL_END,
        LiubohongEffect.FRIENDLY_END,
        LiubohongEffect.FRIENDLY_END_SANHONG,
    )
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
        chj_at_end=rules.chajinhua_duitang is ChajinhuaDuitang.AT_END and chj_level > 0,
        spare_chj=(
            rules.liubohong_spares_chajinhua
            and rules.liubohong is LiubohongEffect.TAKE_ALL_END
            and rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
        ),
        close_after=close_after,
        chase_to_end=rules.chase is not None and rules.chase.until is ChaseUntil.END,
        guard_chj=sweeping and chj_level > lbh_level,
        lbh_key=encode_key(rules.zhuangyuan_key(rules.classify("444444"))),
        lbh_at_end=lbh_level if rules.liubohong_duitang is LiubohongDuitang.AT_END else -1,
        shared=rules.zhuangyuan_cake is ZhuangyuanCake.SHARED,
    )


# -- the kernel -------------------------------------------------------------------------------


@dataclass(eq=False)
class ChunkOutcome:
    """Per-game results of one chunk (``holdings`` and ``grabbed`` only when asked for)."""

    throws: Array
    turns: Array
    reason: Array
    winner: Array
    """The seat holding the 状元 cake (only with ``detail``; -1 otherwise, and when nobody
    holds it: a close before any 状元 hand)."""
    exhausted_first: Array
    seat_tier: Array
    """Cakes per seat and tier, summed over the chunk's games: shape (players, 6)."""
    holdings: Array | None = None
    """Final holdings per game, seat and tier: shape (games, players, 6)."""
    grabbed: Array | None = None
    """The part of ``holdings`` that came from the lights-off grab."""
    closed: Array | None = None
    """Games the bell reached while they were still being played (with ``close_after``)."""


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
        "final",
        "closed",
        "live",
        "skip",
        "chj_held",
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
        self.final: Array = np.zeros(n, bool)  # every cake claimed with a standing: final phase
        self.closed: Array = np.zeros(n, bool)  # time was called
        self.live: Array = np.ones(n, bool)
        self.skip: Array | None = np.zeros((p, n), bool) if spec.skip_on_jump else None
        # 对堂 cakes each seat holds because of 插金花 (spared by 六勃红's sweep).
        self.chj_held: Array | None = np.zeros((p, n), np.int16) if spec.track_chj else None
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
            closed=np.zeros(n, bool) if spec.close_after else None,
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
                    if not spec.chase_to_end:  # others_left: only while some cake is unclaimed
                        missed = missed[st.left(missed) > 0]
                    self._chase(missed, tier[missed].astype(np.int64), s, t)
            rare = np.flatnonzero(code >= 8)
            if rare.size:
                self._rare(rare, code[rare], s, t)
                emptied = np.concatenate([emptied, rare])
            if emptied.size:
                self._check_exhausted(emptied, s, t)
            if spec.close_after:
                self._close(s, t)
            if t >= self.next_end:
                self._finish(np.flatnonzero(st.end_turn == t), t)
                self.next_end = int(st.end_turn.min()) if st.size else _BIG
                if st.dead > max(64, st.size >> 3) and st.dead < st.size:
                    st.compress()
            t += 1
        return self.out

    # Pieces --------------------------------------------------------------------------------

    def _close(self, s: int, t: int) -> None:
        """The bell: games that have just reached ``close_after`` throws end at the end of this
        round, at once under ``end`` = ``immediate``, unless they end earlier (RULES.md §8.1)."""
        st, spec = self.st, self.spec
        due = st.live & ~st.closed & (st.end_turn > t)
        due &= t + 1 - st.skipped >= spec.close_after
        g = np.flatnonzero(due)
        if not g.size:
            return
        st.closed[g] = True
        p = spec.players
        end = np.full(g.size, t if spec.end_rounds == 0 else t + p - 1 - s, np.int32)
        if st.skip is not None:
            # The turns lost to 跳猴 that come straight after this throw are taken before time
            # can be called (as the engine does); the game ends after them at the earliest.
            lost = np.zeros(g.size, np.int32)
            going = np.ones(g.size, bool)
            for k in range(1, p + 1):
                going &= st.skip[(s + k) % p, g]
                if not going.any():
                    break
                lost += going
            end = np.maximum(end, t + lost)
        st.end_turn[g] = np.minimum(st.end_turn[g], end)
        self.next_end = min(self.next_end, int(end.min()))

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
        if st.slot_holder is None:
            return  # the chased tiers have no cakes at all (a prize count of 0)
        assert st.slot_time is not None and st.slot_prot is not None
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
        spec = self.spec
        j = (codes >> 3).astype(np.int64) - 1
        bonus = spec.rare_bonus[j]
        b = bonus != NO_TIER
        if b.any():
            self._take_bonus(g[b], bonus[b], s, t)
        key = spec.rare_key[j]
        z = key > 0
        if z.any():
            self._stand(g[z], key[z], s, t)
        chj = spec.rare_chj[j]
        if chj.any():
            self._chajinhua(g[chj], s, t)
        effect = spec.rare_effect[j]
        e = effect > 0
        if e.any():
            self._effects(g[e], effect[e], s, t)

    def _stand(self, g: Array, keys: Array, s: int, t: int) -> None:
        """Games ``g``: a 状元 hand of key ``keys`` updates the thrower's standing (禄骨 or best;
        an exempt 插金花 only rises, RULES.md §9.1)."""
        st, spec = self.st, self.spec
        current = st.skey[s, g]
        strict = np.full(g.size, spec.best)
        if spec.exempt and spec.chj_level > 0:
            strict |= (current >> 8) == spec.chj_level
        update = ~strict | (keys > current)
        st.skey[s, g[update]] = keys[update]
        st.stime[s, g[update]] = t
        st.has_zy[g] = True

    def _guarded(self, g: Array) -> Array:
        """§9.2: which games ``g`` have a standing 插金花 ranked above the 六勃红 just thrown."""
        st, spec = self.st, self.spec
        if not spec.guard_chj:
            return np.zeros(g.size, bool)
        guarded: Array = ((st.skey[:, g] >> 8) == spec.chj_level).any(axis=0)
        return guarded

    def _chajinhua(self, g: Array, s: int, t: int) -> None:
        """插金花 takes min(2, 对堂 left) 对堂 cakes at once; 追 never takes them back."""
        st, spec = self.st, self.spec
        before = st.pool[1, g].astype(np.int64)
        k = np.minimum(before, 2)
        st.pool[1, g] -= k.astype(np.int16)
        st.hold[s, 1, g] += k.astype(np.int16)
        if st.chj_held is not None:
            st.chj_held[s, g] += k.astype(np.int16)
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
        st, spec = self.st, self.spec
        for value in np.unique(effect):
            kind = Effect(int(value))
            gg = g[effect == value]
            if kind is Effect.TAKE_ONE:
                self._take_one(gg, s, t)
                continue
            if kind is Effect.SWEEP_ALL:
                guarded = self._guarded(gg)
                st.hold[:, :, gg] = 0
                st.hold[s, :6, gg] = self.prizes[None, :]
                if st.chj_held is not None:
                    # 不能追缴状元插金花所得: what 插金花 brought stays with its holder.
                    spare = guarded | spec.spare_chj
                    kept = np.where(spare[None, :], st.chj_held[:, gg], 0).astype(np.int16)
                    kept[s] = 0
                    st.hold[:, 1, gg] += kept
                    st.hold[s, 1, gg] -= kept.sum(axis=0).astype(np.int16)
                st.pool[:, gg] = 0
                self._guarded_stand(gg, guarded, s, t)
            elif kind in (Effect.FRIENDLY, Effect.FRIENDLY_SANHONG):
                # The 状元 cake and the 对堂 (and 三红) left; the other unclaimed cakes stay shared.
                guarded = self._guarded(gg)
                top = 3 if kind is Effect.FRIENDLY_SANHONG else 2
                st.hold[s, 1:top, gg] += st.pool[1:top, gg].T
                st.pool[1:top, gg] = 0
                st.hold[s, 0, gg] += 1
                st.pool[0, gg] = 0
                self._guarded_stand(gg, guarded, s, t)
            elif kind in (Effect.TAKE_REST, Effect.BIANDIJIN_REST):
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
            st.reason[gg] = EFFECT_REASON[kind]
            st.end_turn[gg] = t
            self.next_end = min(self.next_end, t)

    def _guarded_stand(self, g: Array, guarded: Array, s: int, t: int) -> None:
        """After a sweeping 六勃红 took the 状元 cake: games ``g`` are decided, except the
        ``guarded`` ones (§9.2), where the cake goes back and the 六勃红 only stands."""
        st = self.st
        st.mode[g] = 1
        gd = g[guarded]
        if gd.size:
            st.hold[s, 0, gd] -= 1
            st.pool[0, gd] = 1
            st.mode[gd] = 0
            self._stand(gd, np.full(gd.size, self.spec.lbh_key, np.int32), s, t)

    def _take_one(self, g: Array, s: int, t: int) -> None:
        """六勃黑 ``take_one``: one cake of the best ordinary tier left in the pool, if any."""
        st, spec = self.st, self.spec
        has = st.pool[1:6, g] > 0  # (5 tiers, games)
        some = has.any(axis=0)
        g = g[some]
        if not g.size:
            return
        tiers = has[:, some].argmax(axis=0).astype(np.int64) + 1
        st.pool[tiers, g] -= 1
        st.hold[s, tiers, g] += 1
        if st.slot_holder is not None:
            chased_tier = spec.chase_mask[tiers]
            if chased_tier.any():
                self._record_slots(g[chased_tier], tiers[chased_tier], s, t)

    def _check_exhausted(self, g: Array, s: int, t: int) -> None:
        """RULES.md §4 step 7: every non-状元 cake claimed and a standing exists → final."""
        st, spec = self.st, self.spec
        g = g[~st.final[g] & (st.reason[g] == 0)]  # not yet final, not ended by an effect
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
            end = np.minimum(np.where(st.exh[final], round_end, per_rule), st.end_turn[final])
            st.end_turn[final] = end
            st.final[final] = True
            self.next_end = min(self.next_end, int(end.min()))
        st.exh[g[~zy]] = True

    def _finish(self, g: Array, t: int) -> None:
        """Games ``g`` are over after turn ``t``: award the 状元 cake, record, retire them."""
        st, spec, out = self.st, self.spec, self.out
        p = spec.players
        mode = st.mode[g]
        normal = g[mode == 0]
        if normal.size:
            # A close with cakes still unclaimed (a game that ends by itself has none left,
            # or ends by an effect with its own reason).
            st.reason[normal[(st.reason[normal] == 0) & (st.left(normal) > 0)]] = CLOSED
            # The best standing takes the 状元 cake; with no standing (a close before any
            # 状元 hand) it stays in the pool.
            normal = normal[st.has_zy[normal]]
            score = st.skey[:, normal].astype(np.int64) * (1 << 32) - st.stime[:, normal]
            best = score.argmax(axis=0)
            st.hold[best, 0, normal] += 1
            st.pool[0, normal] = 0
            if spec.chj_at_end:
                # 插金花 paid at the end: the 对堂 cakes nobody won go with the 状元.
                chj = (st.skey[best, normal] >> 8) == spec.chj_level
                gb, sb = normal[chj], best[chj]
                st.hold[sb, 1, gb] += st.pool[1, gb]
                st.pool[1, gb] = 0
            if spec.lbh_at_end > 0:
                # liubohong_duitang = at_end: a winning 六勃红 takes the 对堂 left too.
                lbh = (st.skey[best, normal] >> 8) == spec.lbh_at_end
                gb, sb = normal[lbh], best[lbh]
                st.hold[sb, 1, gb] += st.pool[1, gb]
                st.pool[1, gb] = 0
        grab = g[mode == 2]
        if grab.size:
            counts = st.pool[:6, grab].T.astype(np.int64)  # (games, tier)
            shares = self.rng.multinomial(counts, np.full(p, 1.0 / p))  # (games, tier, seat)
            st.hold[:, :6, grab] += shares.transpose(2, 1, 0).astype(np.int16)
            st.pool[:, grab] = 0
            if out.grabbed is not None:
                if spec.shared:
                    shares[:, 0, :] = 0  # 分状元: the grabbed 状元 is named, the cake shared
                out.grabbed[st.gid[grab]] = shares.transpose(0, 2, 1)
        held = st.hold[:, :6].take(g, axis=2)  # (seat, tier, games)
        gid = st.gid[g]
        out.throws[gid] = t + 1 - st.skipped[g]
        out.turns[gid] = t + 1
        out.reason[gid] = st.reason[g]
        out.exhausted_first[gid] = st.exh[g]
        if out.closed is not None:
            out.closed[gid] = st.closed[g]
        # With a shared 状元 cake (分状元) the 状元 column counts the seat named 状元.
        out.seat_tier += held.sum(axis=2)
        if out.holdings is not None:
            out.winner[gid] = np.where(held[:, 0, :].any(axis=0), held[:, 0, :].argmax(axis=0), -1)
            if spec.shared:
                held[:, 0, :] = 0
            out.holdings[gid] = held.transpose(2, 0, 1)
        st.live[g] = False
        st.end_turn[g] = _BIG
        st.dead += g.size


def play_given(
    rules: RuleSet,
    players: int,
    throws: Sequence[Sequence[int]],
    *,
    seed: int = 0,
    close_after: int = 0,
) -> list[GameTrace]:
    """Play each game of ``throws`` (throw indices, :data:`JUMP` for 跳猴) through the kernel
    (``close_after``: time is called after that many throws)."""
    width = max(len(row) for row in throws)
    given = np.full((len(throws), width), 0, np.int64)
    for i, row in enumerate(throws):
        given[i, : len(row)] = row
    jumps = bool((given == JUMP).any())
    spec = kernel_spec(rules, players, given_jumps=jumps, close_after=close_after)
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


__all__ = ["ChunkOutcome", "KernelSpec", "kernel_spec", "play_given", "run_chunk"]
