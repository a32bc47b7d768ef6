"""The value player (`players.value`) as a batched opponent: each row's segments listed by the
kernel (`vector.segments`), the network evaluated once on every candidate position of every
row that needs a plan, each row's best segment played move by move.

The choice is the single-game `ValueAgent`'s: the same segments in the same order (the kernel
lists the reference's, tests/test_vector_segments.py), the same values, the first best on a
tie. A plan runs to the segment's end, which comes before any chance event or the end of the
seat's turn, so no row's plan can outlive the position it was made for.
"""

from __future__ import annotations

import numpy as np

from ..players.value import TABLE_BITS, ValueNet
from ..segments import TooManyPositions
from .batched import VectorEngine
from .segments import MAX_MOVES, SegmentLister


class BatchedValuePlayer:
    """Plays `net`'s best segment in the games of `engine` it is asked to move in."""

    def __init__(self, net: ValueNet, engine: VectorEngine, path: str = ""):
        net.prepare(engine.rules, path)
        self.net, self.path = net, path
        self.bind(engine)

    def bind(self, engine: VectorEngine) -> None:
        """Play in the games of `engine` from now on (plans in progress are dropped)."""
        self.engine = engine
        self.lister = SegmentLister(engine, max_table_bits=TABLE_BITS)
        n = engine.num_games
        self.plans = np.zeros((n, MAX_MOVES), dtype=np.int16)
        self.length = np.zeros(n, dtype=np.int64)  # moves in each row's plan
        self.done = np.zeros(n, dtype=np.int64)  # moves of it already played
        self.seat = np.full(n, -1, dtype=np.int64)  # the seat it was made for
        self.fallbacks = 0  # moves played by `expert` (the walk passed TABLE_BITS), as ValueAgent

    def forget(self) -> None:
        """Drop every plan (new deals)."""
        self.length[:] = 0
        self.done[:] = 0

    def plan(self, rows: np.ndarray) -> None:
        """A fresh plan for each of games `rows`: its best segment's moves."""
        want = np.zeros(self.engine.num_games, dtype=bool)
        want[rows] = True
        try:
            listing = self.lister.list(want)
        except TooManyPositions as e:  # those games play expert's move, as ValueAgent does
            crowded = np.array(e.games, dtype=np.int64)
            names = ",".join(["expert"] * self.engine.rules.num_players)
            self.plans[crowded, 0] = self.engine.scripted_actions(names)[crowded]
            self.length[crowded] = 1
            self.done[crowded] = 0
            self.seat[crowded] = self.engine.seats[crowded]
            self.fallbacks += len(crowded)
            rows = np.setdiff1d(rows, crowded)
            if rows.size:
                self.plan(rows)
            return
        counts = np.diff(listing.offsets)[rows]
        if (counts == 0).any():
            g = int(rows[np.flatnonzero(counts == 0)[0]])
            raise RuntimeError(f"game {g} has no segment to play (is it over?)")
        values = self.net(listing.obs) if len(listing.obs) else np.zeros(0, np.float32)
        starts = listing.offsets[rows]
        for i, g in enumerate(rows):  # the first best row of each game, as np.argmax picks
            lo = int(starts[i])
            best = lo + int(np.argmax(values[lo:lo + int(counts[i])]))
            self.plans[g] = listing.actions[best]
            self.length[g] = int(listing.length[best])
        self.done[rows] = 0
        self.seat[rows] = self.engine.seats[rows]

    def actions(self, rows: np.ndarray) -> np.ndarray:
        """The next move of each of games `rows` for the seat to act there (planning the rows
        whose plan is played out or was made for another seat)."""
        rows = np.asarray(rows, dtype=np.int64)
        stale = (self.done[rows] >= self.length[rows]) | (self.seat[rows] !=
                                                           self.engine.seats[rows])
        if stale.any():
            self.plan(rows[stale])
        out = self.plans[rows, self.done[rows]].astype(np.int64)
        legal = self.engine.masks[rows, out].astype(bool)
        if not legal.all():
            g = int(rows[np.flatnonzero(~legal)[0]])
            raise RuntimeError(f"the value player's plan in game {g} reached an illegal move "
                               f"(a bug: segments end before any chance event)")
        self.done[rows] += 1
        return out
