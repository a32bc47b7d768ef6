"""`SkipBoVectorEnv`: the learner's seat against batched scripted players, many games at once,
as a `gymnasium.vector.VectorEnv` (`skipbo_env.integrations.sb3.sb3_vec_env` wraps it for
stable-baselines3)."""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from .. import checks
from ..observation import PILE_DEPTH
from ..players.checkpoints import checkpoints_in, legal_logits
from ..players.policy import load_policy_agent
from ..players.registry import SHIPPED_VALUE, VALUE_SUFFIX, PlayerKind, parse_player, split_names
from ..players.value import load_value_agent
from ..rules import Rules
from . import seating as KS
from .batched import VectorEngine, check_engine_size
from .scripted import BATCHED_PLAYERS
from .segments import Listing, SegmentLister
from .value import BatchedValuePlayer


def _mix(opponents) -> tuple[np.ndarray, dict[str, float]]:
    """The scripted players' weights (an array over BATCHED_PLAYERS) and the checkpoints'
    ({path: weight}) from a name, a list of names (equal weights; or the names separated by
    commas) or a {name: weight} mapping; a name is a batched scripted player or a checkpoint
    (`players.registry.parse_player`)."""
    opponents = split_names(opponents)
    if isinstance(opponents, dict):
        items = list(opponents.items())
    else:
        try:
            items = [(name, 1.0) for name in opponents]
        except TypeError:
            raise ValueError(f"opponents must be a name, a list of names or a {{name: weight}} "
                             f"mapping, got {checks.shown(opponents)}") from None
    if not items:
        raise ValueError("opponents must name at least one player")
    scripted = np.zeros(len(BATCHED_PLAYERS))
    paths: dict[str, float] = {}
    for name, w in items:
        checks.number(w, f"the weight of {checks.shown(name)}", minimum=0)
        if isinstance(name, str) and name in BATCHED_PLAYERS:
            scripted[BATCHED_PLAYERS.index(name)] += w
            continue
        try:
            spec = parse_player(name, what="opponent", exists=False)
        except ValueError:
            spec = None
        if spec is None or spec.kind not in (PlayerKind.CHECKPOINT, PlayerKind.VALUE) or \
                spec.path is None:
            raise ValueError(f"no batched player {checks.shown(name)}; the vector env's "
                             f"opponents are {', '.join(BATCHED_PLAYERS)}, checkpoint paths "
                             f"(.zip) or value players ({', '.join(SHIPPED_VALUE)} or .npz "
                             f"paths)")
        parse_player(spec, what="opponent")  # its file exists
        paths[spec.path] = paths.get(spec.path, 0.0) + float(w)
    if scripted.sum() + sum(paths.values()) <= 0:
        raise ValueError("the opponents' weights must not all be zero")
    return scripted, paths


def _autoreset_mode(mode) -> AutoresetMode:
    """`mode` as an `AutoresetMode`: SAME_STEP or NEXT_STEP, their values or their names."""
    allowed = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
    if isinstance(mode, AutoresetMode) and mode in allowed:
        return mode
    if isinstance(mode, str):
        for m in allowed:
            if mode == m.value or mode.upper() == m.name:  # "NextStep" or "next_step"
                return m
    raise ValueError(f"autoreset_mode must be one of "
                     f"{', '.join(repr(m.value) for m in allowed)} (gymnasium.vector."
                     f"AutoresetMode), got {checks.shown(mode)}")


def make_vector_env(num_envs: int = 1, *, opponents: Any = "expert",
                    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                    illegal_action: str = "raise", render_mode: str | None = None,
                    pile_depth: int = PILE_DEPTH, **kwargs: Any) -> SkipBoVectorEnv:
    """The `vector_entry_point` of ``SkipBo-v0``: ``gymnasium.make_vec("SkipBo-v0",
    num_envs=N)`` (Gymnasium picks this entry point by default, and with
    ``vectorization_mode="vector_entry_point"``) builds a `SkipBoVectorEnv` with `SkipBo-v0`'s
    defaults (opponents ``expert``) in Gymnasium's default autoreset mode, NEXT_STEP. Other
    keywords are `SkipBoVectorEnv`'s; of `SkipBo-v0`'s own, those the batched env cannot
    honour are refused unless at the value it has: it raises on an illegal action
    (``illegal_action="raise"``), does not render, and observes `PILE_DEPTH` cards a pile."""
    if illegal_action != "raise":
        raise ValueError(f"the batched env raises ValueError on an illegal action; "
                         f"illegal_action={illegal_action!r} needs vectorization_mode='sync' "
                         f"(SkipBo-v0 stacked)")
    if render_mode is not None:
        raise ValueError(f"the batched env does not render; render_mode={render_mode!r} needs "
                         f"vectorization_mode='sync'")
    if pile_depth != PILE_DEPTH:
        raise ValueError(f"the batched env observes {PILE_DEPTH} cards of each pile; "
                         f"pile_depth={pile_depth!r} needs vectorization_mode='sync'")
    return SkipBoVectorEnv(num_envs=num_envs, opponents=opponents,
                           autoreset_mode=autoreset_mode, **kwargs)


def load_opponent(path: str, engine: VectorEngine):
    """The opponent of checkpoint `path` in the games of `engine`: a value player's network
    (``.npz``, `BatchedValuePlayer`) or a policy network (`load_opponent_policy`)."""
    if path.endswith(VALUE_SUFFIX):
        agent = load_value_agent(path, engine.rules)  # its card and inputs checked
        return BatchedValuePlayer(agent.net, engine, path)
    return load_opponent_policy(path, engine.rules)


def load_opponent_policy(path: str, rules):
    """The policy network of checkpoint `path` (the safe loader, players/policy.py), checked to
    fit `rules` and the batched engine's observation; it plays deterministically."""
    import torch

    threads = torch.get_num_threads()
    try:
        agent = load_policy_agent(path, rules)
    finally:
        torch.set_num_threads(threads)  # the loader sets one thread for single moves
    if agent.pile_depth != PILE_DEPTH:
        raise ValueError(f"checkpoint {path} observes {agent.pile_depth} cards of each pile; the "
                         f"batched engine observes {PILE_DEPTH}")
    agent.model.set_training_mode(False)
    return agent.model


class SkipBoVectorEnv(gym.vector.VectorEnv):
    """`num_envs` games in the batched engine; in each the learner plays one seat and the
    others are played by batched scripted players (`random`, `naive`, `greedy`, `expert`) or
    frozen policies (checkpoint paths, and with `self_play` the learner's past selves) or value
    players (``value_standard_2p``, ``value_short_2p`` or an ``.npz`` path), drawn afresh for
    every seat of every game by `opponents`' weights.

    Scripted seats play inside the engine. Policy seats are played between the learner's steps:
    the env gathers the games whose seat to act is a policy's, evaluates each policy once on
    all of its games together (torch, no gradients, masked, the most likely legal action, as
    a checkpoint opponent plays in `SkipBo-v0`), applies the actions and lets the scripted
    seats play on, until every game is back at the learner's turn. A value player lists the
    segments of all of its games at once, evaluates its network on every candidate position
    together and plays each game's best segment move by move (`vector.value`), choosing as
    `ValueAgent` does in `SkipBo-v0`.

    `self_play` (a weight) with `pool` (a directory): the newest `pool_size` ``*.zip``
    checkpoints in `pool` (`checkpoints.checkpoints_in`: by step, as the trainer names them) are
    opponents too, one drawn uniformly for each seat given to self-play. The directory is
    listed at `reset` and by `refresh_pool()` (the trainer calls it after saving a snapshot);
    until it holds a checkpoint, the self-play share goes to the other opponents. A game keeps
    its opponents until it ends, even when the pool moves on.

    The single-game spaces and rewards are those of `SkipBo-v0` (`SkipBoEnv`): the learner's
    observation (docs/observation.md), Discrete actions, +1/-1 for a win/loss at the end
    (0 for a draw or a game cut off at the turn limit) plus `stock_reward` per card the
    learner plays from its team's stocks and `opponent_stock_reward` (for a zero-sum shaping,
    minus `stock_reward`) per card the other teams' stocks lose from the learner's move to its
    next turn or the game's end. `action_masks()` gives the learner's legal actions
    for sb3-contrib, and ``infos["action_mask"]`` the same as int8.

    `autoreset_mode` (Gymnasium's `AutoresetMode` or its value): ``SAME_STEP`` (the default
    here, what the SB3 wrapper and the trainer use): a finished game is replaced at once,
    the returned observation is the new game's, the last one is in ``infos["final_obs"]``
    and the last step's info in ``infos["final_info"]`` where ``infos["_final_obs"]`` and
    ``infos["_final_info"]`` are set. ``NEXT_STEP`` (Gymnasium's default, and what
    `gymnasium.make_vec("SkipBo-v0", ...)` builds): the step that ends a game returns its
    last observation; the next step ignores that game's action (its mask is all ones) and
    returns the first observation of the game dealt in its place, with reward 0. Every info
    key ``k`` comes with its mask ``_k``, as Gymnasium's vector envs give them. With a tiny
    stock the other seats can finish a game before the learner's first turn; such deals
    are skipped. Seeded, everything repeats.
    """

    # gymnasium declares metadata an instance attribute, set on the class by convention.
    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP}  # noqa: RUF012

    def __init__(self, variant: str = "standard", num_players: int = 2, num_envs: int = 64,
                 opponents: Any = ("random", "naive", "greedy"), seat: int | str = "random",
                 stock_reward: float = 0.0, opponent_stock_reward: float = 0.0,
                 copy: bool = True, self_play: float = 0.0,
                 pool: str | None = None, pool_size: int = 8,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 **overrides: Any):
        self.autoreset_mode = _autoreset_mode(autoreset_mode)
        self.metadata = {"autoreset_mode": self.autoreset_mode}
        num_envs = check_engine_size(Rules.preset(variant, num_players, **overrides), num_envs,
                                     name="num_envs")  # named as the caller named it
        self.engine = VectorEngine(variant, num_players, num_games=num_envs, **overrides)
        self.rules = self.engine.rules
        self._overrides = dict(overrides)
        self._next_engine: VectorEngine | None = None
        n = self.rules.num_players
        seat = checks.seat_or_random(seat, n)
        self.stock_reward = checks.number(stock_reward, "stock_reward")
        self.opponent_stock_reward = checks.number(opponent_stock_reward,
                                                   "opponent_stock_reward")
        self.copy = checks.boolean(copy, "copy")
        self.self_play = checks.number(self_play, "self_play", minimum=0)
        self.pool_size = checks.integer(pool_size, "pool_size", minimum=1, maximum=1024)
        if self.self_play > 0 and not (isinstance(pool, str) and pool and "\0" not in pool):
            raise ValueError("self_play needs pool, the directory of the learner's past "
                             "policies (a non-empty path)")
        self.pool = pool
        self.num_envs = self.engine.num_games
        self.seat_option = -1 if seat == "random" else int(seat)
        scripted, paths = _mix(opponents)
        # Policy slot k is kind KS.POLICY + k: the fixed checkpoints first, then snapshots of
        # the pool as they are found (a dropped one's slot is emptied, never reused).
        self._policies: list[Any] = [load_opponent(p, self.engine) for p in paths]
        self._slot_weights = list(paths.values())
        self._fixed = len(paths)
        self._pool_slots: dict[str, int] = {}  # live snapshot path -> slot
        self._scripted = scripted
        self.single_observation_space = spaces.Box(0.0, 1.0, (self.engine.obs_size,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(self.engine.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.seating = KS.Seating(kinds=np.zeros((self.num_envs, n), dtype=np.int64),
                                  learner=np.zeros(self.num_envs, dtype=np.int64),
                                  weights=np.ones(1), rewards=np.zeros(self.num_envs),
                                  status=np.zeros(self.num_envs, dtype=np.int64),
                                  others_before=np.zeros(self.num_envs, dtype=np.int64),
                                  opponent_stock_reward=np.array(
                                      [self.opponent_stock_reward]))
        self._set_weights()
        self.learner, self.kinds = self.seating.learner, self.seating.kinds
        self._pending = np.zeros(self.num_envs, dtype=bool)  # NEXT_STEP: shown ended, not yet new
        self._lister: SegmentLister | None = None
        self._all = np.ones(self.num_envs, dtype=bool)
        self._ready = False

    @property
    def weights(self) -> np.ndarray:
        """Cumulative weights over the kinds: BATCHED_PLAYERS, then the policy slots."""
        return self.seating.weights

    def _set_weights(self) -> None:
        live = list(self._pool_slots.values())
        raw = np.concatenate([self._scripted, np.array(self._slot_weights, dtype=float)])
        if self.self_play > 0 and live:
            raw[KS.POLICY + np.array(live)] = self.self_play / len(live)
        if raw.sum() <= 0:
            raise ValueError("the opponents' weights must not all be zero (the self-play "
                             "pool is empty)")
        cumulative = np.cumsum(raw / raw.sum())
        cumulative[-1] = 1.0
        self.seating = self.seating._replace(weights=cumulative)

    def refresh_pool(self) -> int:
        """List the self-play directory again: its newest `pool_size` checkpoints become the
        self-play opponents (loaded with the safe loader); returns how many there are."""
        if self.self_play <= 0 or self.pool is None:
            return 0
        newest = checkpoints_in(self.pool)[-self.pool_size:]
        for path in [p for p in self._pool_slots if p not in newest]:
            slot = self._pool_slots.pop(path)
            self._slot_weights[slot] = 0.0
        for path in newest:
            if path not in self._pool_slots:
                policy = load_opponent_policy(path, self.rules)  # first: it may raise
                self._pool_slots[path] = len(self._policies)
                self._policies.append(policy)
                self._slot_weights.append(0.0)
        self._drop_unused()
        self._set_weights()
        return len(self._pool_slots)

    def _drop_unused(self) -> None:
        """Free the networks of slots no longer drawn that no game still plays against."""
        playing = set(np.unique(self.kinds[self.kinds >= KS.POLICY]) - KS.POLICY) \
            if self._ready else set()
        live = set(self._pool_slots.values())
        for slot in range(self._fixed, len(self._policies)):
            if slot not in live and slot not in playing:
                self._policies[slot] = None

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every game (a seed repeats the deals, seats, opponents and their moves)."""
        if options:
            raise ValueError(f"SkipBoVectorEnv.reset takes no options, got {sorted(options)}")
        self._ready = False
        if self._next_engine is not None:
            self._switch_engine()
        e = self.engine
        self.refresh_pool()
        e.seed(seed)  # the games' and the players' generators, as e.reset(seed) seeds them
        for player in self._value_players():
            player.forget()
        KS.env_reset(e.state, e.static, e.buffers, self.seating, self.seat_option)
        e._ready = True
        self._play_policies()
        self._pending[:] = False
        self._ready = True
        return self._out(e.obs), self._infos(self.learner.copy())

    def step(self, actions):
        """The learner's action in every game, then the other seats' until its next turn."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        e = self.engine
        pending = self._pending.any()
        if pending:  # NEXT_STEP: these games' actions are ignored (any legal one is checked)
            actions = np.array(actions, copy=True)
            if actions.shape == (self.num_envs,) and actions.dtype.kind in "iu":
                actions[self._pending] = e.masks[self._pending].argmax(1)
        actions = e.check_actions(actions)
        if pending:
            actions[self._pending] = -1  # the kernel leaves these rows as they are
        seats = self.learner.copy()
        # Until every game is back at the learner's turn, the env is not ready for a step
        # (a policy that fails leaves it so: reset() starts afresh).
        self._ready = False
        KS.env_step(e.state, e.static, e.buffers, self.seating, self.seat_option,
                    self.stock_reward, actions)
        self._play_policies()
        self._ready = True
        if self._next_engine is not None:
            e = self._switch_engine()
        done = e.terminated | e.truncated
        rewards, terminated, truncated = (self.seating.rewards.copy(), e.terminated.copy(),
                                          e.truncated.copy())
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._pending[:] = done
            if not done.any():
                return self._out(e.obs), rewards, terminated, truncated, \
                    self._infos(self.learner.copy())
            obs = e.obs.copy()
            obs[done] = e.final_obs[done]
            seat = np.where(done, seats, self.learner)
            return obs, rewards, terminated, truncated, self._infos(seat)
        infos = self._infos(self.learner.copy())
        if done.any():
            infos["final_obs"] = e.final_obs.copy()
            infos["_final_obs"] = done.copy()
            infos["final_info"] = {"seat": seats, "_seat": done.copy()}
            infos["_final_info"] = done.copy()
        return self._out(e.obs), rewards, terminated, truncated, infos

    def _infos(self, seat: np.ndarray) -> dict:
        return {"seat": seat, "_seat": self._all.copy(),
                "action_mask": self.action_masks().view(np.int8), "_action_mask": self._all.copy()}

    def set_stock_size(self, stock_size: int) -> None:
        """Play `stock_size` stock cards from the next step on (a curriculum step): that step
        cuts off the games in progress (truncated, their last observation in final_obs) and
        deals new ones, each row continuing its own generator; the spaces stay the same."""
        rules = dataclasses.replace(self.rules, stock_size=stock_size)  # checked there
        if rules == self.rules and self._next_engine is None:
            return
        overrides = {**self._overrides, "stock_size": rules.stock_size}
        self._next_engine = VectorEngine(rules.variant, rules.num_players,
                                         num_games=self.num_envs, **overrides)
        self._overrides = overrides
        if not self._ready:  # nothing in progress: the next reset deals with it
            self._switch_engine()

    def _switch_engine(self) -> VectorEngine:
        old, new = self.engine, self._next_engine
        assert new is not None
        self.engine, self.rules, self._next_engine = new, new.rules, None
        for player in self._value_players():
            player.bind(new)
        if not self._ready:
            return new
        # A game in progress is cut off; not a game already shown ended whose new deal waits
        # to be shown (NEXT_STEP): that row shows the new engine's deal instead.
        cut = ~(old.terminated | old.truncated | self._pending)
        old.final_obs[cut] = old.obs[cut]
        new.state.rng[:] = old.state.rng
        new.state.arng[:] = old.state.arng
        rewards = self.seating.rewards.copy()
        KS.env_reset(new.state, new.static, new.buffers, self.seating, self.seat_option)
        self._play_policies()
        self.seating.rewards[:] = rewards
        new.final_obs[:] = old.final_obs
        new.terminated[:] = old.terminated
        new.truncated[:] = old.truncated | cut
        new._ready = True
        return new

    def _play_policies(self) -> None:
        """Play the policy seats of every game waiting on one, each policy once per round on
        all of its games, until every game is at the learner's turn."""
        e, status = self.engine, self.seating.status
        while True:
            rows = np.flatnonzero(status)
            if not rows.size:
                return
            slots = self.kinds[rows, e.seats[rows]] - KS.POLICY
            actions = np.empty(rows.size, dtype=np.int64)
            for slot in np.unique(slots):
                which = slots == slot
                actions[which] = self._policy_actions(int(slot), rows[which])
            KS.policy_step(e.state, e.static, e.buffers, self.seating, self.seat_option, rows,
                           actions)

    def _value_players(self) -> list[BatchedValuePlayer]:
        return [p for p in self._policies if isinstance(p, BatchedValuePlayer)]

    def _policy_actions(self, slot: int, rows: np.ndarray) -> np.ndarray:
        """Policy `slot`'s most likely legal action in each of games `rows` (what its
        `predict(..., deterministic=True)` chooses: `players.checkpoints.legal_logits`), or a
        value player's next move there (`BatchedValuePlayer`)."""
        import torch

        e = self.engine
        policy = self._policies[slot]
        if isinstance(policy, BatchedValuePlayer):
            return policy.actions(rows)
        legal = legal_logits(policy, e.obs[rows], e.masks[rows])
        if not torch.isfinite(legal.amax(1)).all():  # a NaN or no legal action
            raise RuntimeError(f"the policy of opponent slot {slot} gave no usable "
                               f"action scores (not a number, or no legal action)")
        return legal.argmax(1).numpy().astype(np.int64)

    def action_masks(self) -> np.ndarray:
        """[num_envs, actions] bool: the learner's legal actions in every game (all True in a
        game whose end the last step showed, in autoreset mode NEXT_STEP: its action is
        ignored)."""
        masks = self.engine.masks.astype(bool)
        masks[self._pending] = True
        return masks

    def _out(self, obs: np.ndarray) -> np.ndarray:
        return obs.copy() if self.copy else obs

    def turn_segments(self) -> Listing:
        """The learner's turn segments in every game (`skipbo_env.vector.segments`,
        docs/segments.md): game i's are rows ``offsets[i]:offsets[i + 1]`` of the listing,
        each with its action sequence (step its actions one per `step`) and the observation of
        the position it reaches from the learner's seat. A game shown ended and not yet dealt
        again has none."""
        if self._lister is None or self._lister.engine is not self.engine:
            self._lister = SegmentLister(self.engine)
        return self._lister.list(~self._pending)

    def game(self, i: int):
        """Game i as a reference `Game` (a copy), for inspection and tests."""
        return self.engine.game(i)

    def __repr__(self) -> str:
        names = [f"{name} {w:.2f}" for name, w in
                 zip(BATCHED_PLAYERS, np.diff(self.weights, prepend=0.0)) if w > 0]
        policies = np.diff(self.weights, prepend=0.0)[KS.POLICY:]
        if (policies > 0).any():
            names.append(f"{int((policies > 0).sum())} policies {policies.sum():.2f}")
        return (f"SkipBoVectorEnv({self.rules.variant!r}, {self.rules.num_players} players, "
                f"{self.num_envs} games, opponents {', '.join(names)})")
