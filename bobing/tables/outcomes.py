"""What a table command came to: its :class:`Outcome` (the ``ack``), a new table's
:class:`Created`, and the answer to a command id seen before."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bobing.engine.errors import BobingError
from bobing.engine.events import EVENT_TYPES, Event, event_from_json
from bobing.engine.fairness import (
    commitment,
    new_server_seed,
)
from bobing.engine.game import MAX_NAME_LENGTH, Game
from bobing.engine.rules import rules_from_json
from bobing.organizer.text import name_key
from bobing.realtime.broker import Broker, table_channel
from bobing.storage.event_store import (
    Append,
    CommandRecord,
    EventStore,
    Seat,
    StaleWrite,
    StoredEvent,
    TableInfo,
    TableSnapshot,
    iso,
    utcnow,
)
from bobing.tables.clock import Clocks, time_up_command_id
from bobing.tables.commands import AUTO_THROW, PLANS, Plan, need_seated, plan_time_up
from bobing.tables.export import record_of, results_csv
from bobing.tables.frames import events_frame
from bobing.tables.limits import MAX_TABLE_NAME, Limits
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import Command
from bobing.tables.runtime import (
    Roles,
    Runtime,
    auto_throw_deadline,
    catch_up,
    last_thrown,
    note_event,
    restore,
    snapshot_of,
    throw_index,
)
from bobing.tables.state import build_state, refresh_state, state_text
from bobing.tables.tokens import hash_token, new_token, normalize_code, with_free_code
from bobing.tables.validation import (
    MODES,
    check_display_text,
    parse_named_prizes,
    parse_rules,
    parse_time_limit,
)


log = logging.getLogger("bobing.web")


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


@dataclass(frozen=True, slots=True)
class Created:
    """A new table and its secrets (returned once)."""

    code: str
    host_token: str
    play_token: str | None
    state: dict[str, Any]


def command_digest(command: Command) -> str:
    """What a command asks for (type and fields): one id names one command."""
    text = json.dumps([command.type, command.args], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sender_of(token_hashes: tuple[str, ...], runtime: Runtime) -> str | None:
    """Who sent a command: a hash of the table's tokens it came with (None without any)."""
    known = sorted({h for h in token_hashes if runtime.knows(h)})
    if not known:
        return None
    return hashlib.sha256(" ".join(known).encode("ascii")).hexdigest()


def _repeated(
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
