"""Numba kernels of the batched scripted players and of the single-agent vector env.

`random`, `naive` and `greedy` are the reference players of skipbo_env/players/scripted.py on
arrays; tests/test_vector.py proves they choose the reference players' moves, and each names
its reference (`Mirror:`). Like the reference players they read only what the seat to act may
see: its own hand and the public piles. The kernels take the bundles of kernels.py (`State`,
`Static`, `Buffers`) and, for the vector env, a `Seating`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import prange

from .kernels import (
    FOLLOWUP,
    SRC_DISCARD,
    SRC_HAND,
    SRC_STOCK,
    TOLL,
    TRUNCATED,
    WON,
    A,
    S,
    agent_random,
    deal,
    encode,
    encode_inline,
    is_over,
    jit,
    legal_mask,
    legal_mask_inline,
    pick_random,
    static,
    step_game,
)

RANDOM, NAIVE, GREEDY = range(3)
AGENT_NAMES = ("random", "naive", "greedy")


class Seating(NamedTuple):
    """Who plays each game of the vector env, and what the learner earned this step."""

    kinds: np.ndarray  # [games, seats]: the scripted player (RANDOM, NAIVE, GREEDY) per seat
    learner: np.ndarray  # [games]: the learner's seat
    weights: np.ndarray  # cumulative weights over RANDOM, NAIVE, GREEDY for new seatings
    rewards: np.ndarray  # [games] float64: the learner's reward of the last step


@jit(inline="always")
def _toll(tb, masks, g):
    """While a toll is due: pay it when possible, else decline."""
    prm = tb.prm
    return prm.pay if masks[g, prm.pay] else prm.decline


@jit(inline="always")
def _source_card(st, tb, g, p, a):
    """The card play action a would play for player p."""
    piles, lens, prm, owners, act = st.piles, st.lens, tb.prm, tb.owners, tb.act
    src, index = act[a, A.src], act[a, A.index]
    if src == SRC_HAND:
        if prm.stacked:
            k = prm.hands + p * prm.hs + index
            return piles[g, k, lens[g, k] - 1]
        return index
    owner = owners[p, act[a, A.owner]]
    if src == SRC_STOCK:
        k = prm.stocks + owner
    else:
        k = prm.discs + owner * prm.d + index
    return piles[g, k, lens[g, k] - 1]


@jit(inline="always")
def naive_action(st, tb, masks, g):
    """The first play from the stock, else a discard-pile top, else the hand (by building
    pile, owner, index); else end the turn; else discard the card held longest onto discard
    pile 0.
    Mirror: players.scripted.NaiveAgent"""
    piles, scal, prm, act = st.piles, st.scal, tb.prm, tb.act
    if scal[g, S.phase] == TOLL:
        return _toll(tb, masks, g)
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if masks[g, a]:
            src = act[a, A.src]
            rank = 0 if src == SRC_STOCK else (1 if src == SRC_DISCARD else 2)
            key = (((rank * 16 + act[a, A.pile]) * 16 + act[a, A.owner]) * 64
                   + act[a, A.index]) * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if masks[g, prm.end]:
        return prm.end
    p = scal[g, S.cur]
    return prm.dbase + piles[g, prm.hands + p, 0] * prm.d


@jit
def greedy_action(st, tb, masks, g):
    """The own stock whenever it plays; else the play that brings a building pile closest
    below the stock card (discard tops, then teammates' stocks, then hand; numbers before
    wilds); junior games and coin follow-ups play the first play; else end the turn; else
    discard (`_greedy_discard`).
    Mirror: players.scripted.GreedyAgent"""
    piles, lens, scal, prm, act = st.piles, st.lens, st.scal, tb.prm, tb.act
    if scal[g, S.phase] == TOLL:
        return _toll(tb, masks, g)
    p = scal[g, S.cur]
    b, top = prm.b, prm.top
    for i in range(b):  # the own stock, onto the lowest building pile it fits
        a = prm.stocksrc * b + i
        if masks[g, a]:
            return a
    first_play = -1
    sk = prm.stocks + p
    target = -1
    if lens[g, sk]:
        target = piles[g, sk, lens[g, sk] - 1] % (top + 1)
        if target == 0:
            target = -1
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if not masks[g, a]:
            continue
        if first_play < 0:
            first_play = a
        if target < 0:
            continue
        shows = lens[g, prm.build + act[a, A.pile]]
        if shows + 1 < target:
            card = _source_card(st, tb, g, p, a)
            src = act[a, A.src]
            order = 0 if src == SRC_DISCARD else (1 if src == SRC_STOCK else 2)
            wild = 1 if card % (top + 1) == 0 else 0
            key = ((target - shows - 1) * 2 + wild) * 4 * 100000 + order * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if prm.stacked or scal[g, S.phase] == FOLLOWUP:
        if first_play >= 0:
            return first_play
        for a in range(masks.shape[1]):
            if masks[g, a]:
                return a
    if masks[g, prm.end]:
        return prm.end
    return _greedy_discard(st, tb, g, p)


@jit
def _greedy_discard(st, tb, g, p):
    """The highest number that lands on the same or the next-higher number, else onto an
    empty pile, else onto the pile whose top is closest above it.
    Mirror: players.scripted.GreedyAgent._discard"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    top, d, r = prm.top, prm.d, prm.r
    hk = prm.hands + p
    dk = prm.discs + p * d
    first = -1
    # The hand's cards in the reference order: numbers high to low, wilds last, ids ascending.
    for rank_step in range(top + 1):
        rank = top - rank_step if rank_step < top else 0
        card = rank
        while card < r:
            held = False
            for j in range(lens[g, hk]):
                if piles[g, hk, j] == card:
                    held = True
            if held:
                if first < 0:
                    first = card
                for i in range(d):
                    size = lens[g, dk + i]
                    if size:
                        shown = piles[g, dk + i, size - 1] % (top + 1)
                        if shown == rank or shown == rank + 1:
                            return prm.dbase + card * d + i
            card += top + 1
    for i in range(d):
        if lens[g, dk + i] == 0:
            return prm.dbase + first * d + i
    rank = first % (top + 1)
    best, best_key = 0, 0
    for i in range(d):
        shown = piles[g, dk + i, lens[g, dk + i] - 1] % (top + 1)
        key = (1 if shown < rank else 0) * 1000 + abs(shown - rank)
        if i == 0 or key < best_key:
            best, best_key = i, key
    return prm.dbase + first * d + best


@jit(inline="always")
def agent_action(kind, st, tb, masks, nlegal, g):
    """The action of scripted player `kind` (RANDOM, NAIVE or GREEDY) in game g, from its
    row of masks (and nlegal, its count of legal actions)."""
    if kind == NAIVE:
        return naive_action(st, tb, masks, g)
    if kind == GREEDY:
        return greedy_action(st, tb, masks, g)
    return pick_random(st.arng, masks, nlegal, g)


# The parallel kernels' loop bodies only call row kernels (kernels.py says why). In the loops
# that play scripted moves, the mask and the players' choice are inlined: a call passes the
# bundles' arrays by value, and two calls fewer per move are 30% more games a second.
@jit
def _choose(kinds, st, tb, buf, g):
    """Game g's action by its scripted player into buf.actions (-1 if it is over)."""
    if is_over(st, g):
        buf.actions[g] = -1
    else:
        buf.actions[g] = agent_action(kinds[g, st.scal[g, S.cur]], st, tb, buf.masks,
                                      buf.nlegal, g)


@jit(parallel=True)
def choose_all(kinds, st, tb, buf):
    """Every game's action by the scripted player kinds[g, seat to act], into buf.actions
    (-1 where the game is over)."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _choose(kinds, st, static(flat, owners, team_id, teams, act, deck, scale), buf, g)


@jit
def _play_row(kinds, st, tb, buf, games, wins, actions, g):
    """`games` whole games in row g (`play_games`)."""
    scal = st.scal
    done = 0
    while done < games:
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        a = agent_action(kinds[g, scal[g, S.cur]], st, tb, buf.masks, buf.nlegal, g)
        step_game(st, tb, g, a)
        actions[g] += 1
        if is_over(st, g):
            if scal[g, S.phase] == WON:
                wins[g, scal[g, S.win]] += 1
            done += 1
            deal(st, tb, g)


@jit(parallel=True)
def play_games(kinds, st, tb, buf, games, wins, actions):
    """Play `games` whole games in every row, seat by seat with kinds[g, seat], dealing each
    next game from the row's generator; counts wins per seat (draws and truncated games count
    for no one) and actions taken."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _play_row(kinds, st, static(flat, owners, team_id, teams, act, deck, scale), buf, games,
                  wins, actions, g)


# -- the single-agent vector env -----------------------------------------------------------------
@jit
def _new_seating(st, tb, seating, seat_option, g):
    """The learner's seat (seat_option, or at random when it is -1) and a scripted player for
    every other seat, drawn by the cumulative weights."""
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


@jit
def _opponents(st, tb, buf, seating, g):
    """Scripted seats play until the learner is to act or the game is over."""
    scal = st.scal
    while not is_over(st, g) and scal[g, S.cur] != seating.learner[g]:
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        a = agent_action(seating.kinds[g, scal[g, S.cur]], st, tb, buf.masks, buf.nlegal, g)
        step_game(st, tb, g, a)


@jit
def _fresh_game(st, tb, buf, seating, seat_option, g):
    """Deal until a game reaches the learner's turn (the scripted seats may finish a game with
    a tiny stock before it; such deals are skipped)."""
    while True:
        deal(st, tb, g)
        _new_seating(st, tb, seating, seat_option, g)
        _opponents(st, tb, buf, seating, g)
        if not is_over(st, g):
            return


@jit
def _observe_learner(st, tb, buf, seating, g):
    """The learner's mask and observation in game g (it is the learner's turn)."""
    buf.nlegal[g] = legal_mask(st, tb, buf.masks, g)
    encode(st, tb, buf, g, seating.learner[g], buf.obs)


@jit
def _reset_row(st, tb, buf, seating, seat_option, g):
    """Row g of `env_reset`."""
    _fresh_game(st, tb, buf, seating, seat_option, g)
    _observe_learner(st, tb, buf, seating, g)


@jit(parallel=True)
def env_reset(st, tb, buf, seating, seat_option):
    """Deal every game, seat the learner and its opponents, play up to the learner's turn and
    observe it."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _reset_row(st, static(flat, owners, team_id, teams, act, deck, scale), buf, seating,
                   seat_option, g)


@jit(inline="always")
def _team_stock(st, tb, g, t):
    """Stock cards left to team t in game g."""
    lens, prm, team_id = st.lens, tb.prm, tb.team_id
    left = 0
    for p in range(prm.n):
        if team_id[p] == t:
            left += lens[g, prm.stocks + p]
    return left


@jit
def _step_row(st, tb, buf, seating, seat_option, stock_reward, a, g):
    """Row g of `env_step`."""
    scal, team_id = st.scal, tb.team_id
    seat = seating.learner[g]
    t = team_id[seat]
    before = _team_stock(st, tb, g, t)
    step_game(st, tb, g, a)
    reward = stock_reward * (before - _team_stock(st, tb, g, t))
    _opponents(st, tb, buf, seating, g)
    buf.terminated[g] = False
    buf.truncated[g] = False
    if is_over(st, g):
        if scal[g, S.phase] == WON:
            reward += 1.0 if team_id[scal[g, S.win]] == t else -1.0
        buf.terminated[g] = scal[g, S.phase] != TRUNCATED
        buf.truncated[g] = scal[g, S.phase] == TRUNCATED
        encode(st, tb, buf, g, seat, buf.final_obs)
        _fresh_game(st, tb, buf, seating, seat_option, g)
    seating.rewards[g] = reward
    # Every learner step observes: the mask and the observation inlined, as in kernels.advance.
    buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
    encode_inline(st, tb, buf, g, seating.learner[g], buf.obs)


@jit(parallel=True)
def env_step(st, tb, buf, seating, seat_option, stock_reward, actions):
    """The learner's action in every game, then the scripted seats' until the learner's next
    turn; a finished game is scored for the learner, observed into final_obs and replaced."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _step_row(st, static(flat, owners, team_id, teams, act, deck, scale), buf, seating,
                  seat_option, stock_reward, actions[g], g)
