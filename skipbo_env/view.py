"""What one seat can see of a game: what the scripted players read (a trained policy reads the
same seat's observation, skipbo_env/observation.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .actions import ActionLayout
from .rules import Rules


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
    phase: str
    hand: tuple  # own hand in drawn order; in stacked mode a tuple of stacks
    hand_sizes: tuple[int, ...]
    public_hands: tuple | None  # every seat's hand stacks in stacked mode, else None
    stock_tops: tuple  # each seat's stock top, None when empty
    stock_sizes: tuple[int, ...]
    discard_piles: tuple  # per seat, per discard pile
    building_piles: tuple
    draw_pile_size: int
    set_aside: tuple
    scores: tuple[int, ...]
    coins: tuple[int, ...]
    pile_coins: tuple[int, ...]
    pending_pile: int | None
    pending_toll: int
    legal_actions: tuple[int, ...]  # empty unless this seat is to act
    played_this_turn: bool = False  # whether the player to act has played a card this turn
    stall_turns: int = 0  # turns in a row with no card played and nothing left to draw
    first_player: int = 0

    def rank(self, card: int) -> int:
        """The rank of a card id (0 for the wild)."""
        return card % (self.rules.max_rank + 1)

    def toll(self, card: int) -> int:
        """The toll a card carries (0 but in Skip-Bo Masters)."""
        return card // (self.rules.max_rank + 1)
