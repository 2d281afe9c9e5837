"""How a game reads at the terminal: the lines ``adjudicate`` and ``play`` both print
(title, holdings, standings, the pool) and the :class:`Narrator` of its log."""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from contextlib import redirect_stdout
from typing import Any

from bobing.cli.render import (
    Align,
    print_table,
    print_text,
)
from bobing.engine import events as ev
from bobing.engine.game import Game, GameState, Phase
from bobing.engine.hands import TIERS, Hand
from bobing.engine.ranked import rank_key
from bobing.engine.rules import RuleSet
from bobing.i18n import t
from bobing.i18n.names import effect, explain, hand_name, preset_name, tier_name

# -- shared text -----------------------------------------------------------------------------


def rendered(render: Callable[[], None]) -> str:
    """What ``render`` prints, with runs of blank lines (table edges) made single."""
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        render()
    return re.sub(r"\n{3,}", "\n\n", buffer.getvalue())


def rules_label(rules: RuleSet, lang: str) -> str:
    label = f"{preset_name(rules.preset, lang)} ({rules.preset})"
    changed = [key for key in rules.overrides() if key != "preset"]
    return label + (" + " + ", ".join(changed) if changed else "")


def game_title(game: Game, lang: str) -> str:
    return t(
        "game.title",
        lang,
        rules=rules_label(game.rules, lang),
        players=len(game.players),
        throws=game.throw_count,
    )


def game_status(game: Game, lang: str) -> str:
    state = game.state
    if state.phase is Phase.OVER:
        return t("game.status.over", lang, why=t(f"game.ended_by.{state.ended_by}", lang))
    if state.phase is Phase.GRAB:
        return t("game.status.grab", lang)
    ends = [u for u in (state.final_until, state.close_until) if u is not None]
    if state.closed and ends:
        last = state.players[state.seat_at(min(ends))]
        return t("game.status.closing", lang, round=state.round, next=game.next_player, last=last)
    if state.phase is Phase.FINAL and state.final_until is not None:
        last = state.players[state.seat_at(state.final_until)]
        return t("game.status.final", lang, round=state.round, next=game.next_player, last=last)
    return t("game.status.in_progress", lang, round=state.round, next=game.next_player)


def hand_text(rules: RuleSet, dice: str, lang: str) -> str:
    return hand_name(rules.classify(dice), lang)


def print_holdings(game: Game, lang: str) -> None:
    """Who holds what: one row per player, one column per tier."""
    _holdings_table(game.state.players, game.state.held, lang)


def _holdings_table(players: Sequence[str], held: Sequence[Sequence[int]], lang: str) -> None:
    headers = [t("game.col.player", lang), *(tier_name(tier, lang) for tier in TIERS)]
    headers.append(t("game.col.total", lang))
    rows = [
        [name, *(str(n) if n else "·" for n in counts), str(sum(counts))]
        for name, counts in zip(players, held, strict=True)
    ]
    right: Align = "right"
    align: list[Align] = ["left", *([right] * (len(TIERS) + 1))]
    print_table(headers, rows, align=align)


def print_standings(game: Game, lang: str) -> None:
    """Every player's 状元 standing, best first (equal hands: the earlier throw first)."""
    state = game.state
    ranked = sorted(
        (
            (entry.key, -entry.throw, seat, entry)
            for seat, entry in enumerate(state.standings)
            if entry is not None
        ),
        reverse=True,
    )
    if not ranked:
        return
    headers = [
        t("game.col.rank", lang),
        t("game.col.player", lang),
        t("game.col.standing", lang),
        t("game.col.dice", lang),
        t("game.col.throw", lang),
    ]
    rows = [
        [
            str(place),
            state.players[seat],
            hand_text(game.rules, entry.dice, lang),
            entry.dice,
            str(entry.throw),
        ]
        for place, (_, _, seat, entry) in enumerate(ranked, start=1)
    ]
    print_table(headers, rows, align=["right", "left", "left", "left", "right"])


def print_ranking(game: Game, lang: str) -> None:
    """Ranked mode (RULES.md §8.2): every player by best throw, with the prize it holds."""
    print_text(t("game.ranking.title", lang))
    headers = [
        t("game.col.rank", lang),
        t("game.col.player", lang),
        t("game.col.best", lang),
        t("game.col.dice", lang),
        t("game.col.throw", lang),
        t("game.col.prize", lang),
    ]
    rows = []
    for place, entry in enumerate(game.ranking(), start=1):
        if entry.dice is None:
            best, dice, throw = t("game.ranking.none", lang), "", ""
        else:
            best = hand_text(game.rules, entry.dice, lang)
            dice, throw = entry.dice, str(entry.throw)
        prize = entry.prize if entry.prize is not None else t("game.ranking.no_prize", lang)
        rows.append([str(place), entry.player, best, dice, throw, prize])
    print_table(headers, rows, align=["right", "left", "left", "left", "right", "left"])


def section9_lines(game: Game, lang: str) -> list[str]:
    """分状元 and 反向博钱 (RULES.md §9.3): the shared cake, who pays what, the kitty."""
    state = game.state
    lines: list[str] = []
    if state.shared_zhuangyuan:
        lines.append(t("game.zhuangyuan.shared", lang, players=len(state.players)))
    payments = state.payments()
    if payments is not None:
        owed = t("list.sep", lang).join(
            t("game.pays.one", lang, player=name, amount=amount)
            for name, amount in payments["players"].items()
        )
        lines.append(t("game.pays", lang, pays=owed, kitty=payments["kitty"]))
    return lines


def set_lines(game: Game, lang: str) -> list[str]:
    """一二会 (RULES.md §10.2): which set is in play and how each finished one ended."""
    state = game.state
    if game.rules.sets == 1:
        return []
    lines = [t("game.set.now", lang, set=state.set_number, sets=game.rules.sets)]
    for number, done in enumerate(state.done, start=1):
        leader = done.leader()
        who = "—" if leader is None else done.players[leader.seat]
        why = t(f"game.ended_by.{done.ended_by}", lang)
        lines.append(t("game.set.done", lang, set=number, player=who, why=why))
    return lines


def print_totals(game: Game, lang: str) -> None:
    """一二会: what each person takes home, the sum of every set so far."""
    if game.rules.sets == 1 or not game.state.done:
        return
    print_text("", t("game.sets.total", lang))
    _holdings_table(game.state.players, game.state.totals(), lang)


def pool_line(state: GameState, lang: str) -> str:
    if not any(state.pool):
        return t("game.pool.empty", lang)
    parts = [
        t("game.count", lang, tier=tier_name(tier, lang), count=n)
        for tier, n in zip(TIERS, state.pool, strict=True)
        if n
    ]
    return t("game.pool", lang, pool=t("list.sep", lang).join(parts), total=sum(state.pool))


def zhuangyuan_lines(game: Game, lang: str) -> list[str]:
    """Who has (or leads for) the 状元, and why."""
    state = game.state
    rules = game.rules
    leader = state.leader()
    if leader is None:
        return [t("game.zhuangyuan.none", lang)]
    name = state.players[leader.seat]
    if leader.hand is None or leader.dice is None or leader.throw is None:
        return [t("game.zhuangyuan.grabbed", lang, player=name)]
    c = rules.classify(leader.dice)
    key = "game.zhuangyuan.winner" if state.phase is Phase.OVER else "game.zhuangyuan.leader"
    first = t(key, lang, player=name, hand=hand_name(c, lang), dice=leader.dice, throw=leader.throw)
    why = explain(c, rules, lang)
    if state.ended_by in ("liubohong", "biandijin") and leader.hand in (
        Hand.LIUBOHONG,
        Hand.BIANDIJIN,
    ):
        reason = t("game.why.sweep", lang, explain=why, effect=effect(c, rules, lang))
        return [first, t("game.why", lang, why=reason)]
    runner_up = None
    for seat, entry in enumerate(state.standings):
        if seat == leader.seat or entry is None:
            continue
        if runner_up is None or (entry.key, -entry.throw) > (runner_up[1].key, -runner_up[1].throw):
            runner_up = (seat, entry)
    if runner_up is None:
        reason = t("game.why.alone", lang, explain=why)
    else:
        seat, entry = runner_up
        other = {
            "player": state.players[seat],
            "hand": hand_text(rules, entry.dice, lang),
            "throw": entry.throw,
        }
        mine = rules.zhuangyuan_key(c)
        reason = t(
            "game.why.tie" if entry.key == mine else "game.why.beats", lang, explain=why, **other
        )
    return [first, t("game.why", lang, why=reason)]


class Narrator:
    """Turns events into one line per throw (and per other happening), in words."""

    def __init__(self, rules: RuleSet, lang: str, players: Sequence[str] = ()) -> None:
        self.rules = rules
        self.lang = lang
        self.players = list(players)
        self.standing: dict[str, str] = {}  # player -> dice of their 状元 standing
        self.best: dict[str, str] = {}  # ranked mode: player -> dice of their best throw
        self.starter = 0
        self.step = -1 if str(rules.direction) == "counterclockwise" else 1

    def lines(self, events: Sequence[ev.Event]) -> list[str]:
        """The lines for ``events`` (call again with later events: standings are remembered)."""
        out: list[str] = []
        index = 0
        while index < len(events):
            event = events[index]
            index += 1
            if isinstance(event, ev.Thrown):
                attached: list[ev.Event] = []
                while index < len(events) and _belongs_to_throw(events[index]):
                    attached.append(events[index])
                    index += 1
                out.append(self._throw_line(event, attached))
            elif isinstance(event, ev.Closed):
                ends_now = index < len(events) and isinstance(events[index], ev.GameOver)
                out.append(self._close_line(event, ends_now))
            elif isinstance(event, ev.Awarded) and event.reason == "grab":
                grabbed = [event]
                while index < len(events):
                    more = events[index]
                    if not (
                        isinstance(more, ev.Awarded)
                        and more.reason == "grab"
                        and more.player == event.player
                    ):
                        break
                    grabbed.append(more)
                    index += 1
                out.append(self._grab_line(grabbed))
            else:
                line = self._other_line(event)
                if line:
                    out.append(line)
        return out

    def _t(self, key: str, **params: Any) -> str:
        return t(key, self.lang, **params)

    def _tier(self, tier: str) -> str:
        return tier_name(tier, self.lang)

    def _throw_line(self, thrown: ev.Thrown, attached: list[ev.Event]) -> str:
        if thrown.dice is None:
            head = self._t("game.log.tiaohou", n=thrown.throw, player=thrown.player)
            skips = [self._t("game.log.skip_next") for e in attached if isinstance(e, ev.SkipNext)]
            return head + "".join(self._t("game.log.arrow") + o for o in skips)
        rules = self.rules
        c = rules.classify(thrown.dice)
        head = self._t(
            "game.log.throw",
            n=thrown.throw,
            player=thrown.player,
            dice=thrown.dice,
            hand=hand_name(c, self.lang),
        )
        if str(rules.award) == "ranked":
            return head + self._t("game.log.arrow") + self._best_text(thrown.player, thrown.dice)
        outcomes: list[str] = []
        stood = False
        for event in attached:
            if isinstance(event, ev.StandingSet):
                stood = True
                outcomes.append(self._standing_text(event))
            elif isinstance(event, ev.Awarded):
                outcomes.append(self._award_text(event))
        outright = (c.hand is Hand.LIUBOHONG and str(rules.liubohong) == "take_all_end") or (
            c.hand is Hand.BIANDIJIN and str(rules.biandijin) == "take_remaining_end"
        )  # these win the 状元 cake at once, with no standing
        if not stood and rules.is_zhuangyuan_hand(c.hand) and not outright:
            old = self.standing.get(thrown.player)
            if old is not None:
                outcomes.append(
                    self._t("game.log.standing.kept", old=hand_text(rules, old, self.lang))
                )
        tier = rules.tier_of(c.hand)
        won = any(isinstance(e, ev.Awarded) and e.tier == tier for e in attached)
        if tier is not None and tier != "zhuangyuan" and not won:
            outcomes.insert(0, self._t("game.log.no_cake", tier=self._tier(tier)))
        if not outcomes and not (c.hand is Hand.LIUBOHEI and str(rules.liubohei) == "grab_end"):
            outcomes.append(self._t("game.log.nothing"))
        return head + "".join(self._t("game.log.arrow") + o for o in outcomes)

    def _best_text(self, player: str, dice: str) -> str:
        """Ranked mode: whether the throw is the player's new best (equal throws: the earlier)."""
        rules = self.rules
        old = self.best.get(player)
        if old is not None and rank_key(rules, rules.classify(dice)) <= rank_key(
            rules, rules.classify(old)
        ):
            return self._t(
                "game.log.best.kept", player=player, old=hand_text(rules, old, self.lang)
            )
        self.best[player] = dice
        return self._t("game.log.best", player=player)

    def _standing_text(self, event: ev.StandingSet) -> str:
        old = self.standing.get(event.player)
        self.standing[event.player] = event.dice
        if old is None:
            return self._t("game.log.standing")
        rules = self.rules
        smaller = rules.zhuangyuan_key(rules.classify(event.dice)) < rules.zhuangyuan_key(
            rules.classify(old)
        )
        key = "game.log.standing.lugu" if smaller else "game.log.standing.better"
        return self._t(key, old=hand_text(rules, old, self.lang))

    def _award_text(self, event: ev.Awarded) -> str:
        tier = self._tier(event.tier)
        if event.reason == "chase":
            return self._t("game.log.chase", tier=tier, source=event.source)
        if event.reason == "chajinhua":
            return self._t("game.log.chajinhua", count=event.count)
        if event.reason == "bonus":
            return self._t("game.log.bonus", tier=tier)
        if event.reason == "sweep":
            if event.source is None:
                return self._t("game.log.sweep", tier=tier, count=event.count)
            return self._t("game.log.sweep.from", tier=tier, count=event.count, source=event.source)
        if event.count == 1:
            return self._t("game.log.award", tier=tier)
        return self._t("game.log.award.many", tier=tier, count=event.count)

    def _grab_line(self, grabbed: list[ev.Awarded]) -> str:
        cakes = t("list.sep", self.lang).join(
            self._t("game.count", tier=self._tier(e.tier), count=e.count) for e in grabbed
        )
        return self._t("game.log.grab", player=grabbed[0].player, cakes=cakes)

    def _other_line(self, event: ev.Event) -> str:
        if isinstance(event, ev.Started):
            if event.starter in self.players:
                self.starter = self.players.index(event.starter)
            if event.thrower is None or event.dice is None:
                return self._t("game.log.start", starter=event.starter)
            a, b = event.dice
            return self._t(
                "game.log.start.dice",
                thrower=event.thrower,
                a=a,
                b=b,
                sum=a + b,
                starter=event.starter,
                ender=self._seat_name(-1),
            )
        if isinstance(event, ev.SetStarted):  # 一二会 (RULES.md §10.2)
            if event.starter in self.players:
                self.starter = self.players.index(event.starter)
            return self._t("game.log.next_set", number=event.number, starter=event.starter)
        if isinstance(event, ev.Skipped):
            return self._t("game.log.skipped", player=event.player)
        if isinstance(event, ev.FinalStarted):
            if not self.players:
                return ""
            size = len(self.players)
            return self._t(
                "game.log.final",
                round=event.until_turn // size + 1,
                player=self._seat_name(event.until_turn),
            )
        if isinstance(event, ev.GrabOpened):
            return self._t("game.log.grab_open")
        if isinstance(event, ev.Awarded) and event.reason == "chajinhua":
            return self._t("game.log.chajinhua.end", player=event.player, count=event.count)
        if isinstance(event, ev.Awarded) and event.reason == "sweep":  # liubohong_duitang at_end
            return self._t("game.log.liubohong.end", player=event.player, count=event.count)
        if isinstance(event, ev.GameOver):
            return self._t("game.log.over", why=self._t(f"game.ended_by.{event.ended_by}"))
        if isinstance(event, ev.ZhuangyuanWon):
            if event.hand is None:
                return self._t(
                    "game.log.grab",
                    player=event.player,
                    cakes=self._t("game.count", tier=self._tier("zhuangyuan"), count=1),
                )
            if str(self.rules.zhuangyuan_cake) == "shared":  # 分状元 (RULES.md §9.3)
                return self._t("game.log.zhuangyuan.shared", player=event.player)
            return self._t("game.log.zhuangyuan", player=event.player)
        return ""

    def _close_line(self, event: ev.Closed, ends_now: bool) -> str:
        if ends_now or not self.players:
            return self._t("game.log.close.now")
        return self._t(
            "game.log.close",
            round=event.until_turn // len(self.players) + 1,
            player=self._seat_name(event.until_turn),
        )

    def _seat_name(self, turn: int) -> str:
        """Who plays turn index ``turn`` (-1: the ender), once the start has been seen."""
        if not self.players:
            return ""
        return self.players[(self.starter + self.step * turn) % len(self.players)]


def _belongs_to_throw(event: ev.Event) -> bool:
    if isinstance(event, ev.Awarded):
        return event.reason != "grab"
    return isinstance(event, ev.StandingSet | ev.SkipNext)
