"""The examples in the rules engine's docstrings run and stay true."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = [
    "bobing.engine.dice",
    "bobing.engine.hands",
    "bobing.engine.rules",
    "bobing.engine.switches",
    "bobing.engine.ranked",
    "bobing.engine.record_format",
    "bobing.engine.presets",
    "bobing.engine.ranking",
    "bobing.i18n",
    "bobing.i18n.names",
    "bobing.analysis.odds",
    "bobing.organizer.results",
    "bobing.gatherings.collation",
]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0
