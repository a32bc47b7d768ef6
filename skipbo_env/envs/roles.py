"""A PettingZoo AEC env whose agents are roles, not seats: the learner's team and the policy-
played opponents, with scripted opponents played inside the env. Built for league and
self-play training in multi-agent libraries (Ray RLlib, training/rllib_train.py), where a
policy is mapped to an agent by its name.

Each game, the env draws (from its own seeded generator) which team the learner plays and,
for every other team, what plays it: ``"self_play"`` (the team's seats are agents, named
``opponent_0``, ``opponent_1``, ..., to be played by frozen copies of the learner) or a
scripted player or checkpoint (its seats are played inside the env and never appear as
agents). The learner's seats are ``learner_0``, ``learner_1``, ... (more than one in
partnership games: the team shares a policy and, through the engine's returns, a reward).
Agents are listed in seat order within each role.

Observation: ``{"observations": float32 array, "action_mask": int8 array}``; the same
observation as ``skipbo_env.env()`` under the key ``observations`` that RLlib's
action-masking modules expect (PettingZoo's own key is ``observation``). Rewards: as the AEC
env, +1 to each member of the winning team, -1 to the others, 0 for a draw or truncation,
plus ``stock_reward`` to every agent of a team for each card that team plays from its stocks
and ``opponent_stock_reward`` for each card the other teams play from theirs (shaping, as
the Gymnasium env's; 0 by default).
Infos: ``{"seat": int, "turn": int, "won": bool array over the seats, "illegal_action":
bool}`` for every agent from the reset on, one type per key. An illegal action ends the
game as `skipbo_env.env()` ends it (-1 for the agent that played it, 0 for the others,
``illegal_action`` True in its info) unless ``illegal_action="raise"``: so RLlib's env check,
which steps random actions, passes.
Deals in which the scripted seats finish the game before any agent acts (possible with a
tiny stock) are dealt again.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from .. import checks
from ..engine import Game
from ..observation import PILE_DEPTH, ObservationEncoder
from ..players.base import Agent
from ..players.registry import SELF_PLAY, make_agent, parse_player
from ..rules import Rules
from ..spec import GameSpec

MAX_DEALS = 1000  # deals tried for one reset before giving up


def check_opponents(opponents: Any, where: str = "opponents") -> dict[str, float]:
    """`opponents` as {name: weight}: ``self_play``, a scripted player's name or a checkpoint
    path, each with a non-negative number, not all zero. Raises ValueError naming the bad
    entry."""
    if not isinstance(opponents, dict) or not opponents:
        raise ValueError(f"{where} must be a non-empty mapping of name to weight, got "
                         f"{opponents!r}")
    out = {}
    for name, weight in opponents.items():
        parse_player(name, where, what="opponent", self_play=True)
        out[name] = checks.number(weight, f"{where}.{name}", minimum=0)
    if sum(out.values()) <= 0:
        raise ValueError(f"{where}: the weights must not all be zero")
    return out


class RolesEnv(AECEnv):
    """See the module docstring. ``opponents`` weighs what plays each opponent team."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": [], "name": "skipbo_roles_v0",
                                          "is_parallelizable": False}

    def __init__(self, variant: str = "standard", num_players: int = 2,
                 opponents: dict[str, float] | None = None, seed: int | None = None,
                 stock_reward: float = 0.0, pile_depth: int = PILE_DEPTH,
                 illegal_action: str = "lose", opponent_stock_reward: float = 0.0,
                 **overrides: Any):
        super().__init__()
        self.rules = Rules.preset(variant, num_players, **overrides)
        self.stock_reward = checks.number(stock_reward, "stock_reward")
        self.opponent_stock_reward = checks.number(opponent_stock_reward,
                                                   "opponent_stock_reward")
        self.illegal_action = checks.one_of(illegal_action, ("lose", "raise"), "illegal_action")
        self.opponents = check_opponents({SELF_PLAY: 1.0} if opponents is None else opponents)
        n = self.rules.num_players
        self.teams = [list(t) for t in GameSpec.of(self.rules).teams]
        size = len(self.teams[0])
        self.possible_agents = ([f"learner_{i}" for i in range(size)]
                                + [f"opponent_{i}" for i in range(n - size)])
        self.agents: list[str] = []
        self.encoder = ObservationEncoder(self.rules, pile_depth)
        n_actions = GameSpec.of(self.rules).num_actions
        self._observation_space = spaces.Dict({
            "observations": spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (n_actions,), np.int8),
        })
        self._n_actions = n_actions
        self._action_space: spaces.Discrete = spaces.Discrete(n_actions)
        self._rng = np.random.default_rng(seed)
        self._names = list(self.opponents)
        weights = np.array([self.opponents[k] for k in self._names])
        self._weights = weights / weights.sum()
        self._scripted: dict[str, Agent] = {}
        self._make_scripted()
        self._game: Game | None = None
        self.seat_of: dict[str, int] = {}
        self.player_of: dict[int, str] = {}  # seat: agent name, or the scripted player's name

    @property
    def game(self) -> Game:
        """The game in play (dealt by `reset`)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the env's game")
        return self._game

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if options:
            warnings.warn(f"RolesEnv.reset ignores options {sorted(options)}", stacklevel=2)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            self._make_scripted()
        for _ in range(MAX_DEALS):
            self._seat()
            self._game = Game(self.rules, int(self._rng.integers(2**63)))
            self._play_scripted()
            if not self.game.is_over:
                break
        else:
            raise RuntimeError(f"the scripted seats finished {MAX_DEALS} deals in a row before "
                               f"any agent acted; the stock ({self.rules.stock_size}) is too "
                               f"small for these opponents")
        self.agents = [a for a in self.possible_agents if a in self.seat_of]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {"seat": self.seat_of[a], "turn": self.game.turn,
                          "won": self.game.won_mask(), "illegal_action": False}
                      for a in self.agents}
        self._illegal = False
        self._skip_agent_selection = None
        self.agent_selection = self.player_of[self.game.current_player]

    def _make_scripted(self) -> None:
        """One player per scripted name, seeded from the env's generator."""
        self._scripted = {name: make_agent(name, int(self._rng.integers(2**31)))
                          for name in self._names if name != SELF_PLAY}

    def _seat(self) -> None:
        """Draw the learner's team and what plays each other team."""
        mine = int(self._rng.integers(len(self.teams)))
        self.seat_of, self.player_of = {}, {}
        for i, seat in enumerate(sorted(self.teams[mine])):
            self.seat_of[f"learner_{i}"] = seat
        kinds = {j: self._names[int(self._rng.choice(len(self._names), p=self._weights))]
                 for j in range(len(self.teams)) if j != mine}
        others = [seat for seat in range(self.rules.num_players)
                  if seat not in self.teams[mine]]
        for i, seat in enumerate(others):
            kind = kinds[next(j for j in kinds if seat in self.teams[j])]
            if kind == SELF_PLAY:
                self.seat_of[f"opponent_{i}"] = seat
            else:
                self.player_of[seat] = kind
        for agent, seat in self.seat_of.items():
            self.player_of[seat] = agent

    def _play_scripted(self) -> None:
        game = self.game
        while not game.is_over and self.player_of[game.current_player] in self._scripted:
            game.step(self._scripted[self.player_of[game.current_player]].act(game.view()))

    def observe(self, agent: str) -> dict:
        seat = self.seat_of[agent]
        game = self.game
        mask = (game.action_mask() if seat == game.current_player and not game.is_over
                and not self._illegal else np.zeros(self._n_actions, dtype=np.int8))
        return {"observations": self.encoder.encode(game, seat), "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        action = checks.action(action, self._n_actions)  # an int of the space, or an error
        game = self.game
        if self.illegal_action == "lose" and action not in game.legal_actions():
            return self._lose_by_illegal_action(agent)
        shaping = bool(self.stock_reward or self.opponent_stock_reward)
        if shaping:
            before = {a: game.team_stock_size(self.seat_of[a]) for a in self.agents}
            total = sum(len(s) for s in game.stocks)
        game.step(action)  # raises ValueError, naming the legal actions, if illegal
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._play_scripted()
        if shaping:
            lost = total - sum(len(s) for s in game.stocks)
            for a in self.agents:
                played = before[a] - game.team_stock_size(self.seat_of[a])
                self.rewards[a] = (self.stock_reward * played
                                   + self.opponent_stock_reward * (lost - played))
        if game.is_over:
            returns = game.returns()
            for a in self.agents:
                self.rewards[a] += float(returns[self.seat_of[a]])
                self.infos[a] = {"seat": self.seat_of[a], "turn": game.turn,
                                 "won": game.won_mask(), "illegal_action": False}
            done = self.truncations if game.truncated else self.terminations
            for a in self.agents:
                done[a] = True
        else:
            for a in self.agents:
                self.infos[a]["turn"] = game.turn
            self.agent_selection = self.player_of[game.current_player]
        self._accumulate_rewards()

    def _lose_by_illegal_action(self, agent: str) -> None:
        """As `skipbo_env.env()` (PettingZoo's illegal-move wrapper) ends a game: -1 for the
        agent that played an illegal action, 0 for the others, every agent terminated; the
        game is left as it was."""
        self._illegal = True
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self.rewards[agent] = -1.0
        for a in self.agents:
            self.terminations[a] = self.truncations[a] = True  # as PettingZoo's wrapper does
            self.infos[a]["illegal_action"] = a == agent
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> None:
        return None

    def close(self) -> None:
        pass
