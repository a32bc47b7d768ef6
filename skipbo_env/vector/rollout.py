"""A batched rollout teacher: `expert` improved by trying every legal move in the true game.

`rollout_labels(engine, ...)` labels each game of a `VectorEngine` (each at a decision of its
seat to act) with a move for behaviour cloning: for every legal action it copies the game,
applies the action and lets the batched `expert` play every seat until the end of the acting
seat's next turn (or the game's end), and scores the outcome as `lookahead` does
(skipbo_env/players/lookahead.py): the acting team's lead in stock cards over the closest
other team, `win_bonus` more for a game won and less for one lost. The label is the best
action when it beats `expert`'s own choice by more than `margin` stock cards, else
`expert`'s choice; `expert`'s plays from its stock are kept as they are (reaching the stock
is the aim of the game, as `lookahead` keeps them).

The rollouts see the true game, the draw pile's order and the other hands included, so the
teacher is clairvoyant: it is a source of labels, never a player. What a policy cloned from
it learns is, for each observation, the move that does best most often over the hidden cards
the observation is consistent with, which is what `lookahead`'s sampled deals estimate (one
deal per decision here, millions of decisions). Observations never see what the labels were
computed from; the policy learns from its own observation only.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .kernels import WON, S, is_over, jit, legal_mask_inline, static, step_game
from .players import EXPERT, _team_stock, agent_action


@jit(inline="always")
def _lead(st, tb, g, t, win_bonus):
    """Team t's lead in stock cards over the closest other team in game g, `win_bonus` more if
    t has won and less if another team has."""
    closest = 1 << 30
    for u in range(tb.teams.shape[0]):
        if u != t:
            closest = min(closest, _team_stock(st, tb, g, u))
    lead = float(closest - _team_stock(st, tb, g, t))
    if st.scal[g, S.phase] == WON:
        lead += win_bonus if tb.team_id[st.scal[g, S.win]] == t else -win_bonus
    return lead


@jit
def _rollout_row(st, tb, buf, actions, seats, win_bonus, out, g):
    """Row g of `rollout`."""
    a = actions[g]
    if a < 0:
        out[g] = -np.inf
        return
    seat = seats[g]
    scal = st.scal
    step_game(st, tb, g, a)
    # The acting seat's turns end twice: this one (perhaps with the action itself), then
    # its next.
    ends = 0 if scal[g, S.cur] == seat else 1
    while ends < 2 and not is_over(st, g):
        before = scal[g, S.cur]
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        step_game(st, tb, g, agent_action(EXPERT, st, tb, buf.masks, buf.nlegal, buf.seen, g))
        if before == seat and scal[g, S.cur] != seat:
            ends += 1
    out[g] = _lead(st, tb, g, tb.team_id[seat], win_bonus)


@jit(parallel=True)
def rollout(st, tb, buf, actions, seats, win_bonus, out):
    """In every game g with actions[g] >= 0: play actions[g], then `expert` in every seat
    until seats[g]'s next turn has ended or the game is over; out[g] is seats[g]'s team's
    stock lead then (`_lead`), -inf where actions[g] < 0. Changes the games."""
    flat, (_, owners, team_id, teams, act, deck, scale) = tb.prm[:], tb
    for row in prange(st.piles.shape[0]):
        g = np.int64(row)  # one type of row index for every kernel: one compilation
        _rollout_row(st, static(flat, owners, team_id, teams, act, deck, scale), buf, actions,
                     seats, win_bonus, out, g)


def scratch_engine(engine):
    """A `VectorEngine` of `engine`'s rules and size for `rollout_labels` to play in."""
    from .batched import VectorEngine

    rules = engine.rules
    overrides = {k: v for k, v in rules.to_dict().items()
                 if k not in ("variant", "num_players")}
    return VectorEngine(rules.variant, rules.num_players, num_games=engine.num_games,
                        autoreset=False, **overrides)


def rollout_labels(engine, expert: np.ndarray, scratch=None, margin: float = 1.0,
                   win_bonus: float = 10.0) -> np.ndarray:
    """A label for every game of `engine`, each at a decision of its seat to act with its
    mask in ``engine.masks``: the legal action whose rollout (module docstring) beats
    `expert`'s choice (``expert``, the batched expert's actions in these games) by more than
    `margin` stock cards, the best such; else `expert`'s choice, and always `expert`'s play
    from its stock. Leaves `engine` as it was; plays in `scratch` (`scratch_engine(engine)`,
    made here if None)."""
    from . import kernels as K

    scratch = scratch if scratch is not None else scratch_engine(engine)
    masks = engine.masks.astype(bool)
    n = masks.shape[0]
    seats = engine.state.scal[:, K.S.cur].astype(np.int64)
    counts = masks.sum(axis=1)
    order = np.argsort(~masks, axis=1, kind="stable")  # each row's legal actions first
    width = int(counts.max(initial=0))
    scores = np.full((n, max(width, 1)), -np.inf)
    out = np.empty(n)
    for j in range(width):
        actions = np.where(counts > j, order[:, j], -1).astype(np.int64)
        for src, dst in zip(engine.state, scratch.state):
            dst[:] = src
        rollout(scratch.state, scratch.static, scratch.buffers, actions, seats,
                float(win_bonus), out)
        scores[:, j] = out
    rows = np.arange(n)
    at = np.argmax(order[:, :max(width, 1)] == expert[:, None], axis=1)  # expert's column
    best = np.argmax(scores, axis=1)
    act = engine.static.act
    stock = (act[expert, K.A.kind] == K.K_PLAY) & (act[expert, K.A.src] == K.SRC_STOCK)
    better = scores[rows, best] > scores[rows, at] + margin
    return np.where(better & ~stock & (expert >= 0), order[rows, best], expert)
