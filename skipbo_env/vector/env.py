"""`SkipBoVectorEnv`: the learner's seat against batched scripted players, many games at once,
as a `gymnasium.vector.VectorEnv` (`skipbo_env.integrations.sb3.sb3_vec_env` wraps it for
stable-baselines3)."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import checks
from . import players as KA
from .batched import VectorEngine, split_names


def _weights(opponents) -> np.ndarray:
    """Cumulative weights over the batched players from a name, a list of names (equal
    weights) or a {name: weight} mapping."""
    opponents = split_names(opponents)
    if isinstance(opponents, dict):
        items = list(opponents.items())
    else:
        try:
            items = [(name, 1.0) for name in opponents]
        except TypeError:
            raise ValueError(f"opponents must be a name, a list of names or a {{name: weight}} "
                             f"mapping, got {opponents!r}") from None
    if not items:
        raise ValueError("opponents must name at least one player")
    weights = np.zeros(len(KA.AGENT_NAMES))
    for name, w in items:
        if name not in KA.AGENT_NAMES:
            raise ValueError(f"no batched player {name!r}; the vector env's opponents are "
                             f"{', '.join(KA.AGENT_NAMES)}")
        checks.number(w, f"the weight of {name!r}", minimum=0)
        weights[KA.AGENT_NAMES.index(name)] += w
    if weights.sum() <= 0:
        raise ValueError("the opponents' weights must not all be zero")
    cumulative = np.cumsum(weights / weights.sum())
    cumulative[-1] = 1.0
    return cumulative


class SkipBoVectorEnv(gym.vector.VectorEnv):
    """`num_envs` games in the batched engine; in each the learner plays one seat and batched
    scripted players (`random`, `naive`, `greedy`, `expert`, drawn afresh for every seat of
    every game by `opponents`' weights) play the others inside the engine.

    The single-game spaces and rewards are those of `SkipBo-v0` (`SkipBoEnv`): the learner's
    observation (docs/observation.md), Discrete actions, +1/-1 for a win/loss at the end
    (0 for a draw or a game cut off at the turn limit) plus `stock_reward` per card the
    learner plays from its team's stocks. `action_masks()` gives the learner's legal actions
    for sb3-contrib. Finished games are replaced at once (autoreset mode SAME_STEP): the
    returned observation is the new game's, the last one is in ``infos["final_obs"]`` where
    ``infos["_final_obs"]`` is set. With a tiny stock the scripted seats can finish a game
    before the learner's first turn; such deals are skipped.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, variant: str = "standard", num_players: int = 2, num_envs: int = 64,
                 opponents: Any = ("random", "naive", "greedy"), seat: int | str = "random",
                 stock_reward: float = 0.0, copy: bool = True, **overrides: Any):
        self.engine = VectorEngine(variant, num_players, num_games=num_envs, **overrides)
        self.rules = self.engine.rules
        n = self.rules.num_players
        seat = checks.seat_or_random(seat, n)
        self.stock_reward = checks.number(stock_reward, "stock_reward")
        self.copy = checks.boolean(copy, "copy")
        self.num_envs = self.engine.num_games
        self.seat_option = -1 if seat == "random" else int(seat)
        self.weights = _weights(opponents)
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.engine.obs_size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(self.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.seating = KA.Seating(kinds=np.zeros((self.num_envs, n), dtype=np.int64),
                                  learner=np.zeros(self.num_envs, dtype=np.int64),
                                  weights=self.weights,
                                  rewards=np.zeros(self.num_envs, dtype=np.float64))
        self.learner, self.kinds = self.seating.learner, self.seating.kinds
        self._ready = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game (a seed repeats the deals, seats, opponents and their moves)."""
        if options:
            raise ValueError(f"SkipBoVectorEnv.reset takes no options, got {sorted(options)}")
        e = self.engine
        e.reset(seed)  # seeds the games' and the players' generators
        KA.env_reset(e.state, e.static, e.buffers, self.seating, self.seat_option)
        self._ready = True
        return self._out(e.obs), {"seat": self.learner.copy()}

    def step(self, actions):
        """The learner's action in every game, then the scripted seats' until its next turn."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        e = self.engine
        actions = e.check_actions(actions)
        KA.env_step(e.state, e.static, e.buffers, self.seating, self.seat_option,
                    self.stock_reward, actions)
        done = e.terminated | e.truncated
        infos = {"seat": self.learner.copy()}
        if done.any():
            infos["final_obs"] = e.final_obs.copy()
            infos["_final_obs"] = done.copy()
        return (self._out(e.obs), self.seating.rewards.copy(), e.terminated.copy(),
                e.truncated.copy(), infos)

    def action_masks(self) -> np.ndarray:
        """[num_envs, actions] bool: the learner's legal actions in every game."""
        return self.engine.masks.astype(bool)

    def _out(self, obs: np.ndarray) -> np.ndarray:
        return obs.copy() if self.copy else obs

    def game(self, i: int):
        """Game i as a reference `Game` (a copy), for inspection and tests."""
        return self.engine.game(i)

    def __repr__(self) -> str:
        names = [f"{name} {w:.2f}" for name, w in
                 zip(KA.AGENT_NAMES, np.diff(self.weights, prepend=0.0)) if w > 0]
        return (f"SkipBoVectorEnv({self.rules.variant!r}, {self.rules.num_players} players, "
                f"{self.num_envs} games, opponents {', '.join(names)})")
