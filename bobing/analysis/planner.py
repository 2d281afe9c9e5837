"""Planning an event: how long the game takes, what each player can expect, what it costs.

The clock comes from simulated throws times the seconds a throw takes; with several tables
every table plays its own set at the same time, so the event lasts as long as its slowest
table. A prize list (:mod:`bobing.analysis.prizes`) is what each table plays for: its counts
per tier replace the rule set's ``prizes``, and its cost is split evenly (AA) or set against a
fixed contribution per person. A *ranked* prize list (RULES.md §8.2) gives one prize per person
by their best throw over ``rounds`` rounds or until time is called. The prize-list names stay
importable from here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import numpy as np

from bobing.analysis.bell import SECONDS_PER_THROW, Bell
from bobing.analysis.prizes import (
    Prize,
    PrizeList,
    amount,
    money,
    parse_prizes,
    parse_ranked_prizes,
    read_prizes,
    read_ranked_prizes,
    tier_from_text,
)
from bobing.analysis.ranked import RankedResult, simulate_ranked
from bobing.analysis.simulate import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Distribution,
    SimulationResult,
    check_tiaohou,
    simulate,
)
from bobing.engine.errors import InputError
from bobing.engine.hands import TIERS, Tier
from bobing.engine.rules import Award, Money, RankedPrize, RuleSet, ZhuangyuanCake
from bobing.engine.switches import MAX_ROUNDS

ENGINE_SEATS = 12
"""The most players the game engine seats at one table unless the rules raise ``max_players``."""


def split_tables(players: int, tables: int) -> list[int]:
    """Players per table, as even as possible, larger tables first.

    >>> split_tables(13, 2), split_tables(30, 3)
    ([7, 6], [10, 10, 10])
    """
    if tables < 1:
        raise InputError(f"invalid number of tables {tables}: at least 1", value=tables)
    if players < MIN_PLAYERS * tables:
        raise InputError(
            f"{players} players cannot fill {tables} tables of at least {MIN_PLAYERS}",
            value=players,
        )
    sizes = [players // tables + (1 if i < players % tables else 0) for i in range(tables)]
    if sizes[0] > MAX_PLAYERS:
        need = math.ceil(players / MAX_PLAYERS)
        raise InputError(
            f"{players} players at {tables} table(s) makes tables of {sizes[0]}; at most "
            f"{MAX_PLAYERS} per table: use --tables {need} or more",
            value=players,
        )
    return sizes


@dataclass(frozen=True)
class Span:
    """A duration in minutes: mean, median and the middle 90 %."""

    mean: float
    p5: float
    p50: float
    p95: float

    def to_json(self) -> dict[str, float]:
        """``{"mean", "p5", "p50", "p95"}`` in minutes, one decimal."""
        return {k: round(v, 1) for k, v in vars(self).items()}


@dataclass(frozen=True, eq=False)
class TablePlan:
    """One table: its players and how its game (or ranked session) goes."""

    players: int
    result: SimulationResult | RankedResult
    minutes: Span

    @property
    def cakes_per_player(self) -> dict[Tier, float]:
        """Expected cakes per player and tier (all seats together / players); none when
        ranked."""
        if isinstance(self.result, RankedResult):
            return dict.fromkeys(TIERS, 0.0)
        per = self.result.tally.seat_tier.sum(axis=0) / self.result.games / self.players
        return {tier: float(per[i]) for i, tier in enumerate(TIERS)}

    def to_json(self) -> dict[str, Any]:
        """One table of ``bobing plan --json``."""
        result = self.result
        out: dict[str, Any] = {
            "players": self.players,
            "minutes": self.minutes.to_json(),
            "throws": result.throws.summary(),
        }
        if isinstance(result, RankedResult):
            ranked = result.to_json()
            out["seats"] = ranked["seats"]
            out["winning_hand"] = ranked["winning_hand"]
            out["ended_by"] = ranked["ended_by"]
            return out
        if result.bell is not None:
            out["bell"] = result.to_json()["bell"]
            out["ended_by"] = {k: round(v, 6) for k, v in result.ended_by.items()}
        out["rounds"] = result.rounds.summary()
        out["cakes_per_player"] = {str(t): round(v, 4) for t, v in self.cakes_per_player.items()}
        out["seats"] = [seat.to_json() for seat in result.seats]
        return out


@dataclass(frozen=True, eq=False)
class Plan:
    """What ``bobing plan`` reports."""

    rules: RuleSet
    players: int
    tables: tuple[TablePlan, ...]
    seconds_per_throw: float
    minutes: Span
    """The whole event: the slowest table decides."""
    prizes: PrizeList | None
    extra_cost: Decimal
    games: int
    seed: int
    contribution: Decimal | None = None
    """What each person pays in, when the event collects a fixed amount (else AA)."""
    bell: Bell | None = None
    """The time limit, when one was given: time is called after ``bell.throws`` throws."""

    @property
    def over_before_bell(self) -> float | None:
        """The chance that every table is over before the bell (tables play independently)."""
        if self.bell is None:
            return None
        chance = 1.0
        for table in self.tables:
            result = table.result
            if isinstance(result, RankedResult):
                chance *= result.ended_by["rounds"]
            else:
                chance *= result.over_before_bell
        return chance

    @property
    def ranked(self) -> bool:
        """One prize per person by best throw (RULES.md §8.2) instead of cakes per throw."""
        return self.rules.award is Award.RANKED

    @property
    def ranked_prizes(self) -> tuple[RankedPrize, ...]:
        """The ranked prize list each table plays for (empty for cakes)."""
        return (self.rules.ranked_prizes or ()) if self.ranked else ()

    @property
    def ranked_set_cost(self) -> Decimal:
        """What one ranked set costs (prizes without a value count as 0)."""
        return sum((p.count * Decimal(str(p.value or 0)) for p in self.ranked_prizes), Decimal(0))

    @property
    def unawarded(self) -> int:
        """Ranked prizes left over because a table has fewer players than prizes (all tables)."""
        units = sum(p.count for p in self.ranked_prizes)
        return sum(max(0, units - table.players) for table in self.tables)

    @property
    def cakes_per_player(self) -> dict[Tier, float]:
        """Expected cakes per player and tier, over every table."""
        total = dict.fromkeys(TIERS, 0.0)
        for table in self.tables:
            for tier, value in table.cakes_per_player.items():
                total[tier] += value * table.players
        return {tier: value / self.players for tier, value in total.items()}

    @property
    def prize_cost(self) -> Decimal:
        """Every table's set of prizes."""
        if self.ranked:
            return self.ranked_set_cost * len(self.tables)
        return self.prizes.cost * len(self.tables) if self.prizes else Decimal(0)

    @property
    def total_cost(self) -> Decimal:
        """Prizes plus the other shared costs."""
        return self.prize_cost + self.extra_cost

    @property
    def per_person(self) -> Decimal:
        """Each person's share (AA), to the fen."""
        return (self.total_cost / self.players).quantize(Decimal("0.01"))

    @property
    def collected(self) -> Decimal | None:
        """Everyone's contribution together (None without a fixed contribution)."""
        return None if self.contribution is None else self.contribution * self.players

    @property
    def balance(self) -> Decimal | None:
        """Collected minus spent: a surplus above 0 (say, for the class fund), a deficit below
        (say, the organiser covers the overrun); None without a fixed contribution."""
        collected = self.collected
        return None if collected is None else collected - self.total_cost

    @property
    def value_per_player(self) -> float | None:
        """Expected value of the prizes one player takes home (by each tier's mean price; for
        ranked prizes, by the value of the prize each place wins)."""
        if self.ranked:
            total = 0.0
            for table in self.tables:
                assert isinstance(table.result, RankedResult)
                values = table.result.expected_value()
                if values is None:
                    return None
                total += sum(values)
            return total / self.players
        if self.prizes is None:
            return None
        value = 0.0
        for tier, cakes in self.cakes_per_player.items():
            count = self.prizes.counts[TIERS.index(tier)]
            if count:
                value += cakes * float(self.prizes.tier_cost(tier)) / count
        return value

    @property
    def pays_per_player(self) -> float | None:
        """反向博钱 (``money`` = ``pay``, RULES.md §9.3): what one person is expected to pay into
        the kitty for what they win (None when winners receive). A shared 状元 cake (分状元)
        costs nobody anything."""
        rules = self.rules
        if rules.money is not Money.PAY:
            return None
        if self.ranked:
            total = 0.0
            for table in self.tables:
                assert isinstance(table.result, RankedResult)
                values = table.result.expected_value()
                total += sum(values or ())
            return total / self.players
        shared = rules.zhuangyuan_cake is ZhuangyuanCake.SHARED
        return sum(
            cakes * float(rules.value_of(tier))
            for tier, cakes in self.cakes_per_player.items()
            if not (shared and tier is Tier.ZHUANGYUAN)
        )

    def _contribution_json(self) -> dict[str, float] | None:
        if self.contribution is None or self.collected is None or self.balance is None:
            return None
        return {
            "per_person": money(self.contribution),
            "collected": money(self.collected),
            "balance": money(self.balance),
        }

    def to_json(self) -> dict[str, Any]:
        """The ``bobing plan --json`` object."""
        prizes: dict[str, Any] | None = None
        if self.ranked:
            prizes = {
                "ranked": [p.to_json() for p in self.ranked_prizes],
                "set_cost": money(self.ranked_set_cost),
                "sets": len(self.tables),
                "prize_cost": money(self.prize_cost),
                "unawarded": self.unawarded,
            }
        elif self.prizes is not None:
            prizes = {
                **self.prizes.to_json(),
                "sets": len(self.tables),
                "prize_cost": money(self.prize_cost),
            }
        value = self.value_per_player
        return {
            "players": self.players,
            "rules": self.rules.overrides(),
            "games": self.games,
            "seed": self.seed,
            "seconds_per_throw": self.seconds_per_throw,
            "minutes": self.minutes.to_json(),
            "award": str(self.rules.award),
            "rounds": self.rules.rounds,
            "tables": [table.to_json() for table in self.tables],
            "cakes_per_player": None
            if self.ranked
            else {
                "mean": round(sum(self.cakes_per_player.values()), 4),
                "by_tier": {str(t): round(v, 4) for t, v in self.cakes_per_player.items()},
            },
            "prizes": prizes,
            "extra_cost": money(self.extra_cost),
            "total_cost": money(self.total_cost),
            "per_person": money(self.per_person),
            "contribution": self._contribution_json(),
            "bell": None
            if self.bell is None
            else {**self.bell.to_json(), "over_before_bell": round(self.over_before_bell or 0, 6)},
            "value_per_player": round(value, 2) if value is not None else None,
            **self._pays_json(),
        }

    def _pays_json(self) -> dict[str, Any]:
        """``"pays"`` only under ``money`` = ``pay``: old plans read the same."""
        pays = self.pays_per_player
        if pays is None:
            return {}
        return {"pays": {"per_person": round(pays, 2), "kitty": round(pays * self.players, 2)}}


def _span(throws: Distribution, seconds: float) -> Span:
    minutes = seconds / 60.0
    return Span(
        throws.mean * minutes,
        throws.quantile(0.05) * minutes,
        throws.quantile(0.5) * minutes,
        throws.quantile(0.95) * minutes,
    )


def _slowest(tables: list[TablePlan], seconds: float, seed: int, draws: int = 50_000) -> Span:
    """The event's duration: the longest of the tables' independent games."""
    if len(tables) == 1:
        return tables[0].minutes
    rng = np.random.default_rng(seed)
    longest = np.zeros(draws)
    for table in tables:
        counts = table.result.throws.counts
        sample = rng.choice(len(counts), size=draws, p=counts / counts.sum())
        longest = np.maximum(longest, sample)
    minutes = longest * seconds / 60.0
    return Span(
        float(minutes.mean()),
        float(np.quantile(minutes, 0.05)),
        float(np.quantile(minutes, 0.5)),
        float(np.quantile(minutes, 0.95)),
    )


def plan(
    rules: RuleSet,
    players: int,
    *,
    tables: int = 1,
    seconds_per_throw: float = SECONDS_PER_THROW,
    prizes: PrizeList | None = None,
    extra_cost: Decimal | float | str = 0,
    contribution: Decimal | float | str | None = None,
    games: int = 20_000,
    seed: int = 0,
    tiaohou: float = 0.0,
    ranked_prizes: Sequence[RankedPrize] | None = None,
    rounds: int | None = None,
    minutes: float | None = None,
) -> Plan:
    """Plan an event of ``players`` people at ``tables`` tables.

    ``prizes`` is what each table plays for, cake by cake; ``ranked_prizes`` (or rules with
    ``award`` = ``ranked``) a ranked list instead: one prize per person by best throw over
    ``rounds`` rounds (or the rules' ``rounds``). ``minutes``: time is called after that long
    at ``seconds_per_throw`` (RULES.md §8.1); a ranked session then needs no ``rounds``.
    """
    if not math.isfinite(seconds_per_throw) or seconds_per_throw <= 0:
        raise InputError(
            f"invalid seconds per throw {seconds_per_throw!r}: a positive number",
            value=seconds_per_throw,
        )
    extra = amount(extra_cost, "extra cost")
    each = None if contribution is None else amount(contribution, "contribution")
    if games < 100:
        raise InputError(f"invalid number of games {games}: at least 100 for a plan", value=games)
    check_tiaohou(tiaohou)
    sizes = split_tables(players, tables)
    bell = Bell(minutes, seconds_per_throw) if minutes is not None else None
    table_rules = _table_rules(rules, prizes, ranked_prizes, rounds, timed=bell is not None)
    by_size: dict[int, SimulationResult | RankedResult] = {}
    for size in sorted(set(sizes)):
        if table_rules.award is Award.RANKED:
            by_size[size] = simulate_ranked(
                table_rules, size, games, seed=seed + size, tiaohou=tiaohou, bell=bell
            )
        else:
            by_size[size] = simulate(
                table_rules, size, games, seed=seed + size, tiaohou=tiaohou, bell=bell
            )
    plans = [
        TablePlan(size, by_size[size], _span(by_size[size].throws, seconds_per_throw))
        for size in sizes
    ]
    return Plan(
        rules=table_rules,
        players=players,
        tables=tuple(plans),
        seconds_per_throw=seconds_per_throw,
        minutes=_slowest(plans, seconds_per_throw, seed),
        prizes=prizes,
        extra_cost=extra,
        games=games,
        seed=seed,
        contribution=each,
        bell=bell,
    )


def _table_rules(
    rules: RuleSet,
    prizes: PrizeList | None,
    ranked_prizes: Sequence[RankedPrize] | None,
    rounds: int | None,
    *,
    timed: bool = False,
) -> RuleSet:
    """The rules each table plays: with the prize list's counts, or ranked with its list."""
    if rounds is not None and not 1 <= rounds <= MAX_ROUNDS:
        raise InputError(
            f"invalid number of rounds {rounds}: 1 to {MAX_ROUNDS}",
            code="plan_bad_rounds",
            value=rounds,
            maximum=MAX_ROUNDS,
        )
    if ranked_prizes is None and rules.award is not Award.RANKED:
        if rounds is not None:
            raise InputError(
                "rounds only apply to ranked prizes (a game for cakes ends when they are gone):"
                " add --ranked with a ranked prize list",
                code="plan_rounds_without_ranked",
                value=rounds,
            )
        return prizes.apply_to(rules) if prizes is not None else rules
    if prizes is not None:
        raise InputError(
            "ranked prizes go one per person by best throw, not by tier: read the prize list as"
            " a ranked list (--ranked), best first",
            code="plan_tiers_with_ranked",
        )
    chosen = tuple(ranked_prizes) if ranked_prizes is not None else rules.ranked_prizes
    wanted = rounds or rules.rounds
    if not wanted and not timed:
        raise InputError(
            "a ranked plan needs the number of rounds each person throws: --rounds N (or"
            ' "rounds" in the rule file), or a time limit (--minutes)',
            code="plan_needs_rounds",
        )
    return replace(rules, award=Award.RANKED, ranked_prizes=chosen, rounds=wanted)


__all__ = [
    "ENGINE_SEATS",
    "Plan",
    "Prize",
    "PrizeList",
    "Span",
    "TablePlan",
    "parse_prizes",
    "parse_ranked_prizes",
    "plan",
    "read_prizes",
    "read_ranked_prizes",
    "split_tables",
    "tier_from_text",
]
