"""The batched engine's entry points: the parallel kernels that deal, observe and step every
game at once (`VectorEngine` calls them), over the rules of play (`play_rules`) and the
observation (`observe`).

Two limits of numba's parallel loops (0.68) shape these: a loop takes only arrays and plain
tuples from outside it, not the `Static` bundle nor its `Params`, so each parallel kernel
unpacks `tb` before its loop (the parameters as a plain tuple, ``tb.prm[:]``) and builds it
again inside, by `bundles.static`; and a store into a bundle's array written in the loop body
itself is lost, so every loop body only calls kernels (never inlined ones) that do the stores.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .bundles import TRUNCATED, S, jit, static
from .observe import encode, encode_inline
from .play_rules import (
    deal,
    is_over,
    legal_mask,
    legal_mask_inline,
    pick_random,
    step_game,
    write_returns,
)


@jit
def observe(st, tb, buf, g):
    """Game g's seat to act, its legal actions (mask and count) and its observation."""
    buf.seats[g] = st.scal[g, S.cur]
    buf.nlegal[g] = legal_mask(st, tb, buf.masks, g)
    encode(st, tb, buf, g, buf.seats[g], buf.obs)


@jit(parallel=True)
def reset_all(st, tb, buf):
    """Deal every game from its generator and observe the player to act."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        t = static(flat, owners, team_id, teams, act, deck, scale)
        deal(st, t, g)
        observe(st, t, buf, g)


@jit(parallel=True)
def observe_all(st, tb, buf):
    """Observe the player to act in every game."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        observe(st, static(flat, owners, team_id, teams, act, deck, scale), buf, g)


@jit
def first_illegal(st, buf, actions):
    """The first game not over whose action its mask does not allow (-1 when all are
    legal)."""
    masks = buf.masks
    A = masks.shape[1]
    for g in range(actions.shape[0]):
        if is_over(st, g):
            continue
        a = actions[g]
        if a < 0 or a >= A or masks[g, a] == 0:
            return g
    return -1


@jit
def advance(st, tb, buf, g, a, autoreset):
    """Game g's share of a batched step: apply action a (unless the game is over); a finished
    game is scored, observed into final_obs from the seat that acted last and dealt again when
    `autoreset`; then the player to act is observed."""
    scal = st.scal
    buf.terminated[g] = False
    buf.truncated[g] = False
    buf.rewards[g, :] = 0.0
    if is_over(st, g):
        return
    step_game(st, tb, g, a)
    if is_over(st, g):
        write_returns(st, tb, buf, g)
        buf.terminated[g] = scal[g, S.phase] != TRUNCATED
        buf.truncated[g] = scal[g, S.phase] == TRUNCATED
        encode(st, tb, buf, g, np.int64(scal[g, S.cur]), buf.final_obs)
        if autoreset:
            deal(st, tb, g)
    buf.seats[g] = scal[g, S.cur]
    buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
    encode_inline(st, tb, buf, g, buf.seats[g], buf.obs)


@jit(parallel=True)
def step_all(st, tb, buf, actions, autoreset):
    """Apply one action in every game (`advance`)."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        advance(st, static(flat, owners, team_id, teams, act, deck, scale), buf, g, actions[g],
                autoreset)


@jit
def _random_action(st, buf, g):
    """Game g's uniformly random legal action into buf.actions (-1 if it is over)."""
    buf.actions[g] = pick_random(st.arng, buf.masks, buf.nlegal, g)
    return buf.actions[g]


@jit(parallel=True)
def step_random(st, tb, buf, autoreset):
    """Apply a uniformly random legal action in every game (written to buf.actions, -1 in a
    game that is over), then as `step_all`."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        a = _random_action(st, buf, g)
        advance(st, static(flat, owners, team_id, teams, act, deck, scale), buf, g, a,
                autoreset)


@jit(parallel=True)
def random_actions(st, buf):
    """A uniformly random legal action for every game into buf.actions (-1 where the game is
    over)."""
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _random_action(st, buf, g)
