"""Running the server: bind, migrate, print the addresses and a QR code, serve with Uvicorn."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import socket
import sys
from collections.abc import Callable
from typing import Any, TextIO
from urllib.parse import urlsplit, urlunsplit

from bobing.engine.errors import BobingError, InputError
from bobing.process.heartbeat import WS_PING_INTERVAL, WS_PING_TIMEOUT
from bobing.process.loop import loop_factory, raise_open_files
from bobing.realtime.backends import get_broker
from bobing.storage.db import Database
from bobing.web.edge.invite import urls
from bobing.web.gc_pauses import HeapKeeper
from bobing.web.settings import Settings

WS_MAX_SIZE = 1 << 20
"""The test servers' frame ceiling (``bobing serve`` uses its transport limits instead)."""
KEEP_ALIVE = 10.0
"""Seconds an idle HTTP connection stays open for its next request. Longer than the idle
limit of the clients that do not retry a request lost to a closing connection (httpx's 5 s,
Uvicorn's own default: a request sent at the moment the server closed was lost), so they
close first; short all the same, since a room behind one address shares its connection cap.
A proxy in front closes its idle connections to an instance sooner still (deploy/: 4 s)."""


def bind(host: str, port: int) -> socket.socket:
    """A listening socket, or a clear error (port in use, unknown host)."""
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise InputError(
            f"cannot listen on host {host!r}: {exc.strerror}", code="bad_host"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise InputError(
            f"cannot listen on {host}:{port}: {exc.strerror}", code="bad_port", port=port
        ) from None
    sock.listen(2048)
    sock.setblocking(False)
    return sock


def public_base(url: str) -> str:
    """A ``--public-url`` as a base for links (``https://bobing.example/`` →
    ``https://bobing.example``), or a clear error for anything but an http(s) URL."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise InputError(
            f"not a public URL (http:// or https://, no query): {url!r}", code="bad_public_url"
        )
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def print_banner(local: str, lan: list[str], out: TextIO, public_url: str | None = None) -> None:
    """The addresses, and a QR code of the public (or first LAN) address for phones."""
    print(f"bobing: serving on {local}", file=out)
    for url in lan:
        print(f"bobing: on your network: {url}", file=out)
    if public_url:
        print(f"bobing: public address: {public_url}", file=out)
    target = public_url or (lan[0] if lan else local)
    try:
        import segno

        qr = segno.make(target, error="m")
        qr.terminal(out=out, compact=True, border=2)
    except Exception:
        pass
    print("bobing: press Ctrl+C to stop", file=out, flush=True)


def run_server(
    settings: Settings,
    host: str,
    port: int,
    *,
    out: TextIO | None = None,
    on_ready: Callable[[str], None] | None = None,
) -> None:
    """Serve until interrupted."""
    out = out or sys.stdout
    raise_open_files()
    sock = bind(host, port)
    actual_port = int(sock.getsockname()[1])
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(_serve(settings, sock, host, actual_port, out, on_ready))
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()


async def _serve(
    settings: Settings,
    sock: socket.socket,
    host: str,
    port: int,
    out: TextIO,
    on_ready: Callable[[str], None] | None,
) -> None:
    import uvicorn

    from bobing.web.app import create_app

    # Migrate (and prove the database is reachable) before Uvicorn starts, so that a bad
    # --db gives one clear line instead of a startup traceback.
    db = Database(settings.db_url, schema=settings.db_schema)
    try:
        await db.migrate()
    except BobingError:
        raise
    except Exception as exc:
        raise InputError(
            f"cannot use the database {db.display_url}: {_reason(exc)}", code="db_unavailable"
        ) from None
    finally:
        await db.dispose()
    # The same for the broker: Redis not answering is one line, not a lifespan traceback.
    broker = get_broker(settings.broker_url)
    await broker.start()
    await broker.close()
    app = create_app(settings)
    app.state.listen = (host, port)
    config = uvicorn.Config(app, **uvicorn_options(settings))
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]))
    while not server.started and not task.done():
        await asyncio.sleep(0.02)
    if task.done():
        await task
        raise InputError("the server could not start", code="start_failed")
    tune_gc()
    keeper = HeapKeeper(lambda: app.state.hub.connection_count)
    keeping = asyncio.create_task(keeper.run())
    local, lan = urls(host, port)
    # Serving matters more than the banner (stdout may be a closed pipe).
    with contextlib.suppress(OSError):
        print_banner(local, lan, out, settings.public_url)
    if on_ready is not None:
        on_ready(local)
    try:
        await task
    finally:
        keeping.cancel()


def uvicorn_options(settings: Settings) -> dict[str, Any]:
    """How ``bobing serve`` configures Uvicorn: its protocols guarded by the transport limits."""
    from bobing.web.limits_transport import ConnectionGuard, guarded_protocols

    http, ws = guarded_protocols(ConnectionGuard(settings.transport))
    return {
        "http": http,
        "ws": ws,
        "log_level": "warning",
        # A frame over this closes the socket (1009); up to it the app answers too_large.
        "ws_max_size": settings.transport.ws_max_size,
        # Frames are small JSON on a LAN; compressing each costs more CPU than it saves.
        "ws_per_message_deflate": False,
        # A socket silent this long is pinged, and closed if no pong comes within the timeout
        # (a phone that left without a word). Phones ping the table themselves more often
        # than this, so the server pings only clients that do not (limits_transport).
        "ws_ping_interval": WS_PING_INTERVAL,
        "ws_ping_timeout": WS_PING_TIMEOUT,
        # Behind a reverse proxy every client has the proxy's address; trusted proxies'
        # X-Forwarded-For then names the phone (docs/deploy.md). Nobody else is believed.
        "proxy_headers": bool(settings.forwarded_allow_ips),
        "forwarded_allow_ips": settings.forwarded_allow_ips or "127.0.0.1",
        "lifespan": "on",
        "timeout_graceful_shutdown": 3,
        "timeout_keep_alive": KEEP_ALIVE,
    }


def tune_gc() -> None:
    """Keep collector pauses short with a thousand sockets open.

    Everything alive after start-up (the imported libraries) is frozen out of the scans; the
    young generation is larger, so fewer short-lived objects are promoted and full
    collections (which scan every live object) come rarely.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 100)


def _reason(exc: Exception) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
