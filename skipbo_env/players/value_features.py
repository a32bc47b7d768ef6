"""Inputs a value network may read beside the observation (a model card's
``network.features``; docs/agents.md, "The value player").

The observation shows each building pile's number and each card one-hot; what decides a
resulting position's worth is how those meet: how many cards a seat's stock top is from being
playable on the nearest building pile, and its discard tops and hand cards likewise. A network
can learn that arithmetic (a difference of two one-hot codes modulo the pile length) only from
many examples; `gaps` computes it from the observation alone, so it reveals nothing the seat
does not see, and the batched and single-game players compute it alike.

``gaps``, for each seat (the observer first, in the observation's seat order):

- the stock top's gap: how many cards must be played on the nearest building pile before it
  fits there (0: it fits now; a wild always fits), one-hot over 0..max_rank-1, then "no stock
  top" (an empty stock, or a stock top the seat does not see yet);
- the stock top's gap to each building pile, sorted, over max_rank - 1 (0 without one);
- each discard pile's top card's gap (in the junior games each face-up hand stack's), one-hot
  likewise, then "empty pile";

then, in the refill games, the observer's hand cards counted by their gap (over the hand
size).
"""

from __future__ import annotations

import numpy as np

from ..observation import ObservationEncoder
from ..rules import Rules

FEATURE_SETS = ("gaps",)
"""The named input sets a value network may read beside the observation."""


class GapFeatures:
    """`gaps` (module docstring) for observations of `rules`: called on float32
    [rows, encoder.size], returns [rows, encoder.size + width], the observation first."""

    name = "gaps"

    def __init__(self, rules: Rules):
        enc = ObservationEncoder(rules)
        self.rules, self.size = rules, enc.size
        self.layout = (enc.size, rules.num_players, rules.num_card_ids, rules.max_rank,
                       rules.building_piles, rules.discard_piles, rules.hand_size,
                       rules.stacked)
        self._off = {name: (start, width) for name, start, width in enc.sections}
        self._seat_width, self._pile_width = enc.seat_width, enc.pile_width
        self._piles = enc.piles_offset
        # a seat's piles: its discard piles, or its face-up hand stacks in the junior games
        self._count = rules.hand_size if rules.stacked else rules.discard_piles
        m, b, d = rules.max_rank, rules.building_piles, self._count
        self._per_seat = (m + 1) + b + d * (m + 1)
        self._hand = 0 if rules.stacked else m
        self.width = rules.num_players * self._per_seat + self._hand

    def _next(self, obs: np.ndarray) -> np.ndarray:
        """Each building pile's next number, 1..max_rank: [rows, B]."""
        start, width = self._off["building_piles"]
        b = self.rules.building_piles
        shown = obs[:, start:start + width].reshape(len(obs), b, width // b)
        return shown.argmax(axis=2) + 1

    def _gaps(self, card: np.ndarray, nxt: np.ndarray) -> np.ndarray:
        """The gap of card ids `card` [rows] (ids past the last one: no card, gap -1) to each
        building pile: [rows, B]."""
        m, r = self.rules.max_rank, self.rules.num_card_ids
        rank = card % (m + 1)
        gaps = (rank[:, None] - nxt) % m
        gaps[rank == 0] = 0  # a wild fits any pile
        gaps[card >= r] = -1
        return gaps

    def _card(self, one_hot: np.ndarray) -> np.ndarray:
        """The card ids of one-hot rows [rows, r + 1] (the last entry: none); a row with no
        entry set (a stock top not seen yet) is none too."""
        r = self.rules.num_card_ids
        return np.where(one_hot.max(axis=1) > 0, one_hot.argmax(axis=1), r)

    def _one_hot(self, gap: np.ndarray) -> np.ndarray:
        """[rows] gaps (-1: none) as one-hot over 0..max_rank-1 then "none": [rows, m + 1]."""
        m = self.rules.max_rank
        return np.eye(m + 1, dtype=np.float32)[np.where(gap < 0, m, gap)]

    def __call__(self, obs: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs, dtype=np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.size:
            raise ValueError(f"gaps features read observations of {self.size} entries, got "
                             f"shape {obs.shape}")
        rows, m, r = len(obs), self.rules.max_rank, self.rules.num_card_ids
        nxt = self._next(obs)
        parts = [obs]
        base = self._off["seats"][0]
        for k in range(self.rules.num_players):
            seat = base + k * self._seat_width
            stock = self._card(obs[:, seat + 2:seat + 3 + r])
            gaps = self._gaps(stock, nxt)
            parts.append(self._one_hot(gaps.min(axis=1)))
            parts.append(np.sort(np.maximum(gaps, 0), axis=1).astype(np.float32) / (m - 1))
            for j in range(self._count):
                top = seat + self._piles + j * self._pile_width + 1
                card = self._card(obs[:, top:top + r + 1])
                parts.append(self._one_hot(self._gaps(card, nxt).min(axis=1)))
        if self._hand:
            start, width = self._off["own_hand_by_rank"]
            counts = obs[:, start:start + width]  # cards of each id / hand size
            hand = np.zeros((rows, m), dtype=np.float32)
            for c in range(r):
                gap = self._gaps(np.full(rows, c), nxt).min(axis=1)
                hand[np.arange(rows), gap] += counts[:, c]  # each row once per id
            parts.append(hand)
        return np.concatenate(parts, axis=1)


def features_for(name: str | None, rules: Rules) -> GapFeatures | None:
    """The input set `name` for `rules` (None: the observation alone)."""
    if name is None:
        return None
    if name not in FEATURE_SETS:
        raise ValueError(f"unknown value-network features {name!r}; the sets are "
                         f"{list(FEATURE_SETS)} (or none)")
    return GapFeatures(rules)
