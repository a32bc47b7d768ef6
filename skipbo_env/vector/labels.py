"""Labels of turn segments by batched rollouts: the value network's training labels
(train/value.py, docs/training.md "The value player") and the value player's search
(`lookahead:` a value checkpoint, players/value.py).

A segment ends with one move from a position. Its label is `lookahead`'s score of that move:
from the position before it, the move and then the batched `expert` in every seat until the
end of the acting seat's next turn, scored by the acting team's stock lead, `win_bonus` more
for a game won and less for one lost; the mean over `deals` fresh deals of the cards the
acting seat cannot see, over `label_scale` and within [-1, 1]. With a `bootstrap` network the
rollout stops earlier (one round of TD, `BOOTSTRAP_AT`): where the acting seat's next turn
would start ("turn") or also where the segment leaves it to act again in this turn
("decision"), and the label there is the network's best value of the seat's segments.
"""

from __future__ import annotations

from typing import cast

import numpy as np

from .. import checks
from ..engine import Game
from ..players.value import TABLE_BITS, ValueNet
from ..rules import Rules
from ..segments import TooManyPositions
from .batched import VectorEngine
from .rollout import redeal, rollout, rollout_to_decision, rollout_to_turn
from .segments import SegmentLister

BOOTSTRAP_AT = {"turn": rollout_to_turn, "decision": rollout_to_decision}
"""Where a bootstrapped label stops: the rollout kernel of each choice."""
WIN_BONUS = 10.0  # the labels' bonus for a game won (less for one lost), in stock cards
LABEL_SCALE = 20.0  # stock cards a label of 1 stands for


class SegmentLabels:
    """Labels segments' resulting positions by rollouts of the batched `expert`, in batches of
    `rows` games: each is loaded as it stood before the segment's last move and rolled out
    from that move (module docstring). Labels land in `labels`, by sample, at
    each `flush` (a full batch flushes itself)."""

    def __init__(self, rules: Rules, rows: int, seed: int, deals: int,
                 win_bonus: float = WIN_BONUS, label_scale: float = LABEL_SCALE,
                 bootstrap: ValueNet | None = None, bootstrap_at: str = "turn"):
        if bootstrap_at not in BOOTSTRAP_AT:
            raise ValueError(f"bootstrap_at must be one of {list(BOOTSTRAP_AT)}, got "
                             f"{checks.shown(bootstrap_at)}")
        self.deals = checks.integer(deals, "deals", minimum=1)
        self.win_bonus = checks.number(win_bonus, "win_bonus", minimum=0.0)
        self.label_scale = checks.number(label_scale, "label_scale", above=0.0)
        self.bootstrap_at = bootstrap_at
        self.engine = VectorEngine.of(rules, num_games=rows, autoreset=False)
        self.engine.reset(seed)
        self.scratch = VectorEngine.of(rules, num_games=rows, autoreset=False)
        self.scratch.reset(seed)
        self.seed = np.uint64(seed)
        self.pending: list[int] = []  # the sample of each loaded row
        self.groups = np.zeros(rows, dtype=np.uint64)
        self.last = np.zeros(rows, dtype=np.int64)
        self.seats = np.zeros(rows, dtype=np.int64)
        self.labels: dict[int, float] = {}
        self.bootstrap = bootstrap
        self.lister = SegmentLister(self.scratch, max_table_bits=TABLE_BITS)
        self.crowded = 0  # rows labelled by the plain rollout: their next turn's walk too long

    def add(self, sample: int, before: Game, last: int, group: int) -> None:
        """Label `sample`: the segment ends with move `last` from `before`. The samples of one
        `group` (a decision) are rolled out in the same deals (common random numbers: their
        labels differ by the choice, not by the luck of the deal)."""
        row = len(self.pending)
        self.engine.set_game(row, before)
        self.last[row], self.seats[row] = last, before.current_player
        self.groups[row] = group
        self.pending.append(sample)
        if len(self.pending) == self.engine.num_games:
            self.flush()

    def flush(self) -> None:
        rows = len(self.pending)
        if not rows:
            return
        e, s = self.engine, self.scratch
        base, work = rows_of(e.state, rows), rows_of(s.state, rows)
        seats, last = self.seats[:rows], self.last[:rows]
        total = np.zeros(rows)
        out = np.empty(rows)
        for deal in range(self.deals):
            for src, dst in zip(base, work):
                dst[:] = src
            with np.errstate(over="ignore"):  # a hash: uint64 arithmetic wraps
                keys = splitmix(self.groups[:rows] * np.uint64(1024) + np.uint64(deal)
                                 + self.seed * np.uint64(0x9E3779B97F4A7C15))
            redeal(work, s.static, s.buffers, seats, keys)
            if self.bootstrap is None:
                rollout(work, s.static, s.buffers, last, seats, float(self.win_bonus), out)
                total += out
            else:
                total += self._bootstrapped(base, work, seats, last, keys) * self.label_scale
        labels = np.clip(total / self.deals / self.label_scale, -1.0, 1.0)
        for row, sample in enumerate(self.pending):
            self.labels[sample] = float(labels[row])
        self.pending = []

    def _bootstrapped(self, base, work, seats, last, keys) -> np.ndarray:
        """One deal's labels by one round of TD (`bootstrap`): each row rolled out by `expert`
        to where the acting seat's next turn would start (`bootstrap_at: decision`: or its
        next decision in this turn, if the segment leaves it to act again), and there valued
        as the network's best segment from that position; a game over before then scored as
        the plain rollout scores it (over `label_scale`, within [-1, 1]). A row whose next
        segments are more positions than the value player walks (players/value.py's
        TABLE_BITS) is labelled by the plain rollout in the same deal."""
        s, rows = self.scratch, len(seats)
        out = np.empty(rows)
        BOOTSTRAP_AT[self.bootstrap_at](work, s.static, s.buffers, last, seats,
                                       float(self.win_bonus), out)
        value = np.clip(out / self.label_scale, -1.0, 1.0)
        waiting = np.zeros(s.num_games, dtype=bool)
        waiting[:rows] = np.isnan(out)
        crowded = np.zeros(0, dtype=np.int64)
        try:
            games, obs = self.lister.observations(waiting)
        except TooManyPositions as e:
            crowded = np.array(e.games, dtype=np.int64)
            waiting[crowded] = False
            games, obs = self.lister.observations(waiting)
        if waiting.any():
            best = np.full(s.num_games, -np.inf, dtype=np.float32)
            np.maximum.at(best, games, cast(ValueNet, self.bootstrap)(obs))
            value[waiting[:rows]] = best[:rows][waiting[:rows]]
        if crowded.size:  # the plain rollout of this deal: the same cards, dealt again
            for src, dst in zip(base, work):
                dst[crowded] = src[crowded]
            only = np.full(rows, -1, dtype=np.int64)
            only[crowded] = seats[crowded]
            redeal(work, s.static, s.buffers, only, keys)
            plain = np.empty(rows)
            rollout(work, s.static, s.buffers, np.where(only >= 0, last, -1), seats,
                    float(self.win_bonus), plain)
            value[crowded] = np.clip(plain[crowded] / self.label_scale, -1.0, 1.0)
            self.crowded += crowded.size
        return value


def splitmix(z: np.ndarray) -> np.ndarray:
    """splitmix64 of each uint64 (a key for each deal), never 0."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return (z ^ (z >> np.uint64(31))) | np.uint64(1)


def rows_of(state, rows: int):
    """The first `rows` games of a `State`."""
    return type(state)(*(a[:rows] for a in state))


def value_searcher(rules: Rules, net: ValueNet, deals: int, rows: int, seed: int):
    """The value player's search (players/value.py, `use_searcher`): candidate segments scored
    by one round of TD bootstrapped from `net` at the decision, `deals` deals each, all in
    the same deals (common random numbers), at most `rows` at once."""
    labels = SegmentLabels(rules, rows, seed, deals, bootstrap=net, bootstrap_at="decision")
    searches = [0]

    def searched(candidates) -> np.ndarray:
        if not 0 < len(candidates) <= rows:
            raise ValueError(f"a search scores 1 to {rows} candidates, got {len(candidates)}")
        searches[0] += 1
        labels.labels.clear()
        for j, (before, last) in enumerate(candidates):
            labels.add(j, before, last, searches[0])
        labels.flush()
        return np.array([labels.labels[j] for j in range(len(candidates))])

    return searched
