"""Server settings: where the database, the broker and the static UI are, and every limit."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bobing.tables.limits import Limits
from bobing.web.limits_transport import TransportLimits

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
    public_url: str | None = None
    """Where phones open the server behind a reverse proxy (``--public-url``): the base of every
    invite link and QR code; None: the LAN address (docs/deploy.md)."""
    allowed_origins: tuple[str, ...] = ()
    """Browser origins besides the page's own (and ``public_url``'s) whose pages may open
    WebSockets (``--allow-origin``, e.g. ``https://tv.example``); docs/security.md."""
    static_dir: Path = field(default=STATIC_DIR)
    transport: TransportLimits = field(default_factory=TransportLimits)
    """Timeouts, connections per address, body and frame sizes (docs/security.md)."""
    runtime_cache: int = 5000
    send_queue: int = 5000
    """Frames waiting for one slow WebSocket before it is dropped (it resyncs on reconnect)."""
    analysis_processes: bool = True
    """Analysis in worker processes (False: threads, for tests that count calls in-process)."""
    limits: Limits = field(default_factory=Limits)
    """Rate limits, quotas, log size, snapshots and retention (docs/security.md)."""
