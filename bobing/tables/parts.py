"""What the parts of the table service share: its state, and what one part calls of another.

:class:`~bobing.tables.service.TableService` is its parts together: :class:`RuntimeCache`
(``tables/cache.py``), :class:`TableTimers` (``tables/timers.py``), :class:`Rematches`
(``tables/rematch.py``) and its own creating, joining and commit loop. Each part is written
against :class:`ServicePart`, so it names what it uses of the others without importing them (no
import circle) and mypy checks every use; the service's ``__init__`` sets the state up.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

from bobing.storage.event_store import EventStore
from bobing.tables.clock import Clocks
from bobing.tables.limits import Limits
from bobing.tables.outcomes import Created, Outcome
from bobing.tables.protocol import Command
from bobing.tables.runtime import Runtime


class ServicePart:
    """The table service's state and the calls its parts make of each other."""

    store: EventStore
    limits: Limits
    cache_size: int
    clocks: Clocks
    auto_throws: Clocks
    _runtimes: OrderedDict[str, Runtime]
    _loading: dict[str, asyncio.Future[Runtime | None]]
    _heads: dict[str, int]
    _catching: set[str]
    _catch_up_slots: asyncio.Semaphore
    _background: set[asyncio.Task[None]]

    if TYPE_CHECKING:
        # defined by one part each: cache.py (runtime), timers.py (_arm), service.py (the rest)
        runtime: Callable[[str], Awaitable[Runtime]]
        _arm: Callable[[Runtime], None]
        create_table: Callable[..., Awaitable[Created]]
        execute: Callable[[str, Command, Iterable[str]], Awaitable[Outcome]]
        _run: Callable[..., Awaitable[Outcome]]
        _publish: Callable[[Runtime, list[dict[str, Any]]], Awaitable[None]]
