"""The fixed-size observation of one seat: everything public, nothing hidden.

The layout is documented in docs/observation.md and listed by `ObservationEncoder.sections`.
Every value lies in [0, 1].
"""

from __future__ import annotations

from array import array

import numpy as np

from . import checks
from .engine import WILD, Game, Phase
from .rules import Rules
from .spec import GameSpec

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

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """Observation of `game` as seen by `seat`.
        Mirror: vector.kernels.encode"""
        rules = self.rules
        n, r = rules.num_players, self.num_ranks
        off = self._off
        self._sync(game)
        # Raw counts and sizes go into a Python float array (item writes there cost a fraction
        # of numpy's), viewed as numpy at the end and brought into [0, 1] by one multiply.
        buf = self._zeros[:]
        bp = off["building_piles"]
        buf[bp:bp + len(self._building_seg)] = self._building_seg
        buf[off["to_act"] + (game.current_player - seat) % n] = 1.0
        o = off["draw_pile_size"]
        buf[o] = len(game.draw_pile)
        buf[o + 1] = len(game.set_aside)
        buf[o + 2] = game.turn
        seen = list(self._public)  # every public card, stock tops included
        if not rules.stacked:
            o = off["own_hand_by_rank"]
            for c in game.hands[seat]:
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
        if rules.coins:
            self._encode_coins(game, seat, buf)
        obs = np.frombuffer(buf, dtype=np.float32)
        obs *= self._scale
        return obs

    def _encode_coins(self, game: Game, seat: int, buf: array) -> None:
        """Every seat's coins (observer first), the coins next to each building pile, and the
        coin step due: a toll (flag, amount) or a card after a coin play (flag), and its pile."""
        n, off = self.rules.num_players, self._off
        o = off["coins"]
        for k in range(n):
            buf[o + k] = game.coins[(seat + k) % n]
        o = off["pile_coins"]
        for i, coins in enumerate(game.pile_coins):
            buf[o + i] = coins
        if game.pending_pile is not None:
            o = off["pending"]
            if game.phase == Phase.TOLL:
                buf[o] = 1.0
                buf[o + 1] = game.pending_toll
            else:
                buf[o + 2] = 1.0
            buf[o + 3 + game.pending_pile] = 1.0

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
        self._building_cards: list[list[int]] = [[] for _ in range(b)]
        self._building_seg = array("f", [0.0] * (b * (top + 1)))
        for i in range(b):
            self._building_seg[i * top] = 1.0
        self._aside_cards: list[int] = []
        self._pile_cards = [[[] for _ in range(per_seat)] for _ in range(rules.num_players)]
        # Each seat's block as `encode` copies it: the header (teammate flag left 0, score,
        # stock top one-hot, stock size, hand size in refill mode), then its piles.
        self._piles_offset = 4 + r + (0 if rules.stacked else 1)
        empty = self._pile_segment([])
        self._seat_seg = [array("f", bytes(4 * self._piles_offset)) + empty * per_seat
                          for _ in range(rules.num_players)]
        self._headers: list[list] = [[None] * 4 for _ in range(rules.num_players)]

    def _recount(self, old: list[int], new: list[int]) -> None:
        public = self._public
        for c in old:
            public[c] -= 1
        for c in new:
            public[c] += 1

    def _pile_segment(self, cards: list[int]) -> array:
        """Raw encoding of one pile: size, top one-hot (ranks, then "empty"), codes of the top
        `depth` cards (top first), then the cards below those by rank.
        Mirror: vector.kernels._encode_pile"""
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

    def _sync(self, game: Game) -> None:
        """Bring the cached pile encodings and the public card counts up to `game`.

        Piles mostly change by one card put on or taken off the top; those changes are applied
        in place, anything else re-encodes the pile."""
        public = self._public
        if game.building != self._building_cards:
            top, b = self.rules.max_rank, len(game.building)
            seg = self._building_seg
            for i, pile in enumerate(game.building):
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
                self._building_cards[i] = list(pile)
        aside = game.set_aside
        if aside != self._aside_cards:
            old = self._aside_cards
            if len(aside) > len(old) and aside[:len(old)] == old:
                for c in aside[len(old):]:
                    public[c] += 1
            else:
                self._recount(old, aside)
            self._aside_cards = list(aside)
        stacked = self.rules.stacked
        for p in range(self.rules.num_players):
            stock = game.stocks[p]
            top = stock[-1] if stock else -1
            hand_size = 0 if stacked else len(game.hands[p])
            h = self._headers[p]
            if h[1] != top or h[2] != len(stock) or h[3] != hand_size or h[0] != game.scores[p]:
                self._set_header(p, game.scores[p], top, len(stock), hand_size)
            piles = game.hands[p] if stacked else game.discards[p]
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

    def _update_pile(self, p: int, i: int, cards: list[int]) -> None:
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
        self._pile_cards[p][i] = list(cards)
