"""Play again with the same people: the host's ``rematch`` opens a new table with the same
seats, rules and prizes, and each seat's ``claim_rematch`` takes its new token.
:class:`Rematches` is a part of :class:`bobing.tables.service.TableService`.
"""

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

from typing import TYPE_CHECKING
from bobing.tables.outcomes import Created, Outcome, _repeated, command_digest, sender_of

log = logging.getLogger("bobing.web")


class Rematches:
    """The rematch commands of :class:`~bobing.tables.service.TableService`."""

    if TYPE_CHECKING:

        async def runtime(self, code: str) -> Runtime: ...

        async def create_table(
            self,
            *,
            name: Any,
            mode: Any = "online",
            rules: Any = None,
            named_prizes: Any = None,
            referee_thrower: Any = False,
        ) -> Created: ...

        async def _run(
            self,
            code: str,
            command_id: str | None,
            token_hashes: tuple[str, ...],
            decide: Callable[[Runtime, Roles], Plan],
            *,
            digest: str | None = None,
            need_token: bool = False,
            check_room: bool = True,
        ) -> Outcome: ...

    # -- play again with the same people ----------------------------------------------------

    async def _rematch(self, code: str, command: Command, token_hashes: tuple[str, ...]) -> Outcome:
        """The host opens a new table with the same seats, rules and prizes; the old table's
        log names it (``rematch``) and every seat fetches its own new token with
        ``claim_rematch``. The host's new tokens come back in this command's reply only."""
        runtime = await self.runtime(code)
        if command.id is not None and command.id in runtime.commands:
            sender = sender_of(token_hashes, runtime)
            record = runtime.commands[command.id]
            return _repeated(runtime, command.id, record, sender, command_digest(command))
        roles = runtime.roles(token_hashes)
        if not roles.host:
            raise ApiError("forbidden", "only the host may start a rematch", action="rematch")
        if not runtime.over:
            raise ApiError(
                "not_playing", "a rematch follows a game that is over", status=runtime.status
            )
        if runtime.rematch_code is not None:
            raise ApiError(
                "rematch_exists",
                f"table {runtime.code} already continues at {runtime.rematch_code}",
                code=runtime.rematch_code,
            )
        if runtime.info.gathering is not None:
            # a new table outside the event would leave its roster, prizes and 王中王
            raise ApiError(
                "event_table",
                f"table {runtime.code} is one of event {runtime.info.gathering}'s tables: "
                "what comes next is the organiser's",
                event=runtime.info.gathering,
            )
        settings = runtime.info.settings
        created = await self.create_table(
            name=runtime.info.name,
            mode=runtime.info.mode,
            rules=runtime.info.rules,
            named_prizes=settings.get("named_prizes") or None,
            referee_thrower=bool(settings.get("referee_thrower")),
        )
        names = runtime.names

        def seat_all(new: Runtime, roles: Roles) -> Plan:
            # Each seat waits for its phone: a token nobody holds until claim_rematch.
            seats = [Seat(n, i, hash_token(new_token("p"))) for i, n in enumerate(names, 1)]
            events: list[dict[str, Any]] = [
                {"type": "player_joined", "seat": seat.seat, "name": seat.name} for seat in seats
            ]
            if runtime.auto_throw:
                events.append({"type": "auto_throw_set", "seconds": runtime.auto_throw})

            def commit(rt: Runtime) -> None:
                rt.seats = seats

            return Plan(events, seats=seats, commit=commit)

        if names:
            await self._run(created.code, None, (), seat_all)

        def announce(old: Runtime, roles: Roles) -> Plan:
            if old.rematch_code is not None:
                raise ApiError(
                    "rematch_exists",
                    f"table {old.code} already continues at {old.rematch_code}",
                    code=old.rematch_code,
                )
            return Plan(
                [{"type": "rematch", "code": created.code}],
                reply={
                    "code": created.code,
                    "host_token": created.host_token,
                    "play_token": created.play_token,
                },
            )

        return await self._run(
            code,
            command.id,
            token_hashes,
            announce,
            digest=command_digest(command),
            need_token=True,
        )

    async def _claim_rematch(
        self, code: str, command: Command, token_hashes: tuple[str, ...]
    ) -> Outcome:
        """A seat of the old table takes its seat at the rematch: a new player token for it."""
        old = await self.runtime(code)
        roles = old.roles(token_hashes)
        if old.rematch_code is None:
            raise ApiError("no_rematch", f"table {old.code} has no rematch", code=old.code)
        if not roles.players:
            raise ApiError(
                "forbidden",
                "only a player of this table has a seat at the rematch",
                action="claim_rematch",
            )
        name = roles.players[0]
        target = old.rematch_code

        def claim(new: Runtime, _: Roles) -> Plan:
            need_seated(new, name)
            token = new_token("p")
            seats = [
                Seat(s.name, s.seat, hash_token(token) if s.name == name else s.token_hash)
                for s in new.seats
            ]

            def commit(rt: Runtime) -> None:
                rt.seats = seats

            return Plan(
                [{"type": "seat_claimed", "player": name, "from": old.code}],
                seats=seats,
                commit=commit,
                reply={"code": new.code, "player": name, "player_token": token},
            )

        return await self._run(target, None, (), claim)
