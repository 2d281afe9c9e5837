"""The broker factory: a backend chosen by URL scheme, imported lazily.

Apart from the interface (:mod:`bobing.realtime.broker`), so that the backends import the
interface and only this module imports the backends: no circle.
"""

from __future__ import annotations

from bobing.realtime.broker import Broker, broker_scheme


def get_broker(url: str = "memory://") -> Broker:
    """The broker for ``url``: ``memory://`` or ``redis://…`` / ``rediss://…``."""
    scheme = broker_scheme(url)
    if scheme == "memory":
        from bobing.realtime.memory import MemoryBroker

        return MemoryBroker()
    from bobing.realtime.redis import RedisBroker

    return RedisBroker(url)
