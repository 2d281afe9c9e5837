"""A phone that drops mid-game and comes back through the other instance (resyncing with
``?after=`` or afresh) ends with exactly the events and state of a phone that saw every
frame: Hypothesis over random games and drop points, two instances on PostgreSQL + Redis."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from scaletools import Cluster
from webtools import (
    SMALL_PRIZES,
    TIMEOUT,
    Client,
    DropPlan,
    command_over_http,
    create_table,
    drop_plans,
    join,
    play_with_drops,
)

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
    """A game across two instances on PostgreSQL and Redis, the phone dropping and reconnecting
    through the other instance at every step of :class:`DropPlan`. Long by its work (a real
    game through two servers; about 5 s alone), not by a wait."""
    phone, steady = await play_with_drops(pair, plan)
    assert phone.state == steady.state
    assert phone.state is not None and phone.state["last_seq"] == steady.events[-1]["seq"]


async def test_a_phone_that_joins_a_quiet_table_through_the_other_instance_keeps_up(
    pair: list[str],
) -> None:
    """A table whose phones are all on one instance sends Redis nothing (its channel is
    quiet); a phone that opens it through the other instance mid-game says hello, and from
    then on sees every throw made through the first, ending with its events and state."""
    first, second = pair
    async with httpx.AsyncClient(base_url=first, timeout=TIMEOUT) as http:
        created = await create_table(http, mode="online", prizes=SMALL_PRIZES)
        code = created["code"]
        tokens = {name: (await join(http, code, name))["player_token"] for name in ("甲", "乙")}
        steady = await Client.connect(first, code, [tokens["甲"]], name="steady")
        await command_over_http(http, code, created["host_token"], {"type": "start"})

        async def throw() -> int:
            state = (await http.get(f"/api/tables/{code}")).json()
            await command_over_http(
                http, code, tokens[state["next"]], {"type": "throw", "turn": state["turn"]}
            )
            last: int = (await http.get(f"/api/tables/{code}")).json()["last_seq"]
            return last

        for _ in range(3):  # through the first instance, heard only there
            await steady.reach(await throw())
        late = await Client.connect(second, code, [tokens["乙"]], name="late")
        for _ in range(4):  # still through the first: the late phone hears them over Redis
            last = await throw()
            await late.reach(last)
            await steady.reach(last)
            assert late.state == steady.state
        logged = (await http.get(f"/api/tables/{code}/events", params={"limit": 1000})).json()
    assert late.events[-1] == logged["events"][-1]
    assert steady.events == logged["events"]
