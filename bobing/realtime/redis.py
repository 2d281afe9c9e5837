"""The Redis broker: table signals between any number of server instances.

Every instance publishes the messages of the commands it commits to Redis pub/sub
(channel ``bobing:table:<code>``) and subscribes to the channels of the tables that have
sockets on it. Redis only signals; the log in the database is the truth, so this backend is
built to lose nothing without needing Redis to be reliable:

- **Local first.** A message is handed to this instance's own subscribers at once (no round
  trip), and sent to Redis tagged with the instance's id; the copy that comes back from Redis
  is skipped.
- **In order.** One publisher task sends the queued messages, oldest first, on one
  connection (pipelined); Redis keeps a connection's order.
- **Through a break.** While Redis is unreachable, messages wait in a bounded queue and both
  tasks reconnect with exponential backoff (0.1 s doubling to 5 s). Whenever a subscription
  becomes active (at first, and again after every reconnect) the hub is told to read the log
  of that table (:attr:`Broker.on_resync`), so whatever was published while the instance was
  not listening reaches its sockets from the log.
- **Nothing sent that nobody hears.** With table affinity (deploy/nginx) a table's phones are
  all on one instance, and each of its messages went to Redis only to come back to the same
  instance and be skipped. PUBLISH answers how many connections received a message; when the
  only one was this instance's own listener, the channel is *quiet* and its messages stay
  local. Another instance that subscribes says so first: once its subscription is active
  (and it has read the log) it publishes ``hello`` on the channel; the quiet instance, hearing
  it, publishes again, starting with the latest message it kept to itself, so the newcomer
  learns the head it has missed and reads the events from the log.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from bobing.engine.errors import InputError
from bobing.realtime.broker import Broker, Handler

log = logging.getLogger("bobing.realtime")

CONTROL_CHANNEL = "bobing:instances"
"""Always subscribed, so the listening connection exists (and is health-checked) even when
this instance has no sockets."""

BACKOFF_MIN = 0.1
BACKOFF_MAX = 5.0
OUTBOX_LIMIT = 100_000
"""Messages kept for Redis while it is unreachable; older ones are dropped (their events
are in the log, and every subscriber reads it when its subscription comes back)."""
BATCH = 512
CONNECT_TIMEOUT = 3.0
HELLO = "hello"
"""The payload an instance publishes on a channel once its subscription is active (never a
table message: those start with a sequence number)."""


def _redis_module() -> Any:
    try:
        import redis.asyncio
    except ImportError:
        raise InputError(
            "the Redis broker needs the 'redis' package: pip install 'redis>=5'",
            code="broker_missing_package",
            package="redis",
        ) from None
    return redis.asyncio


def safe_url(url: str) -> str:
    """``url`` without a password, for messages and logs."""
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.rsplit("@", 1)[1]
    return scheme + sep + rest


class RedisBroker(Broker):
    """Pub/sub across instances through Redis (``redis://host:port/db``, ``rediss://`` with TLS)."""

    shared = True

    def __init__(
        self,
        url: str,
        *,
        backoff_min: float = BACKOFF_MIN,
        backoff_max: float = BACKOFF_MAX,
        outbox_limit: int = OUTBOX_LIMIT,
    ) -> None:
        super().__init__()
        self.url = url
        self.instance = secrets.token_hex(6)
        """Tags this instance's messages, so it skips its own when Redis echoes them."""
        self.backoff_min = backoff_min
        self.backoff_max = backoff_max
        self._handlers: dict[str, list[Handler]] = {}
        self._outbox: deque[Outgoing] = deque(maxlen=outbox_limit)
        self._wake = asyncio.Event()
        self._control: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._confirmed: set[str] = set()
        self._quiet: set[str] = set()
        """Channels on which only this instance listens (their messages stay local)."""
        self._epochs: dict[str, int] = {}
        """A new number whenever who listens on a channel may have changed (never reused),
        so a PUBLISH answer from before the change cannot make the channel quiet."""
        self._changes = 0
        self._kept: dict[str, str] = {}
        """The latest message of a quiet channel that went to nobody else."""
        self.published = 0
        """Messages sent to Redis (for tests and the benchmarks)."""
        self._pubsub: Any = None
        self._tasks: list[asyncio.Task[None]] = []
        self._clients: list[Any] = []
        self.connected = False
        """The listening connection is up and subscribed."""
        self.reconnects = 0
        """Times the listening connection came back after a break (for tests and logs)."""

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        """Check that Redis answers (a clear error at start beats silent retries), then run."""
        module = _redis_module()
        client = self._client(module)
        try:
            await asyncio.wait_for(client.ping(), CONNECT_TIMEOUT)
        except Exception as exc:
            raise InputError(
                f"cannot use the broker {safe_url(self.url)}: {_reason(exc)}",
                code="broker_unavailable",
                url=safe_url(self.url),
                reason=_reason(exc),
            ) from None
        finally:
            await client.aclose()
        self._tasks = [
            asyncio.create_task(self._listen(module), name="bobing-redis-listen"),
            asyncio.create_task(self._publish_loop(module), name="bobing-redis-publish"),
        ]

    async def close(self, *, drain: float = 1.0) -> None:
        """Send what is queued (for up to ``drain`` seconds), then stop and disconnect."""
        deadline = asyncio.get_running_loop().time() + drain
        while self._outbox and self._tasks and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.01)
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []

    def _client(self, module: Any) -> Any:
        return module.from_url(
            self.url,
            decode_responses=True,
            socket_connect_timeout=CONNECT_TIMEOUT,
            socket_keepalive=True,
            health_check_interval=10,
        )

    # -- the Broker interface ----------------------------------------------------------------

    async def publish(self, channel: str, message: str) -> None:
        """Deliver to this instance's subscribers now; queue for Redis (the other instances),
        unless the channel is quiet (nobody else listens: kept until one says hello)."""
        for handler in list(self._handlers.get(channel, ())):
            handler(message)
        if channel in self._quiet:
            self._kept[channel] = message
            return
        self._send(channel, message, counted=self.connected and channel in self._confirmed)

    def _send(self, channel: str, message: str, *, counted: bool = False) -> None:
        """Queue ``message`` for Redis; ``counted``: its PUBLISH answer may make the channel
        quiet (this instance was listening on it, so the answer counts its listener)."""
        if len(self._outbox) == self._outbox.maxlen:
            log.warning("Redis unreachable too long: dropping the oldest queued signal")
        epoch = self._epochs.get(channel, 0) if counted else None
        self._outbox.append(Outgoing(channel, f"{self.instance} {message}", epoch))
        self._wake.set()

    def _listeners_may_have_changed(self, channel: str) -> None:
        """Publish on ``channel`` again (someone else may listen now), and say first what was
        kept from Redis meanwhile: its latest message."""
        self._changes += 1
        self._epochs[channel] = self._changes
        self._quiet.discard(channel)
        kept = self._kept.pop(channel, None)
        if kept is not None:
            self._send(channel, kept)

    def subscribe(self, channel: str, handler: Handler) -> Callable[[], None]:
        """Add ``handler``; the Redis subscription follows (its activation calls on_resync)."""
        handlers = self._handlers.setdefault(channel, [])
        handlers.append(handler)
        if len(handlers) == 1:
            self._control.put_nowait(("subscribe", channel))

        def unsubscribe() -> None:
            current = self._handlers.get(channel)
            if current and handler in current:
                current.remove(handler)
                if not current:
                    del self._handlers[channel]
                    self._control.put_nowait(("unsubscribe", channel))

        return unsubscribe

    def channels(self) -> list[str]:
        """Channels with at least one subscriber in this instance."""
        return list(self._handlers)

    # -- listening ---------------------------------------------------------------------------

    async def _reconnecting(
        self,
        module: Any,
        session: Callable[[Any, Callable[[], None]], Awaitable[None]],
        failed: Callable[[BaseException], None],
    ) -> None:
        """The one reconnect loop of the broker: ``session(client, progressed)`` on a fresh
        client until it fails; then ``failed(exc)`` (it logs), the client closed, a wait of
        :attr:`backoff_min` doubling to :attr:`backoff_max` (back to the minimum whenever the
        session calls ``progressed``), and a new client."""
        delay = self.backoff_min

        def progressed() -> None:
            nonlocal delay
            delay = self.backoff_min

        while True:
            client = self._client(module)
            try:
                await session(client, progressed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                failed(exc)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(self.backoff_max, delay * 2)

    async def _listen(self, module: Any) -> None:
        first = True

        async def session(client: Any, progressed: Callable[[], None]) -> None:
            nonlocal first
            pubsub = client.pubsub()
            try:
                # Every channel wanted now; later changes go through the control queue,
                # which is drained by this same connection's sender below.
                while not self._control.empty():
                    self._control.get_nowait()
                await pubsub.subscribe(CONTROL_CHANNEL, *self._handlers)
                self._pubsub = pubsub
                if not first:
                    self.reconnects += 1
                    log.warning("reconnected to the broker %s", safe_url(self.url))
                first = False
                control = asyncio.create_task(self._control_loop(pubsub))
                try:
                    while True:
                        message = await pubsub.get_message(timeout=None)
                        if message is not None:
                            progressed()
                            self._on_message(message)
                        if control.done():
                            control.result()  # re-raises a failed (un)subscribe
                finally:
                    control.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await control
            finally:
                self.connected = False
                self._pubsub = None
                # Deaf until it reconnects: a newcomer's hello would go unheard meanwhile.
                for channel in list(self._quiet):
                    self._listeners_may_have_changed(channel)
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

        def failed(exc: BaseException) -> None:
            log.warning("broker %s: %s; reconnecting", safe_url(self.url), _reason(exc))

        await self._reconnecting(module, session, failed)

    async def _control_loop(self, pubsub: Any) -> None:
        while True:
            action, channel = await self._control.get()
            if action == "subscribe":
                if channel in self._handlers:
                    await pubsub.subscribe(channel)
            elif channel not in self._handlers:
                self._confirmed.discard(channel)
                self._listeners_may_have_changed(channel)
                del self._epochs[channel]
                await pubsub.unsubscribe(channel)

    def _on_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        channel = str(message.get("channel"))
        if kind == "subscribe":
            if channel == CONTROL_CHANNEL:
                self.connected = True
                return
            again = channel in self._confirmed
            self._confirmed.add(channel)
            self._listeners_may_have_changed(channel)
            self._tell_resync(channel, again)
            # Heard by any instance that kept this channel's messages to itself until now.
            self._send(channel, HELLO)
            return
        if kind != "message":
            return
        data = message.get("data")
        if not isinstance(data, str):
            return
        origin, _, payload = data.partition(" ")
        if origin == self.instance:
            return  # delivered locally when it was published
        if payload == HELLO:
            self._listeners_may_have_changed(channel)
            return
        for handler in list(self._handlers.get(channel, ())):
            try:
                handler(payload)
            except Exception:  # one bad subscriber must not stop the others
                log.exception("broker handler failed on %s", channel)

    # -- publishing --------------------------------------------------------------------------

    async def _publish_loop(self, module: Any) -> None:
        async def session(client: Any, progressed: Callable[[], None]) -> None:
            while True:
                if not self._outbox:
                    self._wake.clear()
                    await self._wake.wait()
                batch = [self._outbox[i] for i in range(min(BATCH, len(self._outbox)))]
                pipe = client.pipeline(transaction=False)
                for item in batch:
                    pipe.publish(item.channel, item.text)
                heard = await pipe.execute()
                self.published += len(batch)
                # Sent: drop them (unless a full queue already pushed them out).
                for item in batch:
                    if self._outbox and self._outbox[0] is item:
                        self._outbox.popleft()
                for item, receivers in zip(batch, heard, strict=True):
                    # Only this instance's own listener heard it, and nobody has said hello
                    # or left since it was queued: keep the channel's messages local.
                    if (
                        receivers == 1
                        and item.epoch is not None
                        and item.epoch == self._epochs.get(item.channel, 0)
                        and self.connected
                        and item.channel in self._confirmed
                    ):
                        self._quiet.add(item.channel)
                progressed()

        def failed(exc: BaseException) -> None:
            log.warning(
                "cannot publish to the broker %s: %s; %d signals wait",
                safe_url(self.url),
                _reason(exc),
                len(self._outbox),
            )

        await self._reconnecting(module, session, failed)


class Outgoing(NamedTuple):
    """A message queued for Redis."""

    channel: str
    text: str
    epoch: int | None
    """The channel's epoch when queued, if its PUBLISH answer may make it quiet."""


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
