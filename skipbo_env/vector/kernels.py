"""Numba kernels of the batched engine: the reference engine's rules (skipbo_env/engine.py) on
arrays, one game per row. Proven equal to the reference by tests/test_vector.py; change the
two together. Each rule kernel names its reference (`Mirror:`), and the reference names it
back; tests/test_mirrors.py checks that every name cited exists.

Every kernel takes a few named bundles (numba named tuples) rather than loose arrays:
- `State`, the games: ``piles[g, k, :lens[g, k]]`` is pile k of game g, bottom first (int8
  card ids, -1 a coin play's place): the draw pile, the set-aside cards, the building piles,
  the stocks, the hands (one per seat in refill mode, one per stack in stacked mode) and the
  discard piles, at the offsets in the parameters; ``scal[g]`` holds the slots named in
  `SCALARS` (current player, turn, phase, ..., then coins, pile coins and scores, then, for
  the observation, a dirty flag per public pile and the count of each card id in the public
  piles); ``rng[g]`` is numpy's PCG64 state (state, increment, buffered 32 bits), so
  reshuffles draw the very numbers the reference engine's generator draws; ``arng[g]`` is the
  players' own generator (splitmix64);
- `Static`, one rules set (skipbo_env/vector/tables.py builds it from the `GameSpec` and the
  observation encoder): ``prm``, the `Params` named tuple of ints whose fields are named in
  `PARAMS` (``prm.n`` players, ``prm.b`` building piles, ...; a tuple, so the kernels hold it
  in registers, and its fields are read at fixed places), and the action, seat and scale
  tables;
- `Buffers`, what a step writes: observations, masks, rewards and the observation's caches.

The parallel entry points unpack `Static` before their `prange` loop and build it again inside
it (numba's parallel loops take arrays and plain tuples, not its `Params`), and their loop
bodies only call kernels (see "batched entry points" below).
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ._cache import cached_jit


def jit(fn=None, **options):
    """numba's njit as every kernel here uses it: machine code cached on disk under a key of
    the batched engine's sources (`_cache`: an edit to any of them recompiles every kernel);
    numpy's error model (no zero-division checks: no divisor here is zero); and, but for the
    parallel entry points, no reference counting (numba's `_nrt=False`): the helpers only
    index arrays they are given, never allocate, and the atomic counts on every call cost a
    fifth of a step (24% more steps a second without them, median of 12 alternating
    rounds)."""
    options.setdefault("error_model", "numpy")
    if not options.get("parallel"):
        options["_nrt"] = False
    if fn is None:
        return lambda f: cached_jit(njit, f, options)
    return cached_jit(njit, fn, options)


def _slots(kind: str, names: tuple[str, ...]):
    """A named tuple of the slot numbers 0, 1, ... of `names` (``S.cur`` is the slot of the
    current player): one list of names, no hand-numbered ranges."""
    return namedtuple(kind, names)(*range(len(names)))


# -- static parameters: the fields of prm --------------------------------------------------------
PARAMS = (
    # the rules
    "n", "b", "d", "hs", "top", "r", "stacked", "coins", "wow", "stock", "maxt", "deck",
    "teams",  # players, building and discard piles, hand size, max rank, card ids, ...
    "fewest",  # stall_outcome: 1 for "fewest_stock", 0 for "draw"
    # the action layout (skipbo_env/actions.py)
    "hsrc", "tm", "stocksrc", "nplays", "dbase", "cbase", "pbase", "npurch", "pay", "decline",
    "end", "a",
    # where each kind of pile starts among a game's piles, and how many piles there are
    "draw", "aside", "build", "stocks", "hands", "discs", "npiles",
    # the public piles (discard piles, or hand stacks in the junior games): the first one's
    # pile, their number, and where their dirty flags and card counts sit in the scalar row
    "pub0", "npub", "sdirty", "spub",
    # the observation's sections (skipbo_env/observation.py) and sizes
    "o_toact", "o_draw", "o_build", "o_bwild", "o_unseen", "o_own", "o_seats", "o_coins",
    "o_pcoins", "o_pend", "o_depth", "o_pilew", "o_seatw", "o_pileoff", "o_size",
)
Params = namedtuple("Params", PARAMS)

# -- scalar slots of a game's row; "coins" starts the per-seat and per-pile counts --------------
SCALARS = ("cur", "turn", "phase", "win", "played", "stall", "ppile", "ptoll", "first", "coins")
S = _slots("ScalarSlots", SCALARS)
# phases, in the order of engine.PHASES (tests/test_vector.py checks the order)
PLAY, FOLLOWUP, TOLL, WON, DRAWN, TRUNCATED = range(6)
# action kinds and source kinds, and the columns of the action table
K_PLAY, K_DISCARD, K_COIN, K_BUY, K_PAY, K_DECLINE, K_END = range(7)
SRC_HAND, SRC_STOCK, SRC_DISCARD = range(3)
A = _slots("ActionColumns", ("kind", "src", "index", "owner", "pile", "card"))
COIN = -1


class State(NamedTuple):
    """The games: piles, their lengths, the scalar rows and both generators (module docstring)."""

    piles: np.ndarray  # [games, piles, capacity] int8
    lens: np.ndarray  # [games, piles] int32
    scal: np.ndarray  # [games, scalars] int32
    rng: np.ndarray  # [games, 6] uint64: the deal's PCG64
    arng: np.ndarray  # [games] uint64: the players' splitmix64


class Static(NamedTuple):
    """One rules set as the kernels read it (skipbo_env/vector/tables.py)."""

    prm: tuple  # a Params: ints by name
    owners: np.ndarray  # [seat, k]: the k-th seat whose stock and discard tops it may play
    team_id: np.ndarray  # [seat]: its team's number
    teams: np.ndarray  # [team, member]
    act: np.ndarray  # [action, column A]: the decoded action layout
    deck: np.ndarray  # cards of each id in the deck
    scale: np.ndarray  # the observation's scale factors (float32)


class Buffers(NamedTuple):
    """What the kernels write for the caller, and the observation's scratch and caches."""

    obs: np.ndarray  # [games, obs size] float32: the seat to act's observation
    masks: np.ndarray  # [games, actions] int8: its legal actions
    nlegal: np.ndarray  # [games] int64: how many
    seats: np.ndarray  # [games] int64: the seat to act
    rewards: np.ndarray  # [games, players] float32
    terminated: np.ndarray  # [games] bool
    truncated: np.ndarray  # [games] bool
    final_obs: np.ndarray  # [games, obs size]: a finished game's last observation
    actions: np.ndarray  # [games] int64: actions chosen inside the kernels
    seen: np.ndarray  # [games, card ids] int64: scratch counts for the observation
    cache: np.ndarray  # [games, public piles, pile width] float32: each public pile encoded


# -- numpy's PCG64 (XSL-RR 128/64) and its bounded integers ----------------------------------
_MUL_HI = np.uint64(2549297995355413924)
_MUL_LO = np.uint64(4865540595714422341)
_M32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@jit(inline="always")
def _mulhi(a, b):
    a_lo, a_hi = a & _M32, a >> _U32
    b_lo, b_hi = b & _M32, b >> _U32
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo
    mid2 = a_lo * b_hi
    carry = ((lo_lo >> _U32) + (mid1 & _M32) + (mid2 & _M32)) >> _U32
    return a_hi * b_hi + (mid1 >> _U32) + (mid2 >> _U32) + carry


@jit(inline="always")
def next_uint64(rng, g):
    """One step of game g's PCG64: the state advances, then the XSL-RR output."""
    sh, sl = rng[g, 0], rng[g, 1]
    lo = sl * _MUL_LO
    hi = _mulhi(sl, _MUL_LO) + sh * _MUL_LO + sl * _MUL_HI
    nlo = lo + rng[g, 3]
    carry = _ONE if nlo < lo else _ZERO
    nhi = hi + rng[g, 2] + carry
    rng[g, 0], rng[g, 1] = nhi, nlo
    x = nhi ^ nlo
    rot = nhi >> _U58
    return (x >> rot) | (x << ((_U64 - rot) & _U63))


@jit(inline="always")
def next_uint32(rng, g):
    if rng[g, 4] != _ZERO:
        rng[g, 4] = _ZERO
        return rng[g, 5]
    value = next_uint64(rng, g)
    rng[g, 4] = _ONE
    rng[g, 5] = value >> _U32
    return value & _M32


@jit(inline="always")
def random_interval(rng, g, top):
    """A number in 0..top by numpy's masked rejection (top below 2**32)."""
    if top == 0:
        return 0
    mask = np.uint64(top)
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    limit = np.uint64(top)
    while True:
        value = next_uint32(rng, g) & mask
        if value <= limit:
            return np.int64(value)


@jit
def shuffle(piles, rng, g, k, n):
    """Shuffle the first n cards of pile k as `Generator.shuffle` does."""
    for i in range(n - 1, 0, -1):
        j = random_interval(rng, g, i)
        c = piles[g, k, i]
        piles[g, k, i] = piles[g, k, j]
        piles[g, k, j] = c


# -- agents' own random numbers (splitmix64), apart from the games' generators -------------------
@jit(inline="always")
def agent_random(arng, g, top):
    """A number in 0..top-1 from game g's agent generator."""
    z = arng[g] + np.uint64(0x9E3779B97F4A7C15)
    arng[g] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(top))


# -- rules --------------------------------------------------------------------------------------
@jit(inline="always")
def fits_shown(prm, rank, shows, shows_wild):
    """Whether a building pile showing `shows` (its top a wild if `shows_wild`) takes a card
    of `rank`: the kernels' one statement of this rule.
    Mirror: engine.fits"""
    if rank == 0:
        return prm.wow or not shows_wild
    return rank == shows + 1


@jit(inline="always")
def fits_rank(st, tb, g, rank, i):
    """Whether building pile i takes a card of `rank`.
    Mirror: engine.Game._targets_for"""
    prm, piles, lens = tb.prm, st.piles, st.lens
    k = prm.build + i
    size = lens[g, k]
    return fits_shown(prm, rank, size, size > 0 and piles[g, k, size - 1] == 0)


@jit(inline="always")
def fits(st, tb, g, card, i):
    """Whether building pile i takes card."""
    return fits_rank(st, tb, g, card % (tb.prm.top + 1), i)


@jit(inline="always")
def public_changed(st, tb, g, k, card, delta):
    """Public pile k gained (delta 1) or lost (-1) card: its cached encoding is stale."""
    scal, prm = st.scal, tb.prm
    scal[g, prm.sdirty + k - prm.pub0] = 1
    scal[g, prm.spub + card] += delta


@jit(inline="always")
def draw_card(st, tb, g):
    """The draw pile's top card (-2 when nothing is left to draw); an empty draw pile is
    replaced by the shuffled set-aside cards.
    Mirror: engine.Game._draw_card"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    dk, ak = prm.draw, prm.aside
    if lens[g, dk] == 0:
        n = lens[g, ak]
        if n == 0:
            return -2
        for i in range(n):
            piles[g, dk, i] = piles[g, ak, i]
        lens[g, dk] = n
        lens[g, ak] = 0
        shuffle(piles, st.rng, g, dk, np.int64(n))
    lens[g, dk] -= 1
    return piles[g, dk, lens[g, dk]]


@jit(inline="always")
def draw(st, tb, g, p, count):
    """Up to `count` cards from the draw pile into seat p's refill hand.
    Mirror: engine.Game._draw"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    hk = prm.hands + p
    for _ in range(count):
        card = draw_card(st, tb, g)
        if card == -2:
            return
        piles[g, hk, lens[g, hk]] = card
        lens[g, hk] += 1


@jit(inline="always")
def start_turn(st, tb, g):
    """The player to act draws: a full refill hand, or one card onto each hand stack.
    Mirror: engine.Game._start_turn"""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    p = scal[g, S.cur]
    scal[g, S.played] = 0
    hs = prm.hs
    if prm.stacked:
        for s in range(hs):
            card = draw_card(st, tb, g)
            if card == -2:
                return
            k = prm.hands + p * hs + s
            piles[g, k, lens[g, k]] = card
            lens[g, k] += 1
            public_changed(st, tb, g, k, card, 1)
    else:
        draw(st, tb, g, p, hs - lens[g, prm.hands + p])


@jit
def deal(st, tb, g):
    """A new game in row g from its generator as it stands (Game.__init__ with that
    generator): shuffle the deck, deal the stocks from its end, seat 0 starts.
    Mirror: engine.Game.__init__"""
    piles, lens, scal, prm, deck = st.piles, st.lens, st.scal, tb.prm, tb.deck
    n, b = prm.n, prm.b
    lens[g, :] = 0
    dk = prm.draw
    m = 0
    for card in range(deck.shape[0]):
        for _ in range(deck[card]):
            piles[g, dk, m] = card
            m += 1
    shuffle(piles, st.rng, g, dk, m)
    size = prm.stock
    for p in range(n):
        sk = prm.stocks + p
        for i in range(size):
            piles[g, sk, i] = piles[g, dk, m - size + i]
        lens[g, sk] = size
        m -= size
    lens[g, dk] = m
    scal[g, :S.coins] = 0
    scal[g, S.win] = -1
    scal[g, S.ppile] = -1
    for p in range(n):
        scal[g, S.coins + p] = prm.coins
        scal[g, S.coins + n + b + p] = 0
    for i in range(b):
        scal[g, S.coins + n + i] = 0
    for q in range(prm.npub):
        scal[g, prm.sdirty + q] = 1
    for c in range(prm.r):
        scal[g, prm.spub + c] = 0
    start_turn(st, tb, g)


@jit(inline="always")
def team_stocks_empty(st, tb, g, p):
    """Whether seat p's team has no stock card left.
    Mirror: engine.Game._team_stocks_empty"""
    lens, prm, team_id, teams = st.lens, tb.prm, tb.team_id, tb.teams
    if prm.teams == 0:
        return lens[g, prm.stocks + p] == 0
    for s in teams[team_id[p]]:
        if lens[g, prm.stocks + s] != 0:
            return False
    return True


@jit(inline="always")
def stall_winner(st, tb, g):
    """The first seat of the team a stalled game goes to under stall_outcome "fewest_stock"
    (the one team with the fewest stock cards left), else -1: a draw.
    Mirror: engine.Game.stall_winner"""
    lens, prm, teams = st.lens, tb.prm, tb.teams
    if prm.fewest == 0:
        return -1
    best, winner = -1, -1
    for t in range(teams.shape[0]):
        left = 0
        for s in teams[t]:
            left += lens[g, prm.stocks + s]
        if best < 0 or left < best:
            best, winner = left, teams[t, 0]
        elif left == best:
            winner = -1
    return winner


@jit(inline="always")
def end_turn(st, tb, g):
    """The turn ends: a round with no card played and nothing to draw ends the game (drawn,
    or won by the fewest stock cards: stall_outcome), the turn limit truncates it, else the
    next player starts.
    Mirror: engine.Game._end_turn"""
    lens, scal, prm = st.lens, st.scal, tb.prm
    scal[g, S.phase] = PLAY
    scal[g, S.ppile] = -1
    scal[g, S.ptoll] = 0
    scal[g, S.turn] += 1
    if scal[g, S.played] == 0 and lens[g, prm.draw] == 0 and lens[g, prm.aside] == 0:
        scal[g, S.stall] += 1
    else:
        scal[g, S.stall] = 0
    if scal[g, S.stall] >= prm.n:
        winner = stall_winner(st, tb, g)
        if winner < 0:
            scal[g, S.phase] = DRAWN
        else:
            scal[g, S.phase] = WON
            scal[g, S.win] = winner
        return
    if scal[g, S.turn] >= prm.maxt:
        scal[g, S.phase] = TRUNCATED
        return
    scal[g, S.cur] = (scal[g, S.cur] + 1) % prm.n
    start_turn(st, tb, g)


@jit(inline="always")
def place(st, tb, g, card, i, stock_owner):
    """Put card on building pile i; stock_owner is the seat whose stock it came from, or -1.
    Mirror: engine.Game._place, engine.Game._hand_out_coins"""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    n, top = prm.n, prm.top
    p = scal[g, S.cur]
    k = prm.build + i
    piles[g, k, lens[g, k]] = card
    lens[g, k] += 1
    scal[g, S.played] = 1
    if scal[g, S.phase] == FOLLOWUP:
        scal[g, S.phase] = PLAY
        scal[g, S.ppile] = -1
    if lens[g, k] == top:
        ak = prm.aside
        for j in range(top):
            c = piles[g, k, j]
            if c != COIN:
                piles[g, ak, lens[g, ak]] = c
                lens[g, ak] += 1
        lens[g, k] = 0
        pc = S.coins + n + i
        if scal[g, pc]:
            for m in range(scal[g, pc]):
                scal[g, S.coins + (p + m) % n] += 1
            scal[g, pc] = 0
    if stock_owner >= 0 and team_stocks_empty(st, tb, g, stock_owner):
        scal[g, S.win] = stock_owner
        scal[g, S.phase] = WON
        return
    toll = card // (top + 1)
    if toll:
        scal[g, S.phase] = TOLL
        scal[g, S.ppile] = i
        scal[g, S.ptoll] = toll
        return
    if not prm.stacked and lens[g, prm.hands + p] == 0:
        draw(st, tb, g, p, prm.hs)


@jit(inline="always")
def remove_from_hand(st, tb, g, p, card):
    """Take the matching card held longest out of a refill hand.
    Mirror: engine.Game.step"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    hk = prm.hands + p
    size = lens[g, hk]
    j = 0
    while piles[g, hk, j] != card:
        j += 1
    for m in range(j, size - 1):
        piles[g, hk, m] = piles[g, hk, m + 1]
    lens[g, hk] = size - 1


@jit
def step_game(st, tb, g, a):
    """Apply action a (trusted legal) to game g.
    Mirror: engine.Game.step, engine.Game._play, engine.Game._coin_step"""
    piles, lens, scal, prm, owners, act = st.piles, st.lens, st.scal, tb.prm, tb.owners, tb.act
    n, d = prm.n, prm.d
    p = scal[g, S.cur]
    kind = act[a, A.kind]
    if kind == K_PLAY:
        src, pile = act[a, A.src], act[a, A.pile]
        if src == SRC_HAND:
            if prm.stacked:
                k = prm.hands + p * prm.hs + act[a, A.index]
                lens[g, k] -= 1
                card = piles[g, k, lens[g, k]]
                public_changed(st, tb, g, k, card, -1)
            else:
                card = act[a, A.index]
                remove_from_hand(st, tb, g, p, card)
            place(st, tb, g, card, pile, -1)
        else:
            owner = owners[p, act[a, A.owner]]
            if src == SRC_STOCK:
                k = prm.stocks + owner
            else:
                k = prm.discs + owner * d + act[a, A.index]
            lens[g, k] -= 1
            card = piles[g, k, lens[g, k]]
            if src == SRC_DISCARD:
                public_changed(st, tb, g, k, card, -1)
            place(st, tb, g, card, pile, owner if src == SRC_STOCK else -1)
    elif kind == K_DISCARD:
        card = act[a, A.card]
        remove_from_hand(st, tb, g, p, card)
        k = prm.discs + p * d + act[a, A.pile]
        piles[g, k, lens[g, k]] = card
        lens[g, k] += 1
        public_changed(st, tb, g, k, card, 1)
        end_turn(st, tb, g)
    elif kind == K_END or kind == K_DECLINE:
        end_turn(st, tb, g)
    elif kind == K_COIN:
        i = act[a, A.pile]
        k = prm.build + i
        need = lens[g, k] + 1
        scal[g, S.coins + p] -= need
        scal[g, S.coins + n + i] += need
        piles[g, k, lens[g, k]] = COIN
        lens[g, k] += 1
        scal[g, S.played] = 1
        scal[g, S.phase] = FOLLOWUP
        scal[g, S.ppile] = i
    elif kind == K_BUY:
        seller = (p + act[a, A.owner]) % n
        src = act[a, A.src]
        if src == SRC_STOCK:
            k = prm.stocks + seller
        else:
            k = prm.discs + seller * d + act[a, A.index]
        scal[g, S.coins + p] -= 1
        scal[g, S.coins + seller] += 1
        lens[g, k] -= 1
        card = piles[g, k, lens[g, k]]
        if src == SRC_DISCARD:
            public_changed(st, tb, g, k, card, -1)
        place(st, tb, g, card, act[a, A.pile], seller if src == SRC_STOCK else -1)
    else:  # pay the toll
        toll = scal[g, S.ptoll]
        scal[g, S.coins + p] -= toll
        scal[g, S.coins + n + scal[g, S.ppile]] += toll
        scal[g, S.phase] = PLAY
        scal[g, S.ppile] = -1
        scal[g, S.ptoll] = 0
        if lens[g, prm.hands + p] == 0:
            draw(st, tb, g, p, prm.hs)


@jit(inline="always")
def _mark_plays(st, tb, masks, g, card, source):
    """Mark the plays of card from play source number `source`; returns how many."""
    prm = tb.prm
    b = prm.b
    rank = card % (prm.top + 1)  # once per source, not once per pile
    marked = 0
    for i in range(b):
        if fits_rank(st, tb, g, rank, i):
            masks[g, source * b + i] = 1
            marked += 1
    return marked


@jit
def legal_mask(st, tb, masks, g):
    """Write game g's legal actions into its row of masks; returns their number.
    Mirror: engine.Game._compute_legal, engine.Game._followups"""
    piles, lens, scal, prm, owners = st.piles, st.lens, st.scal, tb.prm, tb.owners
    masks[g, :] = 0
    phase = scal[g, S.phase]
    p = scal[g, S.cur]
    b, d = prm.b, prm.d
    if phase == TOLL:
        count = 1
        if scal[g, S.coins + p] >= scal[g, S.ptoll]:
            masks[g, prm.pay] = 1
            count = 2
        masks[g, prm.decline] = 1
        return count
    if phase == FOLLOWUP:
        i = scal[g, S.ppile]
        count = 0
        hk = prm.hands + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if fits(st, tb, g, c, i):
                if masks[g, c * b + i] == 0:
                    count += 1
                masks[g, c * b + i] = 1
        s = prm.stocksrc
        for j in range(d + 1):
            k = prm.stocks + p if j == 0 else prm.discs + p * d + j - 1
            if lens[g, k] and fits(st, tb, g, piles[g, k, lens[g, k] - 1], i):
                masks[g, (s + j) * b + i] = 1
                count += 1
        return count
    if phase != PLAY:
        return 0
    count = 0
    if prm.stacked:
        hs = prm.hs
        for s in range(hs):
            k = prm.hands + p * hs + s
            if lens[g, k]:
                count += _mark_plays(st, tb, masks, g, piles[g, k, lens[g, k] - 1], s)
    else:
        hk = prm.hands + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if masks[g, prm.dbase + c * d] == 0:  # first of its kind: plays and discards
                count += _mark_plays(st, tb, masks, g, c, c)
                for m in range(d):
                    masks[g, prm.dbase + c * d + m] = 1
                count += d
    s = prm.stocksrc
    for t in range(prm.tm + 1):
        owner = owners[p, t]
        for j in range(d + 1):
            k = prm.stocks + owner if j == 0 else prm.discs + owner * d + j - 1
            if lens[g, k]:
                count += _mark_plays(st, tb, masks, g, piles[g, k, lens[g, k] - 1], s)
            s += 1
    if prm.stacked:
        if count == 0:
            masks[g, prm.end] = 1
            count = 1
        return count
    hand_empty = lens[g, prm.hands + p] == 0
    if prm.coins:
        count += _coin_actions(st, tb, masks, g, p)
    if hand_empty:
        masks[g, prm.end] = 1
        count += 1
    return count


@jit
def _coin_actions(st, tb, masks, g, p):
    """Skip-Bo Masters: coin plays (only with a follow-up from the player's own cards), then
    purchases.
    Mirror: engine.Game._coin_actions"""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    n, b, d, top = prm.n, prm.b, prm.d, prm.top
    coins = scal[g, S.coins + p]
    count = 0
    hk = prm.hands + p
    for i in range(b):
        need = lens[g, prm.build + i] + 1
        if need >= top or coins < need:
            continue
        ok = False
        # With the coin in place the pile shows `need`, and its top is no wild.
        for j in range(lens[g, hk]):
            rank = piles[g, hk, j] % (top + 1)
            if fits_shown(prm, rank, need, False):
                ok = True
        for j in range(d + 1):
            k = prm.stocks + p if j == 0 else prm.discs + p * d + j - 1
            if lens[g, k]:
                rank = piles[g, k, lens[g, k] - 1] % (top + 1)
                if fits_shown(prm, rank, need, False):
                    ok = True
        if ok:
            masks[g, prm.cbase + i] = 1
            count += 1
    if coins >= 1:
        src = 0
        for offset in range(1, n):
            seller = (p + offset) % n
            for j in range(d + 1):
                k = prm.stocks + seller if j == 0 else prm.discs + seller * d + j - 1
                if lens[g, k]:
                    card = piles[g, k, lens[g, k] - 1]
                    for i in range(b):
                        if fits(st, tb, g, card, i):
                            masks[g, prm.pbase + src * b + i] = 1
                            count += 1
                src += 1
    return count


# -- observation ---------------------------------------------------------------------------------
@jit(inline="always")
def _encode_pile(st, tb, cache, g, k, q, so):
    """Public pile k into cache[g, q]: size, top one-hot, top codes, counts below; `so` is
    where a pile's scale factors start (the same for every pile).
    Mirror: observation.ObservationEncoder._pile_segment"""
    piles, lens, prm, scale = st.piles, st.lens, tb.prm, tb.scale
    r, depth = prm.r, prm.o_depth
    cache[g, q, :] = 0.0
    size = lens[g, k]
    cache[g, q, 0] = np.float32(size) * scale[so]
    if size:
        cache[g, q, 1 + piles[g, k, size - 1]] = 1.0
    else:
        cache[g, q, 1 + r] = 1.0
    codes = 2 + r
    shown = min(size, depth)
    for m in range(shown):
        c = piles[g, k, size - 1 - m]
        cache[g, q, codes + m] = np.float32(c + 1) * scale[so + codes + m]
    below = codes + depth
    for m in range(size - shown):
        cache[g, q, below + piles[g, k, m]] += np.float32(1.0)
    if size > shown:
        for c in range(r):
            cache[g, q, below + c] *= scale[so + below + c]


@jit
def encode(st, tb, buf, g, seat, obs):
    """Game g from `seat`'s point of view into obs (buf.obs or buf.final_obs); buf.seen is a
    scratch row of card counts, buf.cache holds each public pile's encoding, redone when the
    pile's dirty flag is set.
    Mirror: observation.ObservationEncoder.encode"""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    team_id, scale, deck, seen, cache = tb.team_id, tb.scale, tb.deck, buf.seen, buf.cache
    n, b, d, top, r = prm.n, prm.b, prm.d, prm.top, prm.r
    hs, stacked = prm.hs, prm.stacked
    obs[g, :] = 0.0
    seen[g, :] = 0
    cur = scal[g, S.cur]
    obs[g, prm.o_toact + (cur - seat) % n] = 1.0
    o = prm.o_draw
    obs[g, o] = np.float32(lens[g, prm.draw]) * scale[o]
    ak = prm.aside
    obs[g, o + 1] = np.float32(lens[g, ak]) * scale[o + 1]
    obs[g, o + 2] = np.float32(scal[g, S.turn]) * scale[o + 2]
    for j in range(lens[g, ak]):
        seen[g, piles[g, ak, j]] += 1
    ob, ow = prm.o_build, prm.o_bwild
    for i in range(b):
        k = prm.build + i
        obs[g, ob + i * top + lens[g, k]] = 1.0
        wilds = 0
        for j in range(lens[g, k]):
            c = piles[g, k, j]
            if c >= 0:
                seen[g, c] += 1
            if c == 0:
                wilds += 1
        obs[g, ow + i] = np.float32(wilds) * scale[ow + i]
    if not stacked:
        oh = prm.o_own
        hk = prm.hands + seat
        for j in range(lens[g, hk]):
            seen[g, piles[g, hk, j]] += 1
            obs[g, oh + piles[g, hk, j]] += 1.0
        for c in range(r):
            obs[g, oh + c] *= scale[oh + c]
    width, pw, poff = prm.o_seatw, prm.o_pilew, prm.o_pileoff
    so = prm.o_seats + poff
    team = team_id[seat]
    for m in range(n):
        p = (seat + m) % n
        o = prm.o_seats + m * width
        if team_id[p] == team:
            obs[g, o] = 1.0
        obs[g, o + 1] = np.float32(min(scal[g, S.coins + n + b + p], 500)) * scale[o + 1]
        sk = prm.stocks + p
        size = lens[g, sk]
        if size:
            c = piles[g, sk, size - 1]
            obs[g, o + 2 + c] = 1.0
            seen[g, c] += 1
        else:
            obs[g, o + 2 + r] = 1.0
        obs[g, o + 3 + r] = np.float32(size) * scale[o + 3 + r]
        per_seat = hs if stacked else d
        if not stacked:
            obs[g, o + 4 + r] = np.float32(lens[g, prm.hands + p]) * scale[o + 4 + r]
        for s in range(per_seat):
            q = p * per_seat + s
            if scal[g, prm.sdirty + q]:
                _encode_pile(st, tb, cache, g, prm.pub0 + q, q, so)
                scal[g, prm.sdirty + q] = 0
            # Through views indexed from 0, the copy compiles to vector instructions.
            dst = obs[g, o + poff + s * pw:o + poff + (s + 1) * pw]
            src = cache[g, q]
            for j in range(pw):
                dst[j] = src[j]
    u = prm.o_unseen
    for c in range(r):
        seen[g, c] += scal[g, prm.spub + c]
    for c in range(r):
        obs[g, u + c] = np.float32(deck[c] - seen[g, c]) * scale[u + c]
    if prm.coins:
        o = prm.o_coins
        for m in range(n):
            obs[g, o + m] = np.float32(scal[g, S.coins + (seat + m) % n]) * scale[o + m]
        o = prm.o_pcoins
        for i in range(b):
            obs[g, o + i] = np.float32(scal[g, S.coins + n + i]) * scale[o + i]
        if scal[g, S.ppile] >= 0:
            o = prm.o_pend
            if scal[g, S.phase] == TOLL:
                obs[g, o] = 1.0
                obs[g, o + 1] = np.float32(scal[g, S.ptoll]) * scale[o + 1]
            else:
                obs[g, o + 2] = 1.0
            obs[g, o + 3 + scal[g, S.ppile]] = 1.0


# -- outcomes ------------------------------------------------------------------------------------
@jit(inline="always")
def is_over(st, g):
    """Whether game g is won, drawn or truncated."""
    return st.scal[g, S.phase] >= WON


@jit
def write_returns(st, tb, buf, g):
    """+1 for the winner (each member of a winning team), -1 for the others, else 0.
    Mirror: engine.Game.returns"""
    scal, team_id, out = st.scal, tb.team_id, buf.rewards
    out[g, :] = 0.0
    if scal[g, S.phase] == WON:
        winner_team = team_id[scal[g, S.win]]
        for p in range(tb.prm.n):
            out[g, p] = 1.0 if team_id[p] == winner_team else -1.0


# -- batched entry points ------------------------------------------------------------------------
# Two limits of numba's parallel loops (0.68) shape these: a loop takes only arrays and plain
# tuples from outside it, not the `Static` bundle nor its `Params`, so each parallel kernel
# unpacks `tb` before its loop (the parameters as a plain tuple, ``tb.prm[:]``) and builds it
# again inside, by `static`; and a store into a bundle's array written in the loop body itself
# is lost, so every loop body only calls kernels (never inlined ones) that do the stores.
@jit(inline="always")
def static(flat, owners, team_id, teams, act, deck, scale):
    """The `Static` bundle from its parts (inside a parallel loop)."""
    return Static(Params(*flat), owners, team_id, teams, act, deck, scale)


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


@jit(inline="always")
def pick_random(arng, masks, nlegal, g):
    """A uniformly random legal action of game g (-1 when it has none), from the players'
    generator.
    Mirror: players.scripted.RandomAgent"""
    if nlegal[g] == 0:
        return -1
    pick = agent_random(arng, g, nlegal[g])
    for a in range(masks.shape[1]):
        if masks[g, a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


# Copies of the mask and the observation inlined into `advance`, where every step observes
# every game: 7% more steps a second (median of 12 alternating rounds); elsewhere the plain
# functions keep compilation short.
legal_mask_inline = jit(inline="always")(legal_mask.py_func)
encode_inline = jit(inline="always")(encode.py_func)


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
