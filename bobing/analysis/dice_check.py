"""Are these dice fair? (RULES.md §10.3): the faces of real dice against 1/6 each.

Every die of every throw counts (a 跳猴 has no faces); the chi-square test against six equal
faces has 5 degrees of freedom, and its p-value is exact here in closed form (an odd number of
degrees of freedom needs only ``math.erfc``), so this module is standard library only and the
CLI, the web app and a plain install all give the same numbers. Below :data:`MIN_THROWS`
throws nobody can tell, and the verdict says so; ``suspect`` is p < :data:`SUSPECT_BELOW`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bobing.engine.dice import parse_dice
from bobing.engine.errors import RecordError
from bobing.engine.fairness import REFEREE_MODE
from bobing.engine.record_format import is_close, throw_entry
from bobing.i18n import t

FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
DEGREES_OF_FREEDOM = len(FACES) - 1
MIN_THROWS = 60
"""Below this many throws (of six dice) the check says there are too few to tell (§10.3)."""
SUSPECT_BELOW = 0.01
"""A p-value under this is ``suspect`` (§10.3)."""


class Verdict(StrEnum):
    """The one-word answer of §10.3."""

    FAIR = "fair"
    SUSPECT = "suspect"
    TOO_FEW = "too_few"


def chi2_sf(x: float, k: int = DEGREES_OF_FREEDOM) -> float:
    """P(X >= x) for a chi-square variable with ``k`` degrees of freedom (exact).

    The recurrence Q(x; k + 2) = Q(x; k) + (x/2)^(k/2) e^(-x/2) / Γ(k/2 + 1) starts from
    Q(x; 1) = erfc(√(x/2)) or Q(x; 2) = e^(-x/2).

    >>> round(chi2_sf(11.0705), 4), round(chi2_sf(15.0863), 4), chi2_sf(0.0)
    (0.05, 0.01, 1.0)
    """
    if k < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {k!r}")
    if x <= 0:
        return 1.0
    half = x / 2
    if k % 2:
        q, order = math.erfc(math.sqrt(half)), 0.5
    else:
        q, order = math.exp(-half), 1.0
    while order < k / 2 - 1e-9:  # the terms of k' = 2·order + 2 up to k
        q += math.exp(order * math.log(half) - half - math.lgamma(order + 1))
        order += 1
    return min(1.0, max(0.0, q))


@dataclass(frozen=True, slots=True)
class DiceCheck:
    """The count of each face, the test and its verdict (§10.3)."""

    faces: tuple[int, int, int, int, int, int]
    throws: int

    @property
    def dice(self) -> int:
        """How many dice were counted."""
        return sum(self.faces)

    @property
    def chi2(self) -> float | None:
        """The chi-square statistic against 1/6 each (None without a single die)."""
        if not self.dice:
            return None
        expected = self.dice / len(FACES)
        return sum((count - expected) ** 2 for count in self.faces) / expected

    @property
    def p(self) -> float | None:
        """The chance of a statistic at least this large from fair dice."""
        chi2 = self.chi2
        return None if chi2 is None else chi2_sf(chi2)

    @property
    def verdict(self) -> Verdict:
        """``too_few`` below :data:`MIN_THROWS` throws, else ``suspect`` when p < 0.01."""
        p = self.p
        if self.throws < MIN_THROWS or p is None:
            return Verdict.TOO_FEW
        return Verdict.SUSPECT if p < SUSPECT_BELOW else Verdict.FAIR

    @property
    def odd_face(self) -> tuple[int, bool]:
        """The face furthest from its fair share, and whether it shows more often than fair."""
        expected = self.dice / len(FACES)
        face = max(FACES, key=lambda f: (abs(self.faces[f - 1] - expected), -f))
        return face, self.faces[face - 1] > expected

    def to_json(self) -> dict[str, Any]:
        """RULES.md §10.3's object: ``faces`` {1…6: count}, ``dice``, ``chi2``, ``p``,
        ``verdict``."""
        chi2, p = self.chi2, self.p
        return {
            "faces": {str(face): count for face, count in zip(FACES, self.faces, strict=True)},
            "dice": self.dice,
            "chi2": None if chi2 is None else round(chi2, 4),
            "p": None if p is None else float(f"{p:.4g}"),
            "verdict": str(self.verdict),
        }

    def report(self, lang: str) -> dict[str, Any]:
        """What a page shows: :meth:`to_json` with the ``throws`` counted and the sentence
        (``text``) in ``lang``."""
        return {**self.to_json(), "throws": self.throws, "text": self.sentence(lang)}

    def sentence(self, lang: str) -> str:
        """The one sentence of §10.3 in ``lang``: fair (p, dice), which face is off, or too few.

        >>> DiceCheck((5, 5, 5, 5, 5, 5), 5).sentence("en")
        'too few throws to tell (5 throws; at least 60 are needed)'
        """
        verdict = self.verdict
        if verdict is Verdict.TOO_FEW:
            return t("dice_check.too_few", lang, throws=self.throws, needed=MIN_THROWS)
        p = _p_text(self.p or 0.0)
        if verdict is Verdict.FAIR:
            return t("dice_check.fair", lang, p=p, dice=f"{self.dice:,}")
        face, more = self.odd_face
        return t("dice_check.more" if more else "dice_check.less", lang, face=face, p=p)

    def __add__(self, other: DiceCheck) -> DiceCheck:
        """Two counts together (the whole event from its tables)."""
        faces = tuple(a + b for a, b in zip(self.faces, other.faces, strict=True))
        return DiceCheck(faces, self.throws + other.throws)  # type: ignore[arg-type]


def _p_text(p: float) -> str:
    """p as people read it: two decimals, two significant digits below 0.01, else "< 0.001"."""
    if p < 0.001:
        return "< 0.001"
    return f"= {p:.2f}" if p >= SUSPECT_BELOW else f"= {p:.1g}"


NONE = DiceCheck((0, 0, 0, 0, 0, 0), 0)
"""No throw at all."""


def check_dice(throws: Iterable[Sequence[int] | str | None]) -> DiceCheck:
    """Count the faces of ``throws`` (six faces each, as tuples or ``"444412"``; None for a
    跳猴, which has no faces and is not counted).

    >>> check_dice(["123456", "111111", None]).faces
    (7, 1, 1, 1, 1, 1)
    """
    counts = [0] * len(FACES)
    thrown = 0
    for dice in throws:
        if dice is None:
            continue
        for face in parse_dice(dice):
            counts[face - 1] += 1
        thrown += 1
    return DiceCheck(tuple(counts), thrown)  # type: ignore[arg-type]


def record_throws(record: Mapping[str, Any]) -> list[tuple[int, ...] | None]:
    """The faces of each throw of a RULES.md §6 record, in order (None for a 跳猴), each entry
    read as the engine reads it (a bad one is an error naming its number); the record is not
    played, so the throws of every set (§10.2) count."""
    if not isinstance(record, Mapping):
        raise RecordError(
            "a record is a JSON object", code="record_not_mapping", type=type(record).__name__
        )
    throws = record.get("throws", [])
    if not isinstance(throws, list):
        raise RecordError("throws must be a list", code="throws_not_list", key="throws")
    entries = [entry for entry in throws if not is_close(entry)]
    return [throw_entry(index, entry)[1] for index, entry in enumerate(entries, start=1)]


def check_record(record: Mapping[str, Any]) -> DiceCheck:
    """The check over every throw of one record."""
    return check_dice(record_throws(record))


def real_dice(record: Mapping[str, Any]) -> bool:
    """Whether a record's throws are real dice: a referee table's, typed or read by the camera
    (the server's own dice are checked by ``bobing verify`` instead)."""
    table = record.get("table")
    return isinstance(table, Mapping) and table.get("mode") == REFEREE_MODE


def event_report(tables: Iterable[tuple[int, Mapping[str, Any]]], lang: str) -> dict[str, Any]:
    """An event's check (§10.3): each table of real dice (``number`` and its
    :meth:`DiceCheck.report`) and the whole event's, None without any such table."""
    checks = [(number, check_record(record)) for number, record in tables if real_dice(record)]
    whole = sum((check for _, check in checks), NONE)
    return {
        "event": whole.report(lang) if checks else None,
        "tables": [{"number": number, **check.report(lang)} for number, check in checks],
    }
