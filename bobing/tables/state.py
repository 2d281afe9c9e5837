"""The table state clients see (docs/protocol.md), built from a runtime."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from bobing.engine.game import TIER_IDS, Game, Phase
from bobing.engine.hands import TIERS
from bobing.engine.state import GameState, round_shown
from bobing.organizer.playoff import table_winner
from bobing.storage.event_store import Seat, iso
from bobing.tables.frames import encode, implied_state, state_patch
from bobing.tables.runtime import Runtime, auto_throw_deadline, who_may_throw

RESULT_KEYS = ("status", "ended_by", "next", "zhuangyuan", "holdings", "pool", "round")


def game_result(game: Game, parts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The state's ``result``: RULES.md §7 without its ``events`` list (``Game.result``), with
    the round, at a ranked table the live ``ranking`` (§8.2), and when the rules say so the
    shared 状元 cake and who pays what (§9.3).

    With ``parts`` (the runtime's :attr:`~Runtime.state_parts`), what did not change since the
    last result (a seat's holdings, the pool, the 状元, the finished sets) is that result's
    object: the patch passes over it at a glance."""
    state = game.state
    if parts is None:
        parts = {}
    if state.ranked:
        result = game.result(events=False)
        out = {key: result[key] for key in RESULT_KEYS}
        out["ranking"] = result["ranking"]
        for key in SET_EXTRAS:  # RULES.md §9.3: 分状元, 反向博钱; absent if off
            if key in result:
                out[key] = result[key]
        if "set" not in result:
            return out
        out["set"] = result["set"]
        finished = [
            {key: one[key] for key in (*RESULT_KEYS, *SET_EXTRAS) if key in one}
            for one in result["sets"]
        ]
    else:
        out = _cakes_result(state, parts)
        if game.rules.sets == 1:
            return out
        out["set"] = state.set_number
        finished = None
    # 一二会 (RULES.md §10.2): each finished set's result (absent with one set)
    done = state.done
    kept = parts.get("sets")
    if kept is not None and kept[0] is done:
        out["sets"] = kept[1]  # no set finished since: each is as it was
    else:
        if finished is None:
            finished = [_cakes_result(one, {}) for one in done]
        out["sets"] = finished
        parts["sets"] = (done, finished)
    out["totals"] = set_totals(game)
    return out


SET_EXTRAS = ("zhuangyuan_cake", "payments")
"""What a finished set's result keeps beside RESULT_KEYS: its 分状元 and 反向博钱 (§9.3)."""


def _cakes_result(state: GameState, parts: dict[str, Any]) -> dict[str, Any]:
    """:func:`game_result` of a game of one set at cakes, the most played, after every
    throw: what ``Game.result`` gives (``engine.game._result_of``, RULES.md §7) for the keys
    the state shows, in its order, built here from the game's state so that what did not
    change is not built again (``tests/web/test_state_patch.py`` holds the two alike).

    A seat's holdings are built from its row of cakes alone (``held[seat]``, counts), the pool
    from ``pool``, the 状元 from the leader: an equal row, pool or leader is the same JSON, and
    takes the object built from it last time. A throw moves one or two rows, most none."""
    leader = state.leader()
    seat = state.current_seat
    players = state.players
    held = state.held
    kept = parts.get("held")
    if kept is not None and kept[0] is held and kept[2] is players:
        holdings = kept[1]
    else:
        if kept is not None and kept[2] == players:
            holdings = dict(kept[1])  # the same names in the same order: change what moved
            rows = zip(kept[0], held, strict=True)
            moved = [i for i, (was, row) in enumerate(rows) if was is not row]
        else:
            holdings = dict.fromkeys(players)
            moved = list(range(len(players)))
        for index in moved:
            holdings[players[index]] = {TIER_IDS[i]: n for i, n in enumerate(held[index]) if n}
        parts["held"] = (held, holdings, players)
    pool = state.pool
    kept = parts.get("pool")
    if kept is not None and (kept[0] is pool or kept[0] == pool):
        pool_shown = kept[1]
    else:
        pool_shown = dict(zip(TIER_IDS, pool, strict=True))
        parts["pool"] = (pool, pool_shown)
    kept = parts.get("leader")
    if kept is not None and kept[0] == leader:
        zhuangyuan = kept[1]
    else:
        zhuangyuan = (
            None
            if leader is None
            else {
                "player": players[leader.seat],
                "hand": None if leader.hand is None else str(leader.hand),
                "dice": leader.dice,
                "throw": leader.throw,
            }
        )
        parts["leader"] = (leader, zhuangyuan)
    out: dict[str, Any] = {
        "status": "over" if state.phase is Phase.OVER else "in_progress",
        "ended_by": state.ended_by,
        "next": None if seat is None else players[seat],
        "zhuangyuan": zhuangyuan,
        "holdings": holdings,
        "pool": pool_shown,
        "round": round_shown(state),
    }
    if state.shared_zhuangyuan:
        out["zhuangyuan_cake"] = "shared"  # 分状元 (RULES.md §9.3); absent otherwise
    payments = state.payments()
    if payments is not None:
        out["payments"] = payments  # 反向博钱 (RULES.md §9.3); absent otherwise
    return out


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


def dynamic_state(runtime: Runtime, parts: dict[str, Any] | None = None) -> dict[str, Any]:
    """The part of the state that moves with the log.

    With ``parts`` (the runtime's :attr:`~Runtime.state_parts`, what the last one was built
    from), each piece whose source is the same as then is the object built then, not a new
    equal one: the patch from the last state passes over it at a glance (``frames._diff``).
    """
    game = runtime.game
    playing = runtime.status == "playing"
    if parts is None:
        parts = {}  # a state of its own: shares nothing with the runtime's
    return {
        "status": runtime.status,
        "end_reason": runtime.end_reason,
        "players": _kept(parts, "players", runtime.seats, _players),
        "lobby_locked": runtime.locked,
        "start_dice": _kept(parts, "start_dice", runtime.start_dice, _start_dice),
        "phase": str(game.phase) if game is not None else str(Phase.NOT_STARTED),
        "next": game.next_player if game is not None and playing else None,
        "turn": game.throw_count + 1 if game is not None and not game.is_over else None,
        "throw_count": game.throw_count if game is not None else 0,
        "last_throw": runtime.last_throw,
        "skipping": skipping(game, parts),
        "final_round": final_round(game),
        "only_zhuangyuan_left": game is not None and game.state.only_zhuangyuan_left,
        "close_at_once": close_at_once(game),
        "deadline": running_deadline(runtime),
        "time_left": runtime.time_left if runtime.status == "paused" else None,
        "closing": _kept(parts, "closing", runtime.closing, _closing),
        "result": None if game is None else game_result(game, parts),
        "last_seq": runtime.last_seq,
        "auto_throw": auto_throw(runtime),
        "throwers": who_may_throw(runtime),
        "rematch": runtime.rematch_code,
        "event_table": event_table(runtime),
        "fairness": _kept(parts, "fairness", revealed_seed(runtime), _fairness(runtime)),
    }


def _kept(parts: dict[str, Any], key: str, source: Any, build: Callable[[Any], Any]) -> Any:
    """The piece ``key`` of the state, ``build(source)``: the one built last time when
    ``source`` is the same object as then (the runtime replaces the seats, the start dice and
    the close it holds, never changes them in place), else a new one."""
    kept = parts.get(key)
    if kept is not None and kept[0] is source:
        return kept[1]
    value = build(source)
    parts[key] = (source, value)
    return value


def _players(seats: list[Seat]) -> list[dict[str, Any]]:
    return [{"seat": s.seat, "name": s.name} for s in seats]


def _start_dice(start: dict[str, Any] | None) -> dict[str, Any] | None:
    if start is None:
        return None
    return {"thrower": start["thrower"], "dice": start["dice"], "starter": start.get("starter")}


def _closing(closing: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if closing is None else {key: closing[key] for key in ("by", "at", "throw")}


def _fairness(runtime: Runtime) -> Callable[[str | None], dict[str, Any]]:
    commitment = runtime.info.commitment
    return lambda seed: {"commitment": commitment, "server_seed": seed}


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


def skipping(game: Game | None, parts: dict[str, Any] | None = None) -> list[str]:
    """Who will lose their next turn to a 跳猴 (seat order). With ``parts``, the list of last
    time while the game's flags are the same."""
    if game is None or game.phase not in (Phase.MAIN, Phase.FINAL):
        return []
    state = game.state
    flags = state.skip
    if parts is not None:
        kept = parts.get("skipping")
        if kept is not None and kept[0] is flags and kept[1] is state.players:
            return kept[2]  # type: ignore[no-any-return]
    out = [name for name, flag in zip(state.players, flags, strict=True) if flag]
    if parts is not None:
        parts["skipping"] = (flags, state.players, out)
    return out


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
    old = runtime.dynamic
    if old is None:
        runtime.state_parts = {}  # a state built afresh (a load) reuses nothing
    new = dynamic_state(runtime, runtime.state_parts)
    if old is None or not events:
        runtime.patch = None
    else:
        implied = implied_state(old, events)
        runtime.patch = (old["last_seq"], encode(state_patch(implied, new)))
    runtime.dynamic = new
    runtime.state_cache = None


def state_text(runtime: Runtime) -> str:
    """:func:`build_state` as JSON text, re-encoding only what changes, once per change."""
    if runtime.state_cache is None:
        if runtime.static_json is None:
            runtime.static_json = encode(static_state(runtime))[:-1]  # without the closing brace
        if runtime.dynamic is None:
            refresh_state(runtime)
        runtime.state_cache = runtime.static_json + "," + encode(runtime.dynamic)[1:]
    return runtime.state_cache
