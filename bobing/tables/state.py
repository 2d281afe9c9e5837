"""The table state clients see (docs/protocol.md), built from a runtime."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bobing.engine.game import Game, Phase
from bobing.engine.hands import TIERS
from bobing.organizer.playoff import table_winner
from bobing.storage.event_store import iso
from bobing.tables.frames import implied_state, state_patch
from bobing.tables.protocol import dumps
from bobing.tables.runtime import Runtime, auto_throw_deadline, who_may_throw

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


def build_state(runtime: Runtime) -> dict[str, Any]:
    """The table state JSON of docs/protocol.md."""
    return {**static_state(runtime), **dynamic_state(runtime)}


def refresh_state(runtime: Runtime, events: Sequence[dict[str, Any]] = ()) -> None:
    """After a commit of ``events`` (as the log has them; none after a load): the moving half
    of the state again, and the patch that leads to it from the one before, past what the
    events imply (the patch a live ``events`` frame carries instead of the state:
    ``tables.frames``)."""
    new = dynamic_state(runtime)
    old = runtime.dynamic
    if old is None or not events:
        runtime.patch = None
    else:
        implied = implied_state(old, events)
        runtime.patch = (old["last_seq"], dumps(state_patch(implied, new)))
    runtime.dynamic = new
    runtime.state_cache = None


def state_text(runtime: Runtime) -> str:
    """:func:`build_state` as JSON text, re-encoding only what changes, once per change."""
    if runtime.state_cache is None:
        if runtime.static_json is None:
            runtime.static_json = dumps(static_state(runtime))[:-1]  # without the closing brace
        if runtime.dynamic is None:
            refresh_state(runtime)
        runtime.state_cache = runtime.static_json + "," + dumps(runtime.dynamic)[1:]
    return runtime.state_cache
