"""A person at the table with bots: the game logic behind `skipbo play` and `skipbo serve`.

`PlaySession` holds a match (games scored to 500 points, docs/rules.md), the human's seat and
the bots, and offers what both front ends need: the legal moves in words and as
source/target pairs, the human's move, the bots' moves one at a time, a hint from `expert`,
undo within the turn, a game log, and `public_state()`, the table as the human's seat sees
it (built from that seat's `SeatView` only, so it holds no hidden card). Every bot is built
(a checkpoint loaded and checked against the game's rules) when the session is made, and
`snapshot()`/`restore()` let a front end take back a move sequence a bot failed in.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import checks
from ..actions import HAND, STOCK, ActionKind
from ..engine import Game
from ..match import Match
from ..players.base import Agent
from ..players.registry import PlayerSpec, make_agent, parse_players, split_names
from ..records import GameRecord
from ..rules import COIN, Rules
from ..spec import GameSpec
from ..state import Phase
from ..text import STALLED, card_name, check_deck_style, truncated_by
from ..view import SeatView

MAX_OPPONENTS = 5


@dataclass(frozen=True)
class Move:
    """A legal move of the human: the action number, its words, and where it goes from and
    to (for clicking or dragging a card onto a pile)."""

    action: int
    text: str
    source: dict | None  # {"zone": "hand", "seat": s, "card": id} / {"zone": "hand", "seat": s,
    # "stack": i} / {"zone": "stock", "seat": s} / {"zone": "discard", "seat": s, "pile": i} /
    # {"zone": "coins", "seat": s}; "buy": true for a purchase (Skip-Bo Masters)
    target: dict | None  # {"zone": "building", "pile": i} /
    # {"zone": "discard", "seat": s, "pile": i}

    def to_dict(self) -> dict:
        return {"action": self.action, "text": self.text, "source": self.source,
                "target": self.target}


def parse_opponents(spec: str | list[str]) -> list[PlayerSpec]:
    """Opponents (player names or checkpoint paths) from "expert,naive" or a list; 1 to 5 of
    them, each a player the registry knows (a checkpoint's file is checked when loaded)."""
    listed = split_names(spec)
    names = list(listed) if isinstance(listed, (list, tuple)) else []
    if not names or any(not isinstance(n, str) or not n for n in names):
        raise ValueError(f"give 1 to {MAX_OPPONENTS} opponents as names separated by commas, "
                         f"got {checks.shown(spec)}")
    if len(names) > MAX_OPPONENTS:
        raise ValueError(f"at most {MAX_OPPONENTS} opponents, got {len(names)}")
    return parse_players(names, what="opponent", exists=False)


def locate(rules, layout, owners, seat: int, action: int) -> tuple[dict | None, dict | None]:
    """Where `seat`'s `action` takes a card from and puts it (see `Move`)."""
    kind, src, pile, card = layout.decode(action)
    source = target = None
    if kind is ActionKind.PLAY or kind is ActionKind.BUY:
        target = {"zone": "building", "pile": pile}
        owner = (seat + src.owner) % rules.num_players if kind is ActionKind.BUY \
            else owners[src.owner]
        if src.kind == HAND:
            source = ({"zone": "hand", "seat": seat, "stack": src.index} if rules.stacked
                      else {"zone": "hand", "seat": seat, "card": src.index})
        elif src.kind == STOCK:
            source = {"zone": "stock", "seat": owner}
        else:
            source = {"zone": "discard", "seat": owner, "pile": src.index}
        if kind is ActionKind.BUY:
            source["buy"] = True
    elif kind is ActionKind.DISCARD:
        source = {"zone": "hand", "seat": seat, "card": card}
        target = {"zone": "discard", "seat": seat, "pile": pile}
    elif kind is ActionKind.COIN:
        source = {"zone": "coins", "seat": seat}
        target = {"zone": "building", "pile": pile}
    return source, target


def moves_of(view: SeatView, describe) -> list[Move]:
    """The legal moves of `view`'s seat (empty unless it is to act); `describe(action)` gives
    their words."""
    return [Move(a, describe(a), *locate(view.rules, view.layout, view.owners, view.seat, a))
            for a in view.legal_actions]


def move_of(game: Game, action: int, style: str = "skipbo") -> Move:
    """The current player's `action` as a `Move` (before it is made), its cards named in
    deck style `style`."""
    p = game.current_player
    return Move(action, game.describe(action, style),
                *locate(game.rules, game.layout, game.owners[p], p, action))


def _named(view: SeatView, card: int | None, style: str = "skipbo") -> dict | None:
    if card is None:
        return None
    if card == COIN:
        return {"id": COIN, "rank": None, "wild": False, "toll": 0, "name": "coin"}
    rank = view.rank(card)
    return {"id": card, "rank": rank, "wild": rank == 0, "toll": view.toll(card),
            "name": card_name(card, view.rules.max_rank, style)}


def public_state(view: SeatView, names: list[str], style: str = "skipbo") -> dict:
    """The table as `view`'s seat sees it, JSON-ready: its own hand, every public pile, and
    of the others only what is public (hand sizes, stock tops and sizes, discard piles;
    junior's face-up hand stacks). Nothing here reads the game: only the view. Card names
    follow deck style `style` (`text.DECK_STYLES`), given back as ``deck_style``."""
    rules = view.rules

    def _card(v: SeatView, card: int | None) -> dict | None:
        return _named(v, card, style)

    players = []
    for p in range(rules.num_players):
        entry: dict[str, Any] = {
            "seat": p, "name": names[p], "stock_top": _card(view, view.stock_tops[p]),
            "stock_size": view.stock_sizes[p], "hand_size": view.hand_sizes[p],
            "discards": [[_card(view, c) for c in pile] for pile in view.discard_piles[p]],
        }
        if rules.teams is not None:
            entry["team"] = GameSpec.of(rules).team_index[p]
        if rules.coins:
            entry["coins"] = view.coins[p]
        if rules.stacked:
            entry["hand_stacks"] = [[_card(view, c) for c in s] for s in view.stacks[p]]
        players.append(entry)
    hand = ([[_card(view, c) for c in s] for s in view.stacks[view.seat]] if rules.stacked
            else [_card(view, c) for c in view.hand])
    building = []
    for i, pile in enumerate(view.building_piles):
        building.append({"size": len(pile), "top": _card(view, pile[-1]) if pile else None,
                         "coins": view.pile_coins[i]})
    return {
        "variant": rules.variant, "num_players": rules.num_players, "seat": view.seat,
        "stacked": rules.stacked, "coins": rules.coins, "max_rank": rules.max_rank,
        "turn": view.turn, "phase": view.phase, "current_player": view.current_player,
        "building": building, "draw_pile_size": view.draw_pile_size,
        "set_aside_size": len(view.set_aside), "players": players, "hand": hand,
        "pending_toll": view.pending_toll, "pending_pile": view.pending_pile,
        "deck_style": style, "stall_outcome": rules.stall_outcome,
    }


@dataclass(frozen=True)
class Snapshot:
    """Everything a move sequence can change in a `PlaySession` (see `PlaySession.snapshot`)."""

    match: Match
    game: Game
    wins: list[int]
    games: int
    log: list[str]
    undo: list[tuple[Game, int, int]]
    match_seed: int
    rngs: list[Any]
    actions: list[tuple[int, int]]
    finished: list[GameRecord]


HOW_TO_PLAY = (
    "Goal: be the first to play every card of your stock pile (its top card is face up).",
    "In the middle are up to four building piles, each built up from 1 to 12 in order by "
    "everyone; a pile that reaches 12 is cleared.",
    "On your turn, play onto the building piles from your hand, your stock top or the top "
    "of one of your discard piles, as many cards as you can or want. Skip-Bo cards are wild.",
    "Playing your stock top turns up the next one. Play all five hand cards and you draw "
    "five more.",
    "End your turn by putting one hand card on one of your four discard piles; only their "
    "tops can be played later, so build them downwards. Each turn starts by drawing up to "
    "five cards.",
    "The variants change some of this (the junior games, Skip-Bo Masters' coins): "
    "docs/rules.md has every rule.",
)
"""The game in a few sentences, as the terminal (``?``) and the browser page show it."""

STRONGEST = {"name": "lookahead",
             "said": "the strongest bot: it won 58.2% of 400 games against expert "
                     "(docs/agents.md); here its search is capped, so it thinks less"}
"""The strongest bot the games offer and its measured strength, where `STRONGEST_IN` names
none for the game's setting."""

STRONGEST_IN = (
    {"name": "lookahead:value_short_2p", "variant": "short", "num_players": 2, "stock_size": 10,
     "setting": "the two-player short game (stock 10)",
     "said": "it won 60.5% of 400 games against lookahead; without its search value_short_2p "
             "won 63.3% of 2,000 against expert (docs/agents.md)"},
)
"""The strongest bot of one setting (variant, players, stock size; `setting` in words) where
it is not `STRONGEST`, and its measured strength: a value player (and the search around one)
plays only the setting it was trained for."""


def strongest(rules: Rules) -> dict:
    """The strongest bot the games offer for `rules` and its measured strength: the entry of
    `STRONGEST_IN` for its variant, player count and stock size, else `STRONGEST`."""
    for entry in STRONGEST_IN:
        if (entry["variant"], entry["num_players"], entry["stock_size"]) == \
                (rules.variant, rules.num_players, rules.stock_size):
            return entry
    return STRONGEST


def rules_overrides(args) -> dict:
    """The rules fields a command's ``--stock-size`` and ``--stall-outcome`` set (those
    given)."""
    overrides = {}
    if getattr(args, "stock_size", None) is not None:
        overrides["stock_size"] = args.stock_size
    if getattr(args, "stall_outcome", None) is not None:
        overrides["stall_outcome"] = args.stall_outcome
    return overrides


def result_text(game: Game, names: list[str], human: int | None = None) -> str | None:
    """How `game` ended, in words (None while it goes on): who won, and whether by the stall
    rule (`Rules.stall_outcome`); a drawn game and why; the turn limit. `human`, if given, is
    the seat spoken to as "you"."""
    if not game.is_over:
        return None
    stalled = "a full round with no card played and nothing left to draw"
    if game.phase == Phase.WON:
        winners = game.winners
        if human in winners:
            said = "you win" if len(winners) == 1 else "your team wins"
        else:
            said = " and ".join(f"player {w} ({names[w]})" for w in winners) + \
                " win" + ("s" if len(winners) == 1 else "")
        if any(game.stocks[w] for w in winners):  # a stalled game (stall_outcome)
            said += f" with the fewest stock cards left, after {stalled}"
        return said
    if game.phase == Phase.DRAWN:
        tie = ", and a tie for the fewest stock cards" \
            if game.rules.stall_outcome == "fewest_stock" else ""
        return f"drawn: {stalled}{tie}"
    limit, value, unit = truncated_by(game)
    return f"stopped at {limit} ({value} {unit})"


class PlaySession:
    """One person (seat `human_seat`) against bots, game after game, scored as a match.

    Every opponent is built now, against the session's rules: a checkpoint is loaded and its
    spaces checked, so a policy trained for other rules is refused here (ValueError), not at
    its first move. `search_rollouts` caps the rollouts a `lookahead` bot spends per decision
    (None: its own default, no cap), to bound its thinking time."""

    def __init__(self, variant: str = "standard", opponents: str | list[str] = "expert",
                 seed: int | None = None, human_seat: int = 0,
                 search_rollouts: int | None = None, deck_style: str = "skipbo",
                 **overrides: Any):
        names = parse_opponents(opponents)
        self.rules = Rules.preset(variant, len(names) + 1, **overrides)
        self.deck_style = check_deck_style(deck_style, self.rules)
        n = self.rules.num_players
        self.human = checks.seat(human_seat, n, "human_seat")
        rng = np.random.default_rng(seed)
        others = [s for s in range(n) if s != human_seat]
        self.bots: dict[int, Agent] = {}
        for s, name in zip(others, names):
            bot_seed = int(rng.integers(2**31))
            self.bots[s] = make_agent(name, bot_seed, self.rules, rollouts=search_rollouts)
        shown = [spec.label for spec in names]
        self.names = ["you" if s == human_seat else shown[others.index(s)] for s in range(n)]
        self._helper = make_agent("expert", 0)
        self._match_seed = int(rng.integers(2**63))
        self.match = Match(self.rules, self._match_seed)
        self.wins = [0] * n  # games won by each seat across the session
        self.games = 1
        self.log: list[str] = []
        # (game before the move, log length, actions length)
        self._undo: list[tuple[Game, int, int]] = []
        self._actions: list[tuple[int, int]] = []  # this game's (seat, action), for its record
        self._finished: list[GameRecord] = []  # the records of the games played before it
        self._log_start()

    # -- state --------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.match.game

    @property
    def human_to_move(self) -> bool:
        return not self.game.is_over and self.game.current_player == self.human

    def view(self) -> SeatView:
        return self.game.view(self.human)

    def legal_moves(self) -> list[Move]:
        """The human's legal moves (empty when it is not the human's turn)."""
        return moves_of(self.view(), lambda a: self.game.describe(a, self.deck_style))

    def result(self) -> str | None:
        """The game's result in words once it is over, else None."""
        return result_text(self.game, self.names, self.human)

    def public_state(self) -> dict:
        """The human's view of the table plus the session's scores, JSON-ready."""
        state = public_state(self.view(), self.names, self.deck_style)
        state["moves"] = [m.to_dict() for m in self.legal_moves()]
        state["can_undo"] = self.can_undo
        state["result"] = self.result()
        state["wins"] = list(self.wins)
        # Match points: a finished game's count at once (Match adds them at the next deal).
        finished = self.game.points() if self.game.is_over else [0] * self.rules.num_players
        state["points"] = [a + b for a, b in zip(self.match.scores, finished)]
        state["games"] = self.games
        return state

    def snapshot(self) -> Snapshot:
        """What `restore` needs to put the session back as it is now: the match and its game,
        the scores, the log, the undo stack and every player's random generator."""
        match = copy.copy(self.match)
        match.scores = list(self.match.scores)
        match.rng = copy.deepcopy(self.match.rng)
        return Snapshot(match, self.game.clone(), list(self.wins), self.games, list(self.log),
                        list(self._undo), self._match_seed,
                        [copy.deepcopy(a.rng) for a in self._agents()], list(self._actions),
                        list(self._finished))

    def restore(self, snap: Snapshot) -> None:
        """Put the session back as it was when `snap` was taken (by `snapshot`)."""
        match = copy.copy(snap.match)
        match.scores = list(snap.match.scores)
        match.rng = copy.deepcopy(snap.match.rng)
        match.game = snap.game.clone()
        self.match = match
        self.wins, self.games, self.log = list(snap.wins), snap.games, list(snap.log)
        self._undo, self._match_seed = list(snap.undo), snap.match_seed
        self._actions, self._finished = list(snap.actions), list(snap.finished)
        for agent, rng in zip(self._agents(), snap.rngs):
            agent.rng = copy.deepcopy(rng)

    def _agents(self) -> list[Agent]:
        return [*self.bots.values(), self._helper]

    # -- moves --------------------------------------------------------------------------------
    def play(self, action: int) -> str:
        """Make the human's move; returns it in words. Raises ValueError (and changes
        nothing) if it is not the human's turn or the move is not legal."""
        game = self.game
        if game.is_over:
            raise ValueError("the game is over; start a new game")
        if game.current_player != self.human:
            raise ValueError(f"it is player {game.current_player}'s turn, not yours")
        action = checks.integer(action, "a move", what="an action number")
        if action not in game.legal_actions():
            raise ValueError(f"move {action} is not legal now")
        before = game.clone()
        text = game.describe(action, self.deck_style)
        game.step(action)
        self._actions.append((self.human, action))
        self._record(self.human, text)
        if self._reveals_nothing(before, game):
            self._undo.append((before, len(self.log) - 1, len(self._actions) - 1))
        else:
            self._undo.clear()
        self._after_move()
        return text

    @staticmethod
    def _reveals_nothing(before: Game, after: Game) -> bool:
        """Whether a move can be taken back: it stayed in the turn and uncovered no card
        (no stock card turned up, nothing drawn, nothing reshuffled)."""
        return (not after.is_over and after.turn == before.turn
                and after.current_player == before.current_player
                and len(after.draw_pile) == len(before.draw_pile)
                and [len(s) for s in after.stocks] == [len(s) for s in before.stocks])

    @property
    def can_undo(self) -> bool:
        return bool(self._undo) and self.human_to_move

    def undo(self) -> str:
        """Take back the human's last move of this turn; returns it in words. Raises
        ValueError when there is none that can be taken back (a discard or the end of the
        turn commits the turn; a move that turned up or drew a card cannot be undone)."""
        if not self.can_undo:
            raise ValueError("nothing to undo: only this turn's moves that turned up no card "
                             "can be taken back")
        game, log_len, actions_len = self._undo.pop()
        text = self.log[log_len].split(": ", 1)[1]
        self.match.game = game
        del self._actions[actions_len:]  # a move taken back is not in the record
        del self.log[log_len:]
        self.log.append(f"(you took back: {text})")
        return text

    def hint(self) -> Move:
        """What `expert` would play for the human now."""
        if not self.human_to_move:
            raise ValueError("it is not your turn")
        action = self._helper.act(self.game.view())
        return next(m for m in self.legal_moves() if m.action == action)

    def bot_moves(self) -> Iterator[tuple[int, Move]]:
        """Play the bots until it is the human's turn or the game ends, yielding each move
        as (seat, Move) after it is made."""
        game = self.game
        while not game.is_over and game.current_player != self.human:
            seat = game.current_player
            move = move_of(game, self.bots[seat].act(game.view()), self.deck_style)
            game.step(move.action)
            self._actions.append((seat, move.action))
            self._record(seat, move.text)
            self._undo.clear()
            self._after_move()
            yield seat, move

    def play_bots(self) -> list[tuple[int, Move]]:
        """All the bots' moves up to the human's turn (or the end), as a list."""
        return list(self.bot_moves())

    def new_game(self) -> None:
        """Deal the next game (the first player moves one seat on); the scores carry over.
        When a seat has reached 500 points a new match starts (game wins still count)."""
        if not self.game.is_over:
            raise ValueError("the current game is not over yet")
        self._finished.append(self.game_record())
        self._actions = []
        if self.match.winners or self.match.next_game() is None:
            self._match_seed += 1
            self.match = Match(self.rules, self._match_seed)
        self.games += 1
        self._undo.clear()
        self.log.append("")
        self._log_start()

    # -- records ------------------------------------------------------------------------------
    def game_record(self) -> GameRecord:
        """The record of the game in play (or just ended), as far as it has gone."""
        game = self.game
        return GameRecord.of(game, self.match.game_seed, self.names, self._actions,
                             scores=game.scores)

    def records(self, finished_only: bool = False) -> list[GameRecord]:
        """The records of every game of the session, the one in play last (if it has begun);
        `finished_only` leaves out a game still in play (its record holds the deal's seed,
        so every hidden card: the browser offers only finished games)."""
        over = self.game.is_over
        current = [self.game_record()] if over or (self._actions and not finished_only) else []
        return [*self._finished, *current]

    # -- internals ----------------------------------------------------------------------------
    def _record(self, seat: int, text: str) -> None:
        who = "you" if seat == self.human else f"player {seat} ({self.names[seat]})"
        self.log.append(f"{who}: {text}")

    def _after_move(self) -> None:
        game = self.game
        if game.is_over:
            for w in game.winners:
                self.wins[w] += 1
            self.log.append(f"game {self.games} over: {self.result()}")

    def _log_start(self) -> None:
        first = self.game.first_player
        self.log.append(f"game {self.games}: {self.rules.variant}, {self.rules.num_players} "
                        f"players, stock {self.rules.stock_size}, stalled games "
                        f"{STALLED[self.rules.stall_outcome]}; player {first} "
                        f"({self.names[first]}) starts")
