"""One error root for the whole project; edges turn these into exit codes and HTTP problems."""

from __future__ import annotations

from typing import Any


class BobingError(Exception):
    """Root of every error bobing raises on purpose.

    ``code`` is a stable machine id (used to pick a translated message at the edges) and
    ``params`` holds the values quoted in the message.
    """

    code = "error"

    def __init__(self, message: str, *, code: str | None = None, **params: Any) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.params = params

    def __str__(self) -> str:
        return self.message


class InputError(BobingError, ValueError):
    """Something a person typed or sent is not valid."""

    code = "invalid_input"


class DiceError(InputError):
    """Dice that are not six faces from 1 to 6."""

    code = "invalid_dice"


class RulesError(InputError):
    """A rule file or preset that is unknown or contradicts itself."""

    code = "invalid_rules"


class RecordError(InputError):
    """A game record that cannot be judged."""

    code = "invalid_record"


class IllegalAction(BobingError):
    """A command that the game's current state does not allow (out of turn, game over, ...)."""

    code = "illegal_action"
