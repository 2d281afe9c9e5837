"""The HTTP/WebSocket edge: FastAPI routes and sockets over the table and event services.

The services themselves (``bobing.tables``, ``bobing.gatherings``) use no web framework; this
package turns HTTP requests and socket frames into their calls and their errors into problems
(``web/edge/``), fans each table's frames out to its sockets (``hub.py``), serves the front end
(``static/``) and runs it all with Uvicorn (``serve.py``). See docs/architecture.md and
docs/protocol.md.
"""

from __future__ import annotations

from bobing.web.settings import Settings

__all__ = ["Settings", "create_app"]


def create_app(settings: Settings | None = None) -> object:
    """The ASGI app (imported lazily so ``import bobing.web`` stays cheap)."""
    from bobing.web.app import create_app as build

    return build(settings)
