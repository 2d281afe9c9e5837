"""A phone that drops mid-game and comes back through the other instance (resyncing with
``?after=`` or afresh) ends with exactly the events and state of a phone that saw every
frame: Hypothesis over random games and drop points, two instances on PostgreSQL + Redis."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from scaletools import Cluster
from webtools import DropPlan, drop_plans, play_with_drops

ROOMY = ("create_per_minute=0", "join_per_minute=0", "open_tables_per_address=0")
"""One table per example, all from 127.0.0.1."""


@pytest.fixture
def pair(cluster: Cluster, redis_url: str) -> Iterator[list[str]]:
    """Two instances, started once for all the examples of a test."""
    yield [instance.url for instance in cluster(2, redis_url, limits=ROOMY)]


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(plan=drop_plans())
async def test_a_phone_that_drops_and_comes_back_elsewhere_ends_in_step(
    pair: list[str], plan: DropPlan
) -> None:
    phone, steady = await play_with_drops(pair, plan)
    assert phone.state == steady.state
    assert phone.state is not None and phone.state["last_seq"] == steady.events[-1]["seq"]
