"""The language of a request: ``?lang=`` or the first Accept-Language tag."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from bobing.i18n import request_language


def request_lang(request: HTTPConnection) -> str:
    """``?lang=`` or the first Accept-Language tag, normalized (a request or a WebSocket)."""
    return request_language(
        request.query_params.get("lang"), request.headers.get("accept-language")
    )
