"""Provably fair dice: the documented construction, re-implemented here independently."""

from __future__ import annotations

import hashlib
import hmac
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bobing.engine.errors import InputError, RecordError
from bobing.engine.fairness import (
    commitment,
    derive_faces,
    grab_rng,
    message,
    new_server_seed,
    verify_record,
)

SEED = "00" * 32


def reference_faces(seed_hex: str, table: str, throw: int, nonce: str, count: int = 6) -> list[int]:
    """docs/fairness.md, step by step."""
    key = bytes.fromhex(seed_hex)
    msg = (
        b"bobing-dice-v1\x00"
        + table.encode()
        + b"\x00"
        + str(throw).encode()
        + b"\x00"
        + nonce.encode()
    )
    faces: list[int] = []
    block = 0
    while len(faces) < count:
        digest = hmac.new(key, msg + block.to_bytes(4, "big"), hashlib.sha256).digest()
        faces.extend(b % 6 + 1 for b in digest if b < 252)
        block += 1
    return faces[:count]


def test_documented_vector() -> None:
    # The worked example of docs/fairness.md.
    assert commitment(SEED) == "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"
    assert message("K7Q2MX", 5, "abc") == b"bobing-dice-v1\x00K7Q2MX\x005\x00abc"
    assert derive_faces(SEED, "K7Q2MX", 1, "abc") == (4, 3, 3, 1, 3, 6)


@given(
    seed=st.binary(min_size=32, max_size=32).map(bytes.hex),
    table=st.from_regex(r"[A-Z2-9]{6}", fullmatch=True),
    throw=st.integers(0, 10_000),
    nonce=st.from_regex(r"[A-Za-z0-9_.:\-]{1,64}", fullmatch=True),
)
def test_matches_the_reference(seed: str, table: str, throw: int, nonce: str) -> None:
    assert list(derive_faces(seed, table, throw, nonce)) == reference_faces(
        seed, table, throw, nonce
    )


def test_rejected_bytes_are_skipped() -> None:
    # Find inputs whose first digest holds a byte >= 252 among its first accepted ones.
    for i in range(10_000):
        nonce = f"n{i}"
        digest = hmac.new(bytes(32), message("T", 1, nonce) + bytes(4), hashlib.sha256).digest()
        head = digest[:7]
        if any(b >= 252 for b in head[:6]):
            accepted = [b % 6 + 1 for b in digest if b < 252][:6]
            assert list(derive_faces(SEED, "T", 1, nonce)) == accepted
            assert len(accepted) == 6
            return
    pytest.fail("no digest with a rejected byte found")


def test_every_face_equally_likely() -> None:
    # 252 = 6 * 42: each face has exactly 42 accepted byte values.
    assert Counter(b % 6 + 1 for b in range(252)) == dict.fromkeys(range(1, 7), 42)
    counts = Counter(f for n in range(3000) for f in derive_faces(SEED, "T", n, "x"))
    assert sum(counts.values()) == 18_000
    assert all(2700 < c < 3300 for c in counts.values())  # 18000/6 = 3000; fixed inputs


def test_inputs_are_checked() -> None:
    with pytest.raises(InputError, match="nonce"):
        derive_faces(SEED, "T", 1, "has space")
    with pytest.raises(InputError, match="seed"):
        derive_faces("xyz", "T", 1, "a")
    with pytest.raises(InputError, match="throw"):
        derive_faces(SEED, "T", -1, "a")
    assert len(new_server_seed()) == 64 and new_server_seed() != new_server_seed()
    assert grab_rng(SEED, "T").random() == grab_rng(SEED, "T").random()


def record(seed: str | None = SEED) -> dict[str, object]:
    throws = ["".join(map(str, derive_faces(SEED, "T", n, f"n{n}"))) for n in (1, 2, 3)]
    return {
        "rules": "traditional",
        "players": ["甲", "乙"],
        "throws": [throws[0], {"player": "乙", "dice": throws[1]}, throws[2]],
        "fairness": {
            "commitment": commitment(SEED),
            "server_seed": seed,
            "table_id": "T",
            "start": {
                "thrower": "甲",
                "dice": list(derive_faces(SEED, "T", 0, "s", 2)),
                "nonce": "s",
            },
            "throws": [{"throw": n, "nonce": f"n{n}"} for n in (1, 2, 3)],
        },
    }


def test_verify_record() -> None:
    checks = verify_record(record())
    assert [c.throw for c in checks] == [0, 1, 2, 3] and all(c.ok for c in checks)


def test_verify_catches_tampering() -> None:
    tampered = record()
    tampered["throws"][1] = {"player": "乙", "dice": "444444"}  # type: ignore[index]
    with pytest.raises(RecordError, match="throw 2: recorded 444444"):
        verify_record(tampered)
    with pytest.raises(RecordError, match="not been revealed"):
        verify_record(record(seed=None))
    with pytest.raises(RecordError, match="does not match the commitment"):
        verify_record(record(seed="11" * 32))
    with pytest.raises(RecordError, match='no "fairness"'):
        verify_record({"players": [], "throws": []})
