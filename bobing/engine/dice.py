"""Dice: parsing what people type, and injected dice sources (seeded, CSPRNG, given faces)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Protocol

from bobing.engine.errors import DiceError

Dice = tuple[int, int, int, int, int, int]
"""Six faces in the order thrown."""

FACES = range(1, 7)
DICE_COUNT = 6

# Full-width digits and Chinese punctuation, as typed with a Chinese input method.
_NORMALIZE = str.maketrans(
    {**{chr(0xFF10 + d): str(d) for d in range(10)}, ",": " ", "，": " ", "、": " ", "\u3000": " "}
)


def parse_dice(value: str | Sequence[int]) -> Dice:
    """Read six faces from ``"444412"``, ``"4 4 4 4 1 2"``, ``"4,4,4,4,1,2"`` or a sequence.

    Full-width digits and Chinese commas (``４，４、…``) are accepted too.

    >>> parse_dice("4,4,4,4,1,2")
    (4, 4, 4, 4, 1, 2)
    >>> parse_dice("４４４４１２")
    (4, 4, 4, 4, 1, 2)
    """
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise DiceError(
                "no dice given: expected six digits 1-6, e.g. 444412",
                code="no_dice_given",
                value=value,
            )
        parts = text.translate(_NORMALIZE).split()
        if len(parts) == 1:
            parts = list(parts[0])
        faces: list[int] = []
        for part in parts:
            if not part.isdigit() or not part.isascii():
                raise DiceError(
                    f"invalid dice {value!r}: {part!r} is not a face 1-6",
                    code="dice_not_face",
                    value=value,
                    face=part,
                )
            faces.append(int(part))
    else:
        faces = []
        for face in value:
            if isinstance(face, bool) or not isinstance(face, int):
                raise DiceError(
                    f"invalid dice {value!r}: {face!r} is not a face 1-6",
                    code="dice_not_face",
                    value=value,
                    face=face,
                )
            faces.append(face)
    if len(faces) != DICE_COUNT:
        raise DiceError(
            f"invalid dice {_show(value)}: {len(faces)} dice given, a throw has exactly 6",
            code="dice_too_few" if len(faces) < DICE_COUNT else "dice_too_many",
            value=_show(value),
            count=len(faces),
        )
    for face in faces:
        if face not in FACES:
            raise DiceError(
                f"invalid dice {_show(value)}: {face} is not a face 1-6",
                code="dice_face_range",
                value=_show(value),
                face=face,
            )
    return (faces[0], faces[1], faces[2], faces[3], faces[4], faces[5])


def _show(value: str | Sequence[int]) -> str:
    return repr(value) if isinstance(value, str) else repr(list(value))


@lru_cache(maxsize=65536)
def _text(dice: tuple[int, ...]) -> str:
    return "".join(map(str, dice))


def dice_text(dice: Iterable[int]) -> str:
    """Six faces as the six-digit string used in records and JSON.

    >>> dice_text((4, 4, 4, 4, 1, 2))
    '444412'
    """
    return _text(dice if type(dice) is tuple else tuple(dice))


class DiceSource(Protocol):
    """Where faces come from; passed in so that games are testable and provably fair."""

    def roll(self, count: int = DICE_COUNT) -> tuple[int, ...]:
        """Return ``count`` faces."""
        ...


class SeededDice:
    """Reproducible dice for tests and simulation."""

    def __init__(self, seed: int | str | None = None) -> None:
        self._random = random.Random(seed)

    def roll(self, count: int = DICE_COUNT) -> tuple[int, ...]:
        """Return ``count`` faces from the seeded generator."""
        return tuple(self._random.randint(1, 6) for _ in range(count))


class SystemDice:
    """Dice from the operating system's CSPRNG, for real play."""

    def roll(self, count: int = DICE_COUNT) -> tuple[int, ...]:
        """Return ``count`` faces from ``secrets``."""
        return tuple(secrets.randbelow(6) + 1 for _ in range(count))


class GivenDice:
    """Faces decided outside the program: real dice in a bowl, or a record being replayed."""

    def __init__(self, throws: Iterable[Sequence[int]]) -> None:
        self._throws: Iterator[Sequence[int]] = iter(throws)

    def roll(self, count: int = DICE_COUNT) -> tuple[int, ...]:
        """Return the next given throw."""
        try:
            faces = tuple(next(self._throws))
        except StopIteration:
            raise DiceError("no more given dice", code="given_dice_exhausted") from None
        if len(faces) != count or any(face not in FACES for face in faces):
            raise DiceError(
                f"invalid given dice {faces!r}: expected {count} faces 1-6",
                code="given_dice_invalid",
                faces=faces,
                count=count,
            )
        return faces
