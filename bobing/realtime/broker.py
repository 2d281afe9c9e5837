"""The realtime broker interface: tell every server instance that a table's log grew.

The database log is the truth; a broker message is only a signal (with the new events as a
hint, so the instance that receives it rarely needs to read them back). A subscriber that
sees a gap in sequence numbers reads the log. Backends are chosen by URL scheme, imported
lazily: ``memory://`` (one process) and ``redis://`` / ``rediss://`` (pub/sub across
instances, :mod:`bobing.realtime.redis`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from bobing.engine.errors import InputError

Handler = Callable[[str], None]
"""Receives each message of a channel; must not block (it queues work and returns)."""

Resync = Callable[[str, bool], None]
"""Called with ``(channel, reconnected)`` when messages of ``channel`` may have been missed:
the subscription just became active (anything published before it is only in the log), or
the connection to the broker came back after a break (``reconnected`` is True). The
subscriber reads the log; it must not block either."""

SCHEMES = ("memory", "redis", "rediss")


class Broker(ABC):
    """Publish/subscribe of text messages on named channels."""

    shared = False
    """Other server instances may write to the same database (their caches can be behind)."""

    def __init__(self) -> None:
        self._resync: list[Resync] = []

    async def start(self) -> None:  # noqa: B027 - optional hook
        """Connect (backends that need it)."""

    async def close(self) -> None:  # noqa: B027 - optional hook
        """Disconnect."""

    @abstractmethod
    async def publish(self, channel: str, message: str) -> None:
        """Send ``message`` to every subscriber of ``channel``, in every instance."""

    @abstractmethod
    def subscribe(self, channel: str, handler: Handler) -> Callable[[], None]:
        """Call ``handler`` with each message of ``channel``; returns the unsubscribe function."""

    def on_resync(self, callback: Resync) -> None:
        """Call ``callback`` whenever a channel's messages may have been missed (see Resync)."""
        self._resync.append(callback)

    def _tell_resync(self, channel: str, reconnected: bool) -> None:
        for callback in list(self._resync):
            callback(channel, reconnected)


def table_channel(code: str) -> str:
    """The channel of one table."""
    return f"bobing:table:{code}"


def broker_scheme(url: str) -> str:
    """The scheme of a broker URL, checked: ``memory``, ``redis`` or ``rediss``."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in SCHEMES:
        raise InputError(
            f"unknown broker {url!r}: expected memory:// or redis://host:port/db "
            "(rediss:// with TLS)",
            code="invalid_broker",
            url=url,
        )
    return scheme
