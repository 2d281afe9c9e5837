"""HeapKeeper: the heap is frozen as sockets are added, and reclaimed once they have halved."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from bobing.web.gc_pauses import HeapKeeper


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()


class Garbage:
    """An object in a reference cycle: only the collector can free it."""

    def __init__(self) -> None:
        self.me = self


def test_freezes_as_sockets_grow_and_not_before() -> None:
    open_sockets = [0]
    keeper = HeapKeeper(lambda: open_sockets[0], grow=0.1, min_step=200)
    assert keeper.step() is None
    open_sockets[0] = 199
    assert keeper.step() is None and gc.get_freeze_count() == 0
    open_sockets[0] = 200
    assert keeper.step() == "freeze"
    assert gc.get_freeze_count() > 0 and keeper.frozen_at == 200
    open_sockets[0] = 5000
    assert keeper.step() == "freeze"
    open_sockets[0] = 5499  # under 10 % more
    assert keeper.step() is None
    open_sockets[0] = 5500
    assert keeper.step() == "freeze" and keeper.freezes == 3


def test_reclaims_frozen_cycles_once_half_the_sockets_left() -> None:
    open_sockets = [10_000]
    keeper = HeapKeeper(lambda: open_sockets[0])
    cycle = Garbage()
    alive = weakref.ref(cycle)
    assert keeper.step() == "freeze"
    del cycle
    gc.collect()
    assert alive() is not None  # frozen: out of the collector's reach
    open_sockets[0] = 5001
    assert keeper.step() is None
    assert alive() is not None
    open_sockets[0] = 4999
    assert keeper.step() == "reclaim"
    assert alive() is None
    assert keeper.reclaims == 1 and keeper.frozen_at == 4999 and gc.get_freeze_count() > 0
