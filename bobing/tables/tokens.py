"""Secret tokens (stored only as hashes) and table codes."""

from __future__ import annotations

import hashlib
import secrets

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


CODE_LENGTH = 6


def hash_token(token: str) -> str:
    """Tokens are stored (and compared) only as SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def new_token(prefix: str) -> str:
    """A fresh secret token, e.g. ``h_…`` (host), ``g_…`` (play), ``p_…`` (player)."""
    return f"{prefix}_{secrets.token_urlsafe(24)}"


def normalize_code(code: str) -> str:
    """Table codes are case-insensitive."""
    return code.strip().upper()
