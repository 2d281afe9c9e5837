"""Issue 29: the transport's own refusals, written before any request exists, carry the
security headers too (``tests/web/test_headers.py`` has every other response). A real
``bobing serve``, whose Uvicorn protocols hold the header limit.
"""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path

from sectools import served


def _raw_answer(url: str, request: bytes) -> str:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = raw.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n\r\n")[0].decode("latin-1").lower()


async def test_a_refusal_before_any_request_carries_the_headers(tmp_path: Path) -> None:
    async with served(tmp_path) as server:
        big = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70_000 + b"\r\n\r\n"
        head = await asyncio.to_thread(_raw_answer, server.url, big)
        assert head.startswith("http/1.1 431"), head
        assert "x-content-type-options: nosniff" in head, head
        assert "referrer-policy: no-referrer" in head, head
        assert "content-security-policy: default-src 'none'; frame-ancestors 'none'" in head
