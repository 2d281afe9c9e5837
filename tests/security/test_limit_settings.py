"""The limits themselves: how they are set (options, environment) and how a bucket refills."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bobing.engine.errors import InputError
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.web.ratelimit import RateLimiter, address_key


def test_options_win_over_the_environment_which_wins_over_defaults() -> None:
    environ = {"BOBING_LIMIT_CREATE_PER_MINUTE": "5", "BOBING_LIMIT_MAX_EVENTS": "900"}
    limits = Limits.from_env(environ, ["create_per_minute=2", "rejoin-cooldown=0"])
    assert limits.create_per_minute == 2
    assert limits.max_events == 900 and isinstance(limits.max_events, int)
    assert limits.rejoin_cooldown == 0
    assert limits.join_per_minute == Limits().join_per_minute


@pytest.mark.parametrize(
    ("options", "code", "quoted"),
    [
        (["nope=1"], "unknown_limit", "'nope'"),
        (["max_events=1.5"], "invalid_limit", "'1.5'"),
        (["create_per_minute=-1"], "invalid_limit", "'-1'"),
        (["create_per_minute=inf"], "invalid_limit", "'inf'"),
        (["create_per_minute"], "invalid_limit", "'create_per_minute'"),
        (["analysis_workers=0"], "invalid_limit", "analysis_workers"),
    ],
)
def test_bad_limits_are_named(options: list[str], code: str, quoted: str) -> None:
    with pytest.raises(InputError) as caught:
        Limits.from_env({}, options)
    assert caught.value.code == code
    assert quoted in str(caught.value)


def test_serve_refuses_a_bad_limit_in_one_line(tmp_path: Path) -> None:
    bobing = Path(sys.executable).with_name("bobing")
    done = subprocess.run(
        [str(bobing), "serve", "--port", "0", "--limit", "retention_days=3"],
        capture_output=True, text=True, timeout=60, check=False,
        env={"PATH": "/usr/bin:/bin", "BOBING_LANG": "en", "HOME": str(tmp_path)},
    )  # fmt: skip
    assert done.returncode != 0
    assert "retention_days" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_a_bucket_refills_at_its_rate() -> None:
    now = [1000.0]
    limiter = RateLimiter({"create": 6}, clock=lambda: now[0])
    for _ in range(6):
        limiter.check("create", "a")
    with pytest.raises(ApiError) as caught:
        limiter.check("create", "a")
    assert caught.value.code == "rate_limited"
    assert caught.value.params["retry_after"] == 10  # one token every 10 s
    limiter.check("create", "b")  # another address has its own bucket
    limiter.check("join", "a")  # an action without a limit is free
    now[0] += 10
    limiter.check("create", "a")
    with pytest.raises(ApiError):
        limiter.check("create", "a")


def test_buckets_are_bounded() -> None:
    limiter = RateLimiter({"create": 1}, max_keys=3)
    for address in "abcdef":
        limiter.check("create", address)
    assert len(limiter._buckets) == 3


def test_addresses_are_stored_hashed() -> None:
    assert address_key("192.0.2.7") != "192.0.2.7"
    assert len(address_key("192.0.2.7")) == 64
    assert address_key("192.0.2.7") == address_key("192.0.2.7") != address_key("192.0.2.8")
