"""The fixed integer action layout of a rules set.

A card is an integer id: ``rank + (max_rank + 1) * toll``, rank 0 being the wild; without tolls
(every game but Skip-Bo Masters) the id is the rank. Actions are integers in
``range(layout.size)``, laid out as

1. plays, ``source * building_piles + pile`` for every source, where the sources are, in order:
   the hand (one source per card id in refill mode, meaning "a card of that id from hand"; one
   per hand stack in stacked mode), the own stock top, the own discard-pile tops, then for each
   teammate in turn order after the player: their stock top and discard-pile tops;
2. discards (refill mode only), ``card * discard_piles + pile``: put a hand card of that id
   on that discard pile, ending the turn;
3. with coins (Skip-Bo Masters) only: one coin play per building pile (pay N coins as the N the
   pile needs), then the purchases (for each other seat in turn order after the player, its
   stock top and discard-pile tops, onto each building pile), then paying a toll and declining
   it;
4. one end-turn action.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from .rules import Rules


class SourceKind(str, Enum):
    """Where a played card comes from (a str, so it also equals its name: "hand")."""

    HAND = "hand"
    STOCK = "stock"
    DISCARD = "discard"

    def __str__(self) -> str:
        return self.value


HAND, STOCK, DISCARD = SourceKind.HAND, SourceKind.STOCK, SourceKind.DISCARD


class ActionKind(str, Enum):
    """What an action does (a str, so it also equals its name: "play")."""

    PLAY = "play"
    DISCARD = "discard"
    COIN = "coin"  # pay coins as the number a building pile needs (Skip-Bo Masters)
    BUY = "buy"  # buy another seat's stock top or discard-pile top (Skip-Bo Masters)
    PAY_TOLL = "pay_toll"
    DECLINE_TOLL = "decline_toll"
    END_TURN = "end_turn"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Source:
    """Where a played card comes from: `owner` is 0 for the player, k for the k-th teammate
    (or, in a purchase, for the k-th seat after the player)."""

    kind: SourceKind
    index: int = 0
    owner: int = 0


NO_SOURCE = Source(HAND, -1, -1)
"""The source of an action that takes no card from a pile (`DecodedAction.source`)."""


class DecodedAction(NamedTuple):
    """An action taken apart: its kind, then what applies to that kind: the `source` of a
    play or purchase (`NO_SOURCE` otherwise), the building or discard `pile` it goes on (the
    building pile of a coin play; -1 for a toll or the end of the turn), the hand `card` (by
    id) of a discard (-1 otherwise)."""

    kind: ActionKind
    source: Source = NO_SOURCE
    pile: int = -1
    card: int = -1


class ActionLayout:
    """Encodes and decodes the integer actions of one rules set."""

    def __init__(self, rules: Rules):
        self.rules = rules
        b, d, n = rules.building_piles, rules.discard_piles, rules.num_players
        self.num_card_ids = rules.num_card_ids
        self.hand_sources = rules.hand_size if rules.stacked else self.num_card_ids
        self.teammates = 0 if rules.teams is None else len(rules.teams[0]) - 1
        sources = [Source(HAND, i) for i in range(self.hand_sources)]
        for owner in range(self.teammates + 1):
            sources.append(Source(STOCK, 0, owner))
            sources.extend(Source(DISCARD, i, owner) for i in range(d))
        self.sources: tuple[Source, ...] = tuple(sources)
        self.stock_source = self.hand_sources
        self.building_piles = b
        self.num_plays = len(sources) * b
        self.num_discards = 0 if rules.stacked else self.num_card_ids * d
        self.discard_base = self.num_plays
        self.discards_of_rank = tuple(
            tuple(range(self.discard_base + card * d, self.discard_base + card * d + d))
            for card in range(self.num_card_ids)) if d else ()
        base = self.discard_base + self.num_discards
        # Coin actions (Skip-Bo Masters).
        self.coin_base = base
        self.num_coin_plays = b if rules.coins else 0
        self.purchase_sources = tuple(
            Source(kind, i, offset) for offset in range(1, n)
            for kind, i in [(STOCK, 0)] + [(DISCARD, k) for k in range(d)]) if rules.coins else ()
        self.purchase_base = self.coin_base + self.num_coin_plays
        self.num_purchases = len(self.purchase_sources) * b
        # Paying and declining a toll (-1 for both in rules without coins).
        self.pay_toll = self.purchase_base + self.num_purchases if rules.coins else -1
        self.decline_toll = self.pay_toll + 1 if rules.coins else -1
        self.end_turn = self.purchase_base + self.num_purchases + (2 if rules.coins else 0)
        self.size = self.end_turn + 1
        self.decoded = tuple(self._decode(a) for a in range(self.size))

    def play(self, source: int, pile: int) -> int:
        """Action that plays from source number `source` onto building pile `pile`."""
        return source * self.building_piles + pile

    def discard(self, card: int, pile: int) -> int:
        """Action that discards a hand card (by id) onto discard pile `pile`."""
        return self.discard_base + card * self.rules.discard_piles + pile

    def coin_play(self, pile: int) -> int:
        """Action that pays coins as the number building pile `pile` needs (Masters)."""
        return self.coin_base + pile

    def purchase(self, source: int, pile: int) -> int:
        """Action that buys from purchase source number `source` onto `pile` (Masters)."""
        return self.purchase_base + source * self.building_piles + pile

    def decode(self, action: int) -> DecodedAction:
        """The action taken apart (`DecodedAction`)."""
        if not 0 <= action < self.size:
            raise ValueError(f"action {action} is outside 0..{self.size - 1}")
        return self.decoded[action]

    def _decode(self, action: int) -> DecodedAction:
        b = self.building_piles
        if action < self.num_plays:
            s, pile = divmod(action, b)
            return DecodedAction(ActionKind.PLAY, self.sources[s], pile)
        if action < self.coin_base:
            card, pile = divmod(action - self.discard_base, self.rules.discard_piles)
            return DecodedAction(ActionKind.DISCARD, pile=pile, card=card)
        if action < self.purchase_base:
            return DecodedAction(ActionKind.COIN, pile=action - self.coin_base)
        if action < self.purchase_base + self.num_purchases:
            s, pile = divmod(action - self.purchase_base, b)
            return DecodedAction(ActionKind.BUY, self.purchase_sources[s], pile)
        if self.rules.coins and action == self.pay_toll:
            return DecodedAction(ActionKind.PAY_TOLL)
        if self.rules.coins and action == self.decline_toll:
            return DecodedAction(ActionKind.DECLINE_TOLL)
        return DecodedAction(ActionKind.END_TURN)
