"""PettingZoo AEC environment over the Skip-Bo engine.

Agents are ``player_0`` ... ``player_{n-1}`` (seat order). The acting agent keeps acting
until its turn ends (a discard, or the end-turn action), so the same agent is selected again
and again within a turn.

Observation: ``{"observation": float32 array (docs/observation.md), "action_mask": int8 array}``
from the observed seat's point of view; the mask is all zeros for an agent not to act.
Action: ``Discrete(n)`` with the layout of `skipbo_env.actions`.
Rewards: +1 to the winner (or each member of the winning team), -1 to the others, 0 on a
draw or at the turn limit (a truncation).
Infos: ``{"turn": int, "won": bool array over the seats}`` for every agent from the reset
on (``won`` all False until the game is won), one type per key, as batching libraries need.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import checks
from ..engine import Game
from ..observation import PILE_DEPTH, ObservationEncoder
from ..rules import Rules
from ..segments import Segment, turn_segments
from ..spec import GameSpec
from .render import RENDER_MODES, render_env


class _Actions(spaces.Discrete):
    """`Discrete` with a fast membership test for plain ints (PettingZoo's out-of-bounds
    wrapper asks on every step); anything else goes to gymnasium's own test."""

    def __init__(self, n: int):
        super().__init__(n)
        self.size = n  # a Python int: the plain-int test compares with it

    def contains(self, x) -> bool:
        if type(x) is int:
            return 0 <= x < self.size
        return super().contains(x)


class ActionCheckWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's illegal-move wrapper (an illegal action ends the game with
    `illegal_reward` for the offender) that first refuses, with ValueError, an action that is
    not an integer of the action space (or None for a finished agent), whatever the
    interpreter's flags: PettingZoo's out-of-bounds wrapper asserts, and ``python -O`` removes
    assertions, after which the mask would be indexed with the action (-1 reads the last
    entry). One layer, not two: every wrapper layer costs each step its delegation."""

    def __init__(self, env, illegal_reward: float):
        super().__init__(env, illegal_reward=illegal_reward)
        self._n = env.action_space(env.possible_agents[0]).n

    def step(self, action) -> None:
        if type(action) is not int or not 0 <= action < self._n:  # the plain int is the hot path
            action = self._checked(action)
        super().step(action)

    def _checked(self, action):
        agent = self.agent_selection
        if action is None and (self.terminations.get(agent) or self.truncations.get(agent)):
            return action
        return checks.action(action, self._n)


def env(variant: str = "standard", num_players: int = 2, render_mode: str | None = None,
        **overrides: Any) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers: an illegal action ends the game with
    reward -1 for the offender, out-of-bounds actions assert (and raise ValueError where
    assertions are off), and the call order is enforced."""
    e = raw_env(variant=variant, num_players=num_players, render_mode=render_mode, **overrides)
    e = ActionCheckWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):
    """The bare AEC env; an illegal action raises ValueError listing the legal actions."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "name": "skipbo_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, variant: str = "standard", num_players: int = 2,
                 render_mode: str | None = None, pile_depth: int = PILE_DEPTH,
                 **overrides: Any):
        EzPickle.__init__(self, variant, num_players, render_mode, pile_depth, **overrides)
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        self.rules = Rules.preset(variant, num_players, **overrides)
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.rules, pile_depth)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agents = list(self.possible_agents)
        self._seats = {a: i for i, a in enumerate(self.possible_agents)}
        n_actions = GameSpec.of(self.rules).num_actions
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        })
        self._action_space = _Actions(n_actions)
        self._seeder = np.random.default_rng()
        self._game: Game | None = None

    @property
    def game(self) -> Game:
        """The game in play (dealt by `reset`)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the env's game")
        return self._game

    def turn_segments(self) -> list[Segment]:
        """The turn segments of the agent to act (`skipbo_env.segments`, docs/segments.md):
        every distinct position it can reach with its own moves before the next chance event,
        each with one action sequence and that agent's view of the position (nothing of the
        hidden cards). Observe them with ``SegmentEncoder(env.game.rules).encode(...)``."""
        return turn_segments(self.game)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deal a new game; ``options={"state": game.to_dict()}`` starts from that position."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        options = options or {}
        unknown = set(options) - {"state"}
        if unknown:
            # A warning, not an error: PettingZoo's api_test passes an arbitrary option.
            warnings.warn(f"ignoring unknown reset option(s) {sorted(unknown)}; the only one "
                          f"is 'state'", stacklevel=2)
        if "state" in options:
            game = Game.from_dict(options["state"])
            if game.rules != self.rules:
                raise ValueError(f"the state's rules {game.rules} differ from this env's "
                                 f"{self.rules}")
            self._game = game
        else:
            self._game = Game(self.rules, int(self._seeder.integers(2**63)))
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._turn = self.game.turn
        self.infos = {a: {"turn": self._turn, "won": self.game.won_mask()} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        if self.game.is_over:
            self._finish()
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict:
        seat = self._seats[agent]
        game = self.game
        mask = (game.action_mask() if seat == game.current_player and not game.is_over
                else np.zeros(self._action_space.size, dtype=np.int8))
        return {"observation": self.encoder.encode(game, seat), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        game = self.game
        game.step(action)  # raises ValueError, naming the legal actions, if it is illegal
        self._cumulative_rewards[agent] = 0.0
        if game.turn != self._turn:
            self._turn = game.turn
            for info in self.infos.values():
                info["turn"] = self._turn
        # Rewards stay zero until the game ends, so they are only written then.
        if game.is_over:
            self._finish()
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _finish(self) -> None:
        game = self.game
        for agent, value in zip(self.possible_agents, game.returns()):
            self.rewards[agent] = value
        if game.truncated:
            self.truncations = dict.fromkeys(self.agents, True)
        else:
            self.terminations = dict.fromkeys(self.agents, True)
        for agent in self.agents:
            self.infos[agent] = {"turn": game.turn, "won": game.won_mask()}

    def render(self) -> str | np.ndarray | None:
        return render_env(self.game, self.render_mode)

    def close(self) -> None:
        pass
