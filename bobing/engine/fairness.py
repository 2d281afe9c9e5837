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
from functools import lru_cache
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


SEED_PATTERN = re.compile(r"[0-9a-f]{64}")


def _seed_bytes(seed: str) -> bytes:
    if not isinstance(seed, str) or not SEED_PATTERN.fullmatch(seed):
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


def check_nonce(nonce: object) -> str:
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
    inner, outer = _keyed(seed)
    base = message(table_id, throw, nonce)
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        # HMAC-SHA256(key, base || block) from the key's two padded hashes (RFC 2104), as
        # hmac.new(key, ..., hashlib.sha256).digest() gives it, without hashing the key again.
        h = inner.copy()
        h.update(base + block.to_bytes(4, "big"))
        o = outer.copy()
        o.update(h.digest())
        digest = o.digest()
        for byte in digest:
            if byte < ACCEPT_BELOW:
                faces.append(byte % 6 + 1)
                if len(faces) == count:
                    break
        block += 1
    return tuple(faces)


@lru_cache(maxsize=4096)
def _keyed(seed: str) -> tuple[hashlib._Hash, hashlib._Hash]:
    """SHA-256 already fed the seed's key XOR the inner and the outer pad (RFC 2104): every
    throw of a table copies them instead of starting HMAC afresh (a busy server throws at a
    few thousand tables, each with its own seed)."""
    key = _seed_bytes(seed).ljust(hashlib.sha256().block_size, b"\x00")
    return (
        hashlib.sha256(bytes(b ^ 0x36 for b in key)),
        hashlib.sha256(bytes(b ^ 0x5C for b in key)),
    )


def grab_rng(seed: str, table_id: str) -> random.Random:
    """The generator of the lights-off grab: Python's ``random.Random`` seeded with
    ``int.from_bytes(HMAC-SHA256(seed, b"bobing-grab-v1" 0x00 table_id), "big")``."""
    digest = hmac.new(
        _seed_bytes(seed), GRAB_DOMAIN + b"\x00" + table_id.encode("ascii"), hashlib.sha256
    ).digest()
    return random.Random(int.from_bytes(digest, "big"))


SERVER_DICE_MODES = ("online", "pass_and_play")
"""Table modes whose every throw (and start dice) the server rolls."""
REFEREE_MODE = "referee"
"""Real dice, typed in by the host: nothing for the seed to prove."""


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


@dataclass(frozen=True, slots=True)
class Verification:
    """What :func:`verify` proved about a record (it raises instead of returning a failure)."""

    table_id: str
    commitment: str
    mode: str | None
    """The record's ``table.mode``; None for a record without one (checked as server dice)."""
    start: ThrowCheck | None
    throws: tuple[ThrowCheck, ...]
    seen_sent: int = 0
    """How many throws this device threw itself, with its own nonce (from ``seen``)."""
    seen_throws: int = 0
    """How many throws this device saw live that the record repeats exactly (from ``seen``)."""

    @property
    def referee(self) -> bool:
        """A referee table: real dice, so no throw was checked (there is nothing to check)."""
        return self.mode == REFEREE_MODE


def _fail(message: str, code: str, **params: Any) -> RecordError:
    return RecordError(message, code=code, **params)


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
    raise _fail(
        f"throw {index}: cannot read its dice from {entry!r}",
        "fairness_bad_throw",
        throw=index,
        value=entry,
    )


def _digits(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Sequence):
        return "".join(str(d) for d in value)
    return repr(value)


def _throws(record: Mapping[str, Any]) -> list[Any]:
    """The record's throws, numbered from 1 (a close entry of RULES.md §8.1 is not a throw)."""
    from bobing.engine.record_format import is_close

    throws = record.get("throws", [])
    if not isinstance(throws, list):
        raise _fail("throws must be a list", "fairness_bad_throws")
    return [entry for entry in throws if not is_close(entry)]


def _mode(record: Mapping[str, Any]) -> str | None:
    table = record.get("table")
    mode = table.get("mode") if isinstance(table, Mapping) else None
    if mode is not None and mode not in (*SERVER_DICE_MODES, REFEREE_MODE):
        raise _fail(
            f"unknown table mode {mode!r} in the record; allowed: online, pass_and_play, referee",
            "fairness_bad_mode",
            value=mode,
        )
    return None if mode is None else str(mode)


def _seed_and_table(fair: Mapping[str, Any], *, required: bool) -> tuple[str | None, str]:
    committed = fair.get("commitment")
    seed = fair.get("server_seed")
    table_id = fair.get("table_id")
    if not isinstance(table_id, str) or not TABLE_ID_PATTERN.fullmatch(table_id):
        raise _fail(
            f"fairness.table_id {table_id!r} is missing or invalid",
            "fairness_no_table_id",
            value=table_id,
        )
    if not isinstance(committed, str) or not re.fullmatch(r"[0-9a-f]{64}", committed):
        raise _fail(
            f"fairness.commitment {committed!r} is missing or not 64 hex digits",
            "fairness_no_commitment",
            value=committed,
        )
    if seed is None:
        if required:
            raise _fail(
                "the server seed has not been revealed yet (the game is not over)",
                "fairness_seed_hidden",
            )
        return None, table_id
    if commitment(seed) != committed:
        raise _fail(
            f"the revealed seed does not match the commitment {committed!r}",
            "fairness_seed_mismatch",
            value=committed,
        )
    return str(seed), table_id


def _entries(fair: Mapping[str, Any], count: int) -> dict[int, str]:
    """fairness.throws as {throw number: nonce}, each well formed and named once."""
    entries = fair.get("throws", [])
    if not isinstance(entries, list):
        raise _fail("fairness.throws must be a list", "fairness_bad_entry", value=entries)
    out: dict[int, str] = {}
    for item in entries:
        number = item.get("throw") if isinstance(item, Mapping) else None
        if isinstance(number, bool) or not isinstance(number, int):
            raise _fail(f"bad fairness.throws entry {item!r}", "fairness_bad_entry", value=item)
        if not 1 <= number <= count:
            raise _fail(
                f"fairness names throw {number} but the record has {count} throws",
                "fairness_extra_entry",
                throw=number,
                count=count,
            )
        if number in out:
            raise _fail(
                f"fairness names throw {number} twice", "fairness_duplicate_entry", throw=number
            )
        out[number] = check_nonce(item.get("nonce"))
    return out


def verify(record: Mapping[str, Any], seen: Mapping[str, Any] | None = None) -> Verification:
    """Check a record's dice against its revealed seed; with ``seen``, also against one device.

    At an ``online`` or ``pass_and_play`` table (or a record that does not say) the server
    rolled every throw: each throw must have a fairness entry, and its faces must be the ones
    derived from the seed and that entry's nonce; so must the start dice that chose the
    starter. A ``referee`` table's dice are real dice: there is nothing to derive, and a
    fairness entry there is itself a sign of tampering. ``seen`` is what one device saw live
    (:func:`verify_seen`). Raises RecordError naming the first thing that does not hold.
    """
    fair = record.get("fairness")
    if not isinstance(fair, Mapping):
        raise _fail(
            'the record has no "fairness" block: nothing to verify', "fairness_missing_block"
        )
    mode = _mode(record)
    throws = _throws(record)
    if mode == REFEREE_MODE:
        seed, table_id = _seed_and_table(fair, required=False)
        named = fair.get("throws") or []
        if named:
            raise _fail(
                "the record says its table is a referee table (real dice) but names "
                f"{len(named) if isinstance(named, list) else 1} server-rolled throws: "
                "it has been altered",
                "fairness_referee_entries",
                count=len(named) if isinstance(named, list) else 1,
            )
        # the host may still have let the server roll the start dice
        start = fair.get("start")
        rolled = isinstance(start, Mapping) and start.get("nonce") is not None
        start_check = None
        if seed is not None and rolled:
            start_check = _start_check(record, fair, seed, table_id)
        if start_check is not None and not start_check.ok:
            raise _fail(
                f"the start dice: recorded {start_check.recorded} but the seed gives "
                f"{start_check.expected}",
                "fairness_start_mismatch",
                recorded=start_check.recorded,
                expected=start_check.expected,
            )
        result = Verification(table_id, str(fair["commitment"]), mode, start_check, ())
        if seen is not None:
            raise _fail(
                "a referee table's dice are real dice: a device has nothing to compare",
                "fairness_referee_seen",
            )
        return result
    seed, table_id = _seed_and_table(fair, required=True)
    assert seed is not None
    disputes = fair.get("disputes") or []
    if disputes:
        first = disputes[0] if isinstance(disputes, list) else {}
        first = first if isinstance(first, Mapping) else {}
        raise _fail(
            f"throw {first.get('throw')}: {first.get('player')}'s device reported that it sent "
            f"the nonce {first.get('sent')!r} but the server rolled with {first.get('nonce')!r}"
            f" ({len(disputes)} throws disputed): the server chose the randomness",
            "fairness_disputed",
            throw=first.get("throw"),
            player=first.get("player"),
            sent=first.get("sent"),
            nonce=first.get("nonce"),
            count=len(disputes),
        )
    entries = _entries(fair, len(throws))
    missing = [n for n in range(1, len(throws) + 1) if n not in entries]
    if missing:
        listed = ", ".join(map(str, missing[:10])) + (", …" if len(missing) > 10 else "")
        raise _fail(
            f"throw {missing[0]} has no fairness entry: the server rolls every throw at an "
            f"online or pass-and-play table, so each needs one ({len(missing)} missing: "
            f"{listed})",
            "fairness_entry_missing",
            throw=missing[0],
            count=len(missing),
            throws=listed,
        )
    checks: list[ThrowCheck] = []
    for number in range(1, len(throws) + 1):
        recorded = _recorded_dice(throws[number - 1], number)
        if recorded is None:
            raise _fail(
                f"throw {number}: a 跳猴 cannot come from server dice",
                "fairness_tiaohou",
                throw=number,
            )
        nonce = entries[number]
        expected = "".join(map(str, derive_faces(seed, table_id, number, nonce)))
        checks.append(ThrowCheck(number, nonce, expected, recorded))
    start_check = _start_check(record, fair, seed, table_id)
    bad = [c for c in checks if not c.ok]
    if start_check is not None and not start_check.ok:
        raise _fail(
            f"the start dice: recorded {start_check.recorded} but the seed gives "
            f"{start_check.expected}",
            "fairness_start_mismatch",
            recorded=start_check.recorded,
            expected=start_check.expected,
        )
    if bad:
        first = bad[0]
        raise _fail(
            f"throw {first.throw}: recorded {first.recorded} but the seed gives {first.expected}"
            + (f" ({len(bad)} throws differ)" if len(bad) > 1 else ""),
            "fairness_mismatches" if len(bad) > 1 else "fairness_mismatch",
            throw=first.throw,
            recorded=first.recorded,
            expected=first.expected,
            count=len(bad),
        )
    result = Verification(table_id, str(fair["commitment"]), mode, start_check, tuple(checks))
    if seen is None:
        return result
    sent, matched = verify_seen(record, seen)
    return Verification(
        result.table_id, result.commitment, mode, start_check, result.throws, sent, matched
    )


def _start_check(
    record: Mapping[str, Any], fair: Mapping[str, Any], seed: str, table_id: str
) -> ThrowCheck | None:
    """The server-rolled start dice, which must back any start dice the record names."""
    start = record.get("start")
    start = start if isinstance(start, Mapping) else {}
    record_dice = start.get("dice")
    entry = fair.get("start")
    if entry is None:
        if record_dice is not None:
            raise _fail(
                "the record names start dice but fairness.start does not: the server rolls "
                "the start dice at an online or pass-and-play table",
                "fairness_start_missing",
            )
        return None
    if not isinstance(entry, Mapping):
        raise _fail(f"bad fairness.start {entry!r}", "fairness_bad_entry", value=entry)
    nonce = check_nonce(entry.get("nonce"))
    recorded = _digits(entry.get("dice"))
    if record_dice is not None and (
        _digits(record_dice) != recorded or start.get("thrower") != entry.get("thrower")
    ):
        raise _fail(
            f"the record's start dice {_digits(record_dice)} (thrower {start.get('thrower')!r}) "
            f"are not fairness.start's {recorded} (thrower {entry.get('thrower')!r})",
            "fairness_start_differs",
            dice=_digits(record_dice),
            thrower=start.get("thrower"),
            expected=recorded,
            expected_thrower=entry.get("thrower"),
        )
    expected = "".join(map(str, derive_faces(seed, table_id, START_THROW, nonce, 2)))
    return ThrowCheck(START_THROW, nonce, expected, recorded)


def verify_seen(record: Mapping[str, Any], seen: Mapping[str, Any]) -> tuple[int, int]:
    """Compare a record with what one device saw live; return (throws it sent, throws seen).

    ``seen`` is the file the browser's fairness card saves (docs/fairness.md)::

        {"table_id": "K7Q2MX", "commitment": "<hex, as this device saw it before throwing>",
         "throws": [{"throw": 5, "nonce": "<in the dice event>", "dice": "442356",
                     "sent": "<the nonce this device sent, if it threw>"}, ...]}

    A throw this device threw must carry the nonce it sent (else the server chose the
    randomness, and so could have chosen the dice); every throw it saw must be in the record
    with the same nonce and dice (else the record is not what was shown at the table).
    """
    fair = record.get("fairness")
    assert isinstance(fair, Mapping)
    if seen.get("table_id") != fair.get("table_id"):
        raise _fail(
            f"the device's file is for table {seen.get('table_id')!r}, "
            f"the record for {fair.get('table_id')!r}",
            "seen_other_table",
            value=seen.get("table_id"),
            expected=fair.get("table_id"),
        )
    if seen.get("commitment") != fair.get("commitment"):
        raise _fail(
            f"this device saw the commitment {seen.get('commitment')!r} before the game, "
            f"the record has {fair.get('commitment')!r}: the seed was changed",
            "seen_commitment",
            value=seen.get("commitment"),
            expected=fair.get("commitment"),
        )
    items = seen.get("throws", [])
    if not isinstance(items, list):
        raise _fail("the device's throws must be a list", "seen_bad_entry", value=items)
    throws = _throws(record)
    entries = _entries(fair, len(throws))
    sent = 0
    for item in items:
        number = item.get("throw") if isinstance(item, Mapping) else None
        if isinstance(number, bool) or not isinstance(number, int):
            raise _fail(f"bad entry {item!r} in the device's file", "seen_bad_entry", value=item)
        assert isinstance(item, Mapping)
        mine = item.get("sent")
        if mine is not None and mine != item.get("nonce"):
            raise _fail(
                f"throw {number}: this device sent the nonce {mine!r} but the server rolled "
                f"with {item.get('nonce')!r}: it did not use your randomness, so it could "
                "have chosen these dice",
                "seen_nonce_ignored",
                throw=number,
                sent=mine,
                nonce=item.get("nonce"),
            )
        if number not in entries:
            raise _fail(
                f"throw {number}: this device saw it, but the record does not have it",
                "seen_throw_missing",
                throw=number,
            )
        recorded = _recorded_dice(throws[number - 1], number)
        if entries[number] != item.get("nonce") or recorded != _digits(item.get("dice")):
            raise _fail(
                f"throw {number}: this device saw nonce {item.get('nonce')!r} and dice "
                f"{_digits(item.get('dice'))}, the record has {entries[number]!r} and {recorded}",
                "seen_throw_differs",
                throw=number,
                nonce=item.get("nonce"),
                dice=_digits(item.get("dice")),
                recorded_nonce=entries[number],
                recorded=recorded,
            )
        sent += mine is not None
    return sent, len(items)


def verify_record(record: Mapping[str, Any]) -> list[ThrowCheck]:
    """The checks of :func:`verify`: the start dice (throw 0) if rolled, then every throw.

    Raises RecordError as :func:`verify` does.
    """
    result = verify(record)
    return ([result.start] if result.start is not None else []) + list(result.throws)
