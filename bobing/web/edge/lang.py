"""The language of a request: ``?lang=`` or the first Accept-Language tag."""

from __future__ import annotations

from fastapi import Request

from bobing.i18n import request_language


def request_lang(request: Request) -> str:
    """``?lang=`` or the first Accept-Language tag, normalized."""
    return request_language(
        request.query_params.get("lang"), request.headers.get("accept-language")
    )
