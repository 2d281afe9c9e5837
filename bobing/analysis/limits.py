"""The tables and 跳猴 rates the analysis accepts (one place for the bounds and their errors)."""

from __future__ import annotations

from bobing.engine.errors import InputError
from bobing.engine.switches import MAX_PLAYERS, MIN_PLAYERS

# The analysis accepts every table the engine can seat (MAX_PLAYERS, the ceiling of
# max_players), larger than the engine's default 12 seats: events do seat 13.


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


__all__ = ["MAX_PLAYERS", "MIN_PLAYERS", "check_players", "check_tiaohou"]
