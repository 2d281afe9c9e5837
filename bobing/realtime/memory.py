"""The in-process broker: subscribers are called directly, in subscription order."""

from __future__ import annotations

from collections.abc import Callable

from bobing.realtime.broker import Broker, Handler


class MemoryBroker(Broker):
    """Pub/sub inside one process (one server instance)."""

    def __init__(self) -> None:
        super().__init__()
        self._handlers: dict[str, list[Handler]] = {}

    async def publish(self, channel: str, message: str) -> None:
        """Hand ``message`` to the channel's handlers now."""
        for handler in list(self._handlers.get(channel, ())):
            handler(message)

    def subscribe(self, channel: str, handler: Handler) -> Callable[[], None]:
        """Add ``handler`` to ``channel``."""
        self._handlers.setdefault(channel, []).append(handler)

        def unsubscribe() -> None:
            handlers = self._handlers.get(channel)
            if handlers and handler in handlers:
                handlers.remove(handler)
                if not handlers:
                    del self._handlers[channel]

        return unsubscribe

    def channels(self) -> list[str]:
        """Channels with at least one subscriber (for tests)."""
        return list(self._handlers)
