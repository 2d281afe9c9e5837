"""Server settings: where the database, the broker and the static UI are."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

STATIC_DIR = Path(__file__).resolve().parent / "static"


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything ``create_app`` needs; ``bobing serve`` fills it from its options."""

    db_url: str | None = None
    """SQLAlchemy URL; None = SQLite in the user's data directory."""
    db_schema: str | None = None
    """PostgreSQL schema for every table (tests use one per run)."""
    broker_url: str = "memory://"
    forwarded_allow_ips: str | None = None
    """Reverse proxies whose ``X-Forwarded-For`` is believed (comma-separated; None: nobody)."""
    static_dir: Path = field(default=STATIC_DIR)
    max_body_bytes: int = 64 * 1024
    runtime_cache: int = 5000
    send_queue: int = 5000
    """Frames waiting for one slow WebSocket before it is dropped (it resyncs on reconnect)."""
