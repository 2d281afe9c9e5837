"""The realtime broker interface: tell every server instance that a table's log grew.

The database log is the truth; a broker message is only a signal (with the new events as a
hint, so the instance that receives it rarely needs to read them back). A subscriber that
sees a gap in sequence numbers reads the log. Backends are chosen by URL scheme, imported
lazily: ``memory://`` (one process), later ``redis://`` (pub/sub across instances).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

from bobing.engine.errors import InputError

Handler = Callable[[str], None]
"""Receives each message of a channel; must not block (it queues work and returns)."""


class Broker(ABC):
    """Publish/subscribe of text messages on named channels."""

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


def table_channel(code: str) -> str:
    """The channel of one table."""
    return f"bobing:table:{code}"


def get_broker(url: str = "memory://") -> Broker:
    """The broker for ``url``: ``memory://`` now; ``redis://`` fits the same interface later."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else url.lower()
    if scheme == "memory":
        from bobing.realtime.memory import MemoryBroker

        return MemoryBroker()
    if scheme in ("redis", "rediss"):
        raise InputError(
            f"broker {url!r}: the Redis backend is not built yet; use memory://",
            code="invalid_broker",
            url=url,
        )
    raise InputError(
        f"unknown broker {url!r}: expected memory:// (or redis:// later)",
        code="invalid_broker",
        url=url,
    )
