"""Calling time in a simulation: a time limit and a throwing pace make the throw the bell follows.

A party that gives the game 30 minutes at about 8 seconds a throw calls time after the 225th
throw (RULES.md §8.1: the round in progress is finished, or play stops at once under
``end`` = ``immediate``). A skipped turn takes no time; a 跳猴 is a throw and does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError

MAX_MINUTES = 24 * 60
"""The longest time limit accepted (a day)."""
MAX_SECONDS_PER_THROW = 600.0
SECONDS_PER_THROW = 10.0
"""The pace assumed where none is given: about 10 s a throw (a table of real dice that threw
620 times took about 1 h 40 min, issue 19). ``bobing plan``, ``bobing simulate --minutes``,
``/api/game-length`` and the pages that turn throws into minutes all start from it."""


@dataclass(frozen=True)
class Bell:
    """Time is called after ``minutes`` of play at ``seconds_per_throw`` a throw.

    >>> Bell(30, 8).throws
    225
    """

    minutes: float
    seconds_per_throw: float

    def __post_init__(self) -> None:
        if not math.isfinite(self.minutes) or not 0 < self.minutes <= MAX_MINUTES:
            raise InputError(
                f"invalid time limit {self.minutes!r} minutes: a number above 0, at most "
                f"{MAX_MINUTES} (a day)",
                code="bell_minutes",
                value=self.minutes,
                maximum=MAX_MINUTES,
            )
        seconds = self.seconds_per_throw
        if not math.isfinite(seconds) or not 0 < seconds <= MAX_SECONDS_PER_THROW:
            raise InputError(
                f"invalid seconds per throw {seconds!r}: a number above 0, at most "
                f"{MAX_SECONDS_PER_THROW:g}",
                code="bell_seconds",
                value=seconds,
                maximum=f"{MAX_SECONDS_PER_THROW:g}",
            )
        if self.throws < 1:
            raise InputError(
                f"a time limit of {self.minutes:g} minutes at {seconds:g} s a throw leaves no"
                " time for a single throw",
                code="bell_no_throw",
                minutes=f"{self.minutes:g}",
                seconds=f"{seconds:g}",
            )

    @property
    def throws(self) -> int:
        """The throws that fit in the time: the bell rings right after the last of them."""
        return math.floor(round(self.minutes * 60 / self.seconds_per_throw, 9))

    def to_json(self) -> dict[str, Any]:
        """``{"minutes", "seconds_per_throw", "throws"}``."""
        return {
            "minutes": self.minutes,
            "seconds_per_throw": self.seconds_per_throw,
            "throws": self.throws,
        }


__all__ = ["MAX_MINUTES", "MAX_SECONDS_PER_THROW", "Bell"]
