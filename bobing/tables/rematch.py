"""Play again with the same people: the host's ``rematch`` opens a new table with the same
seats, rules and prizes, and each seat's ``claim_rematch`` takes its new token.
:class:`Rematches` is a part of :class:`bobing.tables.service.TableService`.
"""

from __future__ import annotations

from typing import Any

from bobing.storage.event_store import (
    Seat,
)
from bobing.tables.commands import Plan, need_seated
from bobing.tables.outcomes import Outcome, command_digest, repeated, sender_of
from bobing.tables.parts import ServicePart
from bobing.tables.problems import ApiError
from bobing.tables.protocol import Command
from bobing.tables.runtime import (
    Roles,
    Runtime,
)
from bobing.tables.tokens import hash_token, new_token


class Rematches(ServicePart):
    """The rematch commands of :class:`~bobing.tables.service.TableService`."""

    # -- play again with the same people ----------------------------------------------------

    async def _rematch(self, code: str, command: Command, token_hashes: tuple[str, ...]) -> Outcome:
        """The host opens a new table with the same seats, rules and prizes; the old table's
        log names it (``rematch``) and every seat fetches its own new token with
        ``claim_rematch``. The host's new tokens come back in this command's reply only."""
        runtime = await self.runtime(code)
        if command.id is not None and command.id in runtime.commands:
            sender = sender_of(token_hashes, runtime)
            record = runtime.commands[command.id]
            return repeated(runtime, command.id, record, sender, command_digest(command))
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
            keep_photos=bool(settings.get("keep_photos")),
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
