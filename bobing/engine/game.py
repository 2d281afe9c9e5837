"""A whole table's game (RULES.md §4, §8): commands make events, the state folds them.

Each command comes as a triple, after PokerKit: ``verify_x`` raises, ``can_x`` answers,
``x`` returns the new events (already applied). :func:`apply` is the pure fold; replaying a
game's events through it reproduces the game exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bobing.engine.dice import DiceSource, dice_text, parse_dice
from bobing.engine.errors import IllegalAction, InputError, RecordError
from bobing.engine.events import (
    Awarded,
    Closed,
    Event,
    FinalStarted,
    GameOver,
    GrabOpened,
    SetStarted,
    SkipNext,
    Skipped,
    StandingSet,
    Started,
    Thrown,
    ZhuangyuanWon,
)
from bobing.engine.hands import ORDINARY_HAND_TIER, TIERS, Classification, Hand, Tier
from bobing.engine.ranked import RankingEntry
from bobing.engine.record_format import (
    is_close,
    record_rules,
    seed_of,
    start_args,
    throw_entry,
    write_record,
)
from bobing.engine.state import (
    MAX_NAME_LENGTH,
    TIER_INDEX,
    ZHUANGYUAN_INDEX,
    GameState,
    Lot,
    Phase,
    StandingEntry,
    Winner,
    apply,
    fold,
    new_state,
    round_shown,
    validate_players,
)
from bobing.engine.switches import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Award,
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
    StartCount,
    Tiaohou,
)

_DICE_TEXT: dict[tuple[int, ...], str] = {}  # at most 6^6 entries

TIER_IDS: tuple[str, ...] = tuple(str(tier) for tier in TIERS)
"""The tiers' RULES.md ids, highest first (the keys of a result's holdings and pool)."""


def _dice_text(faces: tuple[int, ...]) -> str:
    text = _DICE_TEXT[faces] = dice_text(faces)
    return text


# -- the game ---------------------------------------------------------------------------------


class Game:
    """A game at a table: the current state plus the log of every event so far.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> game = Game(TRADITIONAL, ["甲", "乙", "丙"])
    >>> [e.type for e in game.start(thrower="甲", dice=(2, 3))], game.next_player
    (['started'], '乙')
    >>> [e.type for e in game.throw("444466")]
    ['thrown', 'standing']
    >>> game.throw("123456")[-1]
    Awarded(throw=2, player='丙', tier='duitang', count=1, source=None, reason='hand')
    >>> game.can_throw("乙", "444412"), game.result()["zhuangyuan"]["player"]
    (False, '乙')
    """

    def __init__(self, rules: RuleSet, players: Sequence[str]) -> None:
        self.rules = rules
        self.state = new_state(rules, players)
        self.events: list[Event] = []
        self._drafted_from: GameState | None = None

    def copy(self) -> Game:
        """A game to go on from this one without changing it: the state is an immutable fold,
        so the copy shares it and copies only the list of events."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.state = self.state
        other.events = list(self.events)
        other._drafted_from = None
        return other

    def draft(self) -> Game:
        """A game to decide the next moves on, this one left as it is until :meth:`adopt`.

        It shares the state (an immutable fold) and its :attr:`events` are only the moves
        made on it, so a draft costs the same however long the game (:meth:`copy` copies
        every event). For deciding, not for reading a game's events."""
        other = Game.__new__(Game)
        other.rules = self.rules
        other.state = self.state
        other.events = []
        other._drafted_from = self.state
        return other

    def adopt(self, draft: Game) -> None:
        """Go on as ``draft`` (a :meth:`draft` of this game as it is now) went: its events
        after this game's, and its state."""
        if draft._drafted_from is not self.state:
            raise IllegalAction(
                "the draft was made from another point of this game", code="stale_draft"
            )
        self.events.extend(draft.events)
        self.state = draft.state

    # -- views -------------------------------------------------------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        """Names in clockwise seat order."""
        return self.state.players

    @property
    def phase(self) -> Phase:
        """Where the game is."""
        return self.state.phase

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.state.phase is Phase.OVER

    @property
    def next_player(self) -> str | None:
        """Whose turn it is; None before the start, during a grab, or once over."""
        seat = self.state.current_seat
        return None if seat is None else self.state.players[seat]

    @property
    def throw_count(self) -> int:
        """Throws so far (跳猴 counts; a skipped turn does not)."""
        return self.state.throws

    def _emit(self, events: list[Event]) -> list[Event]:
        state = self.state
        for event in events:
            state = apply(state, event)
        self.state = state
        self.events.extend(events)
        return events

    # -- start -------------------------------------------------------------------------------

    def verify_start(
        self,
        *,
        starter: str | None = None,
        thrower: str | None = None,
        dice: Sequence[int] | None = None,
    ) -> None:
        """Raise unless the game can start this way."""
        if self.state.phase is not Phase.NOT_STARTED:
            raise IllegalAction("the game has already started", code="already_started")
        if starter is not None and (thrower is not None or dice is not None):
            raise InputError(
                "give either a starter or a thrower with two dice, not both",
                code="start_both_ways",
            )
        for name in (starter, thrower):
            if name is not None and not isinstance(name, str):
                raise InputError(
                    f"a player is named by a string, not {name!r}", code="bad_name", name=name
                )
            if name is not None and name not in self.state.seat_of:
                raise InputError(f"unknown player {name!r}", code="unknown_player", name=name)
        if (thrower is None) != (dice is None):
            raise InputError(
                "the two-dice start needs both the thrower and the two dice",
                code="start_incomplete",
            )
        if dice is not None:
            faces = list(dice)
            ok = len(faces) == 2 and all(
                isinstance(f, int) and not isinstance(f, bool) and 1 <= f <= 6 for f in faces
            )
            if not ok:
                raise InputError(
                    f"invalid start dice {faces!r}: two faces 1-6",
                    code="bad_start_dice",
                    value=faces,
                )

    def can_start(self, **kwargs: Any) -> bool:
        """Whether :meth:`start` would succeed with these arguments."""
        try:
            self.verify_start(**kwargs)
        except (IllegalAction, InputError):
            return False
        return True

    def start(
        self,
        *,
        starter: str | None = None,
        thrower: str | None = None,
        dice: Sequence[int] | None = None,
    ) -> list[Event]:
        """Start: the first listed player, a named starter, or the two-dice count."""
        self.verify_start(starter=starter, thrower=thrower, dice=dice)
        state = self.state
        if thrower is not None and dice is not None:
            a, b = dice
            count = a + b - (1 if self.rules.start_count is StartCount.FROM_THROWER else 0)
            seat = (state.seat_of[thrower] + state.step * count) % len(state.players)
            event = Started(state.players[seat], thrower, (a, b))
        else:
            event = Started(starter if starter is not None else state.players[0])
        skips, after = self._skips_after(apply(state, event))
        self.state = after
        self.events += [event, *skips]
        return [event, *skips]

    def roll_start(self, dice: DiceSource, *, thrower: str | None = None) -> list[Event]:
        """The two-dice start, thrown by ``thrower`` (default: the first listed player)."""
        who = self.state.players[0] if thrower is None else thrower
        self.verify_start(thrower=who, dice=(1, 1))
        a, b = dice.roll(2)
        return self.start(thrower=who, dice=(a, b))

    # -- throws ------------------------------------------------------------------------------

    def verify_throw(
        self,
        player: str | None = None,
        dice: Sequence[int] | str | None = None,
        *,
        tiaohou: bool = False,
    ) -> None:
        """Raise unless ``player`` (default: whoever's turn) may throw these dice now."""
        self._checked_throw(player, dice, tiaohou)

    def _checked_throw(
        self, player: str | None, dice: Sequence[int] | str | None, tiaohou: bool
    ) -> tuple[int, ...] | None:
        self._check_turn(player)
        if tiaohou:
            if dice is not None:
                raise InputError("a 跳猴 has no dice", code="tiaohou_with_dice")
            return None
        if dice is None:
            raise InputError("a throw needs six dice (or 跳猴)", code="no_dice")
        if type(dice) is tuple and self.rules.classifier.get(dice) is not None:
            return dice  # the fast path: already six valid faces
        return parse_dice(dice)

    def _check_turn(self, player: str | None) -> None:
        """Raise unless the game takes a throw now (from ``player``, when given)."""
        state = self.state
        if state.phase is not Phase.MAIN and state.phase is not Phase.FINAL:
            if state.phase is Phase.NOT_STARTED:
                raise IllegalAction("the game has not started", code="not_started")
            if state.phase is Phase.GRAB:
                raise IllegalAction(
                    "the lights are off: the grab must be settled", code="grab_pending"
                )
            raise IllegalAction("the game is already over", code="game_over")
        if player is not None:
            if not isinstance(player, str):
                raise InputError(
                    f"a player is named by a string, not {player!r}", code="bad_name", name=player
                )
            current = state.players[state.seat_at(state.turn)]
            if player != current:
                if player not in state.seat_of:
                    raise InputError(
                        f"unknown player {player!r}", code="unknown_player", name=player
                    )
                raise IllegalAction(
                    f"it is {current}'s turn, not {player}'s",
                    code="not_your_turn",
                    current=current,
                    player=player,
                )

    def can_throw(
        self,
        player: str | None = None,
        dice: Sequence[int] | str | None = None,
        *,
        tiaohou: bool = False,
    ) -> bool:
        """Whether :meth:`throw` would succeed."""
        try:
            self.verify_throw(player, dice, tiaohou=tiaohou)
        except (IllegalAction, InputError):
            return False
        return True

    def throw(
        self,
        dice: Sequence[int] | str | None,
        *,
        player: str | None = None,
        tiaohou: bool = False,
    ) -> list[Event]:
        """Throw for whoever's turn it is (checked against ``player`` when given)."""
        faces = self._checked_throw(player, dice, tiaohou)
        events, state = self._then_next_set(*self._decide_throw(faces))
        self.state = state
        self.events.extend(events)
        return events

    def roll(self, dice: DiceSource, *, player: str | None = None) -> list[Event]:
        """Throw six faces from an injected source: seeded, CSPRNG, or given faces."""
        self._check_turn(player)
        return self.throw(dice.roll(), player=player)

    def _decide_throw(self, faces: tuple[int, ...] | None) -> tuple[list[Event], GameState]:
        state = self.state
        rules = self.rules
        seat = state.seat_at(state.turn)
        name = state.players[seat]
        n = state.throws + 1
        events: list[Event] = []
        if faces is None:
            events.append(Thrown(n, name, None, None))
            if rules.tiaohou is Tiaohou.VOID_SKIP_NEXT:
                events.append(SkipNext(n, name))
            return self._after_turn(state, events)
        c = rules.classifier(faces)
        text = _DICE_TEXT.get(faces) or _dice_text(faces)
        events.append(Thrown(n, name, text, str(c.hand)))
        if rules.award is Award.RANKED:
            # §8.2: no cakes change hands and no effect ends the game; the throw only ranks.
            return self._after_turn(state, events)
        hand = c.hand
        if hand is Hand.LIUBOHONG:
            effect = rules.liubohong
            if effect is LiubohongEffect.ZHUANGYUAN:
                events += self._stand(state, seat, c, text, n)
            elif effect is LiubohongEffect.TAKE_REMAINING_END:
                events += self._sweep(state, seat, n, from_players=False)
                events += self._stand(state, seat, c, text, n)
                return self._finish(state, events, "liubohong")
            else:
                # §9.2: under a higher standing 插金花 the 六勃红 takes what its value gives
                # except the 状元 cake and what 插金花 brought; the best standing wins.
                guarded = self._chajinhua_outranks(state)
                if effect is LiubohongEffect.TAKE_ALL_END:
                    events += self._sweep(state, seat, n, from_players=True, spare=guarded)
                else:
                    # friendly_end(_sanhong), 得主只拿状元和对堂(或三红): the rest stays shared.
                    taken = [Tier.DUITANG]
                    if effect is LiubohongEffect.FRIENDLY_END_SANHONG:
                        taken.append(Tier.SANHONG)
                    for friendly in taken:
                        left = state.pool[TIER_INDEX[friendly]]
                        if left:
                            events.append(Awarded(n, name, str(friendly), left, None, "sweep"))
                if guarded:
                    events += self._stand(state, seat, c, text, n)
                    return self._finish(state, events, "liubohong")
                events.append(GameOver(n, "liubohong"))
                events.append(ZhuangyuanWon(name, str(hand), text, n))
                return events, fold(state, events)
        elif hand is Hand.LIUBOHEI and rules.liubohei is not LiuboheiEffect.IGNORE:
            effect_hei = rules.liubohei
            if effect_hei is LiuboheiEffect.GRAB_END:
                events.append(GrabOpened(n))
                return events, fold(state, events)
            if effect_hei is LiuboheiEffect.TAKE_ONE:
                # 拿个奖品就是: the best ordinary cake still in the pool; play goes on.
                for index in range(1, len(TIERS)):
                    if state.pool[index]:
                        events.append(Awarded(n, name, str(TIERS[index]), 1, None, "hand"))
                        break
                return self._after_turn(state, events)
            events += self._stand(state, seat, c, text, n)
            if effect_hei is LiuboheiEffect.ZHUANGYUAN_END_SHARE:
                return self._finish(state, events, "liubohei")
        elif hand is Hand.BIANDIJIN:
            if rules.biandijin is BiandijinEffect.TAKE_REMAINING_END:
                events += self._sweep(state, seat, n, from_players=False)
                events.append(GameOver(n, "biandijin"))
                events.append(ZhuangyuanWon(name, str(hand), text, n))
                return events, fold(state, events)
            events += self._stand(state, seat, c, text, n)
            if rules.biandijin is BiandijinEffect.ZHUANGYUAN_TAKE_REMAINING_END:
                # 只得桌上所剩之饼: the 状元 cake still goes to the best standing.
                events += self._sweep(state, seat, n, from_players=False)
                return self._finish(state, events, "biandijin")
        elif hand in rules.zhuangyuan_order:
            events += self._stand(state, seat, c, text, n)
            if hand is Hand.CHAJINHUA and rules.chajinhua_duitang is ChajinhuaDuitang.IMMEDIATE:
                take = min(2, state.pool[1])
                if take:
                    events.append(Awarded(n, name, "duitang", take, None, "chajinhua"))
            for bonus in c.bonus:  # 五子带一秀 (wuzi_bonus): from the pool only
                events += self._take(state, seat, bonus, n, "bonus")
        else:
            tier = ORDINARY_HAND_TIER.get(hand)
            if tier is not None:
                events += self._take(state, seat, tier, n, "hand")
                for bonus in c.bonus:
                    events += self._take(state, seat, bonus, n, "bonus")
        return self._after_turn(state, events)

    def _stand(
        self, state: GameState, seat: int, c: Classification, text: str, n: int
    ) -> list[Event]:
        """Update the thrower's 状元 standing (禄骨 or best; an exempt 插金花 only rises)."""
        rules = self.rules
        current = state.standings[seat]
        if current is not None:
            exempt = current.hand is Hand.CHAJINHUA and rules.chajinhua_lugu is ChajinhuaLugu.EXEMPT
            # §9.1: 插金花不会禄骨 — it cannot slide down, but a higher 状元 replaces it.
            if (exempt or rules.standing is Standing.BEST) and rules.zhuangyuan_key(
                c
            ) <= current.key:
                return []
        return [StandingSet(n, state.players[seat], str(c.hand), text)]

    def _take(self, state: GameState, seat: int, tier: Tier, n: int, reason: str) -> list[Event]:
        """One cake of an ordinary tier: from the pool, else by 追 if agreed, else nothing."""
        index = TIER_INDEX[tier]
        name = state.players[seat]
        if state.pool[index] > 0:
            return [Awarded(n, name, str(tier), 1, None, reason)]
        chase = self.rules.chase
        if reason != "hand" or chase is None or tier not in chase.tiers:
            return []
        if state.unclaimed_ordinary == 0 and chase.until is ChaseUntil.OTHERS_LEFT:
            return []
        victim = self._chase_victim(state, seat, index)
        if victim is None:
            return []
        return [Awarded(n, name, str(tier), 1, state.players[victim], "chase")]

    def _chase_victim(self, state: GameState, seat: int, tier: int) -> int | None:
        chase = self.rules.chase
        assert chase is not None
        holders = [lot for lot in state.lots if lot.tier == tier and not lot.protected]
        if chase.source is ChaseFrom.LATEST:
            others = [lot for lot in holders if lot.seat != seat]
            return max(others, key=lambda lot: lot.throw).seat if others else None
        seats = {lot.seat for lot in holders}
        size = len(state.players)
        for k in range(1, size):
            candidate = (seat - state.step * k) % size
            if candidate in seats:
                return candidate
        return None

    def _chajinhua_outranks(self, state: GameState) -> bool:
        """§9.2: ``zhuangyuan_order`` ranks 插金花 above 六勃红 and a 插金花 stands."""
        order = self.rules.zhuangyuan_order
        if order.index(Hand.CHAJINHUA) > order.index(Hand.LIUBOHONG):
            return False
        return any(entry is not None and entry.hand is Hand.CHAJINHUA for entry in state.standings)

    def _sweep(
        self, state: GameState, seat: int, n: int, *, from_players: bool, spare: bool = False
    ) -> list[Event]:
        """The thrower takes every unclaimed non-状元 cake (and, if asked, everyone's cakes;
        ``spare``: never what 插金花 brought)."""
        name = state.players[seat]
        events: list[Event] = []
        for index, tier in enumerate(TIERS):
            if index == ZHUANGYUAN_INDEX:
                continue
            if state.pool[index]:
                events.append(Awarded(n, name, str(tier), state.pool[index], None, "sweep"))
            if from_players:
                spare = spare or self.rules.liubohong_spares_chajinhua
                for other, counts in enumerate(state.held):
                    count = counts[index]
                    if spare:  # 不能追缴状元插金花所得
                        count -= sum(
                            1
                            for lot in state.lots
                            if lot.seat == other and lot.tier == index and lot.protected
                        )
                    if other != seat and count:
                        events.append(
                            Awarded(n, name, str(tier), count, state.players[other], "sweep")
                        )
        return events

    def _finish(
        self, state: GameState, events: list[Event], ended_by: str
    ) -> tuple[list[Event], GameState]:
        """Game over now; the best standing takes the 状元 cake."""
        after = fold(state, events)
        over = GameOver(after.throws or None, ended_by)
        after = apply(after, over)
        won = self._award_zhuangyuan(after)
        events += [over, *won]
        return events, fold(after, won)

    def _award_zhuangyuan(self, state: GameState) -> list[Event]:
        leader = state.leader()
        if leader is None:
            return []
        hand = None if leader.hand is None else str(leader.hand)
        name = state.players[leader.seat]
        events: list[Event] = [ZhuangyuanWon(name, hand, leader.dice, leader.throw)]
        left = state.pool[TIER_INDEX[Tier.DUITANG]]
        if not left:
            return events
        # 还可以拿走2个对堂的所有奖品（未中出部分）: the 对堂 cakes nobody won.
        if (
            leader.hand is Hand.CHAJINHUA
            and self.rules.chajinhua_duitang is ChajinhuaDuitang.AT_END
        ):
            events.append(Awarded(leader.throw, name, str(Tier.DUITANG), left, None, "chajinhua"))
        elif (
            leader.hand is Hand.LIUBOHONG
            and self.rules.liubohong_duitang is LiubohongDuitang.AT_END
        ):
            events.append(Awarded(leader.throw, name, str(Tier.DUITANG), left, None, "sweep"))
        return events

    def _after_turn(self, before: GameState, events: list[Event]) -> tuple[list[Event], GameState]:
        """Enter the final phase, end the game, or skip the next players' lost turns."""
        state = fold(before, events)
        exhausted = (
            state.phase is Phase.MAIN
            and state.unclaimed_ordinary == 0
            and state.rules.award is Award.CAKES
        )
        if exhausted and any(entry is not None for entry in state.standings):
            exhausted_before = before.unclaimed_ordinary == 0
            done = state.turn - 1  # the turn just played
            size = len(state.players)
            round_end = (done // size + 1) * size - 1
            end = self.rules.end
            if exhausted_before or end is End.FINISH_ROUND:
                until = round_end
            elif end is End.ONE_MORE_ROUND:
                until = round_end + size
            else:
                until = done
            final = FinalStarted(state.throws, until)
            events.append(final)
            state = apply(state, final)
        more, state = self._skips_after(state)
        events += more
        return events, state

    def _skips_after(self, state: GameState) -> tuple[list[Event], GameState]:
        """End the game when its last turn is done; take the turns lost to 跳猴."""
        events: list[Event] = []
        while True:
            if state.phase is not Phase.MAIN and state.phase is not Phase.FINAL:
                return events, state
            ended_by = self._ends_now(state)
            if ended_by is not None:
                over = GameOver(state.throws or None, ended_by)
                state = apply(state, over)
                events.append(over)
                won = self._award_zhuangyuan(state)
                events += won
                return events, fold(state, won)
            if True not in state.skip:  # the usual case: nobody is to lose a turn
                return events, state
            seat = state.seat_at(state.turn)
            if not state.skip[seat]:
                return events, state
            skipped = Skipped(state.players[seat], state.turn)
            state = apply(state, skipped)
            events.append(skipped)

    def _ends_now(self, state: GameState) -> str | None:
        """Why the game ends before the next turn (its ``ended_by``), or None when it goes on."""
        turn = state.turn
        final_until = state.final_until
        if state.phase is Phase.FINAL and final_until is not None and turn > final_until:
            return "exhausted"
        rounds = self.rules.rounds
        if rounds is not None and turn >= rounds * len(state.players):
            return "rounds"
        close_until = state.close_until
        if close_until is not None and turn > close_until:
            cut_short = state.ranked or state.unclaimed_ordinary > 0
            return "closed" if cut_short else "exhausted"
        return None

    # -- calling time (RULES.md §8.1) ----------------------------------------------------------

    def verify_close(self) -> None:
        """Raise unless time can be called now: the game is in play and time was not called."""
        state = self.state
        if state.phase is Phase.OVER:
            raise IllegalAction(
                "time cannot be called: the game is already over", code="close_game_over"
            )
        if state.close_until is not None:
            raise IllegalAction("time has already been called", code="already_closed")
        if state.phase is Phase.NOT_STARTED:
            raise IllegalAction("the game has not started", code="not_started")
        if state.phase is Phase.GRAB:
            raise IllegalAction("the lights are off: the grab must be settled", code="grab_pending")

    def can_close(self) -> bool:
        """Whether :meth:`close` would succeed."""
        try:
            self.verify_close()
        except IllegalAction:
            return False
        return True

    def close_until(self) -> int:
        """The last turn index a close now leaves to play: the end of this round, or the turn
        just played (the game ends at once) under ``end`` = ``immediate`` or when nobody has
        thrown in this round yet.

        >>> from bobing.engine.presets import TRADITIONAL
        >>> game = Game(TRADITIONAL, ["甲", "乙", "丙"])
        >>> _ = game.start()
        >>> game.close_until(), game.closes_at_once()
        (-1, True)
        >>> _ = game.throw("444412")
        >>> game.close_until(), game.closes_at_once()
        (2, False)
        """
        state = self.state
        size = len(state.players)
        turn = state.turn
        started_round = state.thrown_turn is not None and state.thrown_turn // size == turn // size
        if self.rules.end is End.IMMEDIATE or not started_round:
            return turn - 1
        return (turn // size + 1) * size - 1

    def closes_at_once(self) -> bool:
        """Whether a close now ends the game at once (no turn is left to play)."""
        return self.close_until() < self.state.turn

    def close(self) -> list[Event]:
        """Call time: the game ends at the end of the current round (at once under
        ``end`` = ``immediate``, or when nobody has thrown in this round yet).

        >>> from bobing.engine.presets import TRADITIONAL
        >>> game = Game(TRADITIONAL, ["甲", "乙", "丙"])
        >>> _ = game.start(), game.throw("444412")
        >>> [e.type for e in game.close()], game.state.closed
        (['close'], True)
        >>> _ = game.throw("123456")
        >>> [e.type for e in game.throw("235566")], game.state.ended_by
        (['thrown', 'game_over', 'zhuangyuan'], 'closed')
        """
        self.verify_close()
        state = self.state
        event = Closed(state.throws or None, self.close_until())
        more, after = self._skips_after(apply(state, event))
        self.state = after
        self.events += [event, *more]
        return [event, *more]

    # -- ranked prizes (RULES.md §8.2) -----------------------------------------------------------

    def ranking(self) -> tuple[RankingEntry, ...]:
        """Ranked mode: every player by best throw so far, with the prize it holds now.

        >>> from dataclasses import replace
        >>> from bobing.engine.presets import TRADITIONAL
        >>> from bobing.engine.switches import Award, RankedPrize
        >>> rules = replace(TRADITIONAL, award=Award.RANKED, ranked_prizes=(RankedPrize("一等奖"),))
        >>> game = Game(rules, ["甲", "乙"])
        >>> _ = game.start(), game.throw("123456"), game.throw("444412")
        >>> [(e.player, e.hand, e.prize) for e in game.ranking()]
        [('乙', 'sihong', '一等奖'), ('甲', 'duitang', None)]
        """
        return self.state.ranking()

    # -- the grab ----------------------------------------------------------------------------

    def verify_grab(self, allocation: Mapping[str, Mapping[str, int]]) -> None:
        """Raise unless ``allocation`` gives out exactly the unclaimed cakes to known players."""
        state = self.state
        if state.phase is not Phase.GRAB:
            raise IllegalAction("there is no lights-off grab to settle", code="no_grab")
        if not isinstance(allocation, Mapping):
            raise RecordError(
                "grab must map player names to tier counts", code="grab_not_object", key="grab"
            )
        totals = [0] * len(TIERS)
        for player, counts in allocation.items():
            if player not in state.seat_of:
                raise RecordError(
                    f"grab: unknown player {player!r}",
                    code="grab_unknown_player",
                    key="grab",
                    name=player,
                )
            if not isinstance(counts, Mapping):
                raise RecordError(
                    f"grab.{player} must map tiers to counts",
                    code="grab_counts_not_object",
                    key="grab",
                    name=player,
                )
            for tier, count in counts.items():
                if tier not in TIER_INDEX:
                    raise RecordError(
                        f"grab.{player}: unknown tier {tier!r}; allowed: "
                        + ", ".join(str(t) for t in TIERS),
                        code="grab_unknown_tier",
                        key="grab",
                        name=player,
                        value=tier,
                        allowed=[str(t) for t in TIERS],
                    )
                if isinstance(count, bool) or not isinstance(count, int) or count < 0:
                    raise RecordError(
                        f"grab.{player}.{tier}: {count!r} is not a count",
                        code="grab_invalid_count",
                        key="grab",
                        name=player,
                        tier=tier,
                        value=count,
                    )
                totals[TIER_INDEX[tier]] += count
        for index, tier in enumerate(TIERS):
            if totals[index] != state.pool[index]:
                raise RecordError(
                    f"grab must allocate exactly the unclaimed cakes: {state.pool[index]} "
                    f"{tier} left, {totals[index]} allocated",
                    code="grab_wrong_total",
                    key="grab",
                    tier=str(tier),
                    left=state.pool[index],
                    allocated=totals[index],
                )

    def can_grab(self, allocation: Mapping[str, Mapping[str, int]]) -> bool:
        """Whether :meth:`grab` would accept this allocation."""
        try:
            self.verify_grab(allocation)
        except (IllegalAction, InputError):
            return False
        return True

    def grab(
        self,
        allocation: Mapping[str, Mapping[str, int]] | None = None,
        *,
        rng: random.Random | None = None,
    ) -> list[Event]:
        """Settle the lights-off grab: a given allocation, or uniformly at random cake by cake."""
        state = self.state
        if allocation is None:
            if state.phase is not Phase.GRAB:
                raise IllegalAction("there is no lights-off grab to settle", code="no_grab")
            chooser = rng or random.Random()
            alloc: dict[str, dict[str, int]] = {}
            for index, tier in enumerate(TIERS):
                for _ in range(state.pool[index]):
                    who = state.players[chooser.randrange(len(state.players))]
                    row = alloc.setdefault(who, {})
                    row[str(tier)] = row.get(str(tier), 0) + 1
            allocation = alloc
        self.verify_grab(allocation)
        n = state.throws
        events: list[Event] = []
        zy_holder: str | None = None
        for player in state.players:  # seat order: a stable event order
            counts = allocation.get(player, {})
            for tier in TIERS:
                count = counts.get(str(tier), 0)
                if not count:
                    continue
                if tier is Tier.ZHUANGYUAN:
                    zy_holder = player
                    continue
                events.append(Awarded(n, player, str(tier), count, None, "grab"))
        events.append(GameOver(n, "liubohei"))
        if zy_holder is not None:
            events.append(ZhuangyuanWon(zy_holder, None, None, None))
        events, after = self._then_next_set(events, fold(state, events))
        self.state = after
        self.events.extend(events)
        return events

    def _then_next_set(
        self, events: list[Event], state: GameState
    ) -> tuple[list[Event], GameState]:
        """一二会 (RULES.md §10.2): when a set is over (time not called) and sets are left, the
        next begins at once, its first throw by the player after the one who threw last."""
        if state.phase is not Phase.OVER or not state.sets_left:
            return events, state
        last = state.thrown_turn
        seat = state.seat_at(last) if last is not None else state.starter or 0
        starter = state.players[(seat + state.step) % len(state.players)]
        begun = SetStarted(state.set_number + 1, starter, state.throws or None)
        return [*events, begun], apply(state, begun)

    # -- results and records -----------------------------------------------------------------

    def result(self, events: bool = True) -> dict[str, Any]:
        """The ``--json`` object of ``bobing adjudicate`` (RULES.md §7).

        ``events=False`` leaves the event list out: serializing every event of the game is
        most of the cost, and a table server sends the result after every throw. With
        ``sets`` > 1 (一二会, §10.2) it describes the set in play (its events only) and adds
        ``set`` and ``sets``, each finished set's own object.
        """
        state = self.state
        if self.rules.sets == 1:
            return _result_of(state, self.events if events else None)
        # the events split by set only when they are shown (the server's per-throw result is not)
        parts: list[list[Event]] | list[None] = (
            self.set_events() if events else [None] * (len(state.done) + 1)
        )
        out = _result_of(state, parts[-1])
        out["set"] = state.set_number
        out["sets"] = [
            _result_of(done, part) for done, part in zip(state.done, parts, strict=False)
        ]
        return out

    def set_events(self) -> list[list[Event]]:
        """The events of each set so far, in order (一二会, §10.2): a set's list begins with
        its :class:`SetStarted` (the first set's with the start)."""
        parts: list[list[Event]] = [[]]
        for event in self.events:
            if isinstance(event, SetStarted):
                parts.append([])
            parts[-1].append(event)
        return parts

    @classmethod
    def replay(cls, rules: RuleSet, players: Sequence[str], events: Iterable[Event]) -> Game:
        """A game rebuilt from its stored events (the fold; nothing is re-decided)."""
        game = cls(rules, players)
        game._emit(list(events))
        return game

    def extended(self, events: Iterable[Event]) -> Game:
        """A copy of this game with ``events`` applied after its own (a log that grew
        elsewhere; nothing is re-decided, this game is left as it was)."""
        game = Game(self.rules, self.players)
        game.state = self.state
        game.events = list(self.events)
        game._emit(list(events))
        return game

    def to_record(self, *, seed: int | None = None, **extra: Any) -> dict[str, Any]:
        """This game as a RULES.md §6 record (replayable with :meth:`from_record`)."""
        return write_record(self.rules, self.players, self.events, seed=seed, **extra)

    @classmethod
    def from_record(cls, record: Mapping[str, Any], rules: RuleSet | None = None) -> Game:
        """Play a RULES.md §6 record, checking every entry (errors name the throw or key).

        ``rules`` plays it under other rules than its own, strictly: each throw must still be
        the turn of the player it names. To re-judge the same dice under other rules (turns
        may move), use :func:`bobing.engine.record.judge_record`.
        """
        return _play_record(cls, record, rules if rules is not None else record_rules(record))


def _result_of(state: GameState, events: Sequence[Event] | None) -> dict[str, Any]:
    """One game's (or one set's) RULES.md §7 object from its state and, if given, its events."""
    leader = None if state.ranked else state.leader()
    seat = state.current_seat
    out: dict[str, Any] = {
        "status": "over" if state.phase is Phase.OVER else "in_progress",
        "ended_by": state.ended_by,
        "next": None if seat is None else state.players[seat],
        "zhuangyuan": None
        if leader is None
        else {
            "player": state.players[leader.seat],
            "hand": None if leader.hand is None else str(leader.hand),
            "dice": leader.dice,
            "throw": leader.throw,
        },
        "holdings": {
            name: {TIER_IDS[i]: n for i, n in enumerate(state.held[seat]) if n}
            for seat, name in enumerate(state.players)
        },
        "pool": dict(zip(TIER_IDS, state.pool, strict=True)),
    }
    if state.ranked:
        out["holdings"] = {name: {} for name in state.players}
        out["pool"] = {}
        out["ranking"] = [entry.to_json() for entry in state.ranking()]
    if events is not None:
        out["events"] = [event.to_json() for event in events]
    out["phase"] = str(state.phase)
    out["throws"] = state.throws
    out["round"] = round_shown(state)
    if state.closed:
        out["closed"] = True  # time was called (RULES.md §8.1); absent otherwise
    if state.shared_zhuangyuan:
        out["zhuangyuan_cake"] = "shared"  # 分状元 (RULES.md §9.3); absent otherwise
    payments = state.payments()
    if payments is not None:
        out["payments"] = payments  # 反向博钱 (RULES.md §9.3, docs/rules.md); absent otherwise
    return out


def _play_record(cls: type[Game], record: Mapping[str, Any], rules: RuleSet) -> Game:
    """The body of :meth:`Game.from_record`: every entry validated, in order."""
    if not isinstance(record, Mapping):
        raise RecordError(
            "a record is a JSON object", code="record_not_mapping", type=type(record).__name__
        )
    if "players" not in record:
        raise RecordError("record has no players", code="record_no_players", key="players")
    players = record["players"]
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise RecordError("players must be a list of names", code="players_not_list", key="players")
    try:
        game = cls(rules, players)
    except InputError as exc:
        raise RecordError(
            f"players: {exc}", code="record_players", key="players", inner=exc
        ) from None
    seed = seed_of(record)
    try:
        game.start(**start_args(record.get("start")))
    except InputError as exc:
        raise RecordError(f"start: {exc}", code="record_start", key="start", inner=exc) from None
    throws = record.get("throws", [])
    if not isinstance(throws, list):
        raise RecordError("throws must be a list", code="throws_not_list", key="throws")
    grabs = _grab_allocations(record.get("grab"), rules)
    random_grab = random.Random(seed if seed is not None else 0)
    index = 0  # throws so far: a close is not a throw and takes no number
    for position, entry in enumerate(throws):
        if is_close(entry):
            _close(game, index)
            continue
        index += 1
        player, faces = throw_entry(index, entry)
        if game.phase is Phase.GRAB and rules.sets > 1:
            _settle_grab(game, grabs, random_grab)  # 一二会: the next set follows the grab
        if game.is_over:
            left = sum(1 for later in throws[position:] if not is_close(later))
            raise RecordError(
                f"throw {index}: the game is already over ({left} throw(s) after the end)",
                code="throw_after_end",
                throw=index,
                count=left,
            )
        if game.next_player is None:
            raise RecordError(
                f"throw {index}: the lights-off grab must be settled before any more throws",
                code="throw_during_grab",
                throw=index,
            )
        try:
            game.throw(faces, player=player, tiaohou=faces is None)
        except (IllegalAction, InputError) as exc:
            raise RecordError(
                f"throw {index}: {exc}", code="record_throw", throw=index, inner=exc
            ) from None
    if game.phase is Phase.GRAB:
        _settle_grab(game, grabs, random_grab)
    if grabs:
        raise RecordError(
            "grab: the game did not end with a lights-off grab (六勃黑 under grab_end)",
            code="grab_without_grab",
            key="grab",
        )
    return game


def _grab_allocations(grab: Any, rules: RuleSet) -> list[dict[str, Any]]:
    """A record's ``grab``: one allocation, or (一二会, ``sets`` > 1) a list of them, one per
    lights-off grab in play order; a grab with none left is settled at random from the seed."""
    if grab is None:
        return []
    if isinstance(grab, list) and rules.sets > 1:
        if not all(isinstance(item, dict) for item in grab):
            raise RecordError(
                "grab must map player names to tier counts", code="grab_not_object", key="grab"
            )
        return list(grab)
    if not isinstance(grab, dict):
        raise RecordError(
            "grab must map player names to tier counts", code="grab_not_object", key="grab"
        )
    return [grab]


def _settle_grab(game: Game, grabs: list[dict[str, Any]], chooser: random.Random) -> None:
    """Settle the grab in play with the record's next allocation, else at random."""
    if grabs:
        game.grab(grabs.pop(0))
    else:
        game.grab(rng=chooser)


def _close(game: Game, throws: int) -> None:
    """Call time in a record after ``throws`` throws, naming the place in errors."""
    if game.is_over:
        raise RecordError(
            f"close after throw {throws}: the game is already over",
            code="close_after_end",
            key="throws",
            throw=throws,
        )
    if game.state.closed:
        raise RecordError(
            f"close after throw {throws}: time was already called (a record holds one close)",
            code="close_twice",
            key="throws",
            throw=throws,
        )
    if game.next_player is None:
        raise RecordError(
            f"close after throw {throws}: the lights-off grab must be settled first",
            code="close_during_grab",
            key="throws",
            throw=throws,
        )
    game.close()


# The state's names stay importable from here, where the game was one module.
__all__ = [
    "MAX_NAME_LENGTH",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Game",
    "GameState",
    "Lot",
    "Phase",
    "StandingEntry",
    "Winner",
    "apply",
    "fold",
    "new_state",
    "validate_players",
]
