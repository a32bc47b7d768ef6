"""The batched engine's entry points: the kernels that deal, observe and step every game at
once (`VectorEngine` calls them), over the rules of play (`play_rules`) and the observation
(`observe`). Each is a `bundles.entry`: it takes its games chunk by chunk (`next_chunk`) on
every thread the engine runs it on (`threads`)."""

from __future__ import annotations

import numpy as np

from .bundles import TRUNCATED, S, entry, jit, next_chunk
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


@jit(top=True)
def observe(st, tb, buf, g):
    """Game g's seat to act, its legal actions (mask and count) and its observation."""
    buf.seats[g] = st.scal[g, S.cur]
    buf.nlegal[g] = legal_mask(st, tb, buf.masks, g)
    encode(st, tb, buf, g, buf.seats[g], buf.obs)


@entry
def reset_all(work, st, tb, buf):
    """Deal every game from its generator and observe the player to act."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            deal(st, tb, g)
            observe(st, tb, buf, g)
        lo, hi = next_chunk(work)


@entry
def observe_all(work, st, tb, buf):
    """Observe the player to act in every game."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            observe(st, tb, buf, g)
        lo, hi = next_chunk(work)


@jit(top=True)
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


@entry
def step_all(work, st, tb, buf, actions, autoreset):
    """Apply one action in every game (`advance`)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            advance(st, tb, buf, g, actions[g], autoreset)
        lo, hi = next_chunk(work)


@jit
def _random_action(st, buf, g):
    """Game g's uniformly random legal action into buf.actions (-1 if it is over)."""
    buf.actions[g] = pick_random(st.arng, buf.masks, buf.nlegal, g)
    return buf.actions[g]


@entry
def step_random(work, st, tb, buf, autoreset):
    """Apply a uniformly random legal action in every game (written to buf.actions, -1 in a
    game that is over), then as `step_all`."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            advance(st, tb, buf, g, _random_action(st, buf, g), autoreset)
        lo, hi = next_chunk(work)


@entry
def random_actions(work, st, buf):
    """A uniformly random legal action for every game into buf.actions (-1 where the game is
    over)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _random_action(st, buf, g)
        lo, hi = next_chunk(work)
