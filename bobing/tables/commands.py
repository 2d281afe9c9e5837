"""Deciding a table command: each ``plan_*`` checks who may do what and returns the events to
commit (:class:`Plan`); nothing changes until the service has committed them.

One pattern for every plan: a plan decides on values of its own — a draft of the runtime's
game (:func:`_draft`; it shares the game's immutable state and holds only the new events),
new seat lists — and only its ``commit``, called after the append succeeded, puts them into
the runtime. A command refused at the store (``log_full``, a stale write) leaves the runtime
exactly the fold of the log.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from bobing.engine.dice import parse_dice
from bobing.engine.events import Thrown
from bobing.engine.fairness import (
    START_THROW,
    derive_faces,
    grab_rng,
    new_nonce,
)
from bobing.engine.game import MIN_PLAYERS, Game, Phase
from bobing.storage.event_store import (
    Seat,
    iso,
    utcnow,
)
from bobing.tables.problems import ApiError
from bobing.tables.protocol import BY_SERVICE, STATE_CHANGING
from bobing.tables.runtime import Roles, Runtime, last_thrown, may_throw, throw_index
from bobing.tables.tokens import hash_token, new_token
from bobing.tables.validation import check_faces

AUTO_THROW = "_auto"
"""An argument only the server sets (clients cannot send a field starting with ``_``)."""


@dataclass(slots=True)
class Plan:
    """What a command decided: events to commit, and how the runtime changes once committed."""

    events: list[dict[str, Any]]
    status: str | None = None
    seats: list[Seat] | None = None
    commit: Callable[[Runtime], None] | None = None
    reply: dict[str, Any] = field(default_factory=dict)


def _need_host(roles: Roles, action: str) -> None:
    if not roles.host:
        raise ApiError("forbidden", f"only the host may {action}", action=action)


def verify_read_dice(runtime: Runtime, roles: Roles) -> None:
    """Refuse a photo of the dice from anyone who may not type a throw's faces here: only a
    referee table has real dice, and only its host (and, with ``referee_thrower``, its seated
    players) enters them (``POST /api/tables/{code}/read-dice``)."""
    mode = runtime.info.mode
    if mode != "referee":
        raise ApiError(
            "wrong_mode", f"a {mode} table rolls its own dice: there is no photo to read", mode=mode
        )
    if roles.host or (roles.players and runtime.info.settings.get("referee_thrower")):
        return
    raise ApiError(
        "forbidden", "only the referee may have the dice read from a photo", action="read_dice"
    )


def _need_lobby(runtime: Runtime, action: str) -> None:
    if runtime.status != "lobby":
        raise ApiError(
            "not_in_lobby",
            f"{action} is only possible before the game starts",
            action=action,
            status=runtime.status,
        )


def need_start_thrower_open(runtime: Runtime) -> None:
    """``not_in_lobby`` once the start dice are thrown (or the game began): the start thrower
    is named before (RULES.md §10.1)."""
    if runtime.status != "lobby" or runtime.start_dice is not None:
        raise ApiError(
            "not_in_lobby",
            "the start thrower is chosen before the start dice are thrown",
            action="start_thrower",
            status=runtime.status,
        )


def need_seated(runtime: Runtime, name: str) -> None:
    """``unknown_player`` unless ``name`` is seated at the table."""
    if name not in runtime.names:
        raise ApiError(
            "unknown_player",
            f"{name!r} is not seated at table {runtime.code}",
            name=name,
            code=runtime.code,
        )


def _draft(game: Game) -> Game:
    """A draft of ``game`` to decide on (``Game.draft``): the runtime's game only goes on
    with it on commit."""
    return game.draft()


def _adopt(draft: Game) -> Callable[[Runtime], None]:
    """A plan's ``commit`` that makes the runtime's game go on as ``draft`` (:func:`_draft` of
    it) went."""

    def commit(rt: Runtime) -> None:
        assert rt.game is not None  # a draft was made of it, under the table's lock
        rt.game.adopt(draft)

    return commit


def _begin(game: Game) -> Callable[[Runtime], None]:
    """A plan's ``commit`` that makes the newly started ``game`` the runtime's."""

    def commit(rt: Runtime) -> None:
        rt.game = game

    return commit


def _ending(runtime: Runtime, reason: str) -> list[dict[str, Any]]:
    return [
        {"type": "ended", "reason": reason},
        {
            "type": "seed_revealed",
            "server_seed": runtime.info.server_seed,
            "commitment": runtime.info.commitment,
        },
    ]


def plan_throw(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """A throw: server dice (online, pass-and-play) or given faces (referee)."""
    if runtime.status != "playing" or runtime.game is None:
        raise ApiError(
            "not_playing",
            {
                "lobby": "the game has not started",
                "paused": "the game is paused",
                "over": "the game is over",
            }.get(runtime.status, "the game is not running"),
            status=runtime.status,
        )
    game = _draft(runtime.game)
    if game.phase is Phase.GRAB:
        raise ApiError(
            "illegal_action",
            "the lights are off: the host must settle the grab first",
            message="the lights are off: the host must settle the grab first",
        )
    expected = game.throw_count + 1
    turn = args.get("turn")
    if turn is not None and turn != expected:
        raise ApiError(
            "turn_taken",
            f"throw {turn} is not the next throw; the next is throw {expected}",
            turn=turn,
            expected=expected,
        )
    current = game.next_player
    if current is None:  # pragma: no cover - MAIN/FINAL always have a next player
        raise ApiError("not_playing", "nobody is to throw now", status=runtime.status)
    named = args.get("player")
    if named is not None and named != current:
        need_seated(runtime, named)
        raise ApiError(
            "not_your_turn",
            f"it is {current}'s turn (throw {expected}), not {named}'s",
            next=current,
            player=named,
            turn=expected,
        )
    mode = runtime.info.mode
    own_turn = current in roles.players
    # At an online table the host may stand in for an absent player (the dice event says
    # so), and the server throws for a player whose auto-throw time ran out.
    stand_in: str | None = None
    if args.get(AUTO_THROW):
        stand_in = "auto"
    elif args.get("stand_in"):
        if mode != "online":
            raise ApiError(
                "wrong_mode",
                f"a {mode} table needs no stand-in: the host throws for everyone",
                mode=mode,
            )
        _need_host(roles, "throw for another player")
        if not own_turn:
            stand_in = "host"
    allowed = stand_in is not None or may_throw(runtime, roles)
    if not allowed:
        if roles.players and (mode != "referee" or runtime.info.settings.get("referee_thrower")):
            raise ApiError(
                "not_your_turn",
                f"it is {current}'s turn (throw {expected}), not {roles.players[0]}'s",
                next=current,
                player=roles.players[0],
                turn=expected,
            )
        raise ApiError(
            "forbidden",
            f"this connection may not throw for {current} at a {mode} table",
            action="throw",
            mode=mode,
        )
    tiaohou = bool(args.get("tiaohou", False))
    faces: tuple[int, ...] | None
    if mode == "referee":
        if args.get("nonce") is not None:
            raise ApiError("wrong_mode", "a referee table throws real dice: send dice, not a nonce")
        if tiaohou:
            if args.get("dice") is not None:
                raise ApiError("invalid_field", "a 跳猴 has no dice", field="dice")
            faces = None
        else:
            if args.get("dice") is None:
                raise ApiError(
                    "invalid_field", "a referee throw needs dice (or tiaohou)", field="dice"
                )
            faces = parse_dice(check_faces(args["dice"], 6, field_name="dice"))
        fair = {
            "type": "dice",
            "throw": expected,
            "player": current,
            "nonce": None,
            "source": "referee",
        }
        if args.get("photo_id") is not None:
            if not runtime.info.settings.get("keep_photos"):
                raise ApiError(
                    "invalid_field",
                    f"table {runtime.code} keeps no photos: send the throw without photo_id",
                    field="photo_id",
                )
            # the service checked it is a pending photo of this table, and links it on commit
            fair["photo"] = args["photo_id"]
    else:
        if args.get("dice") is not None or tiaohou or args.get("photo_id") is not None:
            raise ApiError(
                "wrong_mode",
                f"a {mode} table rolls its own dice; faces and 跳猴 are for referee tables",
                mode=mode,
            )
        nonce = args.get("nonce") or new_nonce()
        faces = derive_faces(runtime.info.server_seed, runtime.code, expected, nonce)
        fair = {
            "type": "dice",
            "throw": expected,
            "player": current,
            "nonce": nonce,
            "source": "server",
        }
        if stand_in is not None:
            fair["stand_in"] = stand_in
    new = game.throw(faces, player=current, tiaohou=tiaohou)  # it verifies before it changes
    if game.state.phase is Phase.GRAB and mode != "referee":
        new += game.grab(rng=grab_rng(runtime.info.server_seed, runtime.code))
    events = [fair, *(e.to_json() for e in new)]
    status = None
    if game.is_over:
        events += _ending(runtime, "game_over")
        status = "over"
    return Plan(events, status=status, commit=_adopt(game))


def plan_grab(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host settles a referee table's lights-off grab."""
    _need_host(roles, "settle the grab")
    if runtime.info.mode != "referee":
        raise ApiError("wrong_mode", "the server settles the grab itself at this table")
    game = runtime.game
    if game is None or game.phase is not Phase.GRAB:
        raise ApiError(
            "illegal_action",
            "there is no lights-off grab to settle",
            message="there is no lights-off grab to settle",
        )
    allocation = args.get("allocation")
    if (allocation is None) == (not args.get("random")):
        raise ApiError(
            "invalid_field", "send either an allocation or random: true", field="allocation"
        )
    game = _draft(game)
    if allocation is not None:
        new = game.grab(allocation)
    else:
        new = game.grab(rng=grab_rng(runtime.info.server_seed, runtime.code))
    return Plan(
        [*(e.to_json() for e in new), *_ending(runtime, "game_over")],
        status="over",
        commit=_adopt(game),
    )


def plan_reorder(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host changes the seat order (clockwise) before the start."""
    _need_host(roles, "reorder seats")
    _need_lobby(runtime, "reorder")
    order: list[str] = list(args["players"])
    for name in order:
        need_seated(runtime, name)
    if sorted(order) != sorted(runtime.names):
        raise ApiError(
            "invalid_field",
            "players must list every seated name exactly once: " + ", ".join(runtime.names),
            field="players",
        )
    by_name = {s.name: s for s in runtime.seats}
    seats = [Seat(n, i, by_name[n].token_hash) for i, n in enumerate(order, start=1)]

    def commit(rt: Runtime) -> None:
        rt.seats = seats

    return Plan([{"type": "seats_reordered", "players": order}], seats=seats, commit=commit)


def plan_remove(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host removes a seated player before the start."""
    _need_host(roles, "remove a player")
    _need_lobby(runtime, "remove")
    name = args["player"]
    need_seated(runtime, name)
    rest = [s for s in runtime.seats if s.name != name]
    seats = [Seat(s.name, i, s.token_hash) for i, s in enumerate(rest, start=1)]

    def commit(rt: Runtime) -> None:
        rt.seats = seats  # the start dice it voids are dropped by the fold (note_event)

    return Plan([{"type": "player_removed", "name": name}], seats=seats, commit=commit)


def plan_lock(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host locks the lobby (nobody may join) or opens it again."""
    _need_host(roles, "lock the lobby")
    _need_lobby(runtime, "lock")
    locked = bool(args["locked"])
    if locked == runtime.locked:
        return Plan([])
    return Plan([{"type": "lobby_locked", "locked": locked}])


def _need_players(runtime: Runtime) -> None:
    if len(runtime.seats) < MIN_PLAYERS:
        raise ApiError(
            "not_enough_players",
            f"a game needs at least {MIN_PLAYERS} players; {len(runtime.seats)} seated",
            count=len(runtime.seats),
            minimum=MIN_PLAYERS,
        )


def plan_start_dice(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The two start dice: rolled by the server (throw 0), or given at a referee table."""
    _need_host(roles, "throw the start dice")
    _need_lobby(runtime, "start_dice")
    _need_players(runtime)
    # Unnamed, the thrower is the one the event names for this table (RULES.md §10.1), else
    # the first seat.
    thrower = args.get("thrower") or runtime.start_thrower or runtime.names[0]
    need_seated(runtime, thrower)
    nonce: str | None
    if runtime.info.mode == "referee" and args.get("dice") is not None:
        faces = check_faces(args["dice"], 2, field_name="start dice")
        dice = (faces[0], faces[1])
        nonce = None
    elif args.get("dice") is not None:
        raise ApiError("wrong_mode", "this table rolls its own start dice", mode=runtime.info.mode)
    else:
        nonce = args.get("nonce") or new_nonce()
        rolled = derive_faces(runtime.info.server_seed, runtime.code, START_THROW, nonce, 2)
        dice = (rolled[0], rolled[1])
    # The engine counts the seats: a throwaway game tells who would start.
    trial = Game(runtime.rules, runtime.names)
    starter = trial.start(thrower=thrower, dice=dice)[0].to_json()["starter"]
    return Plan(
        [
            {
                "type": "start_dice",
                "thrower": thrower,
                "dice": list(dice),
                "nonce": nonce,
                "starter": starter,
            }
        ]
    )


def plan_start(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host starts the game: a named starter, the start dice, or the first seat."""
    _need_host(roles, "start the game")
    _need_lobby(runtime, "start")
    _need_players(runtime)
    game = Game(runtime.rules, runtime.names)
    starter = args.get("starter")
    if starter is not None:
        need_seated(runtime, starter)
        new = game.start(starter=starter)
    elif runtime.start_dice is not None:
        new = game.start(
            thrower=runtime.start_dice["thrower"], dice=tuple(runtime.start_dice["dice"])
        )
    else:
        new = game.start()

    commit = _begin(game)
    events = [e.to_json() for e in new]
    limit = runtime.time_limit
    if limit is not None:
        # The clock starts with the game; the deadline itself is stored, so a restart (or
        # another server instance) knows when to call time.
        seconds = limit * runtime.minute_seconds
        left = int(seconds) if seconds == int(seconds) else seconds
        deadline = utcnow() + timedelta(seconds=seconds)
        events.append({"type": "deadline_set", "deadline": iso(deadline), "time_left": left})
    return Plan(events, status="playing", commit=commit)


def plan_pause(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host pauses play."""
    _need_host(roles, "pause")
    if runtime.status != "playing":
        raise ApiError(
            "not_playing", f"cannot pause a {runtime.status} table", status=runtime.status
        )
    paused: dict[str, Any] = {"type": "paused"}
    if runtime.deadline is not None and runtime.closing is None:
        # The clock stops with the game: what is left is stored and runs again on resume.
        left = (runtime.deadline - utcnow()).total_seconds()
        paused["time_left"] = round(max(left, 0.0), 3)
    return Plan([paused], status="paused")


def plan_resume(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host resumes a paused game."""
    _need_host(roles, "resume")
    if runtime.status != "paused":
        raise ApiError(
            "not_playing", f"cannot resume a {runtime.status} table", status=runtime.status
        )
    events: list[dict[str, Any]] = [{"type": "resumed"}]
    if runtime.time_left is not None and runtime.closing is None:
        deadline = utcnow() + timedelta(seconds=runtime.time_left)
        events.append(
            {"type": "deadline_set", "deadline": iso(deadline), "time_left": runtime.time_left}
        )
    return Plan(events, status="playing")


def plan_end(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host ends the game: a close (RULES.md §8.1) once it has started, else the table."""
    _need_host(roles, "end the game")
    if runtime.over:
        raise ApiError("not_playing", "the game is already over", status=runtime.status)
    if runtime.game is None:
        # Nobody has thrown: the table is simply closed (no game, no 状元).
        return Plan(_ending(runtime, "host"), status="over")
    return plan_close(runtime, "host")


def plan_close(runtime: Runtime, by: str) -> Plan:
    """Call time (by the host or the clock): the engine's close, ending the game now or at the
    end of the round; the best 状元 standing takes the 状元 cake when it ends."""
    if runtime.game is None:  # pragma: no cover - callers check
        raise ApiError("not_playing", "the game has not started", status=runtime.status)
    game = _draft(runtime.game)
    if runtime.closing is not None:
        raise ApiError(
            "time_called", "time has already been called: the game ends at the end of this round"
        )
    if game.phase is Phase.GRAB:
        raise ApiError(
            "illegal_action",
            "the lights are off: the host must settle the grab first",
            message="the lights are off: the host must settle the grab first",
        )
    game.verify_close()
    throws = game.throw_count
    new = game.close()
    events: list[dict[str, Any]] = [{"type": "time_called", "by": by, "throw": throws}]
    events += [e.to_json() for e in new]
    status = None
    if game.is_over:
        events += _ending(runtime, "closed")
        status = "over"
    return Plan(events, status=status, commit=_adopt(game))


def plan_time_up(runtime: Runtime, deadline_iso: str) -> Plan:
    """The clock's close, decided against the table as it is (nothing if the deadline moved,
    the game is paused or over, or time was already called)."""
    current = runtime.deadline
    if (
        current is None
        or iso(current) != deadline_iso
        or runtime.status != "playing"
        or runtime.closing is not None
        or runtime.game is None
        or runtime.game.is_over
        or runtime.game.phase is Phase.GRAB
    ):
        return Plan([])
    return plan_close(runtime, "deadline")


def plan_undo(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host voids the last throw of a referee table (faces typed wrong).

    The log stays append-only: a ``throw_undone`` event names the throw, and the game becomes
    the fold of the events before it (everything the throw brought about is gone with it:
    cakes, standing, the final round, a grab, the end). A game that throw ended resumes; one
    the host ended does not.
    """
    _need_host(roles, "undo a throw")
    mode = runtime.info.mode
    if mode != "referee":
        raise ApiError(
            "wrong_mode",
            f"a {mode} table rolls its own dice: only a referee table can undo a throw",
            mode=mode,
        )
    game = runtime.game
    if game is None:
        raise ApiError("not_playing", "the game has not started", status=runtime.status)
    if runtime.over and runtime.end_reason != "game_over":
        raise ApiError(
            "not_playing", "the host ended the game; it cannot be resumed", status=runtime.status
        )
    last = game.throw_count
    if last == 0:
        raise ApiError("nothing_to_undo", "there is no throw to undo yet")
    closing = runtime.closing
    if closing is not None and closing["seq"] > runtime.throw_seqs.get(last, 0):
        # The close came after this throw: undoing the throw would undo calling time too.
        raise ApiError(
            "closed_after",
            f"time was called after throw {last}: it can no longer be undone",
            throw=last,
        )
    wanted = args.get("throw")
    if wanted is not None and wanted != last:
        raise ApiError(
            "not_last_throw",
            f"throw {wanted} is not the last throw; the last is throw {last}",
            throw=wanted,
            last=last,
        )
    index = throw_index(game.events, last)
    thrown = game.events[index]
    assert isinstance(thrown, Thrown)
    kept = game.events[:index]
    undone = {
        "type": "throw_undone",
        "throw": last,
        "player": thrown.player,
        "dice": thrown.dice,
        "hand": thrown.hand,
        "from_seq": runtime.throw_seqs[last],
    }

    def commit(rt: Runtime) -> None:
        rt.game = Game.replay(rt.rules, rt.names, kept)
        rt.last_throw = last_thrown(kept)

    return Plan([undone], status="playing" if runtime.over else None, commit=commit)


def plan_dispute(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The thrower's device reports that throw N was not rolled with the nonce it sent.

    Only that device knows what it sent, so the server cannot refute the claim; it records it
    as an event for every player to see, and the record carries it (``bobing verify`` fails on
    it: docs/fairness.md). An honest server never gets one, since it rolls with the nonce it
    acknowledged.
    """
    mode = runtime.info.mode
    if mode == "referee":
        raise ApiError(
            "wrong_mode", "a referee table throws real dice: there is no nonce", mode=mode
        )
    number = args["throw"]
    entry = next((f for f in runtime.fair_throws if f["throw"] == number), None)
    game = runtime.game
    thrower = None
    if game is not None and entry is not None:
        thrower = next(
            (e.player for e in game.events if isinstance(e, Thrown) and e.throw == number), None
        )
    if entry is None or thrower is None:
        raise ApiError(
            "invalid_field", f"throw {number} has not been rolled by the server", field="throw"
        )
    allowed = thrower in roles.players or (mode == "pass_and_play" and (roles.play or roles.host))
    if not allowed:
        raise ApiError(
            "forbidden",
            f"only the device that threw throw {number} may dispute it",
            action="dispute",
        )
    if entry["nonce"] == args["nonce"]:
        message = f"throw {number} was rolled with the nonce {args['nonce']!r}: nothing to dispute"
        raise ApiError("illegal_action", message, message=message)
    if any(d["throw"] == number for d in runtime.disputes):
        return Plan([])
    event = {
        "type": "nonce_disputed",
        "throw": number,
        "player": thrower,
        "sent": args["nonce"],
        "nonce": entry["nonce"],
    }
    return Plan([event])


def _with_token(runtime: Runtime, name: str, token_hash: str) -> list[Seat]:
    return [
        Seat(s.name, s.seat, token_hash if s.name == name else s.token_hash) for s in runtime.seats
    ]


def plan_hand_seat(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host moves a seat to another phone: a one-time link; the old phone loses the seat.

    The seat's token becomes a fresh *seat token* (returned to the host only, for the QR
    code); the phone that opens the link trades it for its own player token with
    ``claim_seat``, after which the link is dead.
    """
    _need_host(roles, "hand a seat to another phone")
    name = args["player"]
    need_seated(runtime, name)
    # Also once over: the seat's record and reactions still belong to one phone (an event's
    # guest may claim their seat after the table ended).
    token = new_token("s")
    seats = _with_token(runtime, name, hash_token(token))

    def commit(rt: Runtime) -> None:
        rt.seats = seats

    return Plan(
        [{"type": "seat_handed", "player": name}],
        seats=seats,
        commit=commit,
        reply={"player": name, "seat_token": token},
    )


def plan_claim_seat(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The phone holding a seat's link takes the seat: a new player token replaces the link.

    Only the link counts: a player token is not a claim right (a player who could claim their
    own seat again would turn the token given to its owner into a dead one).
    """
    if not roles.handed:
        raise ApiError(
            "forbidden", "only a phone holding a seat's link may claim it", action="claim_seat"
        )
    name = roles.handed[0]
    token = new_token("p")
    seats = _with_token(runtime, name, hash_token(token))

    def commit(rt: Runtime) -> None:
        rt.seats = seats

    return Plan(
        [{"type": "seat_claimed", "player": name}],
        seats=seats,
        commit=commit,
        reply={"player": name, "player_token": token},
    )


def plan_set_auto_throw(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """The host sets how long a player may be absent before the server throws for them."""
    _need_host(roles, "set the auto-throw time")
    if runtime.info.mode != "online":
        raise ApiError(
            "wrong_mode",
            f"only an online table throws for an absent player, not a {runtime.info.mode} table",
            mode=runtime.info.mode,
        )
    if runtime.over:
        raise ApiError("not_playing", "the game is over", status=runtime.status)
    seconds = args["seconds"] or None
    if seconds == runtime.auto_throw:
        return Plan([])
    return Plan([{"type": "auto_throw_set", "seconds": seconds}])


REACTION_GAP_S = 1.5
"""One reaction per sender per this many seconds: a tap-happy phone cannot flood the table."""


def plan_react(runtime: Runtime, roles: Roles, args: Mapping[str, Any]) -> Plan:
    """A seated player (or the host) sends an emoji to the table (a harmless log entry)."""
    if not (roles.host or roles.players):
        raise ApiError("forbidden", "only the players and the host may react", action="react")
    player = roles.players[0] if roles.players else None
    sender = player or "host"
    now = time.monotonic()
    last = runtime.reacted.get(sender)
    if last is not None and now - last < REACTION_GAP_S:
        raise ApiError(
            "reaction_too_soon",
            f"one reaction every {REACTION_GAP_S} seconds",
            seconds=REACTION_GAP_S,
        )

    def commit(rt: Runtime) -> None:
        rt.reacted[sender] = now

    return Plan([{"type": "reaction", "player": player, "emoji": args["emoji"]}], commit=commit)


Decide = Callable[[Runtime, Roles, Mapping[str, Any]], Plan]


def _plans() -> dict[str, Decide]:
    """``plan_<type>`` for every state-changing command of the protocol's table that the
    service does not decide itself; a command without its plan fails at import."""
    found = globals()
    missing = [k for k in STATE_CHANGING - BY_SERVICE if f"plan_{k}" not in found]
    if missing:
        raise RuntimeError("commands without a plan: " + ", ".join(sorted(missing)))
    return {k: found[f"plan_{k}"] for k in sorted(STATE_CHANGING - BY_SERVICE)}


PLANS: dict[str, Decide] = _plans()
"""The plan of each command, derived from :data:`bobing.tables.protocol.TABLE`."""
