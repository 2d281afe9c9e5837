"""``bobing classify``, ``bobing odds`` and ``bobing rules`` (filled in by the rules-engine work)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
