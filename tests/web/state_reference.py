"""The table state and its patch as the server built them before issue 32 made them cheaper
(``bobing/tables/state.py`` and ``bobing/tables/frames.py`` of that day, kept here verbatim):
the reference the fast ones are held to, byte for byte (``test_state_patch.py``). Not used by
the server."""

# ruff: noqa

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bobing.engine.game import Game, Phase
from bobing.engine.hands import TIERS
from bobing.organizer.playoff import table_winner
from bobing.storage.event_store import iso
from bobing.tables.protocol import dumps
from bobing.tables.runtime import Runtime, auto_throw_deadline, who_may_throw


HOISTED = ("at", "throw", "player")
"""Event fields written once in ``common`` when every event of a frame has the same value."""


def compact_events(events: Sequence[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """``(common, events)``: the fields every event shares, and each event without them (and
    without its ``seq``)."""
    common: dict[str, Any] = {}
    if events:
        first = events[0]
        for key in HOISTED:
            if key in first and all(key in e and e[key] == first[key] for e in events):
                common[key] = first[key]
    skip = {"seq", *common}
    return common, [{k: v for k, v in e.items() if k not in skip} for e in events]


def events_frame(
    events: Sequence[dict[str, Any]],
    *,
    after: int,
    state_json: str | None = None,
    patch_json: str | None = None,
) -> str:
    """The ``events`` frame as text: the events after ``after`` (consecutive, as the log has
    them: ``StoredEvent.to_json``) and either the state (already encoded), a patch from the
    state after ``after`` (already encoded), or neither (a page of a long resync)."""
    common, rest = compact_events(events)
    head = '{"type":"events","seq":' + str(after + 1)
    if common:
        head += ',"common":' + dumps(common)
    head += ',"events":' + dumps(rest)
    if state_json is not None:
        return head + ',"state":' + state_json + "}"
    if patch_json is not None:
        return head + ',"patch":' + patch_json + "}"
    return head + "}"


def state_patch(old: dict[str, Any], new: dict[str, Any]) -> list[list[Any]]:
    """The entries that turn ``old`` into ``new`` (both JSON objects; ``new`` has every key of
    ``old``, as every state does)."""
    entries: list[list[Any]] = []
    _diff(old, new, [], entries)
    return entries


def implied_state(state: dict[str, Any], events: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``state`` with what ``events`` (as the log has them) say of it, before any patch: the
    last ``seq``, and the last ``thrown`` event as ``last_throw``, ``throw_count`` and ``turn``.
    A new object sharing the rest with ``state``."""
    if not events:
        return state
    out = {**state, "last_seq": events[-1]["seq"]}
    for event in events:
        if event["type"] == "thrown":
            throw = event["throw"]
            out["last_throw"] = {key: event.get(key) for key in THROWN_FIELDS}
            out["throw_count"] = throw
            out["turn"] = throw + 1
    return out


THROWN_FIELDS = ("throw", "player", "dice", "hand")
"""A ``thrown`` event's fields that are the state's ``last_throw``."""


def _diff(old: dict[str, Any], new: dict[str, Any], path: list[str], out: list[list[Any]]) -> None:
    for key, value in new.items():
        if key in old:
            before = old[key]
            if before == value and _same(before, value):
                continue
            if (
                isinstance(before, dict)
                and isinstance(value, dict)
                and before.keys() <= value.keys()
            ):
                _diff(before, value, [*path, key], out)
                continue
        out.append([*path, key, value])


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same JSON: Python's ``==`` holds ``False == 0`` and
    ``1 == 1.0``, at any depth, and the page would keep the old one. Asked once ``a == b``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return all(_same(v, b[k]) for k, v in a.items())  # the keys are equal: a == b
    if isinstance(a, list):
        return all(map(_same, a, b))
    return True


RESULT_KEYS = ("status", "ended_by", "next", "zhuangyuan", "holdings", "pool", "round")


def game_result(game: Game) -> dict[str, Any]:
    """The state's ``result``: RULES.md §7 without its ``events`` list (``Game.result``), with
    the round, at a ranked table the live ``ranking`` (§8.2), and when the rules say so the
    shared 状元 cake and who pays what (§9.3)."""
    result = game.result(events=False)
    out = {key: result[key] for key in RESULT_KEYS}
    if "ranking" in result:
        out["ranking"] = result["ranking"]
    for key in ("zhuangyuan_cake", "payments"):  # RULES.md §9.3: 分状元, 反向博钱; absent if off
        if key in result:
            out[key] = result[key]
    if "set" in result:  # 一二会 (RULES.md §10.2): absent with one set
        out["set"] = result["set"]
        out["sets"] = [
            {key: done[key] for key in (*RESULT_KEYS, *SET_EXTRAS) if key in done}
            for done in result["sets"]
        ]
        out["totals"] = set_totals(game)
    return out


SET_EXTRAS = ("zhuangyuan_cake", "payments")
"""What a finished set's result keeps beside RESULT_KEYS: its 分状元 and 反向博钱 (§9.3)."""


def set_totals(game: Game) -> dict[str, dict[str, int]]:
    """一二会 (RULES.md §10.2): what each person takes home, the sum of every set so far, by
    tier id (non-zero tiers only, as in holdings)."""
    state = game.state
    return {
        name: {str(TIERS[i]): n for i, n in enumerate(row) if n}
        for name, row in zip(state.players, state.totals(), strict=True)
    }


STATIC_KEYS = (
    "code",
    "name",
    "mode",
    "created_at",
    "referee_thrower",
    "keep_photos",
    "rules",
    "named_prizes",
    "time_limit",
    "event",
)
"""State keys that never change after creation (encoded once per runtime)."""


def static_state(runtime: Runtime) -> dict[str, Any]:
    """The part of the state fixed at creation."""
    settings = runtime.info.settings
    return {
        "code": runtime.code,
        "name": runtime.info.name,
        "mode": runtime.info.mode,
        "created_at": iso(runtime.info.created_at),
        "referee_thrower": bool(settings.get("referee_thrower")),
        "keep_photos": bool(settings.get("keep_photos")),
        "rules": runtime.info.rules,
        "named_prizes": settings.get("named_prizes") or {},
        "time_limit": runtime.time_limit,
        "event": runtime.info.gathering,
    }


def dynamic_state(runtime: Runtime) -> dict[str, Any]:
    """The part of the state that moves with the log."""
    game = runtime.game
    playing = runtime.status == "playing"
    return {
        "status": runtime.status,
        "end_reason": runtime.end_reason,
        "players": [{"seat": s.seat, "name": s.name} for s in runtime.seats],
        "lobby_locked": runtime.locked,
        "start_dice": None
        if runtime.start_dice is None
        else {
            "thrower": runtime.start_dice["thrower"],
            "dice": runtime.start_dice["dice"],
            "starter": runtime.start_dice.get("starter"),
        },
        "phase": str(game.phase) if game is not None else str(Phase.NOT_STARTED),
        "next": game.next_player if game is not None and playing else None,
        "turn": game.throw_count + 1 if game is not None and not game.is_over else None,
        "throw_count": game.throw_count if game is not None else 0,
        "last_throw": runtime.last_throw,
        "skipping": skipping(game),
        "final_round": final_round(game),
        "only_zhuangyuan_left": game is not None and game.state.only_zhuangyuan_left,
        "close_at_once": close_at_once(game),
        "deadline": running_deadline(runtime),
        "time_left": runtime.time_left if runtime.status == "paused" else None,
        "closing": None
        if runtime.closing is None
        else {key: runtime.closing[key] for key in ("by", "at", "throw")},
        "result": None if game is None else game_result(game),
        "last_seq": runtime.last_seq,
        "auto_throw": auto_throw(runtime),
        "throwers": who_may_throw(runtime),
        "rematch": runtime.rematch_code,
        "event_table": event_table(runtime),
        "fairness": {
            "commitment": runtime.info.commitment,
            "server_seed": revealed_seed(runtime),
        },
    }


def event_table(runtime: Runtime) -> dict[str, Any] | None:
    """One of an event's tables (not its 状元王中王): how many tables the event has, who the
    event names to throw its start dice (RULES.md §10.1) and, once this one is over, who goes
    on to the 状元王中王 (the table's 状元 when the event has more than one table:
    ``organizer.playoff.table_winner``); None for any other table."""
    tables = runtime.info.settings.get("event_tables")
    if runtime.info.gathering is None or not isinstance(tables, int):
        return None
    game = runtime.game
    winner = None
    if tables > 1 and game is not None and game.is_over:
        winner = table_winner(game_result(game))
    return {
        "tables": tables,
        "playoff_player": None if winner is None else winner["player"],
        "start_thrower": runtime.start_thrower,
    }


def auto_throw(runtime: Runtime) -> dict[str, Any] | None:
    """The table's auto-throw time and, while a turn runs, when the server throws for it."""
    if not runtime.auto_throw:
        return None
    deadline = auto_throw_deadline(runtime)
    return {"seconds": runtime.auto_throw, "deadline": None if deadline is None else iso(deadline)}


def running_deadline(runtime: Runtime) -> str | None:
    """When the clock calls time, while it runs (a game in play, time not yet called)."""
    game = runtime.game
    if (
        runtime.deadline is None
        or runtime.status != "playing"
        or runtime.closing is not None
        or game is None
        or game.is_over
    ):
        return None
    return iso(runtime.deadline)


def revealed_seed(runtime: Runtime) -> str | None:
    # Once revealed it stays public, even if an undo resumes the game (referee tables only,
    # whose throws are real dice: nothing left to predict but a random grab).
    return runtime.info.server_seed if runtime.over or runtime.seed_revealed else None


def skipping(game: Game | None) -> list[str]:
    """Who will lose their next turn to a 跳猴 (seat order)."""
    if game is None or game.phase not in (Phase.MAIN, Phase.FINAL):
        return []
    state = game.state
    return [name for name, flag in zip(state.players, state.skip, strict=True) if flag]


def close_at_once(game: Game | None) -> bool | None:
    """Whether calling time now ends the game at once (nobody has thrown in this round yet,
    or ``end`` = ``immediate``) rather than after the round; None when time cannot be called."""
    if game is None or not game.can_close():
        return None
    return game.closes_at_once()


def final_round(game: Game | None) -> dict[str, Any] | None:
    """The last round, once it has begun: up to which turn, who throws last, how many throws.

    The last round is the final phase once the cakes are out (§4), the rest of the round when
    time was called (§8.1), or the last of a ranked table's ``rounds`` (§8.2); whichever ends
    first. ``until_turn`` is the engine's turn index; ``last_thrower`` and ``throws_left``
    (this one included) count the turns to come, skipping the players who are to lose a turn
    — a 跳猴 during the last round may still change them.
    """
    if game is None or game.phase not in (Phase.MAIN, Phase.FINAL):
        return None
    state = game.state
    size = len(state.players)
    limits: list[int] = []
    if state.phase is Phase.FINAL and state.final_until is not None:
        limits.append(state.final_until)
    if state.close_until is not None:
        limits.append(state.close_until)
    rounds = game.rules.rounds
    if rounds is not None and state.turn >= (rounds - 1) * size:
        limits.append(rounds * size - 1)
    if not limits:
        return None
    until = min(limits)
    skip = list(state.skip)
    last: str | None = None
    left = 0
    for turn in range(state.turn, until + 1):
        seat = state.seat_at(turn)
        if skip[seat]:
            skip[seat] = False
            continue
        last = state.players[seat]
        left += 1
    return {"until_turn": until, "last_thrower": last, "throws_left": left}


def reference_patch(
    old: dict[str, Any], new: dict[str, Any], events: Sequence[dict[str, Any]]
) -> str:
    """The patch text a commit of ``events`` sent, from the state ``old`` to ``new``."""
    return dumps(state_patch(implied_state(old, events), new))
