"""The real entry point (``bobing.cli.main``) run in-process, as every CLI test runs it."""

from __future__ import annotations

import io
import sys
from typing import Any

import pytest

from bobing.cli import main


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *args: str,
    stdin: str = "",
) -> tuple[int, str, str]:
    """``bobing ARGS…`` with ``stdin`` piped in: its exit code (a message is 1), output, errors."""
    monkeypatch.setattr(sys, "argv", ["bobing", *args])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code: Any = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return (code if isinstance(code, int) else (0 if code is None else 1)), out, err
