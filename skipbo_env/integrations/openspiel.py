"""Skip-Bo as an OpenSpiel Python game (the ``openspiel`` extra; docs/openspiel.md).

Importing this module registers ``python_skipbo`` with ``pyspiel``::

    import pyspiel
    import skipbo_env.integrations.openspiel  # registers the game
    game = pyspiel.load_game("python_skipbo", {"variant": "short", "players": 2})

Parameters: ``variant`` (a `Rules` preset), ``players``, ``stock_size`` (0: the variant's),
``stall_outcome`` ("" : the rules' default) and ``seed`` (-1: each initial state dealt from
fresh entropy; else the states a game object makes are dealt from that seed, in order).

Chance is sampled (``SAMPLED_STOCHASTIC``), not explicit: the reference engine deals by
shuffling the whole deck once and reshuffles the set-aside cards from its own generator, so a
state holds its generator and cards turn up as the engine draws them. Explicit chance nodes
would mean a node for every card dealt or drawn (324 cards in a standard deck) and an engine
that takes its cards from outside; no algorithm could enumerate a Skip-Bo deal anyway. The
algorithms for imperfect information that sample (ISMCTS, external sampling) need a
resampler instead: `SkipBoState.resample_from_infostate` re-deals what the seat cannot see
(`Game.from_view`).

What a seat observes is what the envs show it (`ObservationEncoder`, docs/observation.md):
the observation tensor is that encoding, the information-state tensor the same; the strings
are the table as the seat sees it (`text.render_table` with the seat), and the information-
state string adds the public history of actions. Neither shows another hand, a stock card
below the top or the draw order (tests/test_openspiel.py).
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ..engine import Game
from ..observation import ObservationEncoder
from ..rules import STALL_OUTCOMES, Rules
from ..text import render_table

SHORT_NAME = "python_skipbo"
DEFAULTS = {"variant": "standard", "players": 2, "stock_size": 0, "stall_outcome": "",
            "seed": -1}


def _game_type(utility) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Python Skip-Bo",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility, reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=6, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=DEFAULTS)


def rules_of(params: dict) -> Rules:
    """The rules a game's parameters name (ValueError naming a bad one)."""
    unknown = set(params) - set(DEFAULTS)
    if unknown:
        raise ValueError(f"unknown python_skipbo parameter(s) {sorted(unknown)}; known: "
                         f"{sorted(DEFAULTS)}")
    p = {**DEFAULTS, **params}
    overrides: dict = {}
    if p["stock_size"]:
        overrides["stock_size"] = p["stock_size"]
    if p["stall_outcome"]:
        if p["stall_outcome"] not in STALL_OUTCOMES:
            raise ValueError(f"stall_outcome must be one of {', '.join(STALL_OUTCOMES)}, got "
                             f"{p['stall_outcome']!r}")
        overrides["stall_outcome"] = p["stall_outcome"]
    return Rules.preset(p["variant"], p["players"], **overrides)


def zero_sum(rules: Rules) -> bool:
    """Whether the returns always sum to 0: two players, or two teams of equal size (the
    engine gives +1 to each winner and -1 to everyone else, 0 to all in a drawn game)."""
    if rules.teams is not None:
        return len({len(t) for t in rules.teams}) == 1 and len(rules.teams) == 2
    return rules.num_players == 2


class SkipBoGame(pyspiel.Game):
    """One rules set of Skip-Bo as an OpenSpiel game."""

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        self.rules = rules_of(params)
        self.seed = int({**DEFAULTS, **params}["seed"])
        rules = self.rules
        two_sided = zero_sum(rules)
        utility = (pyspiel.GameType.Utility.ZERO_SUM if two_sided
                   else pyspiel.GameType.Utility.GENERAL_SUM)
        info = pyspiel.GameInfo(
            num_distinct_actions=Game(rules, 0).layout.size, max_chance_outcomes=0,
            num_players=rules.num_players, min_utility=-1.0, max_utility=1.0,
            utility_sum=0.0 if two_sided else None,
            # a turn's actions reaching max_turn_moves truncate the game, as the turn limit
            # does (OpenSpiel keeps the length in a C++ int)
            max_game_length=min(rules.max_turns * rules.max_turn_moves, 2**31 - 1))
        super().__init__(_game_type(utility), info, {**DEFAULTS, **params})
        self._seeds = np.random.default_rng(None if self.seed < 0 else self.seed)

    def new_initial_state(self) -> SkipBoState:
        """A new deal (from the game's seed sequence when it has a seed)."""
        return SkipBoState(self, Game(self.rules, int(self._seeds.integers(2**63))))

    def make_py_observer(self, iig_obs_type=None, params=None) -> SkipBoObserver:
        """The observer of one seat's view (`SkipBoObserver`)."""
        if params:
            raise ValueError(f"python_skipbo's observer takes no parameters, got {params}")
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return SkipBoObserver(self.rules, recall)


class SkipBoState(pyspiel.State):
    """A position: the reference engine's `Game` and the actions played so far."""

    def __init__(self, game: SkipBoGame, position: Game, history: list[int] | None = None):
        super().__init__(game)
        self.position = position
        self.actions: list[int] = list(history or [])

    def current_player(self) -> int:
        if self.position.is_over:
            return pyspiel.PlayerId.TERMINAL
        return self.position.current_player

    def _legal_actions(self, player: int) -> list[int]:
        return self.position.legal_actions() if player == self.position.current_player else []

    def _apply_action(self, action: int) -> None:
        self.position.step(int(action))
        self.actions.append(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        position = self.position
        if not position.is_over and action in position.legal_actions():
            return position.describe(int(action))
        return f"action {action}"

    def is_terminal(self) -> bool:
        return self.position.is_over

    def returns(self) -> list[float]:
        return self.position.returns()

    def resample_from_infostate(self, player_id: int, probability_sampler=None) -> SkipBoState:
        """A state `player_id` cannot tell from this one: the cards it cannot see re-dealt at
        random (`Game.from_view`), the history kept. `probability_sampler` is not used: the
        engine's own generator draws the deal."""
        rng = np.random.default_rng(np.random.SeedSequence().entropy)
        view = self.position.view(player_id)
        return SkipBoState(self.get_game(), Game.from_view(view, rng), self.actions)

    def __deepcopy__(self, memo) -> SkipBoState:  # what OpenSpiel's clone() calls
        return SkipBoState(self.get_game(), self.position.clone(), self.actions)

    def __str__(self) -> str:
        return render_table(self.position)


class SkipBoObserver:
    """OpenSpiel's Python observer: one seat's observation as a tensor (the envs' encoding)
    and as text (the table as the seat sees it; with `perfect_recall`, plus the public
    history of actions)."""

    def __init__(self, rules: Rules, perfect_recall: bool):
        self.encoder = ObservationEncoder(rules)
        self.perfect_recall = perfect_recall
        self.tensor = np.zeros(self.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: SkipBoState, player: int) -> None:
        self.tensor[:] = self.encoder.encode(state.position, player)

    def string_from(self, state: SkipBoState, player: int) -> str:
        text = render_table(state.position, player)
        seen = f"seat {player}\n{text}"
        if self.perfect_recall:
            return seen + "\nhistory " + " ".join(map(str, state.actions))
        return seen


# -- ISMCTS ---------------------------------------------------------------------------------------
class StockLeadEvaluator:
    """An evaluator for OpenSpiel's MCTS and ISMCTS bots (the `mcts.Evaluator` interface)
    without rollouts: a finished game's returns; otherwise each seat's (its team's) lead in
    stock cards over the others' mean, over the stock size, clipped to [-1, 1] (random rollouts
    to the end of a Skip-Bo game run to hundreds of moves and say little). The prior is
    uniform over the legal actions."""

    def evaluate(self, state: SkipBoState) -> np.ndarray:
        game = state.position
        if game.is_over:
            return np.array(game.returns(), dtype=np.float64)
        rules, left = game.rules, [len(s) for s in game.stocks]
        values = []
        for seat in range(rules.num_players):
            team = rules.team_of(seat)
            mine = sum(left[q] for q in team) / len(team)
            others = [left[q] for q in range(rules.num_players) if q not in team]
            values.append((sum(others) / len(others) - mine) / rules.stock_size)
        return np.clip(np.array(values, dtype=np.float64), -1.0, 1.0)

    def prior(self, state: SkipBoState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def resampler(seed: int):
    """An ISMCTS resampler (`ISMCTSBot.set_resampler`) that re-deals what the seat to act
    cannot see from a generator seeded `seed`, so a seeded bot repeats its games."""
    rng = np.random.default_rng(seed)

    def resample(state: SkipBoState, player: int) -> SkipBoState:
        dealt = Game.from_view(state.position.view(player), rng)
        return SkipBoState(state.get_game(), dealt, state.actions)
    return resample


def ismcts_bot(game: SkipBoGame, simulations: int = 100, seed: int = 0, uct_c: float = 2.0):
    """OpenSpiel's ISMCTS bot for `game`: `simulations` a move, each on a fresh re-deal of the
    hidden cards (`resampler`), valued by `StockLeadEvaluator`; seeded, it repeats."""
    from open_spiel.python.algorithms import ismcts

    bot = ismcts.ISMCTSBot(game, StockLeadEvaluator(), uct_c, simulations,
                           max_world_samples=ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
                           random_state=np.random.RandomState(seed % 2**32),
                           allow_inconsistent_action_sets=True)
    bot.set_resampler(resampler(seed))
    return bot


pyspiel.register_game(_game_type(pyspiel.GameType.Utility.ZERO_SUM), SkipBoGame)
