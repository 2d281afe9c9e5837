"""The plain reference: one game at a time, one throw at a time, in pure Python (RULES.md §4).

It is the baseline of ``benchmarks/bench_simulate.py`` and an executable reading of the rules:
the tests play identical throws through it, through the kernel and through the game engine,
and require identical outcomes.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from bobing.analysis.outcomes import JUMP, GameTrace
from bobing.engine.hands import ORDERED_THROWS, ORDINARY_HAND_TIER, TIERS, Hand
from bobing.engine.rules import (
    BiandijinEffect,
    ChajinhuaDuitang,
    ChajinhuaLugu,
    ChaseFrom,
    ChaseUntil,
    End,
    LiuboheiEffect,
    LiubohongDuitang,
    LiubohongEffect,
    RuleSet,
    Standing,
    Tiaohou,
    ZhuangyuanCake,
)


def play_reference(
    rules: RuleSet,
    players: int,
    *,
    rng: random.Random | None = None,
    tiaohou: float = 0.0,
    throws: Sequence[int] | None = None,
    close_after: int = 0,
) -> GameTrace:
    """Play one game throw by throw, the straightforward way (RULES.md §4, §8 and §9).

    Throws come from ``throws`` (indices into :data:`ORDERED_THROWS`, :data:`JUMP` for 跳猴)
    or from ``rng`` (a die at a time; a throw is 跳猴 with probability ``tiaohou``). ``rng``
    also drives the lights-off grab. With ``close_after`` time is called after that many
    throws (§8.1).
    """
    rng = rng or random.Random(0)
    n = players
    classify = rules.classifier
    prizes = list(rules.prizes)
    pool = prizes[:]
    hold = [[0] * 6 for _ in range(n)]
    grabbed = [[0] * 6 for _ in range(n)]
    standing: list[tuple[tuple[int, int, int], int, Hand] | None] = [None] * n
    skip = [False] * n
    chase = rules.chase
    chase_tiers = {TIERS.index(tier) for tier in chase.tiers} if chase else set()
    holders: dict[int, list[list[int]]] = {tier: [] for tier in chase_tiers}
    left = sum(pool[1:])
    brought = [0] * n  # 对堂 cakes per seat that 插金花 brought
    given: Iterator[int] | None = iter(throws) if throws is not None else None
    thrown = turn = 0
    end_turn = -1
    final = closed = False
    ended_by = "exhausted"
    exhausted_first = False
    decided = False  # the 状元 cake already has its owner (a sweep or the grab)
    end_rounds = {End.IMMEDIATE: 0, End.FINISH_ROUND: 1, End.ONE_MORE_ROUND: 2}[rules.end]
    chase_to_end = chase is not None and chase.until is ChaseUntil.END
    order = rules.zhuangyuan_order
    # §9.2: 插金花 ranked above 六勃红 guards the 状元 cake (and what it brought) from a sweep.
    chajinhua_first = order.index(Hand.CHAJINHUA) < order.index(Hand.LIUBOHONG)

    def take(seat: int, tier: int, *, bonus: bool = False) -> None:
        nonlocal left
        if pool[tier] > 0:
            pool[tier] -= 1
            hold[seat][tier] += 1
            left -= 1
            if tier in holders:
                holders[tier].append([seat, turn, 0])
        elif tier in holders and (left > 0 or chase_to_end) and not bonus:
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

    def stand(seat: int, key: tuple[int, int, int], hand: Hand) -> None:
        current = standing[seat]
        if current is not None:
            exempt = current[2] is Hand.CHAJINHUA and rules.chajinhua_lugu is ChajinhuaLugu.EXEMPT
            if (exempt or rules.standing is Standing.BEST) and key <= current[0]:
                return  # §9.1: an exempt 插金花 only rises
        standing[seat] = (key, turn, hand)

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
                guarded = (
                    hand is Hand.LIUBOHONG
                    and chajinhua_first
                    and any(st is not None and st[2] is Hand.CHAJINHUA for st in standing)
                )
                if hand is Hand.LIUBOHONG and rules.liubohong is LiubohongEffect.TAKE_ALL_END:
                    kept = [0] * n  # 对堂 cakes 插金花 brought, spared by the sweep
                    if rules.liubohong_spares_chajinhua or guarded:
                        kept = [brought[seat] if seat != s else 0 for seat in range(n)]
                    hold = [[0, kept[seat], 0, 0, 0, 0] for seat in range(n)]
                    hold[s] = prizes[:]
                    hold[s][1] -= sum(kept)
                    pool = [0] * 6
                    if guarded:  # §9.2: all but the 状元 cake; the best standing takes it
                        hold[s][0] = 0
                        pool[0] = prizes[0]
                        stand(s, rules.zhuangyuan_key(c), hand)
                        over, ended_by = True, "liubohong"
                    else:
                        over, decided, ended_by = True, True, "liubohong"
                elif hand is Hand.LIUBOHONG and rules.liubohong in (
                    LiubohongEffect.FRIENDLY_END,
                    LiubohongEffect.FRIENDLY_END_SANHONG,
                ):
                    taken = (
                        [1, 2] if rules.liubohong is LiubohongEffect.FRIENDLY_END_SANHONG else [1]
                    )
                    for k in taken:
                        hold[s][k] += pool[k]
                        pool[k] = 0
                    if guarded:
                        stand(s, rules.zhuangyuan_key(c), hand)
                        over, ended_by = True, "liubohong"
                    else:
                        hold[s][0] += 1
                        pool[0] = 0
                        over, decided, ended_by = True, True, "liubohong"
                elif hand is Hand.LIUBOHEI and rules.liubohei is LiuboheiEffect.TAKE_ONE:
                    best_left = next((k for k in range(1, 6) if pool[k]), None)
                    if best_left is not None:
                        take(s, best_left)
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
                    stand(s, rules.zhuangyuan_key(c), hand)
                    immediate = rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE
                    if hand is Hand.CHAJINHUA and immediate:
                        k = min(2, pool[1])
                        pool[1] -= k
                        hold[s][1] += k
                        brought[s] += k
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
                    if hand is Hand.BIANDIJIN and rules.biandijin is (
                        BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END
                    ):
                        for k in range(1, 6):
                            hold[s][k] += pool[k]
                            pool[k] = 0
                        over, ended_by = True, "biandijin"
                    for extra in c.bonus:  # 五子带一秀
                        take(s, TIERS.index(extra), bonus=True)
                elif hand in ORDINARY_HAND_TIER:
                    take(s, TIERS.index(ORDINARY_HAND_TIER[hand]))
                    for extra in c.bonus:
                        take(s, TIERS.index(extra), bonus=True)
        if not over and not final and left == 0:
            if any(standing):
                if exhausted_first or end_rounds == 1:
                    last = turn + n - 1 - s  # finish this round
                elif end_rounds == 2:
                    last = turn + 2 * n - 1 - s  # and one more
                else:
                    last = turn
                end_turn = last if end_turn < 0 else min(end_turn, last)
                final = True
            else:
                exhausted_first = True
        if close_after and not closed and not over and turn != end_turn and thrown >= close_after:
            # The bell (§8.1): the game ends at the end of this round, at once under immediate.
            closed = True
            last = turn if end_rounds == 0 else turn + n - 1 - s
            # Turns lost to 跳猴 straight after this throw are taken before time is called.
            lost = 0
            while lost < n and skip[(s + lost + 1) % n]:
                lost += 1
            last = max(last, turn + lost)
            end_turn = last if end_turn < 0 else min(end_turn, last)
        if over or turn == end_turn:
            break
        turn += 1
    if not decided:
        if ended_by == "exhausted" and any(pool[1:]):
            ended_by = "closed"
        ranked = {seat: st for seat, st in enumerate(standing) if st is not None}
        if ranked:  # no standing at all (a close before any 状元 hand): the cake stays
            best = max(ranked, key=lambda seat: (ranked[seat][0], -ranked[seat][1]))
            hold[best][0] += 1
            won_with = ranked[best][2]
            at_end = (
                won_with is Hand.CHAJINHUA and rules.chajinhua_duitang is ChajinhuaDuitang.AT_END
            ) or (won_with is Hand.LIUBOHONG and rules.liubohong_duitang is LiubohongDuitang.AT_END)
            if at_end:
                hold[best][1] += pool[1]
                pool[1] = 0
    winner = next((seat for seat in range(n) if hold[seat][0]), -1)
    if rules.zhuangyuan_cake is ZhuangyuanCake.SHARED:
        # 分状元 (§9.3): the 状元 is still named (``winner``), the cake is the table's.
        for row in (*hold, *grabbed):
            row[0] = 0
    return GameTrace(
        throws=thrown,
        turns=turn + 1,
        ended_by=ended_by,
        holdings=tuple(tuple(row) for row in hold),
        grabbed=tuple(tuple(row) for row in grabbed),
        zhuangyuan=winner,
        exhausted_first=exhausted_first,
    )


__all__ = ["play_reference"]
