"""CLI test settings: errors are asserted in English unless a test chooses a language.

The CLI reports errors in the reader's language (``--lang``, else ``BOBING_LANG``, else
zh-Hans). Tests that assert on the English wording get it through ``BOBING_LANG=en``:

* every CLI test starts with ``BOBING_LANG=en`` (also inherited by subprocesses);
* modules that test the default (Chinese) output clear ``BOBING_LANG`` in their own autouse
  fixture, which runs after this one; their error tests ask for ``english`` explicitly
  (``@pytest.mark.usefixtures("english")``), which runs after every autouse fixture.

Chinese errors are tested in tests/test_errors_i18n.py.
"""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOBING_LANG", "en")


@pytest.fixture
def english(monkeypatch: pytest.MonkeyPatch) -> None:
    """English messages (``BOBING_LANG=en``), after any fixture that cleared the language."""
    monkeypatch.setenv("BOBING_LANG", "en")
