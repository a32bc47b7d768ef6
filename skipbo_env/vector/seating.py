"""Numba kernels of the single-agent vector env (`env.SkipBoVectorEnv`): who sits in each seat
of each game (the learner, batched scripted players, policy slots), the scripted seats' moves
between the learner's, and the learner's rewards."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .bundles import TRUNCATED, WON, S, entry, jit, next_chunk
from .generator import agent_random
from .observe import encode
from .play_rules import (
    deal,
    is_over,
    legal_mask,
    legal_mask_inline,
    others_stock,
    step_game,
    team_stock,
)
from .scripted import BATCHED_PLAYERS, agent_action

POLICY = len(BATCHED_PLAYERS)  # seating kinds from POLICY on are policy slots (kind - POLICY)


class Seating(NamedTuple):
    """Who plays each game of the vector env, and what the learner earned this step."""

    kinds: np.ndarray  # [games, seats]: the scripted player (RANDOM, ..., EXPERT) per seat,
    #                    or POLICY + k for the vector env's policy slot k
    learner: np.ndarray  # [games]: the learner's seat
    weights: np.ndarray  # cumulative weights over the kinds (BATCHED_PLAYERS, then the slots)
    rewards: np.ndarray  # [games] float64: the learner's reward of the last step
    status: np.ndarray  # [games] int64: LEARNER, PLAYED or REPLACED (below)
    others_before: np.ndarray  # [games] int64: the other teams' stock cards before the
    #                            learner's last move (for opponent_stock_reward)
    opponent_stock_reward: np.ndarray  # [1] float64: the learner's reward per card the other
    #                                    teams play from their stocks until its next turn


# A row's status in the vector env: the learner is to act (observed); a policy seat is to act in
# the game the learner moved in this step; or in a game dealt after the learner's game ended
# (or at reset), whose result is already recorded.
LEARNER, PLAYED, REPLACED = 0, 1, 2


@jit
def _new_seating(st, tb, seating, seat_option, g):
    """The learner's seat (seat_option, or at random when it is -1) and a player for every
    other seat (a scripted kind or a policy slot), drawn by the cumulative weights."""
    arng, weights, kinds = st.arng, seating.weights, seating.kinds
    n = tb.prm.n
    seat = seat_option
    if seat < 0:
        seat = agent_random(arng, g, n)
    seating.learner[g] = seat
    for p in range(n):
        pick = agent_random(arng, g, 1 << 30) / (1 << 30)
        kind = 0
        while kind < weights.shape[0] - 1 and pick >= weights[kind]:
            kind += 1
        kinds[g, p] = kind


@jit(inline="always")
def _opponents(st, tb, buf, seating, g):
    """Scripted seats play until the learner or a policy seat is to act or the game is over."""
    scal = st.scal
    while not is_over(st, g) and scal[g, S.cur] != seating.learner[g]:
        kind = seating.kinds[g, scal[g, S.cur]]
        if kind >= POLICY:
            return
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        a = agent_action(kind, st, tb, buf.masks, buf.nlegal, buf.seen, g)
        step_game(st, tb, g, a)


@jit
def _settle(st, tb, buf, seating, seat_option, g):
    """After a move in game g: the scripted seats play on. A game over is scored for the
    learner once per learner step (status PLAYED: +-1 into seating.rewards, terminated or
    truncated, final_obs from the learner's seat) and dealt again, seats drawn afresh (a game
    the others finish before the learner's first turn is dealt again unscored). Then the row
    waits for the learner (status LEARNER, observed from its seat) or for a policy seat (its
    seat in buf.seats, its mask and observation in buf.masks and buf.obs)."""
    scal, team_id = st.scal, tb.team_id
    while True:
        _opponents(st, tb, buf, seating, g)
        if not is_over(st, g):
            break
        if seating.status[g] == PLAYED:
            seat = seating.learner[g]
            _others_played(st, tb, seating, g)
            if scal[g, S.phase] == WON:
                won = team_id[scal[g, S.win]] == team_id[seat]
                seating.rewards[g] += 1.0 if won else -1.0
            buf.terminated[g] = scal[g, S.phase] != TRUNCATED
            buf.truncated[g] = scal[g, S.phase] == TRUNCATED
            encode(st, tb, buf, g, seat, buf.final_obs)
            seating.status[g] = REPLACED
        deal(st, tb, g)
        _new_seating(st, tb, seating, seat_option, g)
    cur = np.int64(scal[g, S.cur])
    buf.seats[g] = cur
    if cur == seating.learner[g]:
        if seating.status[g] == PLAYED:
            _others_played(st, tb, seating, g)
        seating.status[g] = LEARNER
    # Called, not inlined: once a learner step, beside the scripted moves (whose masks are
    # inlined), and inlining them here cost a first start 16 s of compiling.
    buf.nlegal[g] = legal_mask(st, tb, buf.masks, g)
    encode(st, tb, buf, g, cur, buf.obs)


@jit(inline="always")
def _reset_row(st, tb, buf, seating, seat_option, g):
    """Row g of `env_reset`."""
    deal(st, tb, g)
    _new_seating(st, tb, seating, seat_option, g)
    seating.status[g] = REPLACED
    seating.rewards[g] = 0.0
    buf.terminated[g] = False
    buf.truncated[g] = False
    _settle(st, tb, buf, seating, seat_option, g)


@jit
def _others_played(st, tb, seating, g):
    """The learner's move in game g is settled (its next turn or the game's end): its reward
    gains opponent_stock_reward per card the other teams' stocks lost since the move, as the
    single-game env's step pays it (envs/gym.py, SkipBoEnv.step)."""
    c = seating.opponent_stock_reward[0]
    if c != 0.0:
        t = tb.team_id[seating.learner[g]]
        seating.rewards[g] += c * (seating.others_before[g] - others_stock(st, tb, g, t))


@jit(inline="always")
def _step_row(st, tb, buf, seating, seat_option, stock_reward, a, g):
    """Row g of `env_step`; a negative action leaves the row as it is (autoreset mode
    NEXT_STEP: the step after a game's end only shows the game dealt in its place)."""
    if a < 0:
        seating.rewards[g] = 0.0
        buf.terminated[g] = False
        buf.truncated[g] = False
        return
    t = tb.team_id[seating.learner[g]]
    before = team_stock(st, tb, g, t)
    seating.others_before[g] = others_stock(st, tb, g, t)
    step_game(st, tb, g, a)
    seating.rewards[g] = stock_reward * (before - team_stock(st, tb, g, t))
    buf.terminated[g] = False
    buf.truncated[g] = False
    seating.status[g] = PLAYED
    _settle(st, tb, buf, seating, seat_option, g)


@jit(inline="always")
def _policy_row(st, tb, buf, seating, seat_option, a, g):
    """Row g of `policy_step`."""
    step_game(st, tb, g, a)
    _settle(st, tb, buf, seating, seat_option, g)


# What `env_rows` does in each of its rows.
DEAL, LEARNER_MOVE, POLICY_MOVE = range(3)


@entry(over="rows")
def env_rows(work, mode, st, tb, buf, seating, seat_option, stock_reward, rows, actions):
    """The vector env's one entry point (one kernel to compile for all it does), in games
    `rows`: DEAL deals them (`_reset_row`); LEARNER_MOVE plays actions[i] for the learner in
    game rows[i] (`_step_row`); POLICY_MOVE plays actions[i] for the policy seat to act there
    (`_policy_row`). Each then plays the scripted seats on (`_settle`)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for i in range(lo, hi):
            g = np.int64(rows[i])
            if mode == DEAL:
                _reset_row(st, tb, buf, seating, seat_option, g)
            elif mode == LEARNER_MOVE:
                _step_row(st, tb, buf, seating, seat_option, stock_reward, actions[i], g)
            else:
                _policy_row(st, tb, buf, seating, seat_option, actions[i], g)
        lo, hi = next_chunk(work)


def env_reset(st, tb, buf, seating, seat_option) -> None:
    """Deal every game, seat the learner and its opponents and play up to the learner's turn
    (or a policy seat's: status) and observe it."""
    every = np.arange(st.piles.shape[0], dtype=np.int64)
    env_rows(DEAL, st, tb, buf, seating, seat_option, 0.0, every, every)


def env_step(st, tb, buf, seating, seat_option, stock_reward, actions) -> None:
    """The learner's action in every game, then the scripted seats' until the learner's next
    turn or a policy seat's; a finished game is scored for the learner, observed into
    final_obs and replaced. A game whose action is negative is left as it is."""
    every = np.arange(st.piles.shape[0], dtype=np.int64)
    env_rows(LEARNER_MOVE, st, tb, buf, seating, seat_option, float(stock_reward), every,
             actions)


def policy_step(st, tb, buf, seating, seat_option, rows, actions) -> None:
    """The policy seats' actions in games `rows` (actions[i] in game rows[i]), then as
    `env_step` after the learner's: on to the learner's turn or the next policy seat's."""
    env_rows(POLICY_MOVE, st, tb, buf, seating, seat_option, 0.0,
             np.asarray(rows, dtype=np.int64), np.asarray(actions, dtype=np.int64))
