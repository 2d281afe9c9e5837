"""Secret tokens (stored only as hashes) and table codes."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Awaitable, Callable
from typing import TypeVar

from bobing.storage.errors import CodeTaken
from bobing.tables.problems import ApiError

T = TypeVar("T")

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


CODE_LENGTH = 6
CODE_ATTEMPTS = 20
"""Fresh codes tried before giving up (31**6 codes: a clash is already rare)."""

MAX_TOKEN_LENGTH = 200
"""The longest token a client may send (ours are far shorter); longer is no token of ours."""


def hash_token(token: str) -> str:
    """Tokens are stored (and compared) only as SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    """A fresh secret token, e.g. ``h_…`` (host), ``g_…`` (play), ``p_…`` (player)."""
    return f"{prefix}_{secrets.token_urlsafe(24)}"


def normalize_code(code: str) -> str:
    """Table codes are case-insensitive."""
    return code.strip().upper()


def bearer_token(authorization: str) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, or None when the header is
    not that (another scheme, no token, or one longer than :data:`MAX_TOKEN_LENGTH`): the one
    reading of the header; each caller says what a bad one means for it.

    >>> bearer_token("bearer  h_abc "), bearer_token("Basic xyz"), bearer_token("Bearer ")
    ('h_abc', None, None)
    """
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    if scheme.lower() != "bearer" or not token or len(token) > MAX_TOKEN_LENGTH:
        return None
    return token


def new_code() -> str:
    """A random code of :data:`CODE_LENGTH` characters of :data:`CODE_ALPHABET`."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


async def with_free_code(create: Callable[[str], Awaitable[T]], what: str) -> T:
    """``create(code)`` with fresh codes until one is free (``create`` raises
    :class:`~bobing.storage.errors.CodeTaken` for a code in use); ``conflict`` after
    :data:`CODE_ATTEMPTS`. ``what`` names the code in the error: ``table`` or ``event``."""
    for _ in range(CODE_ATTEMPTS):
        try:
            return await create(new_code())
        except CodeTaken:
            continue
    raise ApiError("conflict", f"could not find a free {what} code; try again")
