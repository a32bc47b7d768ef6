"""The search players: `lookahead` (`expert` play, plus determinised rollouts at the choices
that matter) and `lookahead:CHECKPOINT` (the same search around a trained policy, which is
its move prior and its own moves in the rollouts); docs/agents.md."""

from __future__ import annotations

import numpy as np

from .. import checks
from ..engine import Game
from ..state import Phase
from ..view import SeatView
from .base import first_of, legal_plays, toll_or_none
from .scripted import ExpertAgent


class LookaheadAgent(ExpertAgent):
    """A search player: at each choice that matters it tries every distinct legal action,
    each followed by `expert` play for everyone until the end of its own next turn, in
    `samples` deals of the hidden cards consistent with its view (determinisation, the same
    deals for every action), and takes the action with the best mean outcome: the lead in
    stock cards over the closest opponent, a game won or lost counting `WIN` cards more.

    Playing its own stock top is never searched (a number goes where `expert` puts it), nor is
    a toll; everything else is: which cards to play and where, when to stop, what to discard,
    and in Skip-Bo Masters which coin plays and purchases to make (`expert`'s choice, the one
    to beat, spends coins as `ExpertAgent._coin_step` says, and so do the rollouts).
    `rollouts` caps the rollouts one decision may spend (None, the default: no cap, the
    play measured in docs/agents.md). Under a cap the deals are shared out: every distinct
    action gets ``min(samples, rollouts // actions)`` deals (at least two; when the cap cannot
    give each action two, `expert`'s choice is played unsearched), the follow-up only what is
    left. The cap counts rollouts, not seconds, so play stays a function of the seed.
    Mirror: none (a search player; it runs on the reference engine)"""

    name = "lookahead"
    SAMPLES = 16
    WIN = 10
    Z = 2.0  # how many standard errors an action must beat expert's by to be taken instead
    Z_FOLLOW = 1.0  # actions this promising after the first deals get more deals ...
    FOLLOW_UP_ACTIONS = 3  # ... at most this many of them ...
    FOLLOW_UP = 3  # ... and this many times `samples` more deals

    def __init__(self, seed: int = 0, samples: int = SAMPLES, rollouts: int | None = None):
        super().__init__(seed)
        self.samples = checks.integer(samples, "samples", minimum=2)
        self.rollouts = None if rollouts is None else checks.integer(rollouts, "rollouts",
                                                                     minimum=2)

    def choose(self, view: SeatView) -> int:
        toll = toll_or_none(view)
        if toll is not None:
            return toll
        plays = legal_plays(view)
        if plays:
            # Reaching the stock top is the aim of the game: that part is expert's.
            action = first_of(view, plays, self._stock_play, self._chain_step)
            if action is not None:
                return action
        expert = ExpertAgent.choose(self, view)
        if len(view.legal_actions) == 1:
            return expert
        budget = self.rollouts
        games = [Game.from_view(view, self.rng)
                 for _ in range(self.samples if budget is None else 1)]
        candidates = self._distinct(view, games[0], expert)
        if len(candidates) == 1:
            return expert
        follow_up = self.samples * self.FOLLOW_UP
        if budget is not None:
            deals = min(self.samples, budget // len(candidates))
            if deals < 2:
                return expert  # the cap cannot pay for a search worth the name
            games += [Game.from_view(view, self.rng) for _ in range(deals - 1)]
            budget -= deals * len(candidates)
        values = self._values(view, candidates, games)
        z = self._z(values)
        # The promising actions (and expert's) get `FOLLOW_UP` times as many more deals.
        promising = [i for i in np.argsort(-z)[:self.FOLLOW_UP_ACTIONS] if z[i] > self.Z_FOLLOW]
        if promising and budget is not None:
            follow_up = min(follow_up, budget // (len(promising) + 1))
        if promising and follow_up > 0:
            more = [Game.from_view(view, self.rng) for _ in range(follow_up)]
            keep = [candidates[0]] + [candidates[i + 1] for i in promising]
            values = np.concatenate([values[[0] + [i + 1 for i in promising]],
                                     self._values(view, keep, more)], axis=1)
            z, candidates = self._z(values), keep
        best = int(np.argmax(z))
        return candidates[best + 1] if z[best] > self.Z else expert

    def _values(self, view: SeatView, actions: list[int], games: list[Game]) -> np.ndarray:
        """The rollout outcome of each action (rows) in each sampled game (columns)."""
        values = np.empty((len(actions), len(games)))
        for i, action in enumerate(actions):
            for j, game in enumerate(games):
                trial = game.clone()
                trial.step(action)
                values[i, j] = self._rollout(trial, view)
        return values

    @staticmethod
    def _z(values: np.ndarray) -> np.ndarray:
        """How many standard errors each action's outcome beats the first's (expert's) by,
        paired over the same deals."""
        diff = values[1:] - values[0]
        err = diff.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
        mean = diff.mean(axis=1)
        with np.errstate(invalid="ignore"):
            sure = np.sign(mean) * np.inf
        # The same gain in every deal is as sure as the samples can say.
        return np.where(err > 0, mean / np.maximum(err, 1e-12), np.nan_to_num(sure, nan=0.0))

    def _distinct(self, view: SeatView, game: Game, first: int) -> list[int]:
        """`first`, then the other legal actions, one per distinct outcome of what the seat
        can see."""
        seen, out = set(), []
        for action in (first, *view.legal_actions):
            trial = game.clone()
            trial.step(action)
            key = (tuple(sorted(map(tuple, trial.building))), trial.phase, trial.current_player,
                   tuple(sorted(trial.hands[view.seat])),
                   tuple(map(tuple, trial.stacks[view.seat])),
                   tuple(map(tuple, trial.discards[view.seat])),
                   tuple(map(len, trial.stocks)), tuple(trial.coins),
                   tuple(trial.pile_coins), trial.pending_pile)
            if key not in seen:
                seen.add(key)
                out.append(action)
        return out

    def _rollout(self, game: Game, view: SeatView) -> float:
        """Expert play for every seat until the end of this seat's next turn; the outcome."""
        n, seat = view.rules.num_players, view.seat
        end = view.turn + n + 1
        self._play_out(game, seat, end)
        teams = view.rules.teams or [(p,) for p in range(n)]
        left = {team: sum(len(game.stocks[s]) for s in team) for team in teams}
        mine = next(team for team in teams if seat in team)
        value = float(min(v for team, v in left.items() if team != mine) - left[mine])
        if game.phase == Phase.WON:
            value += self.WIN if seat in game.winners else -self.WIN
        return value

    def _play_out(self, game: Game, seat: int, end: int) -> None:
        """A rollout's moves: `expert` for every seat until turn `end` or the end."""
        choose = ExpertAgent.choose
        while not game.is_over and game.turn < end:
            game.step(choose(self, game.view(game.current_player)))


class PolicyLookaheadAgent(LookaheadAgent):
    """`lookahead:CHECKPOINT`: a trained policy with a search on top. The policy is the move
    prior: its most likely legal action is played outright when it is at least `SURE` likely
    (or the only one), else the `top` most likely actions with distinct outcomes (each at
    least `MIN_PRIOR` likely) are searched as `lookahead` searches: `samples` determinised deals
    of the hidden cards, the same for every action, each action followed by a rollout to the
    end of this seat's next turn in which the policy plays this seat and `expert` the others;
    an action replaces the policy's choice only when it beats it by `Z` standard errors
    (paired over the deals). A toll is paid as `expert` pays it. `rollouts` caps the rollouts
    a decision may spend (None: ``top * samples``); play is a function of the seed.
    Mirror: none (a search player; it runs on the reference engine)"""

    name = "lookahead:policy"
    SAMPLES = 6
    TOP = 3
    SURE = 0.9
    MIN_PRIOR = 0.02
    Z = 2.0

    def __init__(self, policy, seed: int = 0, samples: int = SAMPLES, top: int = TOP,
                 rollouts: int | None = None):
        super().__init__(seed, samples=samples, rollouts=rollouts)
        self.policy = policy  # a players.policy.PolicyAgent, deterministic
        self.top = checks.integer(top, "top", minimum=2)

    def choose(self, view: SeatView) -> int:
        toll = toll_or_none(view)
        if toll is not None:
            return toll
        game = Game.from_view(view, self.rng)
        probs = self.policy.probabilities(view)
        order = [int(a) for a in np.argsort(-probs, kind="stable") if probs[a] > 0]
        best = order[0]
        if len(order) == 1 or probs[best] >= self.SURE:
            return best
        wanted = [a for a in order if probs[a] >= self.MIN_PRIOR or a == best]
        candidates = self._distinct(view, game, best)
        candidates = [a for a in candidates if a in wanted]
        candidates.sort(key=lambda a: -probs[a])
        candidates = candidates[:self.top]
        if len(candidates) < 2:
            return best
        deals = self.samples
        if self.rollouts is not None:
            deals = min(deals, self.rollouts // len(candidates))
            if deals < 2:
                return best  # the cap cannot pay for a search worth the name
        games = [game] + [Game.from_view(view, self.rng) for _ in range(deals - 1)]
        z = self._z(self._values(view, candidates, games))
        i = int(np.argmax(z))
        return candidates[i + 1] if z[i] > self.Z else best

    def _play_out(self, game: Game, seat: int, end: int) -> None:
        """A rollout's moves: the policy for this seat, `expert` for the others."""
        choose, policy = ExpertAgent.choose, self.policy
        while not game.is_over and game.turn < end:
            p = game.current_player
            game.step(policy.act(game.view(p)) if p == seat else choose(self, game.view(p)))

    def __repr__(self) -> str:
        return f"PolicyLookaheadAgent({self.policy.path!r})"
