"""The WebSocket protocol: parsing client commands and building server frames (docs/protocol.md)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bobing.engine.rules import MAX_PLAYERS
from bobing.tables import json_input
from bobing.tables.problems import ApiError

MAX_FRAME_BYTES = 4096
"""The largest client frame accepted; commands are small."""

ID_PATTERN = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")
MAX_TOKEN_LENGTH = 200

STATE_CHANGING = frozenset(
    {
        "throw",
        "grab",
        "reorder",
        "remove",
        "lock",
        "start_dice",
        "start",
        "pause",
        "resume",
        "end",
        "undo",
        "dispute",
        "hand_seat",
        "claim_seat",
        "set_auto_throw",
        "rematch",
        "claim_rematch",
        "react",
    }
)
CONNECTION_COMMANDS = frozenset({"auth", "ping"})
COMMANDS = STATE_CHANGING | CONNECTION_COMMANDS


@dataclass(frozen=True, slots=True)
class Command:
    """A validated client command: its ``type``, optional ``id`` and its checked fields."""

    type: str
    id: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


def decode_frame(data: str | bytes, limit: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    """The JSON object of one frame; ``too_large``, ``malformed``, ``too_deep`` or ``bad_text``
    otherwise (:mod:`bobing.tables.json_input`, shared with REST bodies)."""
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > limit:
        raise ApiError(
            "too_large",
            f"frame of {size} bytes is over the limit of {limit}",
            size=size,
            limit=limit,
        )
    value = json_input.loads(data, what="frame")
    if not isinstance(value, dict):
        raise ApiError("malformed", f"a frame must be a JSON object, not {type(value).__name__}")
    return value


def _text(max_length: int) -> Callable[[str, Any], Any]:
    def check(name: str, value: Any) -> Any:
        if not isinstance(value, str) or not value or len(value) > max_length:
            raise ApiError(
                "invalid_field",
                f"{name} must be a non-empty string of at most {max_length} characters",
                field=name,
            )
        return value

    return check


def _positive_int(name: str, value: Any) -> Any:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10**9:
        raise ApiError("invalid_field", f"{name} must be a whole number >= 1", field=name)
    return value


def _bool(name: str, value: Any) -> Any:
    if not isinstance(value, bool):
        raise ApiError("invalid_field", f"{name} must be true or false", field=name)
    return value


def _nonce(name: str, value: Any) -> Any:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise ApiError(
            "invalid_nonce",
            f"invalid nonce {value!r}: 1-64 characters of A-Z a-z 0-9 _ . : -",
            value=str(value)[:80],
        )
    return value


def _dice(name: str, value: Any) -> Any:
    # The faces themselves are checked by the engine (parse_dice): specific messages.
    if isinstance(value, str) and len(value) <= 40:
        return value
    if isinstance(value, list) and len(value) <= 12:
        return value
    raise ApiError("invalid_dice", f"invalid dice {value!r}", value=str(value)[:80])


def _names(name: str, value: Any) -> Any:
    if (
        not isinstance(value, list)
        or len(value) > MAX_PLAYERS
        or not all(isinstance(v, str) and 0 < len(v) <= 64 for v in value)
    ):
        raise ApiError("invalid_field", f"{name} must be a list of names", field=name)
    return value


REACTIONS = ("👏", "🎉", "😂", "😱", "🥮", "🔥", "👍", "🙏")
"""The emoji a player may send to the table (a fixed set: nothing typed is shown to others)."""

MAX_AUTO_THROW = 3600
MIN_AUTO_THROW = 5


def _reaction(name: str, value: Any) -> Any:
    if value not in REACTIONS:
        raise ApiError(
            "invalid_field",
            f"{name} must be one of " + " ".join(REACTIONS) + f", not {str(value)[:20]!r}",
            field=name,
        )
    return value


def _seconds(name: str, value: Any) -> Any:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or not (value == 0 or MIN_AUTO_THROW <= value <= MAX_AUTO_THROW)
    ):
        raise ApiError(
            "invalid_field",
            f"{name} must be 0 (off) or {MIN_AUTO_THROW}-{MAX_AUTO_THROW} seconds, not {value!r}",
            field=name,
        )
    return value


def _allocation(name: str, value: Any) -> Any:
    if not isinstance(value, dict):
        raise ApiError("invalid_field", f"{name} must map names to tier counts", field=name)
    return value


Check = Callable[[str, Any], Any]

FIELDS: dict[str, dict[str, Check]] = {
    "throw": {
        "turn": _positive_int,
        "nonce": _nonce,
        "player": _text(64),
        "dice": _dice,
        "tiaohou": _bool,
        "stand_in": _bool,
    },
    "grab": {"allocation": _allocation, "random": _bool},
    "reorder": {"players": _names},
    "remove": {"player": _text(64)},
    "lock": {"locked": _bool},
    "start_dice": {"thrower": _text(64), "dice": _dice, "nonce": _nonce},
    "start": {"starter": _text(64)},
    "pause": {},
    "resume": {},
    "end": {},
    "undo": {"throw": _positive_int},
    "dispute": {"throw": _positive_int, "nonce": _nonce},
    "hand_seat": {"player": _text(64)},
    "claim_seat": {},
    "set_auto_throw": {"seconds": _seconds},
    "rematch": {},
    "claim_rematch": {},
    "react": {"emoji": _reaction},
    "auth": {"token": _text(MAX_TOKEN_LENGTH)},
    "ping": {},
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "reorder": ("players",),
    "remove": ("player",),
    "lock": ("locked",),
    "hand_seat": ("player",),
    "set_auto_throw": ("seconds",),
    "react": ("emoji",),
    "auth": ("token",),
    "dispute": ("throw", "nonce"),
}


def parse_command(frame: dict[str, Any]) -> Command:
    """Check a decoded frame against the command table; specific errors name the field."""
    kind = frame.get("type")
    if not isinstance(kind, str) or kind not in COMMANDS:
        shown = kind if isinstance(kind, str) else json.dumps(kind)
        raise ApiError(
            "unknown_command",
            f"unknown command {shown[:40]!r}; expected one of " + ", ".join(sorted(COMMANDS)),
            command=shown[:40],
        )
    command_id = frame.get("id")
    if command_id is not None and (
        not isinstance(command_id, str) or not ID_PATTERN.fullmatch(command_id)
    ):
        raise ApiError(
            "invalid_field", "id must be 1-64 characters of A-Z a-z 0-9 _ . : -", field="id"
        )
    checks = FIELDS[kind]
    args: dict[str, Any] = {}
    for key, value in frame.items():
        if key in ("type", "id"):
            continue
        check = checks.get(key)
        if check is None:
            raise ApiError(
                "invalid_field",
                f"unknown field {key[:40]!r} for {kind}",
                field=key[:40],
                command=kind,
            )
        if value is None:
            continue
        args[key] = check(key, value)
    for key in REQUIRED.get(kind, ()):
        if key not in args:
            raise ApiError("invalid_field", f"{kind} needs {key}", field=key, command=kind)
    return Command(kind, command_id, args)


def read_command(data: str | bytes) -> Command:
    """Decode and parse one client frame."""
    return parse_command(decode_frame(data))


def dumps(frame: Any) -> str:
    """Compact JSON with Chinese kept readable."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
