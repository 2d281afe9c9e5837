"""The WebSocket protocol: the command table, parsing client commands and building server
frames (docs/protocol.md).

Every command is declared once, as a pydantic model of :data:`TABLE` (its fields, their JSON
schema and the check that gives the protocol's own error); the parser, the state-changing
set, the service's dispatch, the OpenAPI document and the fuzz are derived from it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from bobing.engine.rules import MAX_PLAYERS
from bobing.storage.event_store import iso, utcnow
from bobing.tables import json_input
from bobing.tables.problems import ApiError
from bobing.tables.tokens import MAX_TOKEN_LENGTH

MAX_FRAME_BYTES = 4096
"""The largest client frame accepted; commands are small."""

ID_PATTERN = re.compile(r"[A-Za-z0-9_.:\-]{1,64}")

SUBPROTOCOL = "bobing"
"""The WebSocket subprotocol the server accepts (``Sec-WebSocket-Protocol``), and the only one it
ever names in its answer: a browser fails a socket whose server picks none of those offered."""

TOKEN_SUBPROTOCOL = "bobing.token."
"""A socket's tokens ride in its handshake as offered subprotocols, ``bobing.token.<token>``
(one each, beside :data:`SUBPROTOCOL`), never in its URL, so no access log holds them. Every
token the server hands out is a letter, ``_`` and URL-safe base64 (``[A-Za-z0-9_-]``), all of
them characters a subprotocol name may hold (RFC 6455 §4.1: an HTTP token)."""

SUBPROTOCOL_TOKEN = re.compile(rf"[A-Za-z0-9_\-]{{1,{MAX_TOKEN_LENGTH}}}")
"""What a token must look like to be offered as a subprotocol (every token of ours does)."""


def offered_subprotocols(tokens: Sequence[str]) -> list[str]:
    """What a client offers in its handshake: :data:`SUBPROTOCOL` and one
    ``bobing.token.<token>`` per token, each once (a browser refuses a name offered twice).

    >>> offered_subprotocols(["h_abc", "p_x-y", "h_abc"])
    ['bobing', 'bobing.token.h_abc', 'bobing.token.p_x-y']
    """
    offered = [SUBPROTOCOL]
    for token in tokens:
        name = TOKEN_SUBPROTOCOL + token
        if SUBPROTOCOL_TOKEN.fullmatch(token) and name not in offered:
            offered.append(name)
    return offered


def subprotocol_tokens(offered: Sequence[str]) -> list[str]:
    """The tokens a handshake offered (:func:`offered_subprotocols`), in order, each once.

    >>> subprotocol_tokens(["bobing", "bobing.token.h_abc", "chat", "bobing.token.h_abc"])
    ['h_abc']
    """
    tokens: list[str] = []
    for name in offered:
        token = name.strip().removeprefix(TOKEN_SUBPROTOCOL)
        if token != name.strip() and token and token not in tokens:
            tokens.append(token[:MAX_TOKEN_LENGTH])
    return tokens


@dataclass(frozen=True, slots=True)
class Command:
    """A validated client command: its ``type``, optional ``id`` and its checked fields."""

    type: str
    id: str | None = None
    args: dict[str, Any] = field(default_factory=dict)


def decode_frame(data: str | bytes, limit: int = MAX_FRAME_BYTES) -> dict[str, Any]:
    """The JSON object of one frame; ``too_large``, ``malformed``, ``too_deep`` or ``bad_text``
    otherwise (:mod:`bobing.tables.json_input`, shared with REST bodies)."""
    # ASCII text (every command our clients send) is as long as its UTF-8: no copy to count it
    size = len(data.encode("utf-8")) if isinstance(data, str) and not data.isascii() else len(data)
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
    if isinstance(value, list) and len(value) <= 12 and all(type(v) is int for v in value):
        return value  # whole numbers, as the model says (a bool is not a face)
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


PHOTO_ID_PATTERN = re.compile(r"[A-Za-z0-9_\-]{1,32}")
"""A kept photo's id, as ``POST /api/tables/{code}/read-dice`` answers it (``photo_id``)."""


def _photo_id(name: str, value: Any) -> Any:
    if not isinstance(value, str) or not PHOTO_ID_PATTERN.fullmatch(value):
        raise ApiError(
            "invalid_field",
            f"{name} must be the photo_id read-dice answered (1-32 of A-Z a-z 0-9 _ -)",
            field=name,
        )
    return value


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


@dataclass(frozen=True, slots=True)
class Checked:
    """A field's check (raises :class:`ApiError` with the protocol's own code and message),
    kept beside its JSON schema in the command table."""

    check: Check


CommandId = Annotated[str, Field(pattern=ID_PATTERN.pattern, description="idempotency key")]
Name = Annotated[str, Field(min_length=1, max_length=64), Checked(_text(64))]
Whole = Annotated[int, Field(ge=1, le=10**9), Checked(_positive_int)]
Flag = Annotated[bool, Checked(_bool)]
Nonce = Annotated[
    str,
    Field(pattern=ID_PATTERN.pattern, description="the thrower's nonce (docs/fairness.md)"),
    Checked(_nonce),
]
PhotoId = Annotated[
    str,
    Field(
        pattern=PHOTO_ID_PATTERN.pattern,
        description="a referee table with keep_photos: the photo the faces were read from",
    ),
    Checked(_photo_id),
]
Dice = Annotated[
    Annotated[str, Field(max_length=40)] | Annotated[list[int], Field(max_length=12)],
    Field(description='faces, e.g. "444412" or [4, 4, 4, 4, 1, 2] (checked by the engine)'),
    Checked(_dice),
]


class TableCommand(BaseModel):
    """A command of the table's protocol (docs/protocol.md): the one table every parser, the
    dispatch, the OpenAPI document and the fuzz are derived from."""

    model_config = ConfigDict(extra="forbid")
    state_changing: ClassVar[bool] = True
    """Whether it changes the table (and is sent over REST too); else it is the socket's own."""
    by_service: ClassVar[bool] = False
    """Decided by the service itself (it creates a table), not by a ``plan_*`` of commands.py."""

    id: CommandId | None = None


class Throw(TableCommand):
    """The next throw: server dice (online, pass-and-play) or the given faces (referee)."""

    type: Literal["throw"]
    turn: Whole | None = None
    nonce: Nonce | None = None
    player: Name | None = None
    dice: Dice | None = None
    tiaohou: Flag | None = None
    stand_in: Flag | None = None
    photo_id: PhotoId | None = None


class Grab(TableCommand):
    """The host settles a referee table's lights-off grab: an allocation, or random."""

    type: Literal["grab"]
    allocation: (
        Annotated[
            dict[str, dict[str, int]],
            Checked(_allocation),
            Field(description="name → tier → count"),
        ]
        | None
    ) = None
    random: Flag | None = None


class Reorder(TableCommand):
    """The host sets the seat order (clockwise) before the start."""

    type: Literal["reorder"]
    players: Annotated[
        list[Annotated[str, Field(min_length=1, max_length=64)]],
        Field(max_length=MAX_PLAYERS),
        Checked(_names),
    ]


class Remove(TableCommand):
    """The host removes a seated player before the start."""

    type: Literal["remove"]
    player: Name


class Lock(TableCommand):
    """The host locks the lobby or opens it again."""

    type: Literal["lock"]
    locked: Flag


class StartDice(TableCommand):
    """The two start dice: rolled by the server, or given at a referee table."""

    type: Literal["start_dice"]
    thrower: Name | None = None
    dice: Dice | None = None
    nonce: Nonce | None = None


class Start(TableCommand):
    """The host starts the game."""

    type: Literal["start"]
    starter: Name | None = None


class Pause(TableCommand):
    """The host pauses play."""

    type: Literal["pause"]


class Resume(TableCommand):
    """The host resumes a paused game."""

    type: Literal["resume"]


class End(TableCommand):
    """The host ends the game (a close once it has started)."""

    type: Literal["end"]


class Undo(TableCommand):
    """The host voids the last throw of a referee table."""

    type: Literal["undo"]
    throw: Whole | None = None


class Dispute(TableCommand):
    """The thrower's device reports a throw not rolled with the nonce it sent."""

    type: Literal["dispute"]
    throw: Whole
    nonce: Nonce


class HandSeat(TableCommand):
    """The host moves a seat to another phone (a one-time link in the ack)."""

    type: Literal["hand_seat"]
    player: Name


class ClaimSeat(TableCommand):
    """The phone holding a seat's link takes the seat."""

    type: Literal["claim_seat"]


class SetAutoThrow(TableCommand):
    """The host sets how long a player may be absent before the server throws for them."""

    type: Literal["set_auto_throw"]
    seconds: Annotated[
        int,
        Field(ge=0, le=MAX_AUTO_THROW, description=f"0 (off) or {MIN_AUTO_THROW}-{MAX_AUTO_THROW}"),
        Checked(_seconds),
    ]


class Rematch(TableCommand):
    """The host opens a new table with the same seats, rules and prizes."""

    by_service: ClassVar[bool] = True
    type: Literal["rematch"]


class ClaimRematch(TableCommand):
    """A seat of the finished table fetches its token at the rematch."""

    by_service: ClassVar[bool] = True
    type: Literal["claim_rematch"]


class React(TableCommand):
    """A seated player (or the host) sends one of the fixed emoji to the table."""

    type: Literal["react"]
    emoji: Annotated[Literal[REACTIONS], Checked(_reaction)]  # type: ignore[valid-type]


class Auth(TableCommand):
    """Add a token to this socket (its roles grow)."""

    state_changing: ClassVar[bool] = False
    type: Literal["auth"]
    token: Annotated[
        str, Field(min_length=1, max_length=MAX_TOKEN_LENGTH), Checked(_text(MAX_TOKEN_LENGTH))
    ]


class Ping(TableCommand):
    """A keep-alive; the server answers ``pong`` with its time."""

    state_changing: ClassVar[bool] = False
    type: Literal["ping"]


ClientFrame = Annotated[
    Throw | Grab | Reorder | Remove | Lock | StartDice | Start | Pause | Resume | End | Undo
    | Dispute | HandSeat | ClaimSeat | SetAutoThrow | Rematch | ClaimRematch | React | Auth
    | Ping,
    Field(discriminator="type"),
]  # fmt: skip
"""A client's frame: the discriminated union of the table (its JSON schema is OpenAPI's)."""
TABLE: tuple[type[TableCommand], ...] = get_args(get_args(ClientFrame)[0])
"""Every command of the protocol, once (the members of :data:`ClientFrame`)."""


def _kind(model: type[TableCommand]) -> str:
    (kind,) = get_args(model.model_fields["type"].annotation)
    return str(kind)


MODELS: dict[str, type[TableCommand]] = {_kind(m): m for m in TABLE}
"""Each command's model by its ``type``."""
STATE_CHANGING = frozenset(k for k, m in MODELS.items() if m.state_changing)
CONNECTION_COMMANDS = frozenset(MODELS) - STATE_CHANGING
COMMANDS = frozenset(MODELS)
BY_SERVICE = frozenset(k for k, m in MODELS.items() if m.by_service)
"""State-changing commands the service decides itself; every other one has its plan."""


def _check_of(metadata: Sequence[Any], annotation: Any) -> Check:
    """The :class:`Checked` of a field, found in its metadata or inside ``X | None``."""
    for item in metadata:
        if isinstance(item, Checked):
            return item.check
    for inner in get_args(annotation):
        for item in getattr(inner, "__metadata__", ()):
            if isinstance(item, Checked):
                return item.check
    raise TypeError(f"a field of the command table has no check: {annotation!r}")


FIELDS: dict[str, dict[str, Check]] = {
    kind: {
        name: _check_of(info.metadata, info.annotation)
        for name, info in model.model_fields.items()
        if name not in ("type", "id")
    }
    for kind, model in MODELS.items()
}
"""Each command's fields and their checks (from the table)."""
REQUIRED: dict[str, tuple[str, ...]] = {
    kind: tuple(n for n, info in model.model_fields.items() if n != "type" and info.is_required())
    for kind, model in MODELS.items()
}
"""The fields each command needs (from the table)."""


def command_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    """The JSON schema of a client frame and its definitions (for OpenAPI's components)."""
    schema = TypeAdapter(ClientFrame).json_schema(ref_template="#/components/schemas/{model}")
    definitions = schema.pop("$defs", {})
    return schema, definitions


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


FRAMES = ("welcome", "events", "ack", "error", "pong", "table")
"""The frame types the server sends (docs/protocol.md, "Server → client"); ``table`` wraps one
table's frame on a screen's shared socket (``/ws/watch``)."""


def pong(command_id: str | None) -> dict[str, Any]:
    """The answer to ``ping``, on the socket and over REST alike."""
    return {"type": "pong", "id": command_id, "server_time": iso(utcnow())}


def dumps(frame: Any) -> str:
    """Compact JSON with Chinese kept readable."""
    return json.dumps(frame, ensure_ascii=False, separators=(",", ":"))
