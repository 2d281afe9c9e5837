"""An ``ack`` is written directly (``Outcome.ack_text``): the same text as its frame encoded."""

from __future__ import annotations

import pytest

from bobing.tables.outcomes import Outcome
from bobing.tables.protocol import dumps

OUTCOMES = [
    Outcome(7, 9),
    Outcome(1, 1, duplicate=True),
    Outcome(0, 0),
    Outcome(12, 40, reply={"player": "甲", "player_token": "p_x"}),
]


@pytest.mark.parametrize("outcome", OUTCOMES)
@pytest.mark.parametrize("command_id", [None, "t-1", "a.b:c_D-9", "x" * 64, 'q"\\', "骰"])
def test_ack_text_is_the_ack_encoded(outcome: Outcome, command_id: str | None) -> None:
    assert outcome.ack_text(command_id) == dumps(outcome.ack(command_id))
