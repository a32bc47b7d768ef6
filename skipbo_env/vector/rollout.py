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

With ``deals`` above 0 the teacher is no longer clairvoyant: before the rollouts, the cards
the acting seat cannot see (the draw pile, every stock below its top, the other hands in
refill mode) are dealt afresh in the copies (`redeal`: a function of what the seat sees and a
key only, as `Game.from_view` deals them for `lookahead`), ``deals`` times, the same deals for
every action, and each action is scored by its mean over the deals.
"""

from __future__ import annotations

import numpy as np

from .batched import VectorEngine
from .bundles import K_PLAY, SRC_STOCK, WON, A, S, State, entry, jit, next_chunk
from .play_rules import is_over, legal_mask_inline, step_game, team_stock
from .scripted import EXPERT, agent_action


@jit(inline="always")
def _lead(st, tb, g, t, win_bonus):
    """Team t's lead in stock cards over the closest other team in game g, `win_bonus` more if
    t has won and less if another team has."""
    closest = 1 << 30
    for u in range(tb.teams.shape[0]):
        if u != t:
            closest = min(closest, team_stock(st, tb, g, u))
    lead = float(closest - team_stock(st, tb, g, t))
    if st.scal[g, S.phase] == WON:
        lead += win_bonus if tb.team_id[st.scal[g, S.win]] == t else -win_bonus
    return lead


@jit
def _rollout_row(st, tb, buf, actions, seats, win_bonus, out, g, stop):
    """Row g of `rollout` (`stop` 0), `rollout_to_turn` (1) or `rollout_to_decision` (2)."""
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
    if stop == 2 and ends == 0 and not is_over(st, g):  # its turn goes on: it decides again
        out[g] = np.nan
        return
    while ends < 2 and not is_over(st, g):
        before = scal[g, S.cur]
        if stop > 0 and ends == 1 and before == seat:  # its next turn is about to start
            out[g] = np.nan
            return
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        step_game(st, tb, g, agent_action(EXPERT, st, tb, buf.masks, buf.nlegal, buf.seen, g))
        if before == seat and scal[g, S.cur] != seat:
            ends += 1
    out[g] = _lead(st, tb, g, tb.team_id[seat], win_bonus)


@entry
def rollout(work, st, tb, buf, actions, seats, win_bonus, out):
    """In every game g with actions[g] >= 0: play actions[g], then `expert` in every seat
    until seats[g]'s next turn has ended or the game is over; out[g] is seats[g]'s team's
    stock lead then (`_lead`), -inf where actions[g] < 0. Changes the games."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _rollout_row(st, tb, buf, actions, seats, win_bonus, out, g, 0)
        lo, hi = next_chunk(work)


@entry
def rollout_to_turn(work, st, tb, buf, actions, seats, win_bonus, out):
    """`rollout` cut short where seats[g]'s next turn would start (its first move not yet
    played, its hand drawn): out[g] is NaN in each game stopped there, and the acting team's
    stock lead (`_lead`) in each game over before it; -inf where actions[g] < 0. Changes
    the games. A one-round TD target reads each stopped game's position from here
    (train/value.py, `bootstrap`)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _rollout_row(st, tb, buf, actions, seats, win_bonus, out, g, 1)
        lo, hi = next_chunk(work)


@entry
def rollout_to_decision(work, st, tb, buf, actions, seats, win_bonus, out):
    """`rollout_to_turn`, but stopped at once where actions[g] leaves seats[g] to act again
    in the same turn (any such move; a segment's last move does only where it played the
    stock top or emptied the hand, and the card turned up or the cards drawn are in the
    game): out[g] is NaN there too. A one-round TD target whose
    continuation within the turn is the network's own choice reads the position from here
    (train/value.py, `bootstrap_at: decision`)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _rollout_row(st, tb, buf, actions, seats, win_bonus, out, g, 2)
        lo, hi = next_chunk(work)


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@jit(inline="always")
def _mix(z):
    """splitmix64's output function."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@jit(inline="always")
def _hidden_count(st, prm, g, seat):
    """How many cards of game g `seat` cannot see: the draw pile, every stock below its top
    and, in refill mode, the other seats' hands."""
    lens = st.lens
    total = np.int64(lens[g, prm.draw])
    for p in range(prm.n):
        below = np.int64(lens[g, prm.stocks + p]) - 1  # the stock below its top
        total += below if below > 0 else 0
        if not prm.stacked and p != seat:
            total += np.int64(lens[g, prm.hands + p])
    return total


@jit(inline="always")
def _hidden_slot(st, prm, g, seat, i):
    """The pile and place of the i-th card of game g hidden from `seat` (in the order of
    `_hidden_count`)."""
    lens = st.lens
    n = np.int64(lens[g, prm.draw])
    if i < n:
        return np.int64(prm.draw), i
    i -= n
    for p in range(prm.n):
        n = np.int64(lens[g, prm.stocks + p]) - 1
        if n < 0:
            n = np.int64(0)
        if i < n:
            return np.int64(prm.stocks + p), i
        i -= n
        if not prm.stacked and p != seat:
            n = np.int64(lens[g, prm.hands + p])
            if i < n:
                return np.int64(prm.hands + p), i
            i -= n
    return np.int64(-1), np.int64(-1)


@jit
def _redeal_row(st, tb, seen, g, seat, key):
    """Row g of `redeal` (seen: a scratch row of card counts)."""
    prm, piles = tb.prm, st.piles
    total = _hidden_count(st, prm, g, seat)
    # The hidden cards in card order first, so the deal depends on which cards are hidden and
    # not on where they lie.
    seen[g, :] = 0
    for i in range(total):
        k, at = _hidden_slot(st, prm, g, seat, i)
        seen[g, piles[g, k, at]] += 1
    card = 0
    for i in range(total):
        while seen[g, card] == 0:
            card += 1
        seen[g, card] -= 1
        k, at = _hidden_slot(st, prm, g, seat, i)
        piles[g, k, at] = card
    z = key
    for i in range(total - 1, 0, -1):  # Fisher-Yates with splitmix64
        z += _GOLDEN
        j = np.int64(_mix(z) % np.uint64(i + 1))
        ki, ai = _hidden_slot(st, prm, g, seat, i)
        kj, aj = _hidden_slot(st, prm, g, seat, j)
        c = piles[g, ki, ai]
        piles[g, ki, ai] = piles[g, kj, aj]
        piles[g, kj, aj] = c
    # Later reshuffles of the set-aside cards: a generator of the key's, not the game's.
    rng = st.rng
    for w in range(4):
        z += _GOLDEN
        rng[g, w] = _mix(z)
    rng[g, 3] |= np.uint64(1)  # PCG64's increment is odd
    rng[g, 4] = np.uint64(0)
    rng[g, 5] = np.uint64(0)


@entry
def redeal(work, st, tb, buf, seats, keys):
    """In every game g with seats[g] >= 0: deal the cards seats[g] cannot see afresh, a
    shuffle by keys[g] of those cards in card order (so the result depends only on what the
    seat sees and the key), and give the game a new generator from the key for its later
    reshuffles. Everything the seat sees stays as it was. seats[g] must be the seat to act
    (as `rollout_labels` passes it): the hand of a seat other than the one to act would be
    dealt afresh too, and in Masters a coin play's follow-up needs the cards of the seat to
    act, which `Game.from_view` deals again for."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            if seats[g] >= 0:
                _redeal_row(st, tb, buf.seen, g, seats[g], keys[g])
        lo, hi = next_chunk(work)


def scratch_engine(engine: VectorEngine) -> VectorEngine:
    """A `VectorEngine` of `engine`'s rules and size for `rollout_labels` to play in."""
    return VectorEngine.of(engine.rules, num_games=engine.num_games, autoreset=False)


def rollout_labels(engine, expert: np.ndarray, scratch=None, margin: float = 1.0,
                   win_bonus: float = 10.0, deals: int = 0, seed=0) -> np.ndarray:
    """A label for every game of `engine`, each at a decision of its seat to act with its
    mask in ``engine.masks``: the legal action whose rollout (module docstring) beats
    `expert`'s choice (``expert``, the batched expert's actions in these games) by more than
    `margin` stock cards, the best such; else `expert`'s choice, and always `expert`'s play
    from its stock. ``deals`` 0: one rollout per action in the true game (clairvoyant);
    above 0: the mean of that many rollouts per action, each in a fresh deal of the cards
    the seat cannot see (`redeal`, keys drawn from ``seed``, anything
    `numpy.random.default_rng` takes). Leaves `engine` as it was;
    plays in `scratch` (`scratch_engine(engine)`, made here if None)."""
    if isinstance(deals, bool) or not isinstance(deals, (int, np.integer)) or deals < 0:
        raise ValueError(f"deals must be a non-negative integer, got {deals!r}")
    scratch = scratch if scratch is not None else scratch_engine(engine)
    masks = engine.masks.astype(bool)
    n = masks.shape[0]
    seats = engine.state.scal[:, S.cur].astype(np.int64)
    counts = masks.sum(axis=1)
    act = engine.static.act
    safe = np.maximum(expert, 0)
    stock = (act[safe, A.kind] == K_PLAY) & (act[safe, A.src] == SRC_STOCK)
    # Only decisions with a choice to make are searched.
    searched = (counts > 1) & ~stock & (expert >= 0)
    order = np.argsort(~masks, axis=1, kind="stable")  # each row's legal actions first
    width = int(counts[searched].max(initial=0))
    scores = np.zeros((n, max(width, 1)))
    out = np.empty(n)
    gen = np.random.default_rng(seed)
    for _ in range(max(deals, 1)):
        base = engine.state
        if deals:
            base = State(*(a.copy() for a in engine.state))
            keys = gen.integers(1, 2 ** 63, size=n, dtype=np.int64).astype(np.uint64)
            redeal(base, scratch.static, scratch.buffers, np.where(searched, seats, -1), keys)
        for j in range(width):
            actions = np.where(searched & (counts > j), order[:, j], -1).astype(np.int64)
            for src, dst in zip(base, scratch.state):
                dst[:] = src
            rollout(scratch.state, scratch.static, scratch.buffers, actions, seats,
                    float(win_bonus), out)
            scores[:, j] += out
    rows = np.arange(n)
    at = np.argmax(order[:, :max(width, 1)] == expert[:, None], axis=1)  # expert's column
    best = np.argmax(scores, axis=1)
    better = scores[rows, best] > scores[rows, at] + margin * max(deals, 1)
    return np.where(better & searched, order[rows, best], expert)
