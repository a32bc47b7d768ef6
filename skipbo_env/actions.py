"""The fixed integer action layout of a rules set.

Actions are integers in ``range(layout.size)``, laid out as

1. plays, ``source * building_piles + pile`` for every source, where the sources are, in order:
   the hand (one source per rank 0..max_rank in refill mode, meaning "a card of that rank from
   hand"; one per hand stack in stacked mode), the own stock top, the own discard-pile tops,
   then for each teammate in turn order after the player: their stock top and discard-pile tops;
2. discards (refill mode only), ``rank * discard_piles + pile``: put a hand card of that rank
   on that discard pile, ending the turn;
3. one end-turn action.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import Rules

# Source kinds of a play.
HAND, STOCK, DISCARD = "hand", "stock", "discard"


@dataclass(frozen=True)
class Source:
    """Where a played card comes from: `owner` is 0 for the player, k for the k-th teammate."""

    kind: str
    index: int = 0
    owner: int = 0


class ActionLayout:
    """Encodes and decodes the integer actions of one rules set."""

    def __init__(self, rules: Rules):
        self.rules = rules
        b, d = rules.building_piles, rules.discard_piles
        self.hand_sources = rules.hand_size if rules.stacked else rules.max_rank + 1
        self.teammates = 0 if rules.teams is None else len(rules.teams[0]) - 1
        sources = [Source(HAND, i) for i in range(self.hand_sources)]
        for owner in range(self.teammates + 1):
            sources.append(Source(STOCK, 0, owner))
            sources.extend(Source(DISCARD, i, owner) for i in range(d))
        self.sources: tuple[Source, ...] = tuple(sources)
        self.stock_source = self.hand_sources
        self.num_plays = len(sources) * b
        self.num_discards = 0 if rules.stacked else (rules.max_rank + 1) * d
        self.discard_base = self.num_plays
        self.end_turn = self.num_plays + self.num_discards
        self.size = self.end_turn + 1
        self.building_piles = b
        self.discards_of_rank = tuple(
            tuple(range(self.discard_base + rank * d, self.discard_base + rank * d + d))
            for rank in range(rules.max_rank + 1)) if d else ()
        self.decoded = tuple(self._decode(a) for a in range(self.size))

    def play(self, source: int, pile: int) -> int:
        """Action that plays from source number `source` onto building pile `pile`."""
        return source * self.rules.building_piles + pile

    def discard(self, rank: int, pile: int) -> int:
        """Action that discards a hand card of `rank` onto discard pile `pile`."""
        return self.discard_base + rank * self.rules.discard_piles + pile

    def decode(self, action: int) -> tuple:
        """``("play", Source, pile)``, ``("discard", rank, pile)`` or ``("end_turn",)``."""
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside 0..{self.size - 1}")
        return self.decoded[action]

    def _decode(self, action: int) -> tuple:
        if action < self.num_plays:
            s, pile = divmod(action, self.rules.building_piles)
            return ("play", self.sources[s], pile)
        if action < self.end_turn:
            rank, pile = divmod(action - self.discard_base, self.rules.discard_piles)
            return ("discard", rank, pile)
        return ("end_turn",)
