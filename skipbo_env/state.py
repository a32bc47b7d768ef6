"""The state of one game as a record: where the game stands (`Phase`) and every pile and counter
(`GameState`), with the questions any reader of a state asks of it.

This is the core's vocabulary, below the engine: the state dictionary (`state_io`), the text
and picture renders and the engine itself read and write a `GameState`; the rules of play,
which change it, are the engine's (`engine.Game`, the one subclass). Cards are integers,
1..max_rank for numbers and 0 for the wild; every pile is a list with its top card last.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum

import numpy as np

from .actions import HAND, STOCK, ActionLayout, Source
from .rules import COIN, Rules
from .spec import GameSpec

__all__ = ["ACTIVE", "PHASES", "GameState", "Phase", "Pile"]

Pile = list[int]
"""A pile of card ids, bottom first: the last card is the top."""


class Phase(str, Enum):
    """Where a game stands (a str, so it also equals its name: ``Phase.PLAY == "play"``)."""

    PLAY = "play"
    COIN_FOLLOWUP = "coin_followup"  # the card after a coin play is due (Masters)
    TOLL = "toll"  # a toll is due (Masters)
    WON = "won"
    DRAWN = "drawn"
    TRUNCATED = "truncated"  # stopped at the turn limit

    def __str__(self) -> str:
        return self.value


PHASES = tuple(Phase)  # in the order of the batched engine's phase numbers
ACTIVE = (Phase.PLAY, Phase.COIN_FOLLOWUP, Phase.TOLL)


class GameState(ABC):
    """Every pile, counter and the generator of one game under `rules`.

    A hand has one shape whatever the variant: ``hands[p]`` is seat p's hand cards in the order
    drawn (refill mode), ``stacks[p]`` its face-up hand stacks (stacked mode, the junior games),
    and the field the variant does not use holds an empty list for every seat. `winners` is
    the seats that won (both partners of a winning team), empty unless the phase is WON.
    """

    # The static side, shared by every game of one rules set (`spec.GameSpec`).
    rules: Rules
    spec: GameSpec
    layout: ActionLayout
    owners: tuple[tuple[int, ...], ...]
    # The deal and the piles.
    rng: np.random.Generator
    draw_pile: Pile
    set_aside: Pile
    building: list[Pile]
    stocks: list[Pile]
    hands: list[Pile]
    stacks: list[list[Pile]]
    discards: list[list[Pile]]
    # Whose turn, which turn, where the game stands.
    first_player: int
    current_player: int
    turn: int
    phase: Phase
    winners: tuple[int, ...]
    played_this_turn: bool
    stall_turns: int
    turn_moves: int  # actions taken in this turn (0 once it ends): rules.max_turn_moves
    scores: list[int]
    # Skip-Bo Masters: each seat's coins, the coins beside each building pile, the coin step due.
    coins: list[int]
    pile_coins: list[int]
    pending_pile: int | None
    pending_toll: int

    def _init_static(self, rules: Rules) -> None:
        """Take the static side of `rules` (the action layout, owners and target memo)."""
        self._legal: list[int] | None = None
        self.rules = rules
        spec = self.spec = GameSpec.of(rules)
        self.layout, self.owners, self._targets_memo = spec.layout, spec.owners, spec.targets_memo

    # -- what the rules of play answer (the engine's) ----------------------------------------------
    @abstractmethod
    def legal_actions(self) -> list[int]:
        """The legal actions of the current player, in increasing order."""

    @abstractmethod
    def stall_winner(self) -> tuple[int, ...] | None:
        """The team a stalled game goes to, or None for a draw."""

    @abstractmethod
    def followups(self) -> list[int]:
        """After a coin play: the plays that may follow it."""

    # -- questions of the record ---------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """True once the game is won, drawn or truncated."""
        return self.phase not in ACTIVE

    @property
    def truncated(self) -> bool:
        """True when the game stopped at `rules.max_turns` without a result."""
        return self.phase == Phase.TRUNCATED

    @property
    def num_actions(self) -> int:
        """Size of the action space."""
        return self.layout.size

    def team_stock_size(self, seat: int) -> int:
        """Stock cards left to `seat`'s team (the seat's own without teams)."""
        return sum(len(self.stocks[s]) for s in self.spec.team_of(seat))

    def hand_size(self, seat: int) -> int:
        """How many cards `seat` holds (in all its hand stacks, in stacked mode)."""
        return len(self.hands[seat]) + sum(map(len, self.stacks[seat]))

    def piles(self) -> list[Pile]:
        """Every pile of the game: the draw pile, the set-aside cards, the building piles, then
        each seat's stock, hand (or hand stacks) and discard piles."""
        piles = [self.draw_pile, self.set_aside, *self.building]
        for p in range(self.rules.num_players):
            piles += [self.stocks[p], self.hands[p], *self.stacks[p], *self.discards[p]]
        return piles

    def card_counts(self) -> list[int]:
        """How many of each card id the game holds, everywhere (coin plays' places on building
        piles are no card): always the deck's `rules.deck_counts()` in a reachable state."""
        counts = [0] * self.rules.num_card_ids
        for pile in self.piles():
            for c in pile:
                if c != COIN:
                    counts[c] += 1
        return counts

    def won_mask(self) -> np.ndarray:
        """A bool array over the seats, True for each seat that won (both partners of a
        winning team); all False for a game in progress, drawn or cut off. The envs' `info`
        carries it as ``"won"``: one type and shape in every step, which batching libraries
        need."""
        won = np.zeros(self.rules.num_players, dtype=bool)
        won[list(self.winners)] = True
        return won

    def source_card(self, p: int, source: Source) -> int | None:
        """The card seat `p` would play from `source` (None when that pile is empty)."""
        if source.kind == HAND:
            if self.rules.stacked:
                stack = self.stacks[p][source.index]
                return stack[-1] if stack else None
            return source.index if source.index in self.hands[p] else None
        if source.owner >= len(self.owners[p]):
            return None
        owner = self.owners[p][source.owner]
        pile = self.stocks[owner] if source.kind == STOCK else self.discards[owner][source.index]
        return pile[-1] if pile else None
