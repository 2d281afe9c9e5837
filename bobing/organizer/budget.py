"""The event's money: what everyone pays in, what is spent, and what is left or missing.

The 2013 company party: 13 × 200 元 = 2,600 in; dinner 1,088, wine 208, mooncakes 66.6 and
prizes 1,270 out = 2,632.6; the organiser covers the 32.6 (超出者由组织者消化). The class
event: 44 × 50 = 2,200 in, 4 tables × 550 of prizes out; anything left goes to the class fund
(剩余计入班费).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError
from bobing.organizer.customs import DonatedSet, parse_surplus, refund_shares
from bobing.organizer.text import amount, display_text

MAX_AMOUNT = 10_000_000
MAX_COSTS = 30
MAX_COST_NAME = 40


@dataclass(frozen=True, slots=True)
class FixedCost:
    """A cost that does not depend on the prizes: the dinner, the drinks, the bowl."""

    name: str
    amount: float | int

    def to_json(self) -> dict[str, Any]:
        """``{"name", "amount"}``."""
        return {"name": self.name, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Budget:
    """Contribution per person and the fixed costs; the prizes come from the prize sets."""

    contribution: float | int = 0
    fixed_costs: tuple[FixedCost, ...] = ()
    surplus: str = "fund"
    """``fund``: a surplus is kept (剩余计入班费); ``refund``: returned to the payers (多还)."""

    def summary(
        self,
        people: int,
        prizes: float,
        *,
        payers: Sequence[str] | None = None,
        came: Sequence[str] | None = None,
        donated: Sequence[DonatedSet] = (),
    ) -> BudgetSummary:
        """Income, costs and the balance for ``people`` who paid and prizes worth ``prizes``.

        ``payers`` (their names, roster order) who ``came`` (None: all of them) share a
        refunded surplus; a payer who did not come is listed with 0 (RULES.md §10.1: 交费后未能
        参加者不可退费). ``donated`` are the prize sets given (already left out of ``prizes``),
        listed at cost 0.
        """
        income = _money(self.contribution * people)
        fixed = _money(sum(c.amount for c in self.fixed_costs))
        balance = _money(income - fixed - prizes)
        refunds: list[dict[str, Any]] = []
        if self.surplus == "refund" and balance > 0:
            everyone = list(payers or [])
            present = set(everyone if came is None else came)
            shares = {
                s["name"]: s for s in refund_shares(balance, [n for n in everyone if n in present])
            }
            refunds = [
                shares.get(name, {"name": name, "amount": 0, "no_show": True}) for name in everyone
            ]
        return BudgetSummary(
            people=people,
            contribution=self.contribution,
            income=income,
            fixed_costs=self.fixed_costs,
            fixed_total=fixed,
            prizes=_money(prizes),
            spent=_money(fixed + prizes),
            balance=balance,
            surplus_use=self.surplus,
            refunds=tuple(refunds),
            donated=tuple(donated),
        )

    def to_json(self) -> dict[str, Any]:
        """``{"contribution", "fixed_costs": [{"name", "amount"}]}``, and ``surplus`` when it
        is ``refund``."""
        out: dict[str, Any] = {
            "contribution": self.contribution,
            "fixed_costs": [c.to_json() for c in self.fixed_costs],
        }
        if self.surplus != "fund":
            out["surplus"] = self.surplus
        return out


def prize_cost(
    per_table: float, tables: int, playoff: float, donated: Sequence[DonatedSet] = ()
) -> float:
    """What the prizes cost: every table's set and the 王中王 prize, less the donated sets (a
    table whose 会饼 someone gives costs 0; sets beyond the tables save nothing more).

    >>> prize_cost(550, 4, 100, [DonatedSet("甲", new_son=True)])
    1200.0
    """
    given = min(tables, sum(d.sets for d in donated))
    return float(per_table * (tables - given) + playoff)


@dataclass(frozen=True, slots=True)
class BudgetSummary:
    """The figures the organiser reads: a positive balance goes to the fund, a negative one is
    the deficit the organiser covers."""

    people: int
    contribution: float | int
    income: float
    fixed_costs: tuple[FixedCost, ...]
    fixed_total: float
    prizes: float
    spent: float
    balance: float
    surplus_use: str = "fund"
    refunds: tuple[dict[str, Any], ...] = ()
    """``{"name", "amount"}`` for each payer when the surplus is refunded; a payer who did
    not come has ``amount`` 0 and ``"no_show": true``."""
    donated: tuple[DonatedSet, ...] = ()

    @property
    def surplus(self) -> float:
        """What goes to the fund or back to the payers (0 when short)."""
        return max(self.balance, 0.0)

    @property
    def deficit(self) -> float:
        """What the organiser covers (0 when the money suffices)."""
        return max(-self.balance, 0.0)

    def to_json(self) -> dict[str, Any]:
        """Every figure, plus ``surplus`` and ``deficit``."""
        return {
            "people": self.people,
            "contribution": self.contribution,
            "income": self.income,
            "fixed_costs": [c.to_json() for c in self.fixed_costs],
            "fixed_total": self.fixed_total,
            "prizes": self.prizes,
            "spent": self.spent,
            "balance": self.balance,
            "surplus": self.surplus,
            "deficit": self.deficit,
            "surplus_use": self.surplus_use,
            "refunds": list(self.refunds),
            "donated_sets": [d.to_json() for d in self.donated],
        }


def _money(value: float) -> float:
    # Money to the fen: 13 × 200 − 2632.6 is −32.6, not −32.59999999999991.
    rounded = round(value, 2)
    return int(rounded) if rounded == int(rounded) else rounded


def parse_budget(value: Any) -> Budget:
    """``{"contribution", "fixed_costs": [{"name", "amount"}], "surplus"}`` (all optional)."""
    if value is None:
        return Budget()
    if not isinstance(value, Mapping) or set(value) - {"contribution", "fixed_costs", "surplus"}:
        raise InputError(
            "budget must be {contribution, fixed_costs, surplus}", code="bad_budget", key="budget"
        )
    contribution = amount(value.get("contribution", 0), key="budget.contribution", limit=MAX_AMOUNT)
    raw = value.get("fixed_costs") or []
    if isinstance(raw, str) or not isinstance(raw, Sequence) or len(raw) > MAX_COSTS:
        raise InputError(
            f"budget.fixed_costs must be a list of at most {MAX_COSTS} {{name, amount}}",
            code="bad_budget",
            key="budget.fixed_costs",
        )
    costs: list[FixedCost] = []
    for index, cost in enumerate(raw):
        key = f"budget.fixed_costs[{index}]"
        if not isinstance(cost, Mapping) or set(cost) - {"name", "amount"}:
            raise InputError(f"{key} must be {{name, amount}}", code="bad_budget", key=key)
        costs.append(
            FixedCost(
                display_text(cost.get("name"), key=f"{key}.name", limit=MAX_COST_NAME),
                amount(cost.get("amount", 0), key=f"{key}.amount", limit=MAX_AMOUNT),
            )
        )
    return Budget(contribution, tuple(costs), parse_surplus(value.get("surplus")))
