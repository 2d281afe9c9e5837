"""The security headers of every HTTP response the app gives (docs/security.md, "Headers").

They are set here, by the app, so that they hold whatever proxy is in front (or none): a
Content-Security-Policy that lets the page run only its own files — scripts, styles, sockets
and fetches from its own origin, no framing — ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: no-referrer``.

The page has two inline blocks the server writes itself (``bobing.web.assets``): the import
map (browsers read an import map only inline) and the first paint's stylesheet. The policy
names each by its SHA-256, computed when the site is read; nothing else inline runs, not even
a ``style`` attribute.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterable

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send


def csp_hash(text: str) -> str:
    """A CSP hash source for an inline block: ``'sha256-…'`` of its exact text."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def content_security_policy(scripts: Iterable[str] = (), styles: Iterable[str] = ()) -> str:
    """The policy of every response: the page's own files only, ``scripts`` and ``styles``
    (CSP hash sources, :func:`csp_hash`) its own inline blocks; never framed.

    ``img-src`` allows ``data:`` (the favicon written into the page, a shared result card
    drawn on a canvas) and ``blob:`` (a download made in the page).
    """
    script_src = " ".join(["'self'", *sorted(set(scripts))])
    style_src = " ".join(["'self'", *sorted(set(styles))])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {script_src}",
            f"style-src {style_src}",
            "img-src 'self' data: blob:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'none'",
            "form-action 'self'",
            "frame-ancestors 'none'",
        ]
    )


PROBLEM_POLICY = "default-src 'none'; frame-ancestors 'none'"
"""The policy of a refusal written before any request exists (a problem document needs
nothing): ``bobing.web.limits_transport``."""


def security_headers(policy: str) -> list[tuple[bytes, bytes]]:
    """The headers every response carries, with ``policy`` as its CSP."""
    return [
        (b"content-security-policy", policy.encode("ascii")),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]


class SecurityHeaders:
    """ASGI middleware: every HTTP response gets :func:`security_headers` (a header the
    route set itself is kept)."""

    def __init__(self, app: ASGIApp, policy: str) -> None:
        self.app = app
        self.headers = security_headers(policy)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in self.headers:
                    key = name.decode("ascii")
                    if key not in headers:
                        headers[key] = value.decode("ascii")
            await send(message)

        await self.app(scope, receive, send_with_headers)
