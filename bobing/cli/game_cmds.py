"""``bobing adjudicate`` and ``bobing play``: judge a game record, or play at the terminal."""

from __future__ import annotations

import io
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, redirect_stdout
from pathlib import Path
from typing import Annotated, Any

import typer

from bobing.cli.click_i18n import cli_lang
from bobing.cli.render import (
    Align,
    JsonOption,
    LangOption,
    RulesOption,
    lang_from_option,
    print_json,
    print_table,
    print_text,
    rules_from_option,
)
from bobing.engine.dice import DiceSource, SeededDice, SystemDice, parse_dice
from bobing.engine.errors import BobingError, DiceError, InputError, RecordError
from bobing.engine.events import (
    Awarded,
    Closed,
    Event,
    FinalStarted,
    GameOver,
    GrabOpened,
    SkipNext,
    Skipped,
    StandingSet,
    Started,
    Thrown,
    ZhuangyuanWon,
)
from bobing.engine.game import Game, GameState, Phase
from bobing.engine.hands import TIERS, Hand
from bobing.engine.ranked import rank_key
from bobing.engine.record import (
    Judgement,
    dumps_record,
    judge_record,
    load_record,
    parse_record,
)
from bobing.engine.rules import RuleSet
from bobing.i18n import t
from bobing.i18n.errors import localize
from bobing.i18n.names import effect, explain, hand_name, preset_name, tier_name

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page

# What people type for a die out of the bowl, and to stop.
TIAOHOU_WORDS = frozenset({"t", "tiaohou", "跳猴", "跳", "j"})
QUIT_WORDS = frozenset({"q", "quit", "exit", "退出", "不博了"})
# What a host types to call time (RULES.md §8.1): the round is finished, then the game ends.
CLOSE_WORDS = frozenset({"e", "end", "结束", "結束", "收工"})
NAME_SEPARATORS = str.maketrans({"、": ",", "，": ",", "\n": ","})


def register(app: typer.Typer) -> None:
    """Add ``adjudicate`` and ``play`` to ``app``."""
    app.command(
        "adjudicate",
        help=t("game.help.adjudicate", _HELP_LANG),
        short_help=t("game.help.adjudicate.short", _HELP_LANG),
    )(adjudicate_command)
    app.command(
        "play",
        help=t("game.help.play", _HELP_LANG),
        short_help=t("game.help.play.short", _HELP_LANG),
    )(play_command)


@contextmanager
def _errors_exit_2() -> Iterator[None]:
    """Bad input becomes one line on stderr (``bobing: 错误：…``) and exit code 2, never a
    traceback: the same line as :func:`bobing.cli.main` prints."""
    try:
        yield
    except BobingError as exc:
        from bobing.cli import error_line  # the package imports this module

        typer.echo(error_line(exc), err=True)  # one line in the reader's language, never wrapped
        raise typer.Exit(2) from None


# -- adjudicate ------------------------------------------------------------------------------


def adjudicate_command(
    record: Annotated[
        str, typer.Argument(metavar="RECORD.json", help=t("game.help.arg.record", _HELP_LANG))
    ],
    rules: RulesOption = None,
    json_output: JsonOption = False,
    lang: LangOption = None,
) -> None:
    """Judge a game record (RULES.md §6) and print the result (§7 with ``--json``)."""
    with _errors_exit_2():
        language = lang_from_option(lang)
        ruleset = rules_from_option(rules) if rules is not None else None
        data = _read_record(record)
        judged = judge_record(data, ruleset)
        renumbered = judged.rejudged and _throws(judge_record(data).game) != _throws(judged.game)
        result = judged.game.result()
        if judged.rejudged:
            result["rejudged"] = True
            result["unused_throws"] = judged.unused_throws
    # Everything is decided, and the text rendered, before the first line is printed: on any
    # error nothing at all reaches stdout.
    if json_output:
        print_json(result)
        return
    with _errors_exit_2():
        text = _rendered(lambda: _print_judgement(judged.game, judged, language, renumbered))
    sys.stdout.write(text)
    sys.stdout.flush()


def _rendered(render: Callable[[], None]) -> str:
    """What ``render`` prints, with runs of blank lines (table edges) made single."""
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        render()
    return re.sub(r"\n{3,}", "\n\n", buffer.getvalue())


def _throws(game: Game) -> list[tuple[int, str, str | None]]:
    """Each throw as (number, player, dice): to tell whether re-judging renumbered them."""
    return [(e.throw, e.player, e.dice) for e in game.events if isinstance(e, Thrown)]


def _print_judgement(
    game: Game, judged: Judgement, language: str, renumbered: bool = False
) -> None:
    header = [_title(game, language)]
    if judged.rejudged:
        key = "game.rejudged" if judged.unused_throws else "game.rejudged.all"
        header.append(
            t(key, language, rules=_rules_label(game.rules, language), unused=judged.unused_throws)
        )
    if renumbered:
        # the same dice, but other turns: say why the numbers differ from the record's
        header.append(t("game.rejudged.renumbered", language))
    header.append(_status(game, language))
    print_text(*header)
    if game.state.ranked:
        _print_ranking(game, language)
        print_text("")
    else:
        _print_holdings(game, language)
        _print_standings(game, language)
        print_text(*_zhuangyuan_lines(game, language), _pool_line(game.state, language))
    print_text(*_section9_lines(game, language), "")
    print_text(t("game.log.title", language))
    narrator = Narrator(game.rules, language, game.players)
    print_text(*(f"  {line}" for line in narrator.lines(game.events)))


def _read_record(source: str) -> dict[str, Any]:
    if source == "-":
        raw = getattr(sys.stdin, "buffer", None)
        try:
            text = raw.read().decode("utf-8-sig") if raw is not None else sys.stdin.read()
        except UnicodeDecodeError:
            raise RecordError("standard input is not UTF-8 text") from None
        return parse_record(text, "<stdin>")
    return load_record(source)


# -- shared text -----------------------------------------------------------------------------


def _rules_label(rules: RuleSet, lang: str) -> str:
    label = f"{preset_name(rules.preset, lang)} ({rules.preset})"
    changed = [key for key in rules.overrides() if key != "preset"]
    return label + (" + " + ", ".join(changed) if changed else "")


def _title(game: Game, lang: str) -> str:
    return t(
        "game.title",
        lang,
        rules=_rules_label(game.rules, lang),
        players=len(game.players),
        throws=game.throw_count,
    )


def _status(game: Game, lang: str) -> str:
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


def _hand_text(rules: RuleSet, dice: str, lang: str) -> str:
    return hand_name(rules.classify(dice), lang)


def _print_holdings(game: Game, lang: str) -> None:
    """Who holds what: one row per player, one column per tier."""
    state = game.state
    headers = [t("game.col.player", lang), *(tier_name(tier, lang) for tier in TIERS)]
    headers.append(t("game.col.total", lang))
    rows = [
        [name, *(str(n) if n else "·" for n in counts), str(sum(counts))]
        for name, counts in zip(state.players, state.held, strict=True)
    ]
    right: Align = "right"
    align: list[Align] = ["left", *([right] * (len(TIERS) + 1))]
    print_table(headers, rows, align=align)


def _print_standings(game: Game, lang: str) -> None:
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
            _hand_text(game.rules, entry.dice, lang),
            entry.dice,
            str(entry.throw),
        ]
        for place, (_, _, seat, entry) in enumerate(ranked, start=1)
    ]
    print_table(headers, rows, align=["right", "left", "left", "left", "right"])


def _print_ranking(game: Game, lang: str) -> None:
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
            best = _hand_text(game.rules, entry.dice, lang)
            dice, throw = entry.dice, str(entry.throw)
        prize = entry.prize if entry.prize is not None else t("game.ranking.no_prize", lang)
        rows.append([str(place), entry.player, best, dice, throw, prize])
    print_table(headers, rows, align=["right", "left", "left", "left", "right", "left"])


def _section9_lines(game: Game, lang: str) -> list[str]:
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


def _pool_line(state: GameState, lang: str) -> str:
    if not any(state.pool):
        return t("game.pool.empty", lang)
    parts = [
        t("game.count", lang, tier=tier_name(tier, lang), count=n)
        for tier, n in zip(TIERS, state.pool, strict=True)
        if n
    ]
    return t("game.pool", lang, pool=t("list.sep", lang).join(parts), total=sum(state.pool))


def _zhuangyuan_lines(game: Game, lang: str) -> list[str]:
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
            "hand": _hand_text(rules, entry.dice, lang),
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

    def lines(self, events: Sequence[Event]) -> list[str]:
        """The lines for ``events`` (call again with later events: standings are remembered)."""
        out: list[str] = []
        index = 0
        while index < len(events):
            event = events[index]
            index += 1
            if isinstance(event, Thrown):
                attached: list[Event] = []
                while index < len(events) and _belongs_to_throw(events[index]):
                    attached.append(events[index])
                    index += 1
                out.append(self._throw_line(event, attached))
            elif isinstance(event, Closed):
                ends_now = index < len(events) and isinstance(events[index], GameOver)
                out.append(self._close_line(event, ends_now))
            elif isinstance(event, Awarded) and event.reason == "grab":
                grabbed = [event]
                while index < len(events):
                    more = events[index]
                    if not (
                        isinstance(more, Awarded)
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

    def _throw_line(self, thrown: Thrown, attached: list[Event]) -> str:
        if thrown.dice is None:
            head = self._t("game.log.tiaohou", n=thrown.throw, player=thrown.player)
            skips = [self._t("game.log.skip_next") for e in attached if isinstance(e, SkipNext)]
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
            if isinstance(event, StandingSet):
                stood = True
                outcomes.append(self._standing_text(event))
            elif isinstance(event, Awarded):
                outcomes.append(self._award_text(event))
        outright = (c.hand is Hand.LIUBOHONG and str(rules.liubohong) == "take_all_end") or (
            c.hand is Hand.BIANDIJIN and str(rules.biandijin) == "take_remaining_end"
        )  # these win the 状元 cake at once, with no standing
        if not stood and rules.is_zhuangyuan_hand(c.hand) and not outright:
            old = self.standing.get(thrown.player)
            if old is not None:
                outcomes.append(
                    self._t("game.log.standing.kept", old=_hand_text(rules, old, self.lang))
                )
        tier = rules.tier_of(c.hand)
        won = any(isinstance(e, Awarded) and e.tier == tier for e in attached)
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
                "game.log.best.kept", player=player, old=_hand_text(rules, old, self.lang)
            )
        self.best[player] = dice
        return self._t("game.log.best", player=player)

    def _standing_text(self, event: StandingSet) -> str:
        old = self.standing.get(event.player)
        self.standing[event.player] = event.dice
        if old is None:
            return self._t("game.log.standing")
        rules = self.rules
        smaller = rules.zhuangyuan_key(rules.classify(event.dice)) < rules.zhuangyuan_key(
            rules.classify(old)
        )
        key = "game.log.standing.lugu" if smaller else "game.log.standing.better"
        return self._t(key, old=_hand_text(rules, old, self.lang))

    def _award_text(self, event: Awarded) -> str:
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

    def _grab_line(self, grabbed: list[Awarded]) -> str:
        cakes = t("list.sep", self.lang).join(
            self._t("game.count", tier=self._tier(e.tier), count=e.count) for e in grabbed
        )
        return self._t("game.log.grab", player=grabbed[0].player, cakes=cakes)

    def _other_line(self, event: Event) -> str:
        if isinstance(event, Started):
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
        if isinstance(event, Skipped):
            return self._t("game.log.skipped", player=event.player)
        if isinstance(event, FinalStarted):
            if not self.players:
                return ""
            size = len(self.players)
            return self._t(
                "game.log.final",
                round=event.until_turn // size + 1,
                player=self._seat_name(event.until_turn),
            )
        if isinstance(event, GrabOpened):
            return self._t("game.log.grab_open")
        if isinstance(event, Awarded) and event.reason == "chajinhua":
            return self._t("game.log.chajinhua.end", player=event.player, count=event.count)
        if isinstance(event, Awarded) and event.reason == "sweep":  # liubohong_duitang at_end
            return self._t("game.log.liubohong.end", player=event.player, count=event.count)
        if isinstance(event, GameOver):
            return self._t("game.log.over", why=self._t(f"game.ended_by.{event.ended_by}"))
        if isinstance(event, ZhuangyuanWon):
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

    def _close_line(self, event: Closed, ends_now: bool) -> str:
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


def _belongs_to_throw(event: Event) -> bool:
    if isinstance(event, Awarded):
        return event.reason != "grab"
    return isinstance(event, StandingSet | SkipNext)


# -- play ------------------------------------------------------------------------------------


def play_command(
    players: Annotated[
        str | None,
        typer.Option(
            "--players", "-p", metavar="甲,乙,丙", help=t("game.help.opt.players", _HELP_LANG)
        ),
    ] = None,
    players_file: Annotated[
        Path | None,
        typer.Option(
            "--players-file", metavar="FILE", help=t("game.help.opt.players_file", _HELP_LANG)
        ),
    ] = None,
    rules: RulesOption = None,
    physical: Annotated[
        bool, typer.Option("--physical", help=t("game.help.opt.physical", _HELP_LANG))
    ] = False,
    seed: Annotated[
        int | None, typer.Option("--seed", metavar="N", help=t("game.help.opt.seed", _HELP_LANG))
    ] = None,
    save: Annotated[
        Path | None,
        typer.Option("--save", metavar="GAME.json", help=t("game.help.opt.save", _HELP_LANG)),
    ] = None,
    lang: LangOption = None,
) -> None:
    """A hot-seat game at the terminal, with random or real (typed) dice."""
    with _errors_exit_2():
        language = lang_from_option(lang)
        ruleset = rules_from_option(rules)
        if players is not None and players_file is not None:
            raise InputError("give --players or --players-file, not both", key="players")
        names: list[str] | None = None
        if players is not None:
            names = split_names(players)
        elif players_file is not None:
            names = split_names(_read_text(players_file))
        if names is not None:
            Game(ruleset, names)  # check the names before anything else happens
    terminal = Terminal()
    if names is None:
        names = _ask_names(terminal, ruleset, language)
        if names is None:
            print_text(t("game.play.eof", language, throws=0))
            return
    session = Session(ruleset, names, language, terminal, physical=physical, seed=seed)
    code = session.run()
    if save is not None:
        with _errors_exit_2():
            _write_record(save, session.game.to_record(seed=seed))
        print_text(t("game.play.saved", language, path=str(save)))
    if code:
        raise typer.Exit(code)


def split_names(text: str) -> list[str]:
    """Names separated by commas, 、 or ， (or lines); blanks around names and empty items go.

    >>> split_names("甲, 乙、丙，丁\\n")
    ['甲', '乙', '丙', '丁']
    """
    return [name.strip() for name in text.translate(NAME_SEPARATORS).split(",") if name.strip()]


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(
            f"cannot read players file {str(path)!r}: {exc.strerror or exc}", key="players-file"
        ) from None
    except UnicodeDecodeError:
        raise InputError(
            f"players file {str(path)!r} is not UTF-8 text", key="players-file"
        ) from None


def _write_record(path: Path, record: dict[str, Any]) -> None:
    try:
        path.write_text(dumps_record(record) + "\n", encoding="utf-8")
    except OSError as exc:
        raise InputError(
            f"cannot save the record to {str(path)!r}: {exc.strerror or exc}", key="save"
        ) from None


def _ask_names(terminal: Terminal, rules: RuleSet, lang: str) -> list[str] | None:
    while True:
        line = terminal.ask(t("game.play.players_prompt", lang, max=rules.max_players))
        if line is None:
            return None
        names = split_names(line)
        try:
            Game(rules, names)
        except InputError as exc:
            print_text(t("game.play.bad_players", lang, error=localize(exc, lang)))
            continue
        return names


class Terminal:
    """Prompts and answers: a single keypress on a terminal, whole lines from a pipe."""

    def __init__(self) -> None:
        self.interactive = sys.stdin.isatty()
        self.animate = sys.stdout.isatty()

    def ask(self, prompt: str) -> str | None:
        """A line typed after ``prompt``, stripped; None at the end of input."""
        sys.stdout.write(prompt)
        sys.stdout.flush()
        line = sys.stdin.readline()
        if not self.interactive or not line:
            sys.stdout.write("\n")  # the answer was not echoed: end the prompt's line
        if not line:
            return None
        return line.strip()

    def press(self, prompt: str) -> str | None:
        """One key after ``prompt`` (Enter, q, ...); None at the end of input (Ctrl-D)."""
        if not self.interactive:
            return self.ask(prompt)
        try:
            import termios
            import tty
        except ImportError:  # not a POSIX terminal: whole lines
            return self.ask(prompt)
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        try:
            # One key, unechoed, before the prompt shows: a key typed as soon as it appears is
            # kept (setcbreak's default TCSAFLUSH would discard it).
            tty.setcbreak(fd, termios.TCSANOW)
            sys.stdout.write(prompt)
            sys.stdout.flush()
            key = sys.stdin.read(1)
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        sys.stdout.write("\n")
        if key in ("", "\x04"):
            return None
        return key.strip()

    def roll_animation(self, faces: Sequence[int]) -> None:
        """A short tumble of random faces before the real ones (only on a terminal)."""
        if not self.animate:
            return
        shuffle = random.Random()  # never the game's dice: the animation must not change them
        with self._keys_held():
            for _ in range(8):
                sys.stdout.write("\r  " + " ".join(str(shuffle.randint(1, 6)) for _ in faces))
                sys.stdout.flush()
                time.sleep(0.04)
            sys.stdout.write("\r  " + " ".join(map(str, faces)) + "\n")
            sys.stdout.flush()

    @contextmanager
    def _keys_held(self) -> Iterator[None]:
        """While the dice tumble, keys are not echoed (an Enter would move the line and leave
        every frame on screen) and are dropped afterwards (not taken as the next throw)."""
        try:
            import termios
            import tty
        except ImportError:  # not a POSIX terminal
            yield
            return
        try:
            fd = sys.stdin.fileno()
            saved = termios.tcgetattr(fd)
        except (OSError, ValueError, termios.error):  # stdin is not a terminal
            yield
            return
        try:
            tty.setcbreak(fd, termios.TCSANOW)
            yield
        finally:
            termios.tcflush(fd, termios.TCIFLUSH)
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)


_CLOSE = object()
"""What a prompt returns when the host calls time."""


class _Stop(Exception):
    """The players stopped (q) or the input ended."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


class Session:
    """One hot-seat game: asks for throws, shows what they win, ends with the results."""

    def __init__(
        self,
        rules: RuleSet,
        names: Sequence[str],
        lang: str,
        terminal: Terminal,
        *,
        physical: bool,
        seed: int | None,
    ) -> None:
        self.game = Game(rules, names)
        self.lang = lang
        self.terminal = terminal
        self.physical = physical
        self.seed = seed
        self.dice: DiceSource = SeededDice(seed) if seed is not None else SystemDice()
        self.grab_rng: random.Random = (
            random.Random(seed) if seed is not None else random.SystemRandom()
        )
        self.narrator = Narrator(rules, lang, names)

    def run(self) -> int:
        """Play until the end or until stopped; the exit code (0, or 130 after Ctrl-C)."""
        game = self.game
        lang = self.lang
        title = t(
            "game.play.title",
            lang,
            rules=_rules_label(game.rules, lang),
            players=t("list.sep", lang).join(game.players),
        )
        if self.seed is not None:
            title += " · " + t("game.play.seed", lang, seed=self.seed)
        print_text(title, "")
        try:
            self._start()
            while not game.is_over:
                if game.phase is Phase.GRAB:
                    print_text(t("game.play.grab", lang))
                    self._show(game.grab(rng=self.grab_rng), detail=False)
                    continue
                self._turn()
        except _Stop as stop:
            key = "game.play.eof" if stop.key == "eof" else "game.play.quit"
            print_text("", t(key, lang, throws=game.throw_count))
            return 130 if stop.key == "interrupt" else 0
        except KeyboardInterrupt:
            print_text("", t("game.play.quit", lang, throws=game.throw_count))
            return 130

        def results() -> None:
            print_text("", t("game.play.results", lang))
            if game.state.ranked:
                _print_ranking(game, lang)
            else:
                _print_holdings(game, lang)
                _print_standings(game, lang)
                print_text(*_zhuangyuan_lines(game, lang))
            print_text(*_section9_lines(game, lang))

        sys.stdout.write(_rendered(results))
        return 0

    def _start(self) -> None:
        game = self.game
        thrower = game.players[0]
        if self.physical:
            prompt = t("game.play.start_type", self.lang, thrower=thrower)
            a, b = self._typed(prompt, _parse_start, "game.play.bad_start")
        else:
            self._press(t("game.play.start_press", self.lang, thrower=thrower))
            a, b = self.dice.roll(2)
            self.terminal.roll_animation((a, b))
        self._show(game.start(thrower=thrower, dice=(a, b)), detail=False)

    def _turn(self) -> None:
        game = self.game
        player = game.next_player
        n = game.throw_count + 1
        if self.physical:
            prompt = t("game.play.type", self.lang, n=n, player=player)
            faces = self._typed(prompt, _parse_throw, "game.play.bad_dice", can_close=True)
            if faces is _CLOSE:
                self._close()
                return
            events = game.throw(faces, tiaohou=faces is None)
        else:
            if self._press(t("game.play.press", self.lang, n=n, player=player)) is _CLOSE:
                self._close()
                return
            rolled = self.dice.roll()
            self.terminal.roll_animation(rolled)
            events = game.throw(rolled)
        self._show(events, detail=True)

    def _press(self, prompt: str) -> object:
        """Wait for a key: ``_CLOSE`` when the host calls time, else None (throw)."""
        key = self.terminal.press(prompt)
        if key is None:
            raise _Stop("eof")
        if key.lower() in QUIT_WORDS:
            raise _Stop("quit")
        return _CLOSE if key.lower() in CLOSE_WORDS else None

    def _close(self) -> None:
        """The host calls time: the round is finished (or the game ends now)."""
        game = self.game
        if not game.can_close():
            try:
                game.verify_close()
            except BobingError as exc:
                print_text(t("game.play.cannot_close", self.lang, error=localize(exc, self.lang)))
            return
        print_text(t("game.play.closed", self.lang))
        self._show(game.close(), detail=False)

    def _typed(
        self, prompt: str, parse: Callable[[str], Any], bad: str, *, can_close: bool = False
    ) -> Any:
        while True:
            line = self.terminal.ask(prompt)
            if line is None:
                raise _Stop("eof")
            if line.lower() in QUIT_WORDS:
                raise _Stop("quit")
            if can_close and line.lower() in CLOSE_WORDS:
                return _CLOSE
            try:
                return parse(line)
            except InputError:
                print_text(t(bad, self.lang, value=line))

    def _show(self, events: Sequence[Event], *, detail: bool) -> None:
        lines = self.narrator.lines(events)
        if detail and not self.game.is_over and self.game.state.ranked:
            top = self.game.ranking()[0]
            if top.dice is not None:
                prize = top.prize or t("game.ranking.no_prize", self.lang)
                lines.append(
                    "  "
                    + t(
                        "game.ranking.leader",
                        self.lang,
                        player=top.player,
                        hand=_hand_text(self.game.rules, top.dice, self.lang),
                        dice=top.dice,
                        throw=top.throw,
                        prize=prize,
                    )
                )
        elif detail and not self.game.is_over:
            lines += [
                "  " + _pool_line(self.game.state, self.lang),
                "  " + _zhuangyuan_lines(self.game, self.lang)[0],
            ]
        print_text(*lines)


def _parse_start(text: str) -> tuple[int, int]:
    digits = [c for c in text.translate(_FULL_WIDTH) if not c.isspace() and c not in ",，、+"]
    if len(digits) != 2 or not all(c in "123456" for c in digits):
        raise DiceError(f"invalid start dice {text!r}: two faces 1-6", value=text)
    return int(digits[0]), int(digits[1])


def _parse_throw(text: str) -> tuple[int, ...] | None:
    if text.lower() in TIAOHOU_WORDS:
        return None
    return parse_dice(text)


_FULL_WIDTH = str.maketrans({chr(0xFF10 + d): str(d) for d in range(10)})


__all__ = ["Narrator", "register", "split_names"]
