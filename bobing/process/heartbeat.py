"""How long a WebSocket may stay silent: one heartbeat for ``bobing serve`` and for the bare
relay it is measured against (``bobing bench server --floor``), which keeps its sockets the
same way (a relay that never pings holds a vanished phone's socket for ever)."""

from __future__ import annotations

WS_PING_INTERVAL = 25.0
"""Seconds a WebSocket may stay silent before the server pings it. Longer than the phones'
own heartbeat (``PING_EVERY_MS`` in static/js/conn.js, 20 s), so a phone is never pinged
twice over: its ping every 20 s is all the heartbeat its socket has (one heartbeat a socket,
not two; tests/web/test_heartbeat.py holds the two numbers apart)."""

WS_PING_TIMEOUT = 20.0
"""Seconds a pinged socket has to answer before it is closed (1011): a phone that vanished
without closing its socket is let go at most 45 s after it was last heard."""
