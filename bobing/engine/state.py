"""A game's state as an immutable fold of its events (RULES.md §4, §8): :func:`apply` is the
pure step, replaying a game's events reproduces its state exactly. The commands that decide
which events happen are :class:`bobing.engine.game.Game`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any, NamedTuple

from bobing.engine.errors import InputError
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
from bobing.engine.hands import TIERS, Hand, Tier
from bobing.engine.ranked import BestThrow, RankingEntry, better, rank_players
from bobing.engine.switches import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Award,
    Direction,
    Money,
    RuleSet,
    ZhuangyuanCake,
)

MAX_NAME_LENGTH = 24

TIER_INDEX: dict[str, int] = {str(t): i for i, t in enumerate(TIERS)}
ZHUANGYUAN_INDEX = 0  # index of the 状元 tier


class Phase(StrEnum):
    """Where a game is: before the start, main play, the final round(s), the grab, over."""

    NOT_STARTED = "not_started"
    MAIN = "main"
    FINAL = "final"
    GRAB = "grab"
    OVER = "over"


class Lot(NamedTuple):
    """One cake in a player's hands, with the throw that brought it."""

    tier: int
    seat: int
    throw: int
    protected: bool  # brought by 插金花: never chased


class StandingEntry(NamedTuple):
    """A player's 状元 standing: the hand, its dice, its throw and its rank key."""

    hand: Hand
    dice: str
    throw: int
    key: tuple[int, int, int]


class Winner(NamedTuple):
    """Who has (or leads for) the 状元 cake; ``hand`` None for a grabbed cake."""

    seat: int
    hand: Hand | None
    dice: str | None
    throw: int | None


class GameState(NamedTuple):
    """Everything about a game at one moment. Immutable; :func:`apply` makes the next one."""

    rules: RuleSet
    players: tuple[str, ...]
    seat_of: Mapping[str, int]
    phase: Phase
    starter: int | None
    turn: int  # turns taken, skipped ones included; turn k belongs to round k // len(players)
    throws: int  # throws so far (跳猴 included, skipped turns not)
    pool: tuple[int, ...]  # cakes left per tier, TIERS order
    held: tuple[tuple[int, ...], ...]  # per seat, cakes per tier
    lots: tuple[Lot, ...]
    standings: tuple[StandingEntry | None, ...]
    skip: tuple[bool, ...]
    final_until: int | None  # the last turn index once the final phase began
    ended_by: str | None
    winner: Winner | None
    close_until: int | None = None  # the last turn index once time was called (§8.1)
    thrown_turn: int | None = None  # the turn index of the latest throw
    best: tuple[BestThrow | None, ...] = ()  # ranked mode (§8.2): each seat's best throw
    set_number: int = 1  # 一二会 (§10.2): the set in play, from 1
    done: tuple[GameState, ...] = ()  # 一二会: each finished set's last state, in order

    @property
    def sets_left(self) -> bool:
        """一二会 (§10.2): whether another set begins when this one is over (time not called)."""
        return self.set_number < self.rules.sets and self.close_until is None

    def totals(self) -> tuple[tuple[int, ...], ...]:
        """What each seat takes home over every set so far (finished ones and the one in
        play), cakes per tier in TIERS order: the sum of each set's holdings (§10.2)."""
        rows = [list(row) for row in self.held]
        for finished in self.done:
            for seat, row in enumerate(finished.held):
                for tier, count in enumerate(row):
                    rows[seat][tier] += count
        return tuple(tuple(row) for row in rows)

    @property
    def closed(self) -> bool:
        """Whether time has been called (RULES.md §8.1)."""
        return self.close_until is not None

    @property
    def ranked(self) -> bool:
        """Whether the table plays for ranked prizes (RULES.md §8.2) instead of cakes."""
        return self.rules.award is Award.RANKED

    @property
    def shared_zhuangyuan(self) -> bool:
        """分状元 (RULES.md §9.3): the 状元 cake is shared by the table, held by nobody."""
        return self.rules.zhuangyuan_cake is ZhuangyuanCake.SHARED and not self.ranked

    def payments(self) -> dict[str, Any] | None:
        """反向博钱 (``money`` = ``pay``, RULES.md §9.3): what each person pays into the kitty
        for what they hold now (the end: what they pay), and the kitty's total; None when off.

        Cakes: each held cake costs its tier's ``values`` entry; ranked prizes: their
        ``value``. Cakes nobody holds (the pool, a shared 状元 cake) cost nobody anything.
        """
        if self.rules.money is not Money.PAY:
            return None
        owed: dict[str, int | float] = {}
        if self.ranked:
            for entry in self.ranking():
                owed[entry.player] = entry.value or 0
            owed = {name: owed.get(name, 0) for name in self.players}
        else:
            values = [self.rules.value_of(t) for t in TIERS]
            for name, row in zip(self.players, self.held, strict=True):
                owed[name] = sum(count * value for count, value in zip(row, values, strict=True))
        players = {name: _money(amount) for name, amount in owed.items()}
        return {"players": players, "kitty": _money(sum(owed.values()))}

    def play_order(self) -> list[int]:
        """Seats in play order from the starter (seat order before the start)."""
        if self.starter is None:
            return list(range(len(self.players)))
        return [self.seat_at(k) for k in range(len(self.players))]

    def ranking(self) -> tuple[RankingEntry, ...]:
        """Ranked mode: every player by best throw, with the prize it holds now (§8.2)."""
        best = self.best or (None,) * len(self.players)
        return rank_players(self.rules, self.players, self.play_order(), best)

    @property
    def step(self) -> int:
        """+1 for clockwise play, -1 for counterclockwise (seats are listed clockwise)."""
        return -1 if self.rules.direction is Direction.COUNTERCLOCKWISE else 1

    def seat_at(self, turn: int) -> int:
        """The seat that plays turn index ``turn``."""
        assert self.starter is not None
        return (self.starter + self.step * turn) % len(self.players)

    @property
    def current_seat(self) -> int | None:
        """The seat whose turn it is (None before the start, during the grab, or when over)."""
        if self.phase not in (Phase.MAIN, Phase.FINAL):
            return None
        return self.seat_at(self.turn)

    @property
    def round(self) -> int:
        """The current round, from 1."""
        return self.turn // len(self.players) + 1

    @property
    def ender(self) -> int | None:
        """The seat before the starter: the last to throw in every round."""
        if self.starter is None:
            return None
        return (self.starter - self.step) % len(self.players)

    def holdings(self, player: str) -> dict[Tier, int]:
        """Cakes ``player`` holds, non-zero tiers only, highest tier first."""
        counts = self.held[self.seat_of[player]]
        return {TIERS[i]: n for i, n in enumerate(counts) if n}

    @property
    def unclaimed_ordinary(self) -> int:
        """Non-状元 cakes still in the pool."""
        return sum(self.pool[1:])

    @property
    def only_zhuangyuan_left(self) -> bool:
        """Cakes in play: every ordinary cake is out and only the 状元 is still to be decided
        (§4 step 7: the round ends once someone stands as 状元, the final phase)."""
        return (
            not self.ranked
            and self.phase in (Phase.MAIN, Phase.FINAL)
            and self.unclaimed_ordinary == 0
            and self.pool[ZHUANGYUAN_INDEX] > 0
        )

    def leader(self) -> Winner | None:
        """The best standing (ties to the earlier throw), or the awarded winner once over."""
        if self.winner is not None:
            return self.winner
        best: StandingEntry | None = None
        best_seat = -1
        for seat, entry in enumerate(self.standings):
            if entry is None:
                continue
            if (
                best is None
                or entry.key > best.key
                or (entry.key == best.key and entry.throw < best.throw)
            ):
                best, best_seat = entry, seat
        if best is None:
            return None
        return Winner(best_seat, best.hand, best.dice, best.throw)


def new_state(rules: RuleSet, players: Sequence[str]) -> GameState:
    """The state before the start, validating the seat list."""
    count = len(players) if isinstance(players, Sequence) and not isinstance(players, str) else 0
    if rules.max_players < count <= MAX_PLAYERS:
        raise InputError(
            f"{count} players, but max_players is {rules.max_players}: a table under "
            f"these rules seats {MIN_PLAYERS} to {rules.max_players} (max_players may be raised "
            f"up to {MAX_PLAYERS})",
            code="players_over_max",
            key="players",
            count=count,
            maximum=rules.max_players,
            ceiling=MAX_PLAYERS,
        )
    names = validate_players(players, rules.max_players)
    n = len(names)
    return GameState(
        rules=rules,
        players=names,
        seat_of={name: i for i, name in enumerate(names)},
        phase=Phase.NOT_STARTED,
        starter=None,
        turn=0,
        throws=0,
        pool=(0,) * len(TIERS) if rules.award is Award.RANKED else tuple(rules.prizes),
        held=((0,) * len(TIERS),) * n,
        lots=(),
        standings=(None,) * n,
        skip=(False,) * n,
        final_until=None,
        ended_by=None,
        winner=None,
        best=(None,) * n,
    )


def validate_players(players: Sequence[str], maximum: int = MAX_PLAYERS) -> tuple[str, ...]:
    """Check a seat list: 2-30 distinct, non-empty names of at most 24 characters.

    The table's own limit, ``rules.max_players`` (12 unless agreed), is checked by the game.
    """
    if isinstance(players, str) or not isinstance(players, Sequence):
        raise InputError("players must be a list of names", code="players_not_list", key="players")
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= maximum:
        raise InputError(
            f"a table seats {MIN_PLAYERS} to {maximum} players, not {len(names)}",
            code="player_count",
            key="players",
            count=len(names),
            minimum=MIN_PLAYERS,
            maximum=maximum,
        )
    seen: set[str] = set()
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise InputError(
                f"invalid player name {name!r}", code="bad_name", key="players", name=name
            )
        if name != name.strip() or len(name) > MAX_NAME_LENGTH:
            raise InputError(
                f"invalid player name {name!r}: no surrounding spaces, "
                f"at most {MAX_NAME_LENGTH} characters",
                code="bad_name",
                key="players",
                name=name,
                limit=MAX_NAME_LENGTH,
            )
        if name in seen:
            raise InputError(
                f"duplicate player name {name!r}", code="duplicate_name", key="players", name=name
            )
        seen.add(name)
    return names


# -- the fold ---------------------------------------------------------------------------------


def _advance(state: GameState) -> GameState:
    return state._replace(turn=state.turn + 1)


def _move(state: GameState, event: Awarded) -> GameState:
    tier = TIER_INDEX[event.tier]
    seat = state.seat_of[event.player]
    held = list(state.held)
    pool = state.pool
    lots = state.lots
    if event.source is None:
        pool = pool[:tier] + (pool[tier] - event.count,) + pool[tier + 1 :]
    else:
        source = state.seat_of[event.source]
        # Take the newest unprotected cakes first; a sweep takes every cake of the tier.
        mine = sorted(
            (i for i, lot in enumerate(lots) if lot.seat == source and lot.tier == tier),
            key=lambda i: (not lots[i].protected, lots[i].throw, i),
            reverse=True,
        )[: event.count]
        drop = set(mine)
        lots = tuple(lot for i, lot in enumerate(lots) if i not in drop)
        row = list(held[source])
        row[tier] -= event.count
        held[source] = tuple(row)
    row = list(held[seat])
    row[tier] += event.count
    held[seat] = tuple(row)
    if tier != ZHUANGYUAN_INDEX:
        protected = event.reason == "chajinhua"
        throw = event.throw or 0
        lots = lots + (Lot(tier, seat, throw, protected),) * event.count
    return state._replace(pool=pool, held=tuple(held), lots=lots)


def apply(state: GameState, event: Event) -> GameState:
    """The state after ``event``: the fold step, with no side effects."""
    if isinstance(event, Thrown):
        after = state._replace(turn=state.turn + 1, throws=event.throw, thrown_turn=state.turn)
        if event.dice is not None and state.rules.award is Award.RANKED:
            seat = state.seat_of[event.player]
            new = better(state.rules, state.best[seat], event.dice, event.throw)
            if new is not None:
                after = after._replace(best=state.best[:seat] + (new,) + state.best[seat + 1 :])
        return after
    if isinstance(event, Closed):
        return state._replace(close_until=event.until_turn)
    if isinstance(event, Awarded):
        return _move(state, event)
    if isinstance(event, StandingSet):
        seat = state.seat_of[event.player]
        c = state.rules.classify(event.dice)
        entry = StandingEntry(c.hand, event.dice, event.throw, state.rules.zhuangyuan_key(c))
        standings = state.standings[:seat] + (entry,) + state.standings[seat + 1 :]
        return state._replace(standings=standings)
    if isinstance(event, Skipped):
        seat = state.seat_of[event.player]
        skip = state.skip[:seat] + (False,) + state.skip[seat + 1 :]
        return state._replace(turn=state.turn + 1, skip=skip)
    if isinstance(event, SkipNext):
        seat = state.seat_of[event.player]
        skip = state.skip[:seat] + (True,) + state.skip[seat + 1 :]
        return state._replace(skip=skip)
    if isinstance(event, Started):
        return state._replace(phase=Phase.MAIN, starter=state.seat_of[event.starter])
    if isinstance(event, FinalStarted):
        return state._replace(phase=Phase.FINAL, final_until=event.until_turn)
    if isinstance(event, GrabOpened):
        return state._replace(phase=Phase.GRAB)
    if isinstance(event, GameOver):
        over = state._replace(phase=Phase.OVER, ended_by=event.ended_by)
        if state.shared_zhuangyuan and state.pool[ZHUANGYUAN_INDEX]:
            # 分状元: however the game ends, the 状元 cake is the table's, in nobody's hands.
            over = over._replace(pool=(0, *state.pool[1:]))
        return over
    if isinstance(event, SetStarted):
        return _next_set(state, event)
    if isinstance(event, ZhuangyuanWon):
        seat = state.seat_of[event.player]
        hand = Hand(event.hand) if event.hand is not None else None
        winner = Winner(seat, hand, event.dice, event.throw)
        if state.pool[ZHUANGYUAN_INDEX] > 0:
            award = Awarded(event.throw, event.player, "zhuangyuan", 1, None, "zhuangyuan")
            state = _move(state, award)
        return state._replace(winner=winner)
    raise InputError(f"cannot apply event {event!r}", code="unknown_event", event=event)


def _next_set(state: GameState, event: SetStarted) -> GameState:
    """一二会 (RULES.md §10.2): the finished set is kept; the next begins with a full pool, the
    same seats and nothing held, its starter first; throws go on counting. Everything else
    is as :func:`new_state` makes it, so a set starts as the game did."""
    return new_state(state.rules, state.players)._replace(
        phase=Phase.MAIN,
        starter=state.seat_of[event.starter],
        throws=state.throws,
        set_number=event.number,
        done=(*state.done, state._replace(done=())),
    )


def fold(state: GameState, events: Iterable[Event]) -> GameState:
    """Apply many events in order."""
    for event in events:
        state = apply(state, event)
    return state


def _money(amount: int | float) -> int | float:
    """An amount as JSON shows it: whole numbers stay whole, others to 0.01."""
    if isinstance(amount, float):
        return int(amount) if amount.is_integer() else round(amount, 2)
    return amount


def round_shown(state: GameState) -> int:
    """The current round, or the last one played once the game is over (0 before the start)."""
    if state.starter is None:
        return 0
    if state.phase is Phase.OVER or state.phase is Phase.GRAB:
        return max(state.turn - 1, 0) // len(state.players) + 1
    return state.round


__all__ = [
    "MAX_NAME_LENGTH",
    "TIER_INDEX",
    "ZHUANGYUAN_INDEX",
    "GameState",
    "Lot",
    "Phase",
    "StandingEntry",
    "Winner",
    "apply",
    "fold",
    "new_state",
    "round_shown",
    "validate_players",
]
