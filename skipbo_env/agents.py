"""Scripted players. Each reads only its seat's view (`Game.view`) and returns a legal action.

`make_agent(name, seed=0)` builds one; `AGENTS` lists the names. Every agent is seeded and
deterministic given its seed, and plays every variant (docs/agents.md).
"""

from __future__ import annotations

import numpy as np

from .engine import Game
from .view import SeatView


class Agent:
    """A player: `act(game)` chooses an action for `game.current_player` from its view."""

    name = "agent"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        """A legal action for the player to act, read from that seat's view only."""
        view = game.view(game.current_player)
        if not view.legal_actions:
            raise ValueError("the game is over: there is no action to choose")
        return int(self.choose(view))

    def choose(self, view: SeatView) -> int:
        """The action to take in `view` (one of `view.legal_actions`)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


class RandomAgent(Agent):
    """A uniformly random legal action."""

    name = "random"

    def choose(self, view: SeatView) -> int:
        return view.legal_actions[self.rng.integers(len(view.legal_actions))]


def _plays(view: SeatView) -> list[tuple[int, object, int]]:
    """The legal plays as (action, source, building pile)."""
    plays = []
    for action in view.legal_actions:
        kind, *rest = view.layout.decoded[action]
        if kind == "play":
            plays.append((action, rest[0], rest[1]))
    return plays


def _toll_or_none(view: SeatView) -> int | None:
    """While a toll is due: pay it when possible, else decline."""
    if view.phase != "toll":
        return None
    layout = view.layout
    return layout.pay_toll if layout.pay_toll in view.legal_actions else layout.decline_toll


class NaiveAgent(Agent):
    """The fixed baseline of public Skip-Bo bot research: if any play is legal, play from the
    stock first, else from a discard-pile top, else from the hand, taking the first such play
    in building-pile order; else end the turn if that is legal; else discard the hand card that
    has been in hand longest onto discard pile 0. (In Skip-Bo Masters it pays every toll it
    can and never spends coins otherwise.)"""

    name = "naive"

    def choose(self, view: SeatView) -> int:
        toll = _toll_or_none(view)
        if toll is not None:
            return toll
        plays = _plays(view)
        for kind in ("stock", "discard", "hand"):
            chosen = [(pile, source.owner, source.index, action)
                      for action, source, pile in plays if source.kind == kind]
            if chosen:
                return min(chosen)[3]
        layout = view.layout
        if layout.end_turn in view.legal_actions:
            return layout.end_turn
        return layout.discard(view.hand[0], 0)


class GreedyAgent(Agent):
    """Plays the stock whenever possible; otherwise plays cards that bring a building pile
    closer to the stock card (discard-pile tops before hand cards, numbers before wilds);
    then discards onto a pile with the same or next-higher number on top. (In the junior games,
    where play is compulsory, it plays the first legal play when nothing helps; in Skip-Bo
    Masters it pays every toll it can and never spends coins otherwise.)"""

    name = "greedy"

    def choose(self, view: SeatView) -> int:
        toll = _toll_or_none(view)
        if toll is not None:
            return toll
        plays = _plays(view)
        stock_plays = [(pile, a) for a, s, pile in plays if s.kind == "stock" and s.owner == 0]
        if stock_plays:
            return min(stock_plays)[1]
        target = self._stock_target(view)
        helpful = []
        for action, source, pile in plays:
            shows = len(view.building_piles[pile])
            card = self._card(view, source)
            if target is not None and shows + 1 < target:
                # Smaller gap first; discard tops, then hand; numbers before wilds.
                order = {"discard": 0, "stock": 1, "hand": 2}[source.kind]
                helpful.append((target - shows - 1, view.rank(card) == 0, order, action))
        if helpful:
            return min(helpful)[3]
        if view.rules.stacked or view.phase == "coin_followup":
            if plays:
                return plays[0][0]
            return view.legal_actions[0]
        if view.layout.end_turn in view.legal_actions:
            return view.layout.end_turn
        return self._discard(view)

    @staticmethod
    def _card(view: SeatView, source) -> int:
        if source.kind == "hand":
            return view.hand[source.index][-1] if view.rules.stacked else source.index
        seats = sorted(view.rules.team_of(view.seat),
                       key=lambda s: (s - view.seat) % view.rules.num_players)
        owner = seats[source.owner]
        if source.kind == "stock":
            return view.stock_tops[owner]
        return view.discard_piles[owner][source.index][-1]

    @staticmethod
    def _stock_target(view: SeatView) -> int | None:
        """The number the stock top needs a building pile to show minus nothing: its rank."""
        top = view.stock_tops[view.seat]
        if top is None or view.rank(top) == 0:
            return None
        return view.rank(top)

    def _discard(self, view: SeatView) -> int:
        layout, rules = view.layout, view.rules
        tops = [pile[-1] if pile else None for pile in view.discard_piles[view.seat]]
        cards = sorted(set(view.hand), key=lambda c: (view.rank(c) == 0, -view.rank(c)))
        # The highest number that lands on the same or the next-higher number; keep wilds.
        for card in cards:
            for i, top in enumerate(tops):
                if top is not None and view.rank(top) in (view.rank(card), view.rank(card) + 1):
                    return layout.discard(card, i)
        for i, top in enumerate(tops):
            if top is None:
                return layout.discard(cards[0], i)
        # Otherwise on the pile whose top is closest above the card (or simply highest).
        card = cards[0]
        best = min(range(rules.discard_piles),
                   key=lambda i: (view.rank(tops[i]) < view.rank(card),
                                  abs(view.rank(tops[i]) - view.rank(card))))
        return layout.discard(card, best)


AGENTS: dict[str, type[Agent]] = {cls.name: cls for cls in (RandomAgent, NaiveAgent, GreedyAgent)}
"""The scripted players by name."""


def make_agent(name: str, seed: int = 0) -> Agent:
    """The scripted player called `name`, seeded with `seed`."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(AGENTS)}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return AGENTS[name](int(seed))
