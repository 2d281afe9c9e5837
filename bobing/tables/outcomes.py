"""What a table command came to: its :class:`Outcome` (the ``ack``), a new table's
:class:`Created`, and the answer to a command id seen before."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from bobing.engine.json_text import encoder
from bobing.storage.event_store import (
    CommandRecord,
)
from bobing.tables.problems import ApiError
from bobing.tables.protocol import ID_PATTERN, Command, dumps
from bobing.tables.runtime import (
    Runtime,
)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a committed (or already committed) command."""

    seq: int
    last_seq: int
    duplicate: bool = False
    reply: dict[str, Any] = field(default_factory=dict)

    def ack(self, command_id: str | None) -> dict[str, Any]:
        """The ``ack`` frame; ``reply`` carries what only the sender may know (a new token)."""
        frame: dict[str, Any] = {
            "type": "ack",
            "id": command_id,
            "seq": self.seq,
            "last_seq": self.last_seq,
            "duplicate": self.duplicate,
        }
        if self.reply:
            frame["reply"] = self.reply
        return frame

    def ack_text(self, command_id: str | None) -> str:
        """:meth:`ack` as the socket sends it (``dumps``), written directly: every command is
        answered with one, and a protocol id needs no escaping (``ID_PATTERN``)."""
        if self.reply or (command_id is not None and not ID_PATTERN.fullmatch(command_id)):
            return dumps(self.ack(command_id))
        shown = "null" if command_id is None else f'"{command_id}"'
        duplicate = "true" if self.duplicate else "false"
        return (
            f'{{"type":"ack","id":{shown},"seq":{self.seq},"last_seq":{self.last_seq},'
            f'"duplicate":{duplicate}}}'
        )


@dataclass(frozen=True, slots=True)
class Created:
    """A new table and its secrets (returned once)."""

    code: str
    host_token: str
    play_token: str | None
    state: dict[str, Any]


def command_digest(command: Command) -> str:
    """What a command asks for (type and fields): one id names one command."""
    text = _digest_text([command.type, command.args])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_digest_text = encoder(sort_keys=True, separators=(", ", ": "))
"""``json.dumps(…, sort_keys=True, ensure_ascii=False)``: the text digests were always made of
(a retry after an upgrade must find its command's digest the same)."""


def sender_of(token_hashes: tuple[str, ...], runtime: Runtime) -> str | None:
    """Who sent a command: a hash of the table's tokens it came with (None without any)."""
    known = sorted({h for h in token_hashes if runtime.knows(h)})
    if not known:
        return None
    return hashlib.sha256(" ".join(known).encode("ascii")).hexdigest()


def repeated(
    runtime: Runtime,
    command_id: str,
    record: CommandRecord,
    sender: str | None,
    digest: str | None,
) -> Outcome:
    """A command id seen before: the original ack if it is the same sender's same command."""
    # Events stored before senders were recorded (None) are taken as the same sender.
    if record.sender is not None and record.sender != sender:
        raise ApiError(
            "command_id_reused",
            f"command id {command_id!r} was already used at table {runtime.code} by another "
            "sender; use a fresh id for each command",
            id=command_id,
            reason="sender",
        )
    if record.digest is not None and digest is not None and record.digest != digest:
        raise ApiError(
            "command_id_reused",
            f"command id {command_id!r} was already used at table {runtime.code} for a "
            "different command; use a fresh id for each command",
            id=command_id,
            reason="command",
        )
    return Outcome(record.seq, runtime.last_seq, duplicate=True)
