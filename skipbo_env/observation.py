"""The fixed-size observation of one seat: everything public, nothing hidden.

The layout is documented in docs/observation.md and listed by `ObservationEncoder.sections`.
Every value lies in [0, 1].
"""

from __future__ import annotations

import numpy as np

from .engine import WILD, Game
from .rules import Rules

SCORE_TARGET = 500
PILE_DEPTH = 16


class ObservationEncoder:
    """Encodes a game from one seat's point of view as a float32 vector of length `size`.

    A pile (discard pile, or hand stack in the junior games) is encoded in full: its size over
    the deck size, its top card one-hot (ranks 0..max_rank, then "empty"), the codes of its top
    `pile_depth` cards, top first, where a card's code is (rank + 1) / (max_rank + 1) and 0
    means no card, then the cards below those by rank, each over the deck's count of the rank.
    """

    def __init__(self, rules: Rules, pile_depth: int = PILE_DEPTH):
        if isinstance(pile_depth, bool) or not isinstance(pile_depth, int) or pile_depth < 1:
            raise ValueError(f"pile_depth must be a positive integer, got {pile_depth!r}")
        self.rules = rules
        self.depth = pile_depth
        n, r = rules.num_players, rules.max_rank + 1
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
        self.sections: list[tuple[str, int, int]] = []
        offset = 0
        for name, width in sections:
            self.sections.append((name, offset, width))
            offset += width
        self.size = offset
        self._off = {name: start for name, start, _ in self.sections}
        self._deck_counts = rules.deck_counts()
        self._scale = self._scales()
        self._reset_cache()

    def encode(self, game: Game, seat: int) -> np.ndarray:
        """Observation of `game` as seen by `seat`."""
        rules = self.rules
        n, r = rules.num_players, self.num_ranks
        off = self._off
        self._sync(game)
        # Raw counts and sizes are written first and brought into [0, 1] by one multiply.
        obs = np.zeros(self.size, dtype=np.float32)
        ones = [off["to_act"] + (game.current_player - seat) % n]
        o = off["draw_pile_size"]
        obs[o:o + 3] = (len(game.draw_pile), len(game.set_aside), game.turn)
        bp = off["building_piles"]
        obs[bp:bp + len(self._building_seg)] = self._building_seg
        seen = list(self._public)
        if not rules.stacked:
            o = off["own_hand_by_rank"]
            for c in game.hands[seat]:
                seen[c] += 1
                obs[o + c] += 1.0
        team = rules.team_of(seat)
        base, width = off["seats"], self.seat_width
        for k in range(n):
            p = (seat + k) % n
            o = base + k * width
            if p in team:
                ones.append(o)
            if game.scores[p]:
                obs[o + 1] = min(game.scores[p], SCORE_TARGET)
            stock = game.stocks[p]
            if stock:
                ones.append(o + 2 + stock[-1])
                seen[stock[-1]] += 1
                obs[o + 3 + r] = len(stock)
            else:
                ones.append(o + 2 + r)
            o += 4 + r
            if not rules.stacked:
                obs[o] = len(game.hands[p])
                o += 1
            seg = self._seat_seg[p]
            obs[o:o + len(seg)] = seg
        obs[ones] = 1.0
        u = off["unseen_by_rank"]
        obs[u:u + r] = [d - s for d, s in zip(self._deck_counts, seen)]
        obs *= self._scale
        return obs

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
        self._public = [0] * r
        self._building_cards: list[list[int]] = [[] for _ in range(b)]
        self._building_seg = np.zeros(b * (top + 1), dtype=np.float32)
        self._building_seg[[i * top for i in range(b)]] = 1.0
        self._aside_cards: list[int] = []
        self._pile_cards = [[[] for _ in range(per_seat)] for _ in range(rules.num_players)]
        empty = np.zeros(self.pile_width, dtype=np.float32)
        empty[1 + r] = 1.0
        self._seat_seg = [np.tile(empty, per_seat) for _ in range(rules.num_players)]

    def _recount(self, old: list[int], new: list[int]) -> None:
        public = self._public
        for c in old:
            public[c] -= 1
        for c in new:
            public[c] += 1

    def _sync(self, game: Game) -> None:
        """Bring the cached pile encodings and the public card counts up to `game`."""
        top = self.rules.max_rank
        if game.building != self._building_cards:
            b = len(game.building)
            seg = self._building_seg
            for i, pile in enumerate(game.building):
                if pile != self._building_cards[i]:
                    self._recount(self._building_cards[i], pile)
                    self._building_cards[i] = list(pile)
                    seg[i * top:(i + 1) * top] = 0.0
                    seg[i * top + len(pile)] = 1.0
                    seg[b * top + i] = pile.count(WILD)
        if game.set_aside != self._aside_cards:
            self._recount(self._aside_cards, game.set_aside)
            self._aside_cards = list(game.set_aside)
        stacked = self.rules.stacked
        for p in range(self.rules.num_players):
            piles = game.hands[p] if stacked else game.discards[p]
            cached = self._pile_cards[p]
            if piles == cached:
                continue
            for i, cards in enumerate(piles):
                if cards != cached[i]:
                    self._update_pile(p, i, cards)

    def _update_pile(self, p: int, i: int, cards: list[int]) -> None:
        r, depth, width = self.num_ranks, self.depth, self.pile_width
        old = self._pile_cards[p][i]
        seg = self._seat_seg[p][i * width:(i + 1) * width]
        codes = seg[2 + r:2 + r + depth]
        seg[1:2 + r] = 0.0
        if len(cards) == len(old) + 1 and cards[:-1] == old:
            # One card put on top: shift the codes down by one.
            self._public[cards[-1]] += 1
            codes[1:] = codes[:-1].copy()
            codes[0] = cards[-1] + 1
        elif len(cards) == len(old) - 1 and old[:-1] == cards:
            # The top card taken: shift the codes up by one.
            self._public[old[-1]] -= 1
            codes[:-1] = codes[1:].copy()
            codes[-1] = cards[-depth] + 1 if len(cards) >= depth else 0.0
        else:
            self._recount(old, cards)
            shown = cards[-depth:]
            codes[:] = 0.0
            codes[:len(shown)] = [c + 1 for c in reversed(shown)]
        if len(cards) > depth or len(old) > depth:
            below = seg[2 + r + depth:]
            below[:] = 0.0
            for c in cards[:-depth]:
                below[c] += 1.0
        self._pile_cards[p][i] = list(cards)
        seg[0] = len(cards)
        seg[1 + (cards[-1] if cards else r)] = 1.0
