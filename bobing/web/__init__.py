"""The table server: FastAPI over the storage and realtime layers (see docs/protocol.md)."""

from __future__ import annotations

from bobing.web.settings import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None) -> object:
    """The ASGI app (imported lazily so ``import bobing.web`` stays cheap)."""
    from bobing.web.app import create_app as build

    return build(settings)
