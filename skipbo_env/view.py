"""What one seat can see of a game: the only thing a player is given (`players.base.Agent.act`):
the scripted and search players read it, a trained policy encodes it as the seat's observation
(skipbo_env/observation.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .actions import ActionLayout
from .rules import Rules
from .state import Phase


@dataclass(frozen=True)
class SeatView:
    """One seat's view of a game: its own hand, every public pile and every size; never other
    players' hands (in refill mode), stock cards below the top, or the draw order.

    Piles are tuples, bottom first (the last card is the top). Cards are ids as in the engine
    (the rank, 0 for the wild; in Skip-Bo Masters rank + (max_rank + 1) * toll); -1 in a
    building pile is a coin play's place.
    """

    rules: Rules
    layout: ActionLayout
    seat: int
    owners: tuple[int, ...]  # seats whose stock and discard tops it may play: itself first,
    # then its teammates in turn order (as the action layout numbers them)
    fits: Callable = field(repr=False, compare=False)  # fits(card, shows, shows_wild=False):
    # the engine's building-pile rule, for players that plan ahead
    current_player: int
    turn: int
    phase: Phase
    hand: tuple[int, ...]  # own hand cards in drawn order (refill mode; empty when stacked)
    hand_sizes: tuple[int, ...]  # every seat's hand cards (in all its stacks when stacked)
    stacks: tuple[tuple[tuple[int, ...], ...], ...]  # every seat's hand stacks, face up
    # (stacked mode; each seat's is empty in refill mode)
    stock_tops: tuple[int | None, ...]  # each seat's stock top, None when empty
    stock_sizes: tuple[int, ...]
    discard_piles: tuple[tuple[tuple[int, ...], ...], ...]  # per seat, per discard pile
    building_piles: tuple[tuple[int, ...], ...]
    draw_pile_size: int
    set_aside: tuple[int, ...]
    scores: tuple[int, ...]
    coins: tuple[int, ...]
    pile_coins: tuple[int, ...]
    pending_pile: int | None
    pending_toll: int
    legal_actions: tuple[int, ...]  # empty unless this seat is to act
    played_this_turn: bool = False  # whether the player to act has played a card this turn
    stall_turns: int = 0  # turns in a row with no card played and nothing left to draw
    turn_moves: int = 0  # actions the player to act has taken this turn (rules.max_turn_moves)
    first_player: int = 0

    def rank(self, card: int) -> int:
        """The rank of a card id (0 for the wild)."""
        return card % (self.rules.max_rank + 1)

    def toll(self, card: int) -> int:
        """The toll a card carries (0 but in Skip-Bo Masters)."""
        return card // (self.rules.max_rank + 1)
