"""The player interface: `Agent.act(view)` is given one seat's view and returns a legal action.

Every player (scripted, search or trained policy) is an `Agent`; `skipbo_env.players.registry`
turns a player name into one. A player is never handed the game: only the `SeatView` of the
seat to act (``game.view()``), which holds no other seat's hand, no stock card below the top
and no draw order (tests/test_players_see_their_seat.py). The helpers here read a view for
the scripted players.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..actions import ActionKind, Source
from ..state import Phase
from ..view import SeatView


class Agent:
    """A player: `act(view)` chooses an action for the seat whose view it is given."""

    name = "agent"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, view: SeatView) -> int:
        """A legal action for the seat of `view` (``game.view()``: the player to act)."""
        if not isinstance(view, SeatView):
            raise TypeError(f"a player acts on a seat's view (game.view()), got "
                            f"{type(view).__name__}")
        if not view.legal_actions:
            raise ValueError("there is no action to choose: the game is over or another seat "
                             "is to act")
        return int(self.choose(view))

    def choose(self, view: SeatView) -> int:
        """The action to take in `view` (one of `view.legal_actions`)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def legal_plays(view: SeatView) -> list[tuple[int, Source, int]]:
    """The legal plays as (action, source, building pile)."""
    plays = []
    for action in view.legal_actions:
        decoded = view.layout.decoded[action]
        if decoded.kind is ActionKind.PLAY:
            plays.append((action, decoded.source, decoded.pile))
    return plays


def toll_or_none(view: SeatView) -> int | None:
    """While a toll is due: pay it when possible, else decline."""
    if view.phase != Phase.TOLL:
        return None
    layout = view.layout
    return layout.pay_toll if layout.pay_toll in view.legal_actions else layout.decline_toll


def first_of(view: SeatView, plays, *steps: Callable) -> int | None:
    """The action of the first step that has one (action 0 is an action, not a miss)."""
    for step in steps:
        action = step(view, plays)
        if action is not None:
            return action
    return None
