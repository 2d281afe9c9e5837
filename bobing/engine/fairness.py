"""Provably fair dice: a committed server seed, HMAC-SHA256 per throw, rejection sampling.

The exact construction (docs/fairness.md has a worked example)::

    seed        32 random bytes, written as 64 lowercase hex digits
    commitment  SHA-256(seed bytes), hex — published when the table is created
    message     b"bobing-dice-v1" 0x00 table_id 0x00 throw 0x00 nonce
                (table_id, the throw number in decimal and the nonce, all ASCII)
    block k     HMAC-SHA256(key = seed bytes, message || k as 4-byte big-endian), k = 0, 1, ...
    faces       read the blocks' bytes in order; a byte b < 252 gives the face b % 6 + 1,
                a byte >= 252 is skipped (252 = 6 * 42, so every face has exactly 42 bytes)

Throw number 0 is the two start dice. Standard library only, so any client can re-check.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bobing.engine.errors import InputError, RecordError

DOMAIN = b"bobing-dice-v1"
GRAB_DOMAIN = b"bobing-grab-v1"
SEED_BYTES = 32
ACCEPT_BELOW = 252
"""Bytes 252..255 are rejected: 252 is the largest multiple of 6 that fits in a byte."""

START_THROW = 0
"""The throw number of the two start dice."""

NONCE_PATTERN = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
TABLE_ID_PATTERN = re.compile(r"[A-Za-z0-9_\-]{1,64}")


def new_server_seed() -> str:
    """A fresh secret seed from the operating system's CSPRNG, as 64 hex digits."""
    return secrets.token_hex(SEED_BYTES)


def new_nonce() -> str:
    """A random nonce, for a thrower whose client sent none."""
    return secrets.token_urlsafe(12)


def _seed_bytes(seed: str) -> bytes:
    if not isinstance(seed, str) or not re.fullmatch(r"[0-9a-f]{64}", seed):
        raise InputError(
            f"invalid server seed {seed!r}: expected 64 lowercase hex digits",
            code="invalid_seed",
            value=seed,
        )
    return bytes.fromhex(seed)


def commitment(seed: str) -> str:
    """SHA-256 of the seed's 32 bytes, as hex: what the server publishes before any throw.

    >>> commitment("00" * 32)
    '66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925'
    """
    return hashlib.sha256(_seed_bytes(seed)).hexdigest()


def check_nonce(nonce: str) -> str:
    """Return ``nonce`` if it is 1-64 characters of ``A-Za-z0-9_.:-``, else raise InputError."""
    if not isinstance(nonce, str) or not NONCE_PATTERN.fullmatch(nonce):
        raise InputError(
            f"invalid nonce {nonce!r}: 1-64 characters of A-Z a-z 0-9 _ . : -",
            code="invalid_nonce",
            value=nonce,
        )
    return nonce


def message(table_id: str, throw: int, nonce: str) -> bytes:
    """The HMAC message for one throw (before the 4-byte block counter).

    >>> message("K7Q2MX", 5, "abc")
    b'bobing-dice-v1\\x00K7Q2MX\\x005\\x00abc'
    """
    if not TABLE_ID_PATTERN.fullmatch(table_id):
        raise InputError(f"invalid table id {table_id!r}", code="invalid_table_id")
    if isinstance(throw, bool) or not isinstance(throw, int) or throw < 0:
        raise InputError(f"invalid throw number {throw!r}", code="invalid_throw_number")
    check_nonce(nonce)
    return b"\x00".join(
        (DOMAIN, table_id.encode("ascii"), str(throw).encode("ascii"), nonce.encode("ascii"))
    )


def derive_faces(
    seed: str, table_id: str, throw: int, nonce: str, count: int = 6
) -> tuple[int, ...]:
    """The faces of throw ``throw`` at table ``table_id`` with the thrower's ``nonce``.

    >>> derive_faces("00" * 32, "K7Q2MX", 1, "abc")
    (4, 3, 3, 1, 3, 6)
    """
    key = _seed_bytes(seed)
    base = message(table_id, throw, nonce)
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        digest = hmac.new(key, base + block.to_bytes(4, "big"), hashlib.sha256).digest()
        for byte in digest:
            if byte < ACCEPT_BELOW:
                faces.append(byte % 6 + 1)
                if len(faces) == count:
                    break
        block += 1
    return tuple(faces)


def grab_rng(seed: str, table_id: str) -> random.Random:
    """The generator of the lights-off grab: Python's ``random.Random`` seeded with
    ``int.from_bytes(HMAC-SHA256(seed, b"bobing-grab-v1" 0x00 table_id), "big")``."""
    digest = hmac.new(
        _seed_bytes(seed), GRAB_DOMAIN + b"\x00" + table_id.encode("ascii"), hashlib.sha256
    ).digest()
    return random.Random(int.from_bytes(digest, "big"))


@dataclass(frozen=True, slots=True)
class ThrowCheck:
    """The outcome of re-deriving one throw."""

    throw: int
    nonce: str
    expected: str
    recorded: str

    @property
    def ok(self) -> bool:
        """Whether the recorded faces are the derived ones."""
        return self.expected == self.recorded


def _recorded_dice(entry: Any, index: int) -> str | None:
    """The six digits of a record's throw entry, or None for a 跳猴."""
    if isinstance(entry, str):
        return entry
    if isinstance(entry, Mapping):
        if entry.get("tiaohou"):
            return None
        dice = entry.get("dice")
        if isinstance(dice, str):
            return dice
        if isinstance(dice, Sequence):
            return "".join(str(d) for d in dice)
    raise RecordError(f"throw {index}: cannot read its dice from {entry!r}", throw=index)


def verify_record(record: Mapping[str, Any]) -> list[ThrowCheck]:
    """Check every server-dice throw of a record against its revealed seed.

    Raises RecordError when the record has no fairness block, the seed is missing or does
    not match the commitment, or a throw's faces differ from the derived ones.
    """
    fair = record.get("fairness")
    if not isinstance(fair, Mapping):
        raise RecordError('the record has no "fairness" block: nothing to verify', key="fairness")
    committed = fair.get("commitment")
    seed = fair.get("server_seed")
    table_id = fair.get("table_id")
    if not isinstance(seed, str):
        raise RecordError(
            "the server seed has not been revealed yet (the game is not over)",
            key="fairness.server_seed",
        )
    if not isinstance(table_id, str):
        raise RecordError("fairness.table_id is missing", key="fairness.table_id")
    if commitment(seed) != committed:
        raise RecordError(
            f"the revealed seed does not match the commitment {committed!r}",
            key="fairness.commitment",
        )
    throws = record.get("throws", [])
    if not isinstance(throws, list):
        raise RecordError("throws must be a list", key="throws")
    # A close ({"close": true}, RULES.md §8.1) is not a throw and takes no number.
    throws = [e for e in throws if not (isinstance(e, Mapping) and "close" in e)]
    entries = fair.get("throws", [])
    if not isinstance(entries, list):
        raise RecordError("fairness.throws must be a list", key="fairness.throws")
    checks: list[ThrowCheck] = []
    start = fair.get("start")
    if isinstance(start, Mapping) and start.get("nonce") is not None:
        nonce = str(start["nonce"])
        expected = "".join(map(str, derive_faces(seed, table_id, START_THROW, nonce, 2)))
        recorded = "".join(str(d) for d in start.get("dice", []))
        checks.append(ThrowCheck(START_THROW, nonce, expected, recorded))
    for item in entries:
        if not isinstance(item, Mapping) or not isinstance(item.get("throw"), int):
            raise RecordError(f"bad fairness.throws entry {item!r}", key="fairness.throws")
        number = int(item["throw"])
        if not 1 <= number <= len(throws):
            raise RecordError(
                f"fairness names throw {number} but the record has {len(throws)} throws",
                throw=number,
            )
        nonce = str(item.get("nonce", ""))
        recorded_dice = _recorded_dice(throws[number - 1], number)
        if recorded_dice is None:
            raise RecordError(f"throw {number}: a 跳猴 cannot come from server dice", throw=number)
        expected = "".join(map(str, derive_faces(seed, table_id, number, nonce)))
        checks.append(ThrowCheck(number, nonce, expected, recorded_dice))
    bad = [c for c in checks if not c.ok]
    if bad:
        first = bad[0]
        raise RecordError(
            f"throw {first.throw}: recorded {first.recorded} but the seed gives {first.expected}"
            + (f" ({len(bad)} throws differ)" if len(bad) > 1 else ""),
            code="fairness_mismatch",
            throw=first.throw,
        )
    return checks
