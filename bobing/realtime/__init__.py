"""Realtime fan-out between server instances: a tiny broker interface with pluggable backends."""

from __future__ import annotations

from bobing.realtime.backends import get_broker
from bobing.realtime.broker import Broker, Handler, table_channel
from bobing.realtime.memory import MemoryBroker

__all__ = ["Broker", "Handler", "MemoryBroker", "get_broker", "table_channel"]
