"""The fixed-size observation of one seat: everything public, nothing hidden.

The layout is documented in docs/observation.md and listed by `ObservationEncoder.sections`.
Every value lies in [0, 1]. An env encodes its game for a seat (`encode`); a player encodes
the view it is given (`encode_view`, the same vector).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence

import numpy as np

from . import checks
from .rules import WILD, Rules
from .spec import GameSpec
from .state import GameState, Phase
from .view import SeatView

Cards = Sequence[int]  # a pile as a game holds it (a list) or as a view shows it (a tuple)

SCORE_TARGET = 500
PILE_DEPTH = 16
MAX_PILE_DEPTH = 64  # the deepest pile view an encoder builds (a pile rarely holds 30)
OBS_VERSION = 1
"""The version of what the observation means. Bump it with any change to the encoding (a new
section, another scale, another order): model cards record it, and a checkpoint trained on
another version is refused at load (skipbo_env/players/policy.py). The golden observations in
tests/golden/ fail on any change of the encoding, to remind you."""


class ObservationEncoder:
    """Encodes a game from one seat's point of view as a float32 vector of length `size`.

    A pile (discard pile, or hand stack in the junior games) is encoded in full: its size over
    the deck size, its top card one-hot (ranks 0..max_rank, then "empty"), the codes of its top
    `pile_depth` cards, top first, where a card's code is (rank + 1) / (max_rank + 1) and 0
    means no card, then the cards below those by rank, each over the deck's count of the rank.
    """

    def __init__(self, rules: Rules, pile_depth: int = PILE_DEPTH):
        self.depth = checks.integer(pile_depth, "pile_depth", minimum=1,
                                    maximum=MAX_PILE_DEPTH)
        self.rules = rules
        self.spec = GameSpec.of(rules)
        # Cards are counted and coded by card id (the rank, or rank and toll in Skip-Bo Masters).
        n, r = rules.num_players, rules.num_card_ids
        b, d, h = rules.building_piles, rules.discard_piles, rules.hand_size
        self.num_ranks = r
        self.pile_width = 1 + (r + 1) + pile_depth + r
        hand_width = h * self.pile_width if rules.stacked else 1
        self.seat_width = 2 + (r + 1) + 1 + hand_width + d * self.pile_width
        sections = [
            ("to_act", n), ("draw_pile_size", 1), ("set_aside_size", 1), ("turn", 1),
            ("building_piles", b * rules.max_rank), ("building_pile_wilds", b),
            ("unseen_by_rank", r),
            ("own_hand_by_rank", 0 if rules.stacked else r),
            ("seats", n * self.seat_width),
        ]
        if rules.coins:  # Skip-Bo Masters
            sections += [("coins", n), ("pile_coins", b), ("pending", 3 + b)]
        self.sections: list[tuple[str, int, int]] = []
        offset = 0
        for name, width in sections:
            self.sections.append((name, offset, width))
            offset += width
        self.size = offset
        self._off = {name: start for name, start, _ in self.sections}
        self._deck_list = rules.deck_counts()
        self._scale = self._scales()
        self._reset_cache()

    @property
    def piles_offset(self) -> int:
        """Where a seat's piles start within its block of the observation."""
        return self._piles_offset

    @property
    def scale_factors(self) -> np.ndarray:
        """The factor that brings each raw entry into [0, 1] (a copy)."""
        return self._scale.copy()

    def encode(self, game: GameState, seat: int) -> np.ndarray:
        """Observation of `game` as seen by `seat`.
        Mirror: vector.observe.encode"""
        stacked = self.rules.stacked
        for p, stock in enumerate(game.stocks):
            self._sync_seat(p, game.scores[p], stock[-1] if stock else -1, len(stock),
                            len(game.hands[p]), game.stacks[p] if stacked else game.discards[p])
        self._sync_table(game.building, game.set_aside)
        buf = self._table(seat, game.current_player, len(game.draw_pile), len(game.set_aside),
                          game.turn, game.hands[seat])
        if self.rules.coins:
            self._encode_coins(buf, seat, game.coins, game.pile_coins, game.pending_pile,
                               game.phase, game.pending_toll)
        return self._finish(buf)

    def encode_view(self, view: SeatView) -> np.ndarray:
        """The observation of the seat whose view `view` is (`Game.view`): what a player
        encodes, equal to `encode` of the game for that seat."""
        stacked = self.rules.stacked
        for p, top in enumerate(view.stock_tops):
            self._sync_seat(p, view.scores[p], -1 if top is None else top, view.stock_sizes[p],
                            0 if stacked else view.hand_sizes[p],
                            view.stacks[p] if stacked else view.discard_piles[p])
        self._sync_table(view.building_piles, view.set_aside)
        buf = self._table(view.seat, view.current_player, view.draw_pile_size,
                          len(view.set_aside), view.turn, view.hand)
        if self.rules.coins:
            self._encode_coins(buf, view.seat, view.coins, view.pile_coins, view.pending_pile,
                               view.phase, view.pending_toll)
        return self._finish(buf)

    def _table(self, seat: int, current_player: int, draw_size: int, aside_size: int, turn: int,
               hand: Cards) -> array:
        """The raw observation but for the coins, from the cached piles and the seat's hand."""
        n, r, off = self.rules.num_players, self.num_ranks, self._off
        # Raw counts and sizes go into a Python float array (item writes there cost a fraction
        # of numpy's), viewed as numpy at the end and brought into [0, 1] by one multiply.
        buf = self._zeros[:]
        bp = off["building_piles"]
        buf[bp:bp + len(self._building_seg)] = self._building_seg
        buf[off["to_act"] + (current_player - seat) % n] = 1.0
        o = off["draw_pile_size"]
        buf[o] = draw_size
        buf[o + 1] = aside_size
        buf[o + 2] = turn
        seen = list(self._public)  # every public card, stock tops included
        if not self.rules.stacked:
            o = off["own_hand_by_rank"]
            for c in hand:
                seen[c] += 1
                buf[o + c] += 1.0
        team = self.spec.team_of(seat)
        base, width = off["seats"], self.seat_width
        for k in range(n):
            p = (seat + k) % n
            o = base + k * width
            buf[o:o + width] = self._seat_seg[p]
            if p in team:
                buf[o] = 1.0
        u = off["unseen_by_rank"]
        deck = self._deck_list
        for c in range(r):
            buf[u + c] = deck[c] - seen[c]
        return buf

    def _finish(self, buf: array) -> np.ndarray:
        obs = np.frombuffer(buf, dtype=np.float32)
        obs *= self._scale
        return obs

    def _encode_coins(self, buf: array, seat: int, coins: Sequence[int],
                      pile_coins: Sequence[int], pending_pile: int | None, phase: Phase,
                      pending_toll: int) -> None:
        """Every seat's coins (observer first), the coins next to each building pile, and the
        coin step due: a toll (flag, amount) or a card after a coin play (flag), and its pile."""
        n, off = self.rules.num_players, self._off
        o = off["coins"]
        for k in range(n):
            buf[o + k] = coins[(seat + k) % n]
        o = off["pile_coins"]
        for i, amount in enumerate(pile_coins):
            buf[o + i] = amount
        if pending_pile is not None:
            o = off["pending"]
            if phase == Phase.TOLL:
                buf[o] = 1.0
                buf[o + 1] = pending_toll
            else:
                buf[o + 2] = 1.0
            buf[o + 3 + pending_pile] = 1.0

    def _scales(self) -> np.ndarray:
        """The factor that brings each raw entry written by `encode` into [0, 1]."""
        rules, r, n = self.rules, self.num_ranks, self.rules.num_players
        inv_deck = [1.0 / c if c else 0.0 for c in rules.deck_counts()]
        pile = [1.0 / rules.deck_size] + [1.0] * (r + 1) + [1.0 / r] * self.depth + inv_deck
        scale = [1.0] * n + [1.0 / rules.deck_size] * 2 + [1.0 / rules.max_turns]
        scale += [1.0] * (rules.building_piles * rules.max_rank)
        scale += [1.0 / rules.max_rank] * rules.building_piles + inv_deck
        if not rules.stacked:
            scale += [1.0 / rules.hand_size] * r
        for _ in range(n):
            scale += [1.0, 1.0 / SCORE_TARGET] + [1.0] * (r + 1) + [1.0 / rules.stock_size]
            scale += pile * rules.hand_size if rules.stacked else [1.0 / rules.hand_size]
            scale += pile * rules.discard_piles
        if rules.coins:
            total = rules.coins_per_player * n
            scale += [1.0 / total] * (n + rules.building_piles)
            scale += [1.0, 1.0 / max(rules.max_toll, 1), 1.0] + [1.0] * rules.building_piles
        assert len(scale) == self.size
        return np.array(scale, dtype=np.float32)

    # The encoder keeps a copy of every public pile it last encoded, with that pile's raw
    # encoding; a pile that still equals its copy is not encoded again, and `_public` counts
    # the cards of every public pile by rank. Any game may be passed to `encode`: a pile that
    # differs from its copy is simply re-encoded.
    def _reset_cache(self) -> None:
        rules, r = self.rules, self.num_ranks
        top, b = rules.max_rank, rules.building_piles
        per_seat = rules.hand_size if rules.stacked else rules.discard_piles
        self._zeros = array("f", bytes(4 * self.size))
        self._public = [0] * r
        self._building_cards: list[Cards] = [[] for _ in range(b)]
        self._building_seg = array("f", [0.0] * (b * (top + 1)))
        for i in range(b):
            self._building_seg[i * top] = 1.0
        self._aside_cards: Cards = []
        self._pile_cards: list[list[Cards]] = [[[] for _ in range(per_seat)]
                                               for _ in range(rules.num_players)]
        # Each seat's block as `encode` copies it: the header (teammate flag left 0, score,
        # stock top one-hot, stock size, hand size in refill mode), then its piles.
        self._piles_offset = 4 + r + (0 if rules.stacked else 1)
        empty = self._pile_segment([])
        self._seat_seg = [array("f", bytes(4 * self._piles_offset)) + empty * per_seat
                          for _ in range(rules.num_players)]
        self._headers: list[list] = [[None] * 4 for _ in range(rules.num_players)]

    def _recount(self, old: Cards, new: Cards) -> None:
        public = self._public
        for c in old:
            public[c] -= 1
        for c in new:
            public[c] += 1

    def _pile_segment(self, cards: Cards) -> array:
        """Raw encoding of one pile: size, top one-hot (ranks, then "empty"), codes of the top
        `depth` cards (top first), then the cards below those by rank.
        Mirror: vector.observe._encode_pile"""
        r, depth = self.num_ranks, self.depth
        seg = array("f", bytes(4 * self.pile_width))
        seg[0] = len(cards)
        seg[1 + (cards[-1] if cards else r)] = 1.0
        o = 2 + r
        for c in reversed(cards[-depth:]):
            seg[o] = c + 1
            o += 1
        o = 2 + r + depth
        for c in cards[:-depth]:
            seg[o + c] += 1.0
        return seg

    def _sync_table(self, building: Sequence[Cards], aside: Cards) -> None:
        """Bring the cached building piles and set-aside cards, and the public card counts,
        up to `building` and `aside`.

        Piles mostly change by one card put on or taken off the top; those changes are applied
        in place, anything else re-encodes the pile. A copy is kept as the pile was given (a
        list copied, a view's tuple as it is), so piles of one kind compare alike."""
        public = self._public
        if building != self._building_cards:
            top, b = self.rules.max_rank, len(building)
            seg = self._building_seg
            for i, pile in enumerate(building):
                old = self._building_cards[i]
                if pile == old:
                    continue
                if len(pile) == len(old) + 1 and pile[:-1] == old:
                    if pile[-1] >= 0:  # a coin play's place is no card
                        public[pile[-1]] += 1
                else:
                    self._recount([c for c in old if c >= 0], [c for c in pile if c >= 0])
                seg[i * top + len(old)] = 0.0
                seg[i * top + len(pile)] = 1.0
                seg[b * top + i] = pile.count(WILD)
                self._building_cards[i] = pile[:]
        if aside != self._aside_cards:
            old = self._aside_cards
            if len(aside) > len(old) and aside[:len(old)] == old:
                for c in aside[len(old):]:
                    public[c] += 1
            else:
                self._recount(old, aside)
            self._aside_cards = aside[:]

    def _sync_seat(self, p: int, score: int, top: int, stock_size: int, hand_size: int,
                   piles: Sequence[Cards]) -> None:
        """Bring seat p's cached block up to date: its header (score, stock top (-1: empty)
        and size, hand size) and its public piles (discard piles, or hand stacks)."""
        h = self._headers[p]
        if h[1] != top or h[2] != stock_size or h[3] != hand_size or h[0] != score:
            self._set_header(p, score, top, stock_size, hand_size)
        cached = self._pile_cards[p]
        if piles != cached:
            for i, cards in enumerate(piles):
                if cards != cached[i]:
                    self._update_pile(p, i, cards)

    def _set_header(self, p: int, score: int, top: int, stock_size: int, hand_size: int) -> None:
        r, seg, old = self.num_ranks, self._seat_seg[p], self._headers[p]
        if old[1] is not None and old[1] >= 0:
            self._public[old[1]] -= 1
        if top >= 0:
            self._public[top] += 1
        seg[0:self._piles_offset] = array("f", bytes(4 * self._piles_offset))
        seg[1] = min(score, SCORE_TARGET)
        seg[2 + (top if top >= 0 else r)] = 1.0
        seg[3 + r] = stock_size
        if not self.rules.stacked:
            seg[4 + r] = hand_size
        self._headers[p] = [score, top, stock_size, hand_size]

    def _update_pile(self, p: int, i: int, cards: Cards) -> None:
        r, depth, width = self.num_ranks, self.depth, self.pile_width
        old = self._pile_cards[p][i]
        seg = self._seat_seg[p]
        o = self._piles_offset + i * width
        codes, below = o + 2 + r, o + 2 + r + depth
        if len(cards) == len(old) + 1 and cards[:-1] == old:
            # One card put on top: the codes move down one place.
            c = cards[-1]
            self._public[c] += 1
            seg[o + 1 + (old[-1] if old else r)] = 0.0
            seg[codes + 1:codes + depth] = seg[codes:codes + depth - 1]
            seg[codes] = c + 1
            if len(cards) > depth:
                seg[below + cards[-depth - 1]] += 1.0
        elif len(cards) == len(old) - 1 and old[:-1] == cards:
            # The top card taken: the codes move up one place.
            self._public[old[-1]] -= 1
            seg[o + 1 + old[-1]] = 0.0
            seg[codes:codes + depth - 1] = seg[codes + 1:codes + depth]
            if len(cards) >= depth:
                risen = cards[-depth]
                seg[codes + depth - 1] = risen + 1
                seg[below + risen] -= 1.0
            else:
                seg[codes + depth - 1] = 0.0
        else:
            self._recount(old, cards)
            seg[o:o + width] = self._pile_segment(cards)
        seg[o] = len(cards)
        seg[o + 1 + (cards[-1] if cards else r)] = 1.0
        self._pile_cards[p][i] = cards[:]
