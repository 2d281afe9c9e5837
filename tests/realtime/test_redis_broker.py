"""The Redis broker against the real Redis: delivery between instances, local delivery once,
order, resync on subscription, and clear errors for a bad URL or an unreachable server."""

from __future__ import annotations

import asyncio
import importlib.util
import uuid
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from types import ModuleType

import pytest

from bobing.engine.errors import BobingError, InputError
from bobing.i18n.errors import localize
from bobing.realtime import MemoryBroker, get_broker
from bobing.realtime.redis import RedisBroker, safe_url


def _root_conftest() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "conftest.py"
    spec = importlib.util.spec_from_file_location("bobing_tests_root_conftest", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
async def brokers() -> AsyncIterator[Callable[[], RedisBroker]]:
    url = str(_root_conftest().need_redis())
    made: list[RedisBroker] = []

    def make() -> RedisBroker:
        broker = RedisBroker(url)
        made.append(broker)
        return broker

    yield make
    for broker in made:
        await broker.close()


async def two_instances(brokers: Callable[[], RedisBroker]) -> tuple[RedisBroker, RedisBroker]:
    """Two started brokers: two instances on one Redis."""
    a, b = brokers(), brokers()
    await a.start()
    await b.start()
    return a, b


async def until(condition: Callable[[], bool], timeout: float = 30) -> None:
    async def wait() -> None:
        while not condition():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(wait(), timeout)


def test_get_broker_by_scheme() -> None:
    assert isinstance(get_broker("memory://"), MemoryBroker)
    assert isinstance(get_broker("redis://127.0.0.1:6379/0"), RedisBroker)
    assert isinstance(get_broker("REDISS://example.org:6380/1"), RedisBroker)
    assert get_broker("redis://h/0").shared and not get_broker("memory://").shared


@pytest.mark.parametrize("url", ["kafka://x", "127.0.0.1:6379", "", "redis"])
def test_unknown_broker_url_is_named(url: str) -> None:
    with pytest.raises(InputError) as caught:
        get_broker(url)
    assert isinstance(caught.value, ValueError)
    assert repr(url) in str(caught.value)
    for lang in ("zh-Hans", "zh-Hant"):
        text = localize(caught.value, lang)
        assert repr(url) in text and "redis://" in text


def test_password_never_shown() -> None:
    assert safe_url("redis://:s3cret@cache:6379/0") == "redis://***@cache:6379/0"
    assert safe_url("redis://cache:6379/0") == "redis://cache:6379/0"


async def test_unreachable_redis_is_one_clear_error() -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    broker = RedisBroker(f"redis://:pw@127.0.0.1:{port}/0")
    with pytest.raises(BobingError) as caught:
        await broker.start()
    assert caught.value.code == "broker_unavailable"
    assert f"127.0.0.1:{port}" in str(caught.value) and "pw" not in str(caught.value)
    assert f"127.0.0.1:{port}" in localize(caught.value, "zh-Hans")


async def test_messages_cross_instances_in_order_and_reach_the_sender_once(
    brokers: Callable[[], RedisBroker],
) -> None:
    a, b = await two_instances(brokers)
    channel = f"bobing:table:T{uuid.uuid4().hex[:8]}"
    got_a: list[str] = []
    got_b: list[str] = []
    resynced: list[tuple[str, bool]] = []
    b.on_resync(lambda ch, again: resynced.append((ch, again)))
    a.subscribe(channel, got_a.append)
    b.subscribe(channel, got_b.append)
    # The subscription's activation is announced: what was published before is in the log.
    await until(lambda: resynced == [(channel, False)])
    await until(lambda: channel in a._confirmed)
    sent = [f"{i} {i} frame-{i}" for i in range(1, 201)]
    for message in sent:
        await a.publish(channel, message)
    await until(lambda: len(got_b) == len(sent))
    assert got_b == sent
    # The publisher's own subscribers got each message at once, and not again from Redis.
    await b.publish(channel, "201 201 from-b")
    await until(lambda: got_a[-1:] == ["201 201 from-b"])
    assert got_a == [*sent, "201 201 from-b"]
    assert got_b == [*sent, "201 201 from-b"]


async def test_unsubscribed_channels_are_not_delivered(
    brokers: Callable[[], RedisBroker],
) -> None:
    a, b = await two_instances(brokers)
    channel = f"bobing:table:U{uuid.uuid4().hex[:8]}"
    other = f"bobing:table:V{uuid.uuid4().hex[:8]}"
    got: list[str] = []
    got_other: list[str] = []
    stop = b.subscribe(channel, got.append)
    b.subscribe(other, got_other.append)
    await until(lambda: {channel, other} <= b._confirmed)
    await a.publish(channel, "1 1 x")
    await until(lambda: got == ["1 1 x"])
    stop()
    assert b.channels() == [other]
    await until(lambda: channel not in b._confirmed)
    await a.publish(channel, "2 2 y")
    await a.publish(other, "1 1 z")  # travels behind the unwanted one on the same connection
    await until(lambda: got_other == ["1 1 z"])
    assert got == ["1 1 x"]


async def test_closing_sends_what_is_queued(brokers: Callable[[], RedisBroker]) -> None:
    a, b = await two_instances(brokers)
    channel = f"bobing:table:W{uuid.uuid4().hex[:8]}"
    got: list[str] = []
    b.subscribe(channel, got.append)
    await until(lambda: channel in b._confirmed)
    for i in range(1, 51):
        await a.publish(channel, f"{i} {i} last-words")
    await a.close()  # an instance stopping right after its last commits
    await until(lambda: len(got) == 50)
    assert got[-1] == "50 50 last-words"


async def test_a_channel_nobody_else_hears_stays_local_until_another_instance_says_hello(
    brokers: Callable[[], RedisBroker],
) -> None:
    """Table affinity: the only listener is the publisher itself, so nothing goes to Redis;
    an instance that subscribes later learns the head it missed, then gets every message."""
    a, b = await two_instances(brokers)
    channel = f"bobing:table:Q{uuid.uuid4().hex[:8]}"
    got_a: list[str] = []
    got_b: list[str] = []
    a.subscribe(channel, got_a.append)
    await until(lambda: channel in a._confirmed)
    await a.publish(channel, "1 1 first")
    await until(lambda: channel in a._quiet)  # PUBLISH said: only a's own listener heard it
    sent = a.published
    await a.publish(channel, "2 2 second")
    await a.publish(channel, "3 3 third")
    assert got_a == ["1 1 first", "2 2 second", "3 3 third"]  # local delivery as before
    assert not a._outbox and a.published == sent  # and nothing queued for Redis

    resynced: list[str] = []
    b.on_resync(lambda ch, _again: resynced.append(ch))
    leave = b.subscribe(channel, got_b.append)
    # b reads the log when its subscription is active, and a, hearing b's hello, says the
    # latest message it kept to itself: b knows the head even if a commit came in between.
    await until(lambda: got_b == ["3 3 third"])
    assert resynced == [channel]
    assert channel not in a._quiet
    await a.publish(channel, "4 4 fourth")
    await until(lambda: got_b == ["3 3 third", "4 4 fourth"])
    await b.publish(channel, "5 5 from-b")
    await until(lambda: got_a[-1:] == ["5 5 from-b"])
    assert got_a == ["1 1 first", "2 2 second", "3 3 third", "4 4 fourth", "5 5 from-b"]

    # b leaves: a's next PUBLISH is heard by a alone, and the channel is quiet again.
    leave()
    await until(lambda: channel not in b._confirmed)
    await a.publish(channel, "6 6 sixth")
    await until(lambda: channel in a._quiet)
    sent = a.published
    await a.publish(channel, "7 7 seventh")
    assert a.published == sent and not a._outbox
    assert got_b == ["3 3 third", "4 4 fourth", "5 5 from-b"]


async def test_a_quiet_channel_is_not_quiet_for_an_instance_that_was_not_listening(
    brokers: Callable[[], RedisBroker],
) -> None:
    """PUBLISH counts the publisher's own listener only once its subscription is active:
    an instance that publishes without listening never keeps a message to itself."""
    a, b = await two_instances(brokers)
    channel = f"bobing:table:R{uuid.uuid4().hex[:8]}"
    got_b: list[str] = []
    b.subscribe(channel, got_b.append)
    await until(lambda: channel in b._confirmed)
    for i in range(1, 21):
        await a.publish(channel, f"{i} {i} m{i}")
    await until(lambda: len(got_b) == 20)
    assert got_b == [f"{i} {i} m{i}" for i in range(1, 21)]
    assert channel not in a._quiet
