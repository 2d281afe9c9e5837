"""Issue 32: the state, its patch and the frame of each commit, built cheaper, are byte for byte
what they were (``state_reference.py`` keeps the code of before as the reference).

- the ``result`` the state builds from the game's state (``tables.state._cakes_result``),
  reusing what did not change, is ``Game.result``'s, over random games of the engine;
- at random tables played through the table service (referee and online, time limits,
  undo, pause, time called, the grab, reactions, the auto-throw…), every commit's patch,
  state and frame are the reference's, and the state at the end is a fresh fold's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import state_reference as reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bobing.engine.errors import BobingError
from bobing.engine.game import Game, Phase
from bobing.engine.rules import rules_from_json
from bobing.realtime.backends import get_broker
from bobing.realtime.broker import table_channel
from bobing.storage import Database, EventStore
from bobing.storage.event_store import StoredEvent
from bobing.tables.commands import Plan
from bobing.tables.frames import decode_events, encode
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError
from bobing.tables.protocol import REACTIONS, Command, dumps
from bobing.tables.runtime import Runtime
from bobing.tables.service import TableService, fold
from bobing.tables.state import game_result, state_text
from bobing.tables.tokens import hash_token

NAMES = ["张三丰", "李四", "王五", "赵六", "钱七", "孙八", "周九", "吴十", "郑一", "冯二"]
SPECIAL = ["444444", "444411", "444446", "123456", "444412", "222226", "555554", "111111"]


@st.composite
def rule_objects(draw: st.DrawFn) -> dict[str, Any]:
    """Rules that change what the result shows: 分状元, 反向博钱, ranked prizes, 一二会."""
    spec: dict[str, Any] = {"preset": draw(st.sampled_from(["traditional", "modern", "jinhua"]))}
    ranked = draw(st.integers(0, 3)) == 0
    if ranked:
        spec["award"] = "ranked"
        spec["ranked_prizes"] = [
            {"name": f"{i + 1}等奖", "count": n}
            for i, n in enumerate(draw(st.lists(st.integers(1, 3), min_size=1, max_size=3)))
        ]
    else:
        spec["prizes"] = {
            tier: draw(st.integers(0, 3)) for tier in ("duitang", "sanhong", "sijin", "erju")
        } | {"yixiu": draw(st.integers(1, 6))}
        if draw(st.booleans()):
            spec["zhuangyuan_cake"] = "shared"
        if draw(st.booleans()):
            spec["money"] = "pay"
            spec["values"] = {
                tier: draw(st.sampled_from([0, 1, 2.5, 10]))
                for tier in ("zhuangyuan", "duitang", "sanhong", "sijin", "erju", "yixiu")
            }
    if draw(st.booleans()):
        spec["sets"] = draw(st.integers(2, 3))
    if draw(st.booleans()):
        spec["end"] = draw(st.sampled_from(["finish_round", "one_more_round", "immediate"]))
    if draw(st.booleans()):
        spec["tiaohou"] = draw(st.sampled_from(["void", "void_skip_next"]))
    return spec


def throws_of(seed: int, count: int) -> list[str | None]:
    """Dice for ``count`` throws: uniform, often one that matters, now and then a 跳猴."""
    rng = random.Random(seed)
    out: list[str | None] = []
    for _ in range(count):
        roll = rng.random()
        if roll < 0.05:
            out.append(None)
        elif roll < 0.3:
            out.append(rng.choice(SPECIAL))
        else:
            out.append("".join(str(rng.randint(1, 6)) for _ in range(6)))
    return out


def same_json(a: Any, b: Any) -> bool:
    return dumps(a) == dumps(b)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rule_objects(),
    st.integers(2, 8),
    st.integers(0, 2**32),
    st.integers(10, 120),
    st.integers(-1, 120),
)
def test_the_result_built_from_the_game_state_is_game_result(
    spec: dict[str, Any], players: int, seed: int, count: int, close_at: int
) -> None:
    """Event by event (mid-throw too), the result with reuse, and without, is the engine's."""
    try:
        rules = rules_from_json(spec)
        game = Game(rules, NAMES[:players])
        game.start()
    except BobingError:
        return  # rules that do not go together
    grab = random.Random(seed)
    for index, dice in enumerate(throws_of(seed, count)):
        if game.is_over:
            break
        if index == close_at and game.can_close():
            game.close()
            if game.is_over:
                break
        if game.phase is Phase.GRAB:  # the lights-off grab
            game.grab(rng=grab)
            continue
        if dice is None:
            game.throw(None, tiaohou=True)
        else:
            game.throw(tuple(int(c) for c in dice))
    parts: dict[str, Any] = {}
    step = Game(rules, game.players)
    for event in game.events:
        step = step.extended([event])
        expected = reference.game_result(step)
        assert same_json(game_result(step, parts), expected), event
        assert same_json(game_result(step), expected)


@pytest.fixture
async def service(tmp_path: Path) -> AsyncIterator[Checked]:
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'bobing.sqlite3'}")
    await db.migrate()
    store = EventStore(db)
    broker = get_broker("memory://")
    await broker.start()
    checked = Checked(store, broker, limits=Limits(open_tables_per_address=0))
    checked.expected = []
    try:
        yield checked
    finally:
        await checked.close()
        await store.close()
        await broker.close()
        await db.dispose()


class Checked(TableService):
    """The table service, holding each commit's patch, state and frame to the reference's."""

    expected: list[str]

    def _committed(self, runtime: Runtime, plan: Plan, stored: list[StoredEvent]) -> Any:
        before = runtime.dynamic
        before_text = None if before is None else dumps(before)
        logged = super()._committed(runtime, plan, stored)
        expected = reference.dynamic_state(runtime)
        assert encode(runtime.dynamic) == dumps(expected)
        if before is not None:
            assert dumps(before) == before_text, "the last state changed under the patch"
            assert runtime.patch is not None
            assert runtime.patch[1] == reference.reference_patch(before, expected, logged)
        return logged

    async def _publish(self, runtime: Runtime, logged: list[dict[str, Any]]) -> None:
        first, last = logged[0]["seq"], logged[-1]["seq"]
        patch = runtime.patch
        if patch is not None and patch[0] == first - 1 and runtime.last_seq == last:
            frame = reference.events_frame(logged, after=first - 1, patch_json=patch[1])
        else:
            frame = reference.events_frame(
                logged, after=first - 1, state_json=reference_state_text(runtime)
            )
        self.expected.append(f"{first} {last} {frame}")
        await super()._publish(runtime, logged)


def reference_state_text(runtime: Runtime) -> str:
    return dumps({**reference.static_state(runtime), **reference.dynamic_state(runtime)})


ACTIONS = (
    ["throw"] * 24 + ["undo"] * 3 + ["grab", "pause", "resume", "end", "react", "auto", "dispute"]
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    mode=st.sampled_from(["referee", "online"]),
    rules=rule_objects(),
    players=st.integers(2, 6),
    time_limit=st.sampled_from([None, 30]),
    lobby=st.lists(st.sampled_from(["lock", "unlock", "remove", "start_dice"]), max_size=3),
    actions=st.lists(st.sampled_from(ACTIONS), min_size=20, max_size=100),
    seed=st.integers(0, 2**32),
)
async def test_every_commit_sends_what_the_reference_sent(
    service: Checked,
    mode: str,
    rules: dict[str, Any],
    players: int,
    time_limit: int | None,
    lobby: list[str],
    actions: list[str],
    seed: int,
) -> None:
    try:
        created = await service.create_table(
            name="参考", mode=mode, rules=rules, time_limit=time_limit
        )
    except ApiError:
        return  # rules the web refuses
    code = created.code
    host = [hash_token(created.host_token)]
    frames: list[str] = []
    service.broker.subscribe(table_channel(code), frames.append)
    service.expected.clear()
    tokens: dict[str, list[str]] = {}
    for name in NAMES[:players]:
        tokens[name] = [hash_token((await service.join(code, name))["player_token"])]
    rng = random.Random(seed)
    dice = iter(throws_of(seed, len(actions) + 1))
    n = 0

    async def run(kind: str, args: dict[str, Any], who: list[str] | None = None) -> None:
        nonlocal n
        n += 1
        with contextlib.suppress(ApiError):  # refused: nothing committed
            await service.execute(code, Command(kind, f"c{n}", args), who or host)

    for step in lobby:
        if step == "lock":
            await run("lock", {"locked": True})
        elif step == "unlock":
            await run("lock", {"locked": False})
        elif step == "remove" and len(tokens) > 2:
            name = list(tokens)[-1]
            del tokens[name]
            await run("remove", {"player": name})
        elif step == "start_dice":
            await run("start_dice", {"dice": [3, 4]} if mode == "referee" else {})
    await run("start", {})
    for action in actions:
        runtime = await service.runtime(code)
        game = runtime.game
        if action == "throw" and game is not None and game.next_player is not None:
            face = next(dice)
            if mode == "referee":
                args: dict[str, Any] = (
                    {"tiaohou": True} if face is None else {"dice": [int(c) for c in face]}
                )
                await run("throw", {"turn": game.throw_count + 1, **args})
            else:
                player = game.next_player
                await run("throw", {"turn": game.throw_count + 1}, tokens.get(player))
        elif action == "grab":
            await run("grab", {"random": True})
        elif action == "react":
            await run("react", {"emoji": rng.choice(REACTIONS)}, rng.choice(list(tokens.values())))
        elif action == "auto":
            await run("set_auto_throw", {"seconds": rng.choice([0, 20, 60])})
        elif action == "dispute":
            thrower = runtime.last_throw and runtime.last_throw["player"]
            if game is not None and game.throw_count and thrower in tokens:
                args = {"throw": game.throw_count, "nonce": "0" * 32}
                await run("dispute", args, tokens[thrower])
        elif action in ("undo", "pause", "resume", "end"):
            await run(action, {})
    await asyncio.sleep(0)
    assert frames == service.expected
    runtime = await service.runtime(code)
    assert state_text(runtime) == reference_state_text(runtime)
    # A client that applies every frame's patch holds the server's state, and the state
    # after all those reused pieces is a fresh fold's.
    state: dict[str, Any] | None = created.state
    for message in frames:
        _, state = decode_events(json.loads(message.split(" ", 2)[2]), state)
    assert state == json.loads(state_text(runtime))
    loaded = await service.store.load(code, use_snapshot=False)
    assert loaded is not None
    assert state_text(runtime) == state_text(fold(loaded))
