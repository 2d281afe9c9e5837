"""The two-dice start: where each listed player ends up sitting in play order.

The simulation numbers seats in play order from the starter. At a real table the first listed
player usually throws two dice and counts round the table to choose the starter (RULES.md §4),
so what a *listed* player can expect is a mixture of the seats: listed player ``j`` sits at
seat ``k`` from the starter with the chance :func:`listed_seat_weights` gives. The count itself
is the engine's (``Game.start(thrower=..., dice=...)``): each of the 36 ways two dice fall is
played through it, under the rules' ``direction`` and ``start_count``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from bobing.engine.errors import InputError
from bobing.engine.game import Game
from bobing.engine.rules import RuleSet
from bobing.engine.switches import MAX_PLAYERS

Array = NDArray[Any]

STARTS: tuple[str, ...] = ("first", "dice")
"""How the starter is chosen in a report: the first listed player, or the two-dice count."""


@lru_cache(maxsize=64)
def listed_seat_weights(rules: RuleSet, players: int) -> Array:
    """Shape (listed player, seat from the starter): the chance that the ``j``-th listed player
    (the first throws the start dice) sits ``k`` places after the starter in play order.

    >>> from bobing.engine.presets import TRADITIONAL
    >>> w = listed_seat_weights(TRADITIONAL, 2)
    >>> w.round(4).tolist()  # a+b odd (18 of 36): the thrower starts (counted as #1)
    [[0.5, 0.5], [0.5, 0.5]]
    """
    table = replace(rules, max_players=MAX_PLAYERS)
    names = [f"p{i}" for i in range(players)]
    weights = np.zeros((players, players))
    for a in range(1, 7):
        for b in range(1, 7):
            game = Game(table, names)
            game.start(thrower=names[0], dice=(a, b))
            order = game.state.play_order()  # seats (list positions) from the starter
            for k, listed in enumerate(order):
                weights[listed, k] += 1 / 36
    return weights


def check_start(start: str) -> None:
    """Raise ``InputError`` unless ``start`` is one of :data:`STARTS`."""
    if start not in STARTS:
        raise InputError(
            f"invalid start {start!r}: {' or '.join(STARTS)}",
            code="invalid_start",
            value=start,
            allowed=list(STARTS),
        )


__all__ = ["STARTS", "check_start", "listed_seat_weights"]
