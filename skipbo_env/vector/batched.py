"""`VectorEngine`: many games of one rules set as arrays, advanced together by numba kernels."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import checks
from ..engine import Game
from ..players.registry import split_names
from ..rules import Rules
from . import kernels as K
from .bundles import Buffers, State, Static
from .scripted import BATCHED_PLAYERS, choose_all, play_games
from .tables import Tables, build_tables, game_dict, load_game, seed_states


def batched_kind(name: object) -> int:
    """The kernels' number of the batched scripted player `name`, else ValueError."""
    if not isinstance(name, str) or name not in BATCHED_PLAYERS:
        raise ValueError(f"no batched player {checks.shown(name)}; the batched engine has "
                         f"{', '.join(BATCHED_PLAYERS)}")
    return BATCHED_PLAYERS.index(name)


def agent_kinds(players: str | list[str], num_players: int) -> np.ndarray:
    """The kernels' numbers of batched scripted players, one per seat (a list of names, or
    the names separated by commas)."""
    names = split_names(players)
    if not isinstance(names, (list, tuple)):
        raise ValueError(f"players must be a list of names, got {checks.shown(players)}")
    if len(names) != num_players:
        raise ValueError(f"give one player for each of the {num_players} seats, got "
                         f"{len(names)}")
    return np.array([batched_kind(p) for p in names], dtype=np.int64)


MAX_ENGINE_BYTES = 8 * 2**30  # a VectorEngine's arrays, at most (raise it on a bigger machine)


def game_bytes(rules: Rules, tables: Tables | None = None) -> int:
    """The bytes of one game's arrays in a `VectorEngine` of `rules` (its state, observation,
    final observation, mask, rewards and caches)."""
    t = tables or build_tables(rules)
    return (t.num_piles * t.capacity                              # piles, int8
            + 4 * t.num_piles + 4 * t.num_scalars + 8 * 6 + 8     # lens, scalars, rngs
            + 2 * 4 * t.obs_size + t.num_actions                  # obs, final obs, mask
            + 8 * 3 + 4 * rules.num_players + 2                   # legal, seat, action, ends
            + 8 * rules.num_card_ids                              # cards seen
            + 4 * t.num_public_piles * t.param("o_pilew"))        # pile encodings


def engine_bytes(rules: Rules, num_games: int, tables: Tables | None = None) -> int:
    """The bytes of the arrays a `VectorEngine` of `num_games` games of `rules` allocates."""
    return num_games * game_bytes(rules, tables)


def check_engine_size(rules: Rules, num_games: int, tables: Tables | None = None,
                      name: str = "num_games") -> int:
    """`num_games` (a positive integer, named `name` in errors) if that many games of `rules`
    fit in MAX_ENGINE_BYTES, else ValueError saying how many fit: refused before anything is
    allocated, rather than failing (or being killed for memory) halfway through."""
    num_games = checks.integer(num_games, name, minimum=1, what="a positive integer")
    each = game_bytes(rules, tables)
    fit = MAX_ENGINE_BYTES // each
    if num_games > fit:
        need = (f"about {num_games * each / 2**30:,.1f} GiB" if num_games < 2**64
                else f"{each:,} bytes each")
        raise ValueError(f"{name}: {checks.shown(num_games)} games of these rules need {need} "
                         f"in the batched engine, over {MAX_ENGINE_BYTES / 2**30:g} GiB "
                         f"(skipbo_env.vector.batched.MAX_ENGINE_BYTES): at most {fit:,} fit; "
                         f"use fewer games")
    return num_games


class VectorEngine:
    """`num_games` games of one variant held as arrays and advanced in one call each step.

    ``reset(seed) -> (obs [N, D], mask [N, A], seat [N])`` deals every game and observes the
    player to act in each; ``step(actions [N]) -> (obs, mask, rewards [N, players],
    terminated [N], truncated [N], info)`` applies one action per game. Observations and
    action masks are those of the AEC env (docs/observation.md) for the seat to act. Finished
    games are scored (+1 for the winner or winning team, -1 for the others, 0 for a draw or
    a truncated game), observed into ``info["final_obs"]`` (rows for the games in
    ``info["done_index"]``, from the seat that acted last) and dealt again at once unless
    ``autoreset=False``, in which case they stay over and ignore their actions.

    Game i after ``reset(seed)`` is the reference ``Game(rules, seed=s_i)`` with
    ``s_i = np.random.default_rng(seed).integers(2**63, size=N)[i]``; a game dealt again
    continues its own generator (``Game(rules, seed=generator)``). The arrays returned are
    the engine's own buffers, overwritten by the next call: copy what you keep.

    The kernels read and write three bundles, public for code that runs kernels of its own
    (the vector env does): `state` (the games), `static` (the rules set's tables) and
    `buffers` (observations, masks, rewards and the observation's caches).
    """

    def __init__(self, variant: str = "standard", num_players: int = 2, num_games: int = 1024,
                 autoreset: bool = True, **overrides: Any):
        self._build(Rules.preset(variant, num_players, **overrides), num_games, autoreset)

    @classmethod
    def of(cls, rules: Rules, num_games: int = 1024, autoreset: bool = True) -> VectorEngine:
        """An engine of `num_games` games of `rules` (a `Rules`, as a game has them)."""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a skipbo_env.Rules, got {type(rules).__name__}")
        engine = cls.__new__(cls)
        engine._build(rules, num_games, autoreset)
        return engine

    def _build(self, rules: Rules, num_games: int, autoreset: bool) -> None:
        self.rules = rules
        self.autoreset = checks.boolean(autoreset, "autoreset")
        self.tables: Tables = build_tables(self.rules)
        self.num_games = check_engine_size(self.rules, num_games, self.tables)
        t, n = self.tables, self.num_games
        self.static: Static = t.static
        self.state = State(piles=np.zeros((n, t.num_piles, t.capacity), dtype=np.int8),
                           lens=np.zeros((n, t.num_piles), dtype=np.int32),
                           scal=np.zeros((n, t.num_scalars), dtype=np.int32),
                           rng=np.zeros((n, 6), dtype=np.uint64),
                           arng=np.zeros(n, dtype=np.uint64))
        obs = np.zeros((n, t.obs_size), dtype=np.float32)
        self.buffers = Buffers(
            obs=obs, masks=np.zeros((n, t.num_actions), dtype=np.int8),
            nlegal=np.zeros(n, dtype=np.int64), seats=np.zeros(n, dtype=np.int64),
            rewards=np.zeros((n, self.rules.num_players), dtype=np.float32),
            terminated=np.zeros(n, dtype=np.bool_), truncated=np.zeros(n, dtype=np.bool_),
            final_obs=np.zeros_like(obs), actions=np.zeros(n, dtype=np.int64),
            seen=np.zeros((n, self.rules.num_card_ids), dtype=np.int64),
            # Each public pile's encoded segment, redone only when the pile changes.
            cache=np.zeros((n, t.num_public_piles, t.param("o_pilew")), dtype=np.float32))
        # The bundles' arrays by name (the same arrays), for the caller's convenience.
        self.piles, self.lens, self.scal, self.rng = self.state[:4]
        self.agent_rng = self.state.arng
        b = self.buffers
        self.obs, self.masks, self.seats, self.num_legal = b.obs, b.masks, b.seats, b.nlegal
        self.rewards, self.terminated, self.truncated = b.rewards, b.terminated, b.truncated
        self.final_obs = b.final_obs
        self._ready = False

    @property
    def num_actions(self) -> int:
        """Size of the action space (the AEC env's)."""
        return self.tables.num_actions

    @property
    def obs_size(self) -> int:
        """Length of one observation (the AEC env's)."""
        return self.tables.obs_size

    def seed(self, seed: int | None = None) -> None:
        """Seed every game's deal generator and the players' generator as `reset` does,
        dealing nothing (the vector env deals with its own kernel)."""
        if seed is not None:
            checks.integer(seed, "seed", minimum=0, what="None or a non-negative integer")
        seeder = np.random.default_rng(seed)
        self.rng[:] = seed_states(seeder.integers(2**63, size=self.num_games))
        self.agent_rng[:] = seeder.integers(2**63, size=self.num_games).astype(np.uint64)

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every game; returns (observations, action masks, seats to act)."""
        self.seed(seed)
        K.reset_all(self.state, self.static, self.buffers)
        self._ready = True
        return self.obs, self.masks, self.seats

    def step(self, actions) -> tuple:
        """Apply one action in every game (ignored in games that are over)."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        actions = self.check_actions(actions)
        K.step_all(self.state, self.static, self.buffers, actions, self.autoreset)
        return self._outcome()

    def step_random(self) -> tuple:
        """Apply a uniformly random legal action in every game, drawn from the engine's own
        seeded agent generator (the actions taken are in ``info["actions"]``); otherwise as
        `step`. Random play for data and benchmarks without a round trip through Python."""
        if not self._ready:
            raise RuntimeError("call reset() before step_random()")
        K.step_random(self.state, self.static, self.buffers, self.autoreset)
        result = self._outcome()
        result[-1]["actions"] = self.buffers.actions
        return result

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action in every game (-1 where the game is over), from
        the engine's own seeded agent generator."""
        K.random_actions(self.state, self.buffers)
        return self.buffers.actions

    def scripted_actions(self, players) -> np.ndarray:
        """Each game's action by the batched scripted player in the seat to act (-1 where the
        game is over): `players` names one of "random", "naive", "greedy", "expert" per seat,
        or is an int array [num_games, players] of their numbers (0, 1, 2, 3)."""
        choose_all(self._kinds(players), self.state, self.static, self.buffers)
        return self.buffers.actions

    def play(self, players, games_per_row: int = 1) -> dict:
        """Play `games_per_row` whole games in every row with scripted `players` (as in
        `scripted_actions`), without observations; each row deals its next game from its own
        generator. Returns {"games", "wins" (per seat), "draws" (drawn or truncated),
        "actions"}; afterwards every row holds a fresh deal, observed."""
        if not self._ready:
            raise RuntimeError("call reset() before play()")
        games_per_row = checks.integer(games_per_row, "games_per_row", minimum=1)
        kinds = self._kinds(players)
        wins = np.zeros((self.num_games, self.rules.num_players), dtype=np.int64)
        actions = np.zeros(self.num_games, dtype=np.int64)
        play_games(kinds, self.state, self.static, self.buffers, games_per_row, wins, actions)
        self.observe_all()
        games = self.num_games * int(games_per_row)
        won = wins.sum(axis=0)
        return {"games": games, "wins": won.tolist(), "draws": games - int(won.sum()),
                "actions": int(actions.sum())}

    def _kinds(self, players) -> np.ndarray:
        n = self.rules.num_players
        if isinstance(players, np.ndarray) and players.dtype.kind in "iu":
            if players.shape != (self.num_games, n) or players.min() < 0 \
                    or players.max() >= len(BATCHED_PLAYERS):
                raise ValueError(f"players as an array must have shape ({self.num_games}, {n}) "
                                 f"and values 0..{len(BATCHED_PLAYERS) - 1}")
            return players.astype(np.int64, copy=False)
        return np.tile(agent_kinds(players, n), (self.num_games, 1))

    def observe_all(self) -> None:
        """Recompute every game's seat to act, mask and observation."""
        K.observe_all(self.state, self.static, self.buffers)

    def _outcome(self) -> tuple:
        done = np.flatnonzero(self.terminated | self.truncated)
        info = {"done_index": done, "final_obs": self.final_obs[done]}
        return self.obs, self.masks, self.rewards, self.terminated, self.truncated, info

    def check_actions(self, actions) -> np.ndarray:
        """`actions` as an int64 array of one legal action per game (anything in a game that
        is over); raises ValueError naming the first game whose action is not legal."""
        a = np.asarray(actions)
        if a.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {a.shape}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {a.dtype}")
        a = a.astype(np.int64, copy=False)
        bad = K.first_illegal(self.state, self.buffers, a)
        if bad >= 0:
            legal = np.flatnonzero(self.masks[bad]).tolist()
            raise ValueError(f"game {bad}: action {int(a[bad])} is not legal for player "
                             f"{int(self.seats[bad])}; legal actions are {legal}")
        return a

    # -- single games, for tests and inspection ------------------------------------------------
    def game(self, i: int) -> Game:
        """Game i as a reference `Game` (a copy)."""
        return Game.from_dict(self.state_dict(i))

    def state_dict(self, i: int) -> dict:
        """Game i as `Game.to_dict` writes it."""
        self._check_index(i)
        return game_dict(self.tables, self.state, i)

    def set_game(self, i: int, game: Game) -> None:
        """Put a copy of the reference `game` into row i and observe it."""
        self._check_index(i)
        if not isinstance(game, Game):
            raise TypeError(f"game must be a skipbo_env.Game, got {type(game).__name__}")
        load_game(self.tables, game, self.state, i)
        self.observe(i)
        self._ready = True

    def observe(self, i: int) -> None:
        """Recompute game i's mask and observation (after its arrays were written)."""
        self._check_index(i)
        K.observe(self.state, self.static, self.buffers, int(i))

    def _check_index(self, i: int) -> None:
        checks.integer(i, "game index", minimum=0, maximum=self.num_games - 1,
                       what=f"in 0..{self.num_games - 1}")

    def __repr__(self) -> str:
        return (f"VectorEngine({self.rules.variant!r}, {self.rules.num_players} players, "
                f"{self.num_games} games)")
