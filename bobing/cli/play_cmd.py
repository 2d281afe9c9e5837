"""``bobing play``: a game at the terminal, pass-and-play or with the dice of a real bowl."""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from bobing.cli import narrator as game_text
from bobing.cli.click_i18n import cli_lang
from bobing.cli.exits import errors_exit_2
from bobing.cli.render import (
    LangOption,
    RulesOption,
    lang_from_option,
    print_text,
    rules_from_option,
)
from bobing.engine.dice import DiceSource, SeededDice, SystemDice, parse_dice
from bobing.engine.errors import BobingError, DiceError, InputError
from bobing.engine.events import (
    Event,
)
from bobing.engine.game import Game, Phase
from bobing.engine.record import (
    dumps_record,
)
from bobing.engine.rules import RuleSet
from bobing.i18n import t
from bobing.i18n.errors import localize

_HELP_LANG = cli_lang()  # --lang or BOBING_LANG: one language per help page

# What people type for a die out of the bowl, and to stop.
TIAOHOU_WORDS = frozenset({"t", "tiaohou", "跳猴", "跳", "j"})
QUIT_WORDS = frozenset({"q", "quit", "exit", "退出", "不博了"})
# What a host types to call time (RULES.md §8.1): the round is finished, then the game ends.
CLOSE_WORDS = frozenset({"e", "end", "结束", "結束", "收工"})
NAME_SEPARATORS = str.maketrans({"、": ",", "，": ",", "\n": ","})


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
    with errors_exit_2():
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
        with errors_exit_2():
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
        self.narrator = game_text.Narrator(rules, lang, names)

    def run(self) -> int:
        """Play until the end or until stopped; the exit code (0, or 130 after Ctrl-C)."""
        game = self.game
        lang = self.lang
        title = t(
            "game.play.title",
            lang,
            rules=game_text.rules_label(game.rules, lang),
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
            print_text("", t("game.play.results", lang), *game_text.set_lines(game, lang))
            if game.state.ranked:
                game_text.print_ranking(game, lang)
            else:
                game_text.print_holdings(game, lang)
                game_text.print_standings(game, lang)
                print_text(*game_text.zhuangyuan_lines(game, lang))
            print_text(*game_text.section9_lines(game, lang))
            game_text.print_totals(game, lang)

        sys.stdout.write(game_text.rendered(results))
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
                        hand=game_text.hand_text(self.game.rules, top.dice, self.lang),
                        dice=top.dice,
                        throw=top.throw,
                        prize=prize,
                    )
                )
        elif detail and not self.game.is_over:
            lines += [
                "  " + game_text.pool_line(self.game.state, self.lang),
                "  " + game_text.zhuangyuan_lines(self.game, self.lang)[0],
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
