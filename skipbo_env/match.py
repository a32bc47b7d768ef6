"""Several games scored as in the official rules: first to 500 points wins."""

from __future__ import annotations

import numpy as np

from . import checks
from .engine import Game
from .rules import Rules


class Match:
    """A series of games; the first player moves one seat to the left after each game, and the
    first seat (or team) to reach `target` points wins."""

    def __init__(self, rules: Rules, seed: int | None = None, target: int = 500,
                 rotate_first_player: bool = True):
        """`rotate_first_player=False` keeps seat 0 first in every game, as Skip-Bo Junior's
        "the youngest player always goes first" reads."""
        checks.integer(target, "target", minimum=1)
        checks.boolean(rotate_first_player, "rotate_first_player")
        self.rules = rules
        self.target = target
        self.rotate_first_player = rotate_first_player
        self.rng = np.random.default_rng(seed)
        self.scores = [0] * rules.num_players
        self.games_played = 0
        self.game = self._deal(first_player=0)

    def _deal(self, first_player: int) -> Game:
        self.game_seed = int(self.rng.integers(2**63))  # the deal's seed, for game records
        return Game(self.rules, self.game_seed, first_player=first_player,
                    scores=list(self.scores))

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats that reached the target first (a team's seats with teams), else empty."""
        best = max(self.scores)
        if best < self.target:
            return ()
        return self.rules.team_of(self.scores.index(best))

    def next_game(self) -> Game | None:
        """Score the finished game, then deal the next one; returns None once a seat (or team)
        has reached the target."""
        if self.winners:
            raise ValueError(f"the match is over; seats {list(self.winners)} reached "
                             f"{self.target}")
        if not self.game.is_over:
            raise ValueError("the current game is not over yet")
        for p, pts in enumerate(self.game.points()):
            self.scores[p] += pts
        self.games_played += 1
        if self.winners:
            return None
        step = 1 if self.rotate_first_player else 0
        self.game = self._deal((self.game.first_player + step) % self.rules.num_players)
        return self.game
