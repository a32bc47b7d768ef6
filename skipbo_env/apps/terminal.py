"""`skipbo play` and `skipbo watch`: Skip-Bo against (or between) bots in the terminal.

The table is drawn with rich: building piles, every player's stock top and size, discard
piles, coins in Skip-Bo Masters, the human's hand. The human's legal moves are listed with
number keys; commands: ``h`` hint (what `expert` would play), ``u`` undo (this turn's moves
that turned up no card), ``l`` the game log, ``?`` help, ``q`` quit. Bad input gets a
message and the prompt again; end of input leaves the game.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .. import records
from ..engine import Game
from ..files import check_target
from ..players.registry import make_agent
from ..rules import Rules
from ..state import Phase
from ..text import card_name, check_deck_style, rank_name
from .session import (
    HOW_TO_PLAY,
    PlaySession,
    parse_opponents,
    public_state,
    result_text,
    rules_overrides,
    strongest,
)

HELP = ("keys: a move's number plays it; h hint, u undo, l log, ? how to play and help, "
        "q quit")
PLAYING_CARDS = ("playing cards: A is 1, J 11, Q 12, and K is a wild (a king or a joker; "
                 "three standard decks with their jokers stand in for a Skip-Bo deck).")
LEGEND = ("cards: SB is a Skip-Bo card (a wild); on a building pile SB=5 is a Skip-Bo played as "
          "5. stock: its top card and (10) the cards left in it. discard piles: each pile is "
          "numbered, 0:[4 9] holds a 4 under a 9, and the last card is the top, the one you "
          "can play. $ after a card (Skip-Bo Masters) is its toll, one coin each. > marks the "
          "player to act.")


def _card_style(card: dict | None) -> str:
    if card is None:
        return "dim"
    if card["wild"]:
        return "bold magenta"
    if card["rank"] is None:
        return "bold yellow"  # a coin's place
    rank = card["rank"]
    return "bold blue" if rank <= 4 else "bold green" if rank <= 8 else "bold red"


def _short(card: dict) -> str:
    """A card's short face: its number (A..Q as playing cards), SB for a Skip-Bo card (K as
    playing cards), without the toll words."""
    name = card["name"].split(" ")[0]
    return "SB" if name == "Skip-Bo" else name


def _card_text(card: dict | None, empty: str = "--") -> Text:
    if card is None:
        return Text(empty, style="dim")
    name = _short(card)
    if card["toll"]:
        name += "$" * card["toll"]
    return Text(f"[{name}]", style=_card_style(card))


def _card_face(card: dict) -> Text:
    """A card's face without brackets: its number (or SB), with its toll marks."""
    return Text(_short(card) + "$" * card["toll"], style=_card_style(card))


def _pile_text(cards: list, index: int) -> Text:
    """Pile `index`: every card, bottom first and the top last (all of it is public), in one
    pair of brackets after the pile's number: ``0:[4 9]``, ``1:[]``."""
    out = Text(f"{index}:[", style="dim")
    for i, card in enumerate(cards):
        if i:
            out.append(" ")
        out.append_text(_card_face(card))
    out.append("]", style="dim")
    return out


def table(state: dict) -> Table:
    """The table of a `public_state` as a rich Table."""
    grid = Table(title=f"Skip-Bo ({state['variant']}, {state['num_players']} players) - turn "
                       f"{state['turn']} - draw pile {state['draw_pile_size']}",
                 show_lines=True, expand=False)
    grid.add_column("player")
    grid.add_column("stock")
    grid.add_column("discard piles (top last)" if not state["stacked"]
                    else "hand stacks (top last)")
    grid.add_column("hand")
    if state["coins"]:
        grid.add_column("coins")
    for p in state["players"]:
        mark = "> " if p["seat"] == state["current_player"] and state["result"] is None \
            else "  "
        who = Text(f"{mark}{p['seat']} {p['name']}", style="bold" if p["seat"] == state["seat"]
                   else "")
        if "team" in p:
            who.append(f" (team {p['team']})")
        stock = _card_text(p["stock_top"], "empty")
        stock.append(f" ({p['stock_size']})")
        if state["stacked"]:
            piles = Text("  ").join(_pile_text(s, i) for i, s in enumerate(p["hand_stacks"]))
        else:
            piles = Text("  ").join(_pile_text(d, i) for i, d in enumerate(p["discards"]))
        if p["seat"] == state["seat"] and not state["stacked"]:
            hand = Text(" ").join(_card_text(c) for c in state["hand"]) or Text("-")
        else:
            hand = Text(f"{p['hand_size']} cards")
        row = [who, stock, piles, hand]
        if state["coins"]:
            row.append(Text(str(p["coins"])))
        grid.add_row(*row)
    building = Text("building piles: ")
    for i, pile in enumerate(state["building"]):
        building.append(f"{i}:")
        building.append_text(_card_text(pile["top"], "--"))
        if pile["top"] is not None and pile["top"]["wild"]:
            building.append(f"={rank_name(pile['size'], state.get('deck_style', 'skipbo'))}")
        if pile["coins"]:
            building.append(f" ({pile['coins']} coins)")
        building.append("  ")
    grid.caption = building
    return grid


class TerminalGame:
    """The `skipbo play` loop over an input stream and a rich console."""

    def __init__(self, session: PlaySession, console: Console, stream: TextIO,
                 pause: float = 0.6):
        self.session, self.console, self.stream, self.pause = session, console, stream, pause

    def ask(self, prompt: str) -> str | None:
        """A line of input (stripped), or None at the end of input."""
        self.console.print(prompt, end="", markup=False)
        line = self.stream.readline()
        if not line:
            self.console.print("\nend of input: leaving the game")
            return None
        if not self.stream.isatty():
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    def show(self) -> None:
        state = self.session.public_state()
        self.console.print(table(state))
        scores = ", ".join(f"{name} {w}" for name, w in zip(self.session.names, state["wins"]))
        self.console.print(f"games won: {scores}; points: "
                           + ", ".join(map(str, state["points"])))

    def run(self) -> int:
        """Play until the person quits or input ends; returns the exit status (0)."""
        s = self.session
        others = [name for seat, name in enumerate(s.names) if seat != s.human]
        self.console.print(f"[bold]Skip-Bo[/bold] against {', '.join(others)}. {HELP}")
        while True:
            self.bots()
            if s.game.is_over:
                self.show()
                self.console.print(f"[bold]game over: {s.result()}[/bold]")
                while True:
                    answer = self.ask("another game? [y/n] ")
                    if answer is None or answer.lower() in ("n", "no", "q", "quit"):
                        return 0
                    if answer.lower() in ("y", "yes", ""):
                        s.new_game()
                        break
                    self.console.print("please answer y or n")
                continue
            if not self.turn():
                return 0

    def bots(self) -> None:
        """The bots' moves up to the person's turn, under the table as it was before the
        first of them (the table after them is drawn by the person's turn or the game's end)."""
        game = self.session.game
        if game.is_over or game.current_player == self.session.human:
            return
        self.show()
        for seat, move in self.session.bot_moves():
            self.console.print(f"  player {seat} ({self.session.names[seat]}): {move.text}")
            if self.pause:
                time.sleep(self.pause)

    def list_moves(self, moves) -> None:
        """The moves with their number keys; discards grouped by card, one line each."""
        discards: dict[str, list[str]] = {}
        for i, m in enumerate(moves, 1):
            if m.target is not None and m.target["zone"] == "discard":
                card = card_name(m.source["card"], self.session.rules.max_rank,
                                 self.session.deck_style)
                discards.setdefault(card, []).append(f"[cyan]{i}[/cyan] pile {m.target['pile']}")
            else:
                self.console.print(f"  [cyan]{i:>2}[/cyan] {m.text}", highlight=False)
        for card, keys in discards.items():
            self.console.print(f"  discard {card}: " + ", ".join(keys), highlight=False)

    def turn(self) -> bool:
        """The human's turn, up to a move made; False when the person leaves."""
        s = self.session
        self.show()
        moves = s.legal_moves()
        if s.game.phase == Phase.TOLL:
            self.console.print(f"[yellow]you owe a toll of {s.game.pending_toll} coins[/yellow]")
        self.list_moves(moves)
        while True:
            answer = self.ask(f"your move (1-{len(moves)}, h, u, l, ?, q): ")
            if answer is None:
                return False
            key = answer.lower()
            if key in ("q", "quit", "exit"):
                self.console.print("you left the game")
                return False
            if key in ("h", "hint"):
                hint = s.hint()
                number = next(i for i, m in enumerate(moves, 1) if m.action == hint.action)
                self.console.print(f"[green]hint: expert would play {number}: "
                                   f"{hint.text}[/green]")
            elif key in ("u", "undo"):
                try:
                    self.console.print(f"took back: {s.undo()}")
                    return True
                except ValueError as e:
                    self.console.print(f"[red]{e}[/red]")
            elif key in ("l", "log"):
                self.console.print("\n".join(s.log), markup=False, highlight=False)
            elif key in ("?", "help"):
                self.console.print("[bold]How to play[/bold]")
                for line in HOW_TO_PLAY:
                    self.console.print(f"- {line}", highlight=False)
                best = strongest(s.rules)
                where = f" in {best['setting']}" if "setting" in best else ""
                self.console.print(f"Strongest bot{where}: {best['name']}, "
                                   f"{best['said'].split('; here')[0]}.", highlight=False)
                self.console.print(HELP)
                self.console.print(LEGEND, highlight=False)
                if s.deck_style == "playing-cards":
                    self.console.print(PLAYING_CARDS, highlight=False)
                self.list_moves(moves)
            elif key == "":
                self.console.print(f"type a move's number (1-{len(moves)}), or ? for help")
            elif key.isdigit() and 1 <= int(key) <= len(moves):
                s.play(moves[int(key) - 1].action)
                return True
            elif key.isdigit():
                self.console.print(f"[red]there is no move {key}: choose 1 to "
                                   f"{len(moves)}[/red]")
            else:
                self.console.print(f"[red]unknown key {answer!r}[/red]: {HELP}",
                                   highlight=False)


def play(args, stream: TextIO = sys.stdin, out: TextIO | None = None) -> int:
    """Run `skipbo play`."""
    overrides = rules_overrides(args)
    record = getattr(args, "record", None)
    if record:
        check_target(record)  # refused before the game, not after it
    session = PlaySession(args.variant, args.opponents, seed=args.seed,
                          deck_style=args.deck_style, **overrides)
    console = Console(file=out, highlight=False, no_color=args.no_color)
    pause = 0.0 if args.fast else args.pause
    try:
        code = TerminalGame(session, console, stream, pause).run()
    finally:  # the games played so far are kept, however the session ends
        if record and session.records():
            try:
                records.write(record, session.records())
            except OSError as e:
                raise ValueError(f"cannot write the record {record}: {e.strerror}") from None
            console.print(f"the game record is in {record} (skipbo replay {record})")
    if args.log:
        try:
            with open(args.log, "w") as f:
                f.write("\n".join(session.log) + "\n")
        except OSError as e:
            raise ValueError(f"cannot write the log {args.log}: {e.strerror}") from None
    return code


def watch(args, out: TextIO | None = None) -> int:
    """Run `skipbo watch`: bots playing each other, move by move."""
    names = parse_opponents(args.players)
    if len(names) < 2:
        raise ValueError("give at least two players to watch, e.g. --players expert,naive")
    rules = Rules.preset(args.variant, len(names), **rules_overrides(args))
    style = check_deck_style(args.deck_style, rules)
    agents = [make_agent(n, args.seed + i) for i, n in enumerate(names)]
    labels = [spec.label for spec in names]
    console = Console(file=out, highlight=False, no_color=args.no_color)
    pause = 0.0 if args.fast else args.pause
    game = Game(rules, args.seed)
    turn = None
    while not game.is_over:
        if game.turn != turn:
            turn = game.turn
            state = public_state(game.view(), labels, style)
            state["result"] = None
            state["seat"] = -1  # nobody's hand is shown
            console.print(table(state))
        seat = game.current_player
        action = agents[seat].act(game.view())
        console.print(f"  player {seat} ({labels[seat]}): {game.describe(action, style)}")
        game.step(action)
        if pause:
            time.sleep(pause)
    console.print(f"[bold]game over: {result_text(game, labels)}[/bold]")
    return 0
