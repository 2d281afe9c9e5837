"""Property tests on random rules and random records (Hypothesis).

Cakes are conserved after every event, games end, replaying the events gives the same state,
records round-trip, playing throw by throw equals judging the whole record, events round-trip
through JSON, and re-judging a valid record under any rules never fails.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from bobing.engine.dice import SeededDice
from bobing.engine.events import event_from_json, event_to_json
from bobing.engine.game import Game, GameState, Phase, apply, new_state
from bobing.engine.hands import TIERS
from bobing.engine.record import adjudicate, judge_record
from bobing.engine.rules import RuleSet, load_rules

NAMES = ["甲", "乙", "丙", "丁", "戊", "己", "庚", "辛", "壬", "癸", "子", "丑"]
ORDINARY = ["duitang", "sanhong", "sijin", "erju", "yixiu"]
RANKABLE = ["liubohong", "biandijin", "liubohei", "chajinhua", "wuhong", "wuzi", "sihong"]
# Throws that make things happen, mixed into uniform random dice; the game-ending ones rarely.
ENDING = ["444444", "555555", "111111"]
SPECIAL = [
    "444411",
    "444446",
    "444441",
    "222226",
    "333331",
    "555554",
    "444466",
    "444412",
    "444435",
    "444426",
    "123456",
    "334455",
    "444123",
    "333341",
    "222244",
    "441235",
    "123455",
]

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rule_specs(draw: st.DrawFn, *, small_prizes: bool = True) -> dict[str, Any]:
    """A random, self-consistent rule object."""
    spec: dict[str, Any] = {"preset": draw(st.sampled_from(["traditional", "modern", "jinhua"]))}
    choices = {
        "wuzi_compare": ["kicker", "face_then_kicker"],
        "sijin_bonus": [False, True],
        "wuzi_bonus": [False, True],
        "chajinhua_duitang": ["immediate", "none", "at_end"],
        "chajinhua_lugu": ["exempt", "keeps_duitang"],
        "standing": ["latest", "best"],
        "liubohong": [
            "take_all_end",
            "take_remaining_end",
            "zhuangyuan",
            "friendly_end",
            "friendly_end_sanhong",  # RULES.md §9.3
        ],
        "liubohong_spares_chajinhua": [False, True],
        "liubohei": ["grab_end", "zhuangyuan_end_share", "zhuangyuan", "ignore", "take_one"],
        "six_ones": ["liubohei", "biandijin"],
        "biandijin": ["take_remaining_end", "zhuangyuan", "zhuangyuan_take_remaining_end"],
        "tiaohou": ["void", "void_skip_next"],
        "direction": ["clockwise", "counterclockwise"],
        "start_count": ["from_thrower", "from_next"],
        "end": ["finish_round", "one_more_round", "immediate"],
        "zhuangyuan_cake": ["winner", "shared"],  # RULES.md §9.3
    }
    for switch, values in choices.items():
        if draw(st.booleans()):
            spec[switch] = draw(st.sampled_from(values))
    if draw(st.booleans()):
        tiers = draw(st.lists(st.sampled_from(ORDINARY), min_size=1, max_size=5, unique=True))
        source = draw(st.sampled_from(["nearest_before", "latest"]))
        spec["chase"] = {"tiers": tiers, "from": source}
        if draw(st.booleans()):
            spec["chase"]["until"] = draw(st.sampled_from(["others_left", "end"]))
    if draw(st.booleans()):
        spec["duitang_patterns"] = draw(st.sampled_from([["123456"], ["123456", "334455"]]))
    if small_prizes:
        counts = st.integers(0, 4)
        spec["prizes"] = {tier: draw(counts) for tier in ORDINARY}
    base = load_rules(spec["preset"])
    # RULES.md §9.3: liubohong_duitang needs liubohong zhuangyuan; money pay needs values.
    if spec.get("liubohong", str(base.liubohong)) == "zhuangyuan" and draw(st.booleans()):
        spec["liubohong_duitang"] = draw(st.sampled_from(["none", "at_end"]))
    if draw(st.booleans()):
        spec["money"] = "pay"
        worth = st.one_of(st.integers(0, 500), st.sampled_from([0.5, 2.5, 12.25]))
        spec["values"] = {str(tier): draw(worth) for tier in TIERS}
    # The 状元 order must list exactly the hands that are 状元 hands under these effects.
    liubohei = spec.get("liubohei", str(base.liubohei))
    six_ones = spec.get("six_ones", str(base.six_ones))
    biandijin = spec.get("biandijin", str(base.biandijin))
    required = {"liubohong", "chajinhua", "wuhong", "wuzi", "sihong"}
    if liubohei in ("zhuangyuan_end_share", "zhuangyuan"):
        required.add("liubohei")
    if six_ones == "biandijin" and biandijin in ("zhuangyuan", "zhuangyuan_take_remaining_end"):
        required.add("biandijin")
    spec["zhuangyuan_order"] = draw(st.permutations([h for h in RANKABLE if h in required]))
    return spec


KINDS = ["uniform"] * 70 + ["special"] * 60 + ["tiaohou"] * 9 + ["ending"]


@st.composite
def throw_list(draw: st.DrawFn) -> list[str | dict[str, bool]]:
    """20-150 throws: uniform dice (from a drawn seed: Hypothesis' own integers favour 111111),
    throws that matter, a few 跳猴 and rarely a game-ender."""
    rng = random.Random(draw(st.integers(0, 2**32)))
    entries: list[str | dict[str, bool]] = []
    for kind in draw(st.lists(st.sampled_from(KINDS), min_size=20, max_size=150)):
        if kind == "ending":
            entries.append(draw(st.sampled_from(ENDING)))
        elif kind == "tiaohou":
            entries.append({"tiaohou": True})
        elif kind == "special":
            entries.append(draw(st.sampled_from(SPECIAL)))
        else:
            entries.append("".join(str(rng.randint(1, 6)) for _ in range(6)))
    return entries


@st.composite
def records(draw: st.DrawFn, *, ranked: bool = False) -> dict[str, Any]:
    """A random record: rules, 2-12 players, a start, and throws (perhaps more than needed);
    in a third of them time is called somewhere (RULES.md §8.1)."""
    size = draw(st.integers(2, 12))
    players = NAMES[:size]
    rules = draw(ranked_specs()) if ranked else draw(rule_specs())
    record: dict[str, Any] = {
        "rules": rules,
        "players": players,
        "seed": draw(st.integers(0, 2**32)),
    }
    start = draw(st.sampled_from(["none", "starter", "thrower"]))
    if start == "starter":
        record["start"] = {"starter": draw(st.sampled_from(players))}
    elif start == "thrower":
        record["start"] = {
            "thrower": draw(st.sampled_from(players)),
            "dice": [draw(st.integers(1, 6)), draw(st.integers(1, 6))],
        }
    record["throws"] = draw(throw_list())
    if draw(st.integers(0, 2)) == 0:
        at = draw(st.integers(0, len(record["throws"])))
        record["throws"].insert(at, {"close": True})
    return record


@st.composite
def ranked_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A random rule object for ranked prizes (RULES.md §8.2)."""
    spec = draw(rule_specs())
    spec["award"] = "ranked"
    spec.pop("zhuangyuan_cake", None)  # no 状元 cake to share in ranked mode
    pay = spec.pop("values", None) is not None
    lines = draw(st.lists(st.integers(1, 4), min_size=1, max_size=5))
    spec["ranked_prizes"] = [
        {"name": f"{i + 1}等奖", "count": count} for i, count in enumerate(lines)
    ]
    if pay:  # 反向博钱 with ranked prizes: every prize has a value
        for i, line in enumerate(spec["ranked_prizes"]):
            line["value"] = draw(st.integers(0, 500)) if i % 2 else 1.5 * i
    if draw(st.booleans()):
        spec["rounds"] = draw(st.integers(1, 6))
    return spec


def is_close(entry: Any) -> bool:
    return isinstance(entry, dict) and entry.get("close") is True


def conserved(state: GameState) -> bool:
    """Every cake is in the pool or in exactly one player's hands (and its lot says whose);
    a shared 状元 cake (分状元, RULES.md §9.3) is the table's once the game is over."""
    for index in range(len(TIERS)):
        column = [row[index] for row in state.held]
        if state.pool[index] < 0 or min(column) < 0:
            return False
        shared = index == 0 and state.shared_zhuangyuan and state.phase is Phase.OVER
        if state.pool[index] + sum(column) + shared != state.rules.prizes[index]:
            return False
    lots = Counter((lot.seat, lot.tier) for lot in state.lots)
    return all(
        lots[(seat, index)] == row[index]
        for seat, row in enumerate(state.held)
        for index in range(1, len(TIERS))  # the 状元 cake has no lot: it is never chased
    )


def play_incrementally(record: dict[str, Any]) -> tuple[Game, list[Any]]:
    """Throw by throw through Game, stopping at the end; the throws actually used."""
    game = Game(load_rules(record["rules"]), record["players"])
    game.start(**{k: (tuple(v) if k == "dice" else v) for k, v in record.get("start", {}).items()})
    used: list[Any] = []
    for entry in record["throws"]:
        if game.phase is not Phase.MAIN and game.phase is not Phase.FINAL:
            break
        if is_close(entry):
            game.close()
        elif isinstance(entry, dict):
            game.throw(None, tiaohou=True)
        else:
            game.throw(entry)
        used.append(entry)
    if game.phase is Phase.GRAB:
        game.grab(rng=random.Random(record["seed"]))
    return game, used


@SETTINGS
@given(records())
def test_conservation_replay_and_json_after_every_event(record: dict[str, Any]) -> None:
    game, _ = play_incrementally(record)
    note(f"{game.phase} {game.state.ended_by or ''}".strip())
    state = new_state(game.rules, game.players)
    for event in game.events:
        state = apply(state, event)
        assert conserved(state), event
        assert event_from_json(json.loads(json.dumps(event_to_json(event)))) == event
    assert state == game.state
    assert Game.replay(game.rules, game.players, game.events).state == game.state
    if game.is_over:
        assert game.next_player is None
        if not game.state.closed:
            assert game.result()["zhuangyuan"] is not None


@SETTINGS
@given(records())
def test_incremental_play_equals_whole_record_adjudication(record: dict[str, Any]) -> None:
    game, used = play_incrementally(record)
    whole = adjudicate({**record, "throws": used})
    assert whole == game.result()


@SETTINGS
@given(records())
def test_records_round_trip(record: dict[str, Any]) -> None:
    game, _ = play_incrementally(record)
    written = json.loads(json.dumps(game.to_record(seed=record["seed"]), ensure_ascii=False))
    again = Game.from_record(written)
    assert again.events == game.events
    assert again.result() == game.result()
    assert again.rules == game.rules


@SETTINGS
@given(records(), rule_specs(small_prizes=False))
def test_rejudging_a_valid_record_never_fails_and_conserves(
    record: dict[str, Any], other: dict[str, Any]
) -> None:
    game, used = play_incrementally(record)
    valid = {**record, "throws": used}
    same = judge_record(valid, game.rules)
    assert not same.rejudged and same.game.result() == game.result()
    judged = judge_record(valid, load_rules(other))
    assert conserved(judged.game.state)
    thrown = sum(1 for e in judged.game.events if e.type == "thrown")
    assert thrown + judged.unused_throws == sum(1 for entry in used if not is_close(entry))


@settings(max_examples=60, deadline=None)
@given(rule_specs(small_prizes=False), st.integers(2, 12), st.integers(0, 2**32))
def test_games_with_random_dice_end(spec: dict[str, Any], size: int, seed: int) -> None:
    rules: RuleSet = load_rules(spec)
    game = Game(rules, NAMES[:size])
    dice = SeededDice(seed)
    game.roll_start(dice)
    for _ in range(100_000):
        if game.phase is Phase.GRAB:
            game.grab(rng=random.Random(seed))
        if game.is_over:
            break
        game.roll(dice)
    assert game.is_over
    assert conserved(game.state)
    assert game.state.pool[0] == 0  # the 状元 cake always goes to someone


# -- ranked prizes (RULES.md §8.2) -------------------------------------------------------------

BELOW = ["liubohei", "biandijin", "duitang", "sanhong", "sijin", "erju", "yixiu", "none"]


def reference_rank(rules: RuleSet, dice: str) -> tuple[int, ...]:
    """§8.2 read directly: 状元 hands by the order (kickers as §3), then the rest by the list."""
    c = rules.classify(dice)
    if c.hand in rules.zhuangyuan_order:
        return (2, *rules.zhuangyuan_key(c))
    face = (c.face or 0) if str(c.hand) == "liubohei" else 0
    return (1, -BELOW.index(str(c.hand)), face, 0)


@SETTINGS
@given(records(ranked=True))
def test_ranked_prizes_one_each_by_best_throw(record: dict[str, Any]) -> None:
    game, used = play_incrementally(record)
    rules = game.rules
    ranking = game.ranking()
    result = game.result()
    assert result["ranking"] == [entry.to_json() for entry in ranking]
    assert result["pool"] == {} and all(h == {} for h in result["holdings"].values())
    assert result["zhuangyuan"] is None
    # Each person once; each prize unit at most once, in list order.
    assert sorted(entry.player for entry in ranking) == sorted(game.players)
    units = [p.name for p in rules.ranked_prizes or () for _ in range(p.count)]
    given_out = [entry.prize for entry in ranking if entry.prize is not None]
    assert given_out == units[: len(given_out)]
    assert len(given_out) == min(len(units), len(game.players))
    # Each player's entry is their best throw (equal throws: the earlier), sorted best first.
    best: dict[str, tuple[tuple[int, ...], int, str]] = {}
    for event in game.events:
        if event.type == "thrown" and event.dice is not None:  # type: ignore[attr-defined]
            key = reference_rank(rules, event.dice)  # type: ignore[attr-defined]
            mine = best.get(event.player)  # type: ignore[attr-defined]
            if mine is None or key > mine[0]:
                best[event.player] = (key, event.throw, event.dice)  # type: ignore[attr-defined]
    order = [
        (tuple(-k for k in best[e.player][0]), best[e.player][1])
        for e in ranking
        if e.player in best
    ]
    assert order == sorted(order)
    assert [e.player for e in ranking[len(order) :]] == [
        p for p in [game.players[s] for s in game.state.play_order()] if p not in best
    ]
    for entry in ranking:
        if entry.player in best:
            assert (entry.throw, entry.dice) == best[entry.player][1:]
    # No cakes move and nothing but time or rounds ends a ranked session.
    assert not any(event.type in ("awarded", "standing", "zhuangyuan") for event in game.events)
    if game.is_over:
        assert game.state.ended_by in ("closed", "rounds")
    rounds = rules.rounds
    if rounds is not None and not game.state.closed and game.is_over:
        assert game.state.turn == rounds * len(game.players)
    # Replay and the record round trip hold in ranked mode too.
    assert Game.replay(rules, game.players, game.events).state == game.state
    again = Game.from_record(json.loads(json.dumps(game.to_record(), ensure_ascii=False)))
    assert again.events == game.events and again.ranking() == ranking
    assert adjudicate({**record, "throws": used}) == result


def paid_as_held(game: Game) -> bool:
    """反向博钱 (RULES.md §9.3): each person pays the values of what they hold, the kitty all."""
    payments = game.result(events=False).get("payments")
    if game.rules.money.value != "pay":
        return payments is None
    assert payments is not None
    state = game.state
    if state.ranked:
        expected = {e.player: e.value or 0 for e in state.ranking()}
    else:
        values = [game.rules.value_of(t) for t in TIERS]
        expected = {
            name: sum(n * v for n, v in zip(row, values, strict=True))
            for name, row in zip(state.players, state.held, strict=True)
        }
    close = all(
        abs(payments["players"][name] - amount) < 0.006 for name, amount in expected.items()
    )
    return close and abs(payments["kitty"] - sum(expected.values())) < 0.006 * len(expected)


@SETTINGS
@given(st.one_of(records(), records(ranked=True)))
def test_money_pay_and_shared_cakes_are_conserved(record: dict[str, Any]) -> None:
    game, _ = play_incrementally(record)
    assert game.state.ranked or conserved(game.state)  # ranked: no cakes at all
    assert paid_as_held(game)
    result = game.result(events=False)
    shared = result.get("zhuangyuan_cake") == "shared"
    assert shared == (game.rules.zhuangyuan_cake.value == "shared")
    if shared and game.is_over:
        assert result["pool"]["zhuangyuan"] == 0
        assert all("zhuangyuan" not in held for held in result["holdings"].values())
