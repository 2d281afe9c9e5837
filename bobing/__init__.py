"""博饼 (Bo Bing): rules engine, game engine, table server and analytics."""

from __future__ import annotations

__version__ = "0.1.0"
