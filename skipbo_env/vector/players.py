"""Numba kernels of the batched scripted players and of the single-agent vector env.

`random`, `naive` and `greedy` are the reference agents of skipbo_env/agents.py on arrays;
tests/test_vector.py proves they choose the reference agents' moves. Like the reference
players they read only what the seat to act may see: its own hand and the public piles.
"""

from __future__ import annotations

from numba import prange

from .kernels import (
    A_INDEX,
    A_OWNER,
    A_PILE,
    A_SRC,
    FOLLOWUP,
    P_B,
    P_BUILD,
    P_D,
    P_DBASE,
    P_DECLINE,
    P_DISCS,
    P_END,
    P_HANDS,
    P_HS,
    P_N,
    P_NPLAYS,
    P_PAY,
    P_R,
    P_STACKED,
    P_STOCKS,
    P_STOCKSRC,
    P_TOP,
    S_CUR,
    S_PHASE,
    S_WIN,
    SRC_DISCARD,
    SRC_HAND,
    SRC_STOCK,
    TOLL,
    TRUNCATED,
    WON,
    agent_random,
    deal,
    encode,
    is_over,
    jit,
    legal_mask,
    pick_random,
    step_game,
)

RANDOM, NAIVE, GREEDY = range(3)
AGENT_NAMES = ("random", "naive", "greedy")


@jit(inline="always")
def _toll(masks, prm, g):
    """While a toll is due: pay it when possible, else decline."""
    return prm[P_PAY] if masks[g, prm[P_PAY]] else prm[P_DECLINE]


@jit
def _source_card(piles, lens, prm, owners, act, g, p, a):
    """The card play action a would play for player p."""
    src, index = act[a, A_SRC], act[a, A_INDEX]
    if src == SRC_HAND:
        if prm[P_STACKED]:
            k = prm[P_HANDS] + p * prm[P_HS] + index
            return piles[g, k, lens[g, k] - 1]
        return index
    owner = owners[p, act[a, A_OWNER]]
    if src == SRC_STOCK:
        k = prm[P_STOCKS] + owner
    else:
        k = prm[P_DISCS] + owner * prm[P_D] + index
    return piles[g, k, lens[g, k] - 1]


@jit
def naive_action(piles, lens, scal, prm, act, masks, g):
    """NaiveAgent: the first play from the stock, else a discard-pile top, else the hand (by
    building pile, owner, index); else end the turn; else discard the card held longest onto
    discard pile 0."""
    if scal[g, S_PHASE] == TOLL:
        return _toll(masks, prm, g)
    best, best_key = -1, 0
    for a in range(prm[P_NPLAYS]):
        if masks[g, a]:
            src = act[a, A_SRC]
            rank = 0 if src == SRC_STOCK else (1 if src == SRC_DISCARD else 2)
            key = (((rank * 16 + act[a, A_PILE]) * 16 + act[a, A_OWNER]) * 64
                   + act[a, A_INDEX]) * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if masks[g, prm[P_END]]:
        return prm[P_END]
    p = scal[g, S_CUR]
    return prm[P_DBASE] + piles[g, prm[P_HANDS] + p, 0] * prm[P_D]


@jit
def greedy_action(piles, lens, scal, prm, owners, act, masks, g):
    """GreedyAgent: the own stock whenever it plays; else the play that brings a building pile
    closest below the stock card (discard tops, then teammates' stocks, then hand; numbers
    before wilds); junior games and coin follow-ups play the first play; else end the turn;
    else discard (`_greedy_discard`)."""
    if scal[g, S_PHASE] == TOLL:
        return _toll(masks, prm, g)
    p = scal[g, S_CUR]
    b, top = prm[P_B], prm[P_TOP]
    for i in range(b):  # the own stock, onto the lowest building pile it fits
        a = prm[P_STOCKSRC] * b + i
        if masks[g, a]:
            return a
    first_play = -1
    sk = prm[P_STOCKS] + p
    target = -1
    if lens[g, sk]:
        target = piles[g, sk, lens[g, sk] - 1] % (top + 1)
        if target == 0:
            target = -1
    best, best_key = -1, 0
    for a in range(prm[P_NPLAYS]):
        if not masks[g, a]:
            continue
        if first_play < 0:
            first_play = a
        if target < 0:
            continue
        shows = lens[g, prm[P_BUILD] + act[a, A_PILE]]
        if shows + 1 < target:
            card = _source_card(piles, lens, prm, owners, act, g, p, a)
            src = act[a, A_SRC]
            order = 0 if src == SRC_DISCARD else (1 if src == SRC_STOCK else 2)
            wild = 1 if card % (top + 1) == 0 else 0
            key = ((target - shows - 1) * 2 + wild) * 4 * 100000 + order * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if prm[P_STACKED] or scal[g, S_PHASE] == FOLLOWUP:
        if first_play >= 0:
            return first_play
        for a in range(masks.shape[1]):
            if masks[g, a]:
                return a
    if masks[g, prm[P_END]]:
        return prm[P_END]
    return _greedy_discard(piles, lens, prm, g, p)


@jit
def _greedy_discard(piles, lens, prm, g, p):
    """GreedyAgent._discard: the highest number that lands on the same or the next-higher
    number, else onto an empty pile, else onto the pile whose top is closest above it."""
    top, d, r = prm[P_TOP], prm[P_D], prm[P_R]
    hk = prm[P_HANDS] + p
    dk = prm[P_DISCS] + p * d
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
                            return prm[P_DBASE] + card * d + i
            card += top + 1
    for i in range(d):
        if lens[g, dk + i] == 0:
            return prm[P_DBASE] + first * d + i
    rank = first % (top + 1)
    best, best_key = 0, 0
    for i in range(d):
        shown = piles[g, dk + i, lens[g, dk + i] - 1] % (top + 1)
        key = (1 if shown < rank else 0) * 1000 + abs(shown - rank)
        if i == 0 or key < best_key:
            best, best_key = i, key
    return prm[P_DBASE] + first * d + best


@jit
def agent_action(kind, piles, lens, scal, prm, owners, act, masks, nlegal, arng, g):
    """The action of scripted player `kind` (RANDOM, NAIVE or GREEDY) in game g."""
    if kind == NAIVE:
        return naive_action(piles, lens, scal, prm, act, masks, g)
    if kind == GREEDY:
        return greedy_action(piles, lens, scal, prm, owners, act, masks, g)
    return pick_random(masks, nlegal, arng, g)


@jit(parallel=True)
def choose_all(kinds, piles, lens, scal, prm, owners, act, masks, nlegal, arng, out):
    """Every game's action by the scripted player kinds[g, seat to act]."""
    for g in prange(piles.shape[0]):
        if is_over(scal, g):
            out[g] = -1
        else:
            out[g] = agent_action(kinds[g, scal[g, S_CUR]], piles, lens, scal, prm, owners,
                                  act, masks, nlegal, arng, g)


@jit(parallel=True)
def play_games(kinds, piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, masks,
               nlegal, arng, games, wins, actions):
    """Play `games` whole games in every row, seat by seat with kinds[g, seat], dealing each
    next game from the row's generator; counts wins per seat (draws and truncated games count
    for no one) and actions taken."""
    for g in prange(piles.shape[0]):
        done = 0
        while done < games:
            nlegal[g] = legal_mask(piles, lens, scal, prm, owners, g, masks)
            a = agent_action(kinds[g, scal[g, S_CUR]], piles, lens, scal, prm, owners, act,
                             masks, nlegal, arng, g)
            step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, a)
            actions[g] += 1
            if is_over(scal, g):
                if scal[g, S_PHASE] == WON:
                    wins[g, scal[g, S_WIN]] += 1
                done += 1
                deal(piles, lens, scal, rng, prm, deck, g)


# -- the single-agent vector env -----------------------------------------------------------------
@jit
def _new_seating(prm, seat_option, weights, kinds, learner, arng, g):
    """The learner's seat (seat_option, or at random when it is -1) and a scripted player for
    every other seat, drawn by `weights` (cumulative, over RANDOM, NAIVE, GREEDY)."""
    n = prm[P_N]
    seat = seat_option
    if seat < 0:
        seat = agent_random(arng, g, n)
    learner[g] = seat
    for p in range(n):
        pick = agent_random(arng, g, 1 << 30) / (1 << 30)
        kind = 0
        while kind < weights.shape[0] - 1 and pick >= weights[kind]:
            kind += 1
        kinds[g, p] = kind


@jit
def _opponents(kinds, learner, piles, lens, scal, rng, prm, owners, team_id, teams, act,
               masks, nlegal, arng, g):
    """Scripted seats play until the learner is to act or the game is over."""
    while not is_over(scal, g) and scal[g, S_CUR] != learner[g]:
        nlegal[g] = legal_mask(piles, lens, scal, prm, owners, g, masks)
        a = agent_action(kinds[g, scal[g, S_CUR]], piles, lens, scal, prm, owners, act, masks,
                         nlegal, arng, g)
        step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, a)


@jit
def _fresh_game(seat_option, weights, kinds, learner, piles, lens, scal, rng, prm, owners,
                team_id, teams, act, deck, masks, nlegal, arng, g):
    """Deal until a game reaches the learner's turn (the scripted seats may finish a game with
    a tiny stock before it; such deals are skipped)."""
    while True:
        deal(piles, lens, scal, rng, prm, deck, g)
        _new_seating(prm, seat_option, weights, kinds, learner, arng, g)
        _opponents(kinds, learner, piles, lens, scal, rng, prm, owners, team_id, teams, act,
                   masks, nlegal, arng, g)
        if not is_over(scal, g):
            return


@jit(parallel=True)
def env_reset(seat_option, weights, kinds, learner, piles, lens, scal, rng, prm, owners,
              team_id, teams, act, deck, scale, masks, nlegal, obs, seen, cache, arng):
    for g in prange(piles.shape[0]):
        _fresh_game(seat_option, weights, kinds, learner, piles, lens, scal, rng, prm, owners,
                    team_id, teams, act, deck, masks, nlegal, arng, g)
        nlegal[g] = legal_mask(piles, lens, scal, prm, owners, g, masks)
        encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, learner[g], obs)


@jit(inline="always")
def _team_stock(lens, prm, team_id, g, t):
    """Stock cards left to team t in game g."""
    left = 0
    for p in range(prm[P_N]):
        if team_id[p] == t:
            left += lens[g, prm[P_STOCKS] + p]
    return left


@jit(parallel=True)
def env_step(seat_option, weights, stock_reward, kinds, learner, piles, lens, scal, rng, prm,
             owners, team_id, teams, act, deck, scale, actions, masks, nlegal, obs, seen, cache,
             arng, rewards, terminated, truncated, final_obs):
    """The learner's action in every game, then the scripted seats' until the learner's next
    turn; a finished game is scored for the learner, observed into final_obs and replaced."""
    for g in prange(piles.shape[0]):
        seat = learner[g]
        t = team_id[seat]
        before = _team_stock(lens, prm, team_id, g, t)
        step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, actions[g])
        reward = stock_reward * (before - _team_stock(lens, prm, team_id, g, t))
        _opponents(kinds, learner, piles, lens, scal, rng, prm, owners, team_id, teams, act,
                   masks, nlegal, arng, g)
        terminated[g] = False
        truncated[g] = False
        if is_over(scal, g):
            if scal[g, S_PHASE] == WON:
                reward += 1.0 if team_id[scal[g, S_WIN]] == t else -1.0
            terminated[g] = scal[g, S_PHASE] != TRUNCATED
            truncated[g] = scal[g, S_PHASE] == TRUNCATED
            encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, seat, final_obs)
            _fresh_game(seat_option, weights, kinds, learner, piles, lens, scal, rng, prm,
                        owners, team_id, teams, act, deck, masks, nlegal, arng, g)
        rewards[g] = reward
        nlegal[g] = legal_mask(piles, lens, scal, prm, owners, g, masks)
        encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, learner[g], obs)
