"""Gymnasium single-agent environment: the learner plays one seat, opponents play the rest.

``gymnasium.make("SkipBo-v0", variant="standard", num_players=2, opponents="expert",
seat="random")`` (registered on import of `skipbo_env`). The other seats are played inside
`step()` until it is the learner's turn again or the game ends.

Observation: the learner's seat view as a float32 vector (docs/observation.md), the same as
the AEC env's ``"observation"``; `action_masks()` returns its legal-action mask (int8), as
sb3-contrib's MaskablePPO expects. Action: ``Discrete(n)``, the layout of
`skipbo_env.actions`. Reward: +1 win (the learner's team), -1 loss, 0 draw or turn limit
(truncated), plus ``stock_reward`` for each card the learner's team plays from its stocks
during the learner's own actions, plus ``opponent_stock_reward`` for each card the other
teams' stocks lose from the learner's action to its next turn or the game's end (both 0 by
default: no shaping; ``opponent_stock_reward=-stock_reward`` shapes by the stock lead).
An illegal action ends the game as a loss (``info["illegal_action"]``) unless
``illegal_action="raise"``. ``info`` has the same keys in every step: ``seat``, ``turn``,
``won`` (bool per seat), ``stock_sizes``, ``illegal_action`` and ``action_mask`` (as
`action_masks()`, for libraries that read the mask from the info). If the opponents
finish the game before the learner's first turn (possible only with tiny stocks), `reset`
returns that end position with every action allowed in the mask, and the next `step` reports
the result whatever the action.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from .. import checks
from ..engine import Game
from ..observation import PILE_DEPTH, ObservationEncoder
from ..players.base import Agent
from ..players.checkpoints import checkpoints_in
from ..players.registry import make_agent, parse_player
from ..rules import Rules
from ..segments import Segment, turn_segments
from ..spec import GameSpec
from ..state import Phase
from ..view import SeatView
from .render import RENDER_MODES, render_env

Opponent = Callable[[SeatView], int]  # a player: the seat's view -> an action
OpponentSpec = str | Agent | Opponent  # or an OpponentPool for all seats


def opponent(spec: OpponentSpec, seed: int = 0, rules: Rules | None = None) -> Opponent:
    """A player ``f(view) -> action`` from an agent name, a checkpoint path (a ``.zip``
    written by the training scripts), an `Agent`, or a callable taking the seat's view
    (`SeatView`, as every player is given: never the game)."""
    if isinstance(spec, str):
        return make_agent(parse_player(spec, what="opponent"), seed, rules).act
    if isinstance(spec, Agent):
        return spec.act
    if callable(spec):
        return spec
    raise ValueError(f"an opponent must be an agent name, a checkpoint path, an Agent or a "
                     f"callable, got {spec!r}")


class OpponentPool:
    """Opponents drawn afresh for every seat at every reset: a scripted player (or checkpoint
    path) by weight, or, with weight `self_play`, one of the frozen past policies of the
    learner saved as ``*.zip`` in `directory` (the self-play callback of the training
    scripts writes them there during training). The directory is listed again every
    `refresh` draws, so new policies join the pool while training runs; until one exists,
    the self-play share goes to the scripted players."""

    def __init__(self, weights: dict[str, float] | None = None, directory: str | None = None,
                 self_play: float = 0.0, refresh: int = 100):
        weights = dict(weights or {})
        for name, weight in weights.items():
            checks.number(weight, f"opponent weight for {name!r}", minimum=0)
            parse_player(name, what="opponent")  # an unknown name fails now
        checks.number(self_play, "self_play", minimum=0)
        if self_play > 0 and not directory:
            raise ValueError("self_play needs the directory of the learner's past policies")
        if sum(weights.values()) <= 0:
            raise ValueError("give at least one scripted opponent with a positive weight (the "
                             "self-play pool starts empty)")
        checks.integer(refresh, "refresh", minimum=1)
        self.weights, self.directory = weights, directory
        self.self_play, self.refresh = float(self_play), refresh
        self._draws, self._pool = 0, list[str]()

    def draw(self, rng: np.random.Generator, rules: Rules) -> Opponent:
        """A new opponent for one seat of one game."""
        if self.directory and self.self_play and self._draws % self.refresh == 0:
            self._pool = checkpoints_in(self.directory)
        self._draws += 1
        names: list[str | None] = list(self.weights)
        weights = list(self.weights.values())
        if self._pool:
            names.append(None)  # a snapshot of the learner
            weights.append(self.self_play)
        p = np.array(weights, dtype=float) / sum(weights)
        choice = names[int(rng.choice(len(names), p=p))]
        seed = int(rng.integers(2**63))
        if choice is None:
            return opponent(self._pool[int(rng.integers(len(self._pool)))], seed, rules)
        return opponent(choice, seed, rules)


Opponents = OpponentSpec | Sequence[OpponentSpec] | OpponentPool
"""The opponents of a `SkipBoEnv`: one for every other seat, one per seat, or a pool."""


class SkipBoEnv(gym.Env):
    """One seat of a Skip-Bo game against scripted, checkpointed or callable opponents."""

    # gymnasium declares metadata an instance attribute, set on the class by convention.
    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "render_fps": 1}  # noqa: RUF012

    def __init__(self, variant: str = "standard", num_players: int = 2,
                 opponents: Opponents = "expert",
                 seat: int | str = "random", stock_reward: float = 0.0,
                 opponent_stock_reward: float = 0.0, illegal_action: str = "lose",
                 render_mode: str | None = None,
                 pile_depth: int = PILE_DEPTH, **overrides: Any):
        self._setup(Rules.preset(variant, num_players, **overrides), opponents, seat,
                    stock_reward, opponent_stock_reward, illegal_action, render_mode, pile_depth)

    @classmethod
    def of(cls, rules: Rules, opponents: Opponents = "expert",
           seat: int | str = "random", stock_reward: float = 0.0,
           opponent_stock_reward: float = 0.0, illegal_action: str = "lose",
           render_mode: str | None = None, pile_depth: int = PILE_DEPTH) -> SkipBoEnv:
        """The env for games of `rules` (a `Rules`, as a game has them); the other keywords
        are the constructor's."""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a skipbo_env.Rules, got {type(rules).__name__}")
        env = cls.__new__(cls)
        env._setup(rules, opponents, seat, stock_reward, opponent_stock_reward, illegal_action,
                   render_mode, pile_depth)
        return env

    def _setup(self, rules: Rules, opponents: Opponents,
               seat: int | str, stock_reward: float, opponent_stock_reward: float,
               illegal_action: str, render_mode: str | None, pile_depth: int) -> None:
        self.rules = rules
        n = self.rules.num_players
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or "
                             f"None, got {render_mode!r}")
        seat = checks.seat_or_random(seat, n)
        checks.one_of(illegal_action, ("lose", "raise"), "illegal_action")
        checks.number(stock_reward, "stock_reward")
        checks.number(opponent_stock_reward, "opponent_stock_reward")
        self._pool = opponents if isinstance(opponents, OpponentPool) else None
        specs: list[OpponentSpec]
        if self._pool is not None:
            specs = []  # drawn from the pool at every reset
        elif isinstance(opponents, (str, Agent)) or callable(opponents):
            specs = [opponents] * (n - 1)
        elif isinstance(opponents, (list, tuple)):
            specs = list(opponents)
            if len(specs) != n - 1:
                raise ValueError(f"give one opponent for each of the {n - 1} other seats, got "
                                 f"{len(specs)}")
        else:
            raise ValueError(f"opponents must be an agent name, a checkpoint path, an Agent, a "
                             f"callable or a list of them, got {opponents!r}")
        self._specs = specs
        for spec in specs:
            opponent(spec, 0, self.rules)  # checks every spec now
        self.seat_option = seat
        self.stock_reward = float(stock_reward)
        self.opponent_stock_reward = float(opponent_stock_reward)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        self.encoder = ObservationEncoder(self.rules, pile_depth)
        self.layout = GameSpec.of(self.rules).layout
        self.observation_space = spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32)
        self.action_space = spaces.Discrete(self.layout.size)
        self._game: Game | None = None
        self.seat = 0
        self._seats: dict[int, Opponent] = {}
        self._ended = False
        self._mask: np.ndarray = np.zeros(0, dtype=np.int8)
        self._mask_of: list[int] | None = None  # the legal-action list `_mask` was built from

    @property
    def game(self) -> Game:
        """The game in play (dealt by `reset`)."""
        if self._game is None:
            raise RuntimeError("call reset() before using the env's game")
        return self._game

    def turn_segments(self) -> list[Segment]:
        """The learner's turn segments at the position it is to act in (`skipbo_env.segments`,
        docs/segments.md): each action sequence may be stepped one action at a time (the
        opponents move only once the sequence ends the learner's turn)."""
        return turn_segments(self.game)

    # -- gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (a seed repeats the deal, the seat and the opponents' moves);
        ``options={"state": game.to_dict()}`` starts from a position, ``{"seat": k}`` picks
        the learner's seat for this game."""
        super().reset(seed=seed)
        options = dict(options or {})
        unknown = set(options) - {"state", "seat"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; the options are "
                             f"'state' and 'seat'")
        n = self.rules.num_players
        seat = options.get("seat", self.seat_option)
        if checks.seat_or_random(seat, n) == "random":
            seat = int(self.np_random.integers(n))
        self.seat = int(seat)
        if "state" in options:
            game = Game.from_dict(options["state"])
            if game.rules != self.rules:
                raise ValueError(f"the state's rules {game.rules} differ from this env's "
                                 f"{self.rules}")
        else:
            game = Game(self.rules, int(self.np_random.integers(2**63)))
        self._game, self._ended = game, False
        # Fresh opponents each game, seeded from the env's generator: a seed repeats them.
        others = [s for s in range(n) if s != self.seat]
        if self._pool is not None:
            self._seats = {s: self._pool.draw(self.np_random, self.rules) for s in others}
        else:
            self._seats = {s: opponent(spec, int(self.np_random.integers(2**63)), self.rules)
                           for s, spec in zip(others, self._specs)}
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action):
        game = self._game
        if game is None:
            raise RuntimeError("call reset() before step()")
        if self._ended:
            raise RuntimeError("the game is over; call reset()")
        action = checks.action(action, self.layout.size)  # 80.9 is refused, not truncated
        if game.is_over:
            # The opponents finished the game before the learner's first turn (tiny stocks):
            # this step reports the result and ignores the action.
            self._ended = True
            return (self._observe(), float(game.returns()[self.seat]),
                    game.phase in (Phase.WON, Phase.DRAWN), game.phase == Phase.TRUNCATED,
                    self._info())
        if action not in game.legal_actions():
            if self.illegal_action == "raise":
                game.step(action)  # raises ValueError naming the legal actions
            self._ended = True
            return self._observe(), -1.0, True, False, self._info(illegal=True)
        before = game.team_stock_size(self.seat)
        others = self._others_stock()
        game.step(action)
        reward = self.stock_reward * (before - game.team_stock_size(self.seat))
        self._play_opponents()
        # As the batched env pays it: vector/players.py, _others_played.
        reward += self.opponent_stock_reward * (others - self._others_stock())
        if game.is_over:
            self._ended = True
            reward += game.returns()[self.seat]
        if self.render_mode == "human":
            self.render()
        return (self._observe(), float(reward), game.phase in (Phase.WON, Phase.DRAWN),
                game.phase == Phase.TRUNCATED, self._info())

    def set_stock_size(self, stock_size: int) -> None:
        """Play the following games with `stock_size` stock cards (a curriculum step); the
        observation and action spaces stay the same."""
        self.rules = dataclasses.replace(self.rules, stock_size=stock_size)  # checked there
        self.encoder = ObservationEncoder(self.rules, self.encoder.depth)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as an int8 mask: all zeros once the game is over, all
        ones while the step that reports an end reached before the learner's turn is due."""
        if self._game is None or self._ended:
            return np.zeros(self.layout.size, dtype=np.int8)
        if self.game.is_over:
            return np.ones(self.layout.size, dtype=np.int8)
        # Built once per position: `_info` and MaskablePPO's own call both ask for it. The
        # game's cached legal-action list is new after every change, so it keys the mask.
        legal = self.game._legal_cached()
        if self._mask_of is not legal:
            self._mask, self._mask_of = self.game.action_mask(), legal
        return self._mask

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]
        return render_env(self.game, self.render_mode)

    # -- internals --------------------------------------------------------------------------
    def _others_stock(self) -> int:
        """Stock cards left to the teams other than the learner's."""
        game = self.game
        return sum(len(s) for s in game.stocks) - game.team_stock_size(self.seat)

    def _play_opponents(self) -> None:
        game = self.game
        while not game.is_over and game.current_player != self.seat:
            game.step(int(self._seats[game.current_player](game.view())))

    def _observe(self) -> np.ndarray:
        return self.encoder.encode(self.game, self.seat)

    def _info(self, illegal: bool = False) -> dict:
        """The same keys, each of one type and shape, in every step (docs/training.md)."""
        game = self.game
        return {"seat": self.seat, "turn": game.turn, "won": game.won_mask(),
                "stock_sizes": np.array([len(s) for s in game.stocks], dtype=np.int64),
                "illegal_action": illegal, "action_mask": self.action_masks()}
