"""A phone that drops and comes back mid-game (resyncing with ``?after=`` or starting
afresh) ends with exactly the events and state of a phone that saw every frame: Hypothesis
over random games and random drop points, on one instance (tests/scale: across two)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from webtools import DropPlan, drop_plans, play_with_drops, running_server

from bobing.tables.limits import Limits
from bobing.web.settings import Settings

UNLIMITED = Limits(create_per_minute=0, join_per_minute=0, open_tables_per_address=0)


@pytest.fixture
async def roomy_server(tmp_path: Path) -> AsyncIterator[str]:
    """A server whose per-address limits let one test create a table per example."""
    db_url = f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}"
    async with running_server(Settings(db_url=db_url, limits=UNLIMITED)) as url:
        yield url


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=drop_plans())
async def test_a_phone_that_drops_ends_with_the_state_of_one_that_did_not(
    roomy_server: str, plan: DropPlan
) -> None:
    phone, steady = await play_with_drops([roomy_server], plan)
    assert phone.state == steady.state
    assert phone.state is not None and phone.state["last_seq"] == steady.events[-1]["seq"]
