"""A table's stored settings for the tests that make one without the service."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

from bobing.storage import TableInfo


def table_info(code: str = "ABC234", **changes: Any) -> TableInfo:
    """An online table in its lobby, with fixed secrets; ``changes`` set any other field."""
    info = TableInfo(
        code=code,
        name="桌",
        mode="online",
        status="lobby",
        rules={"preset": "traditional"},
        settings={"named_prizes": {}},
        host_token_hash="h" * 64,
        play_token_hash=None,
        server_seed="0" * 64,
        commitment="c" * 64,
        created_at=datetime(2025, 10, 6, 12, 0, tzinfo=UTC),
    )
    return dataclasses.replace(info, **changes)
