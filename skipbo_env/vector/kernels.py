"""Numba kernels of the batched engine: the reference engine's rules (skipbo_env/engine.py) on
arrays, one game per row. Proven equal to the reference by tests/test_vector.py; change the
two together.

State of game g (see `Tables` in layout.py for the static side):
- ``piles[g, k, :lens[g, k]]``: pile k bottom first (int8 card ids, -1 a coin play's place):
  the draw pile, the set-aside cards, the building piles, the stocks, the hands (one per seat
  in refill mode, one per stack in stacked mode) and the discard piles, at the offsets in prm;
- ``scal[g]``: current player, turn, phase, winner, played-this-turn, stall turns, pending
  pile and toll, first player, then coins, pile coins and scores; then, for the observation,
  a dirty flag per public pile (its encoding in the pile cache is stale) and the count of
  each card id in the public piles;
- ``rng[g]``: numpy's PCG64 state (state, increment, buffered 32 bits), so reshuffles draw the
  very numbers the reference engine's generator draws.
"""

from __future__ import annotations

from functools import partial

import numpy as np
from numba import njit, prange

_njit = partial(njit, cache=True, error_model="numpy")


def jit(fn=None, **options):
    """numba's njit as every kernel here uses it: cached machine code; numpy's error model (no
    zero-division checks: no divisor here is zero); and, but for the parallel entry points,
    no reference counting (numba's `_nrt=False`): the helpers only index arrays they are
    given, never allocate, and the atomic counts on every call cost a fifth of a step
    (24% more steps a second without them, median of 12 alternating rounds)."""
    if not options.get("parallel"):
        options["_nrt"] = False
    if fn is None:
        return lambda f: _njit(f, **options)
    return _njit(fn, **options)

# -- static parameters: indices into prm -----------------------------------------------------------
P_N, P_B, P_D, P_HS, P_TOP, P_R, P_STACKED, P_COINS, P_WOW, P_STOCK, P_MAXT, P_DECK = range(12)
P_HSRC, P_TM, P_STOCKSRC, P_NPLAYS, P_DBASE, P_CBASE, P_PBASE, P_NPURCH = range(12, 20)
P_PAY, P_DECLINE, P_END, P_A = range(20, 24)
# pile offsets
P_DRAW, P_ASIDE, P_BUILD, P_STOCKS, P_HANDS, P_DISCS, P_NPILES = range(24, 31)
# observation offsets and sizes
O_TOACT, O_DRAW, O_BUILD, O_BWILD, O_UNSEEN, O_OWN, O_SEATS, O_COINS, O_PCOINS, O_PEND = \
    range(31, 41)
O_DEPTH, O_PILEW, O_SEATW, O_PILEOFF, O_SIZE, P_TEAMS = range(41, 47)
# public piles (discard piles, or hand stacks in the junior games): the first one's pile index,
# their number, and where their dirty flags and card counts sit in the scalar row
P_PUB0, P_NPUB, P_SDIRTY, P_SPUB = range(47, 51)
NPRM = 51

# -- scalar slots --------------------------------------------------------------------------------
S_CUR, S_TURN, S_PHASE, S_WIN, S_PLAYED, S_STALL, S_PPILE, S_PTOLL, S_FIRST, S_COINS = range(10)
# phases, in the order of engine.PHASES
PLAY, FOLLOWUP, TOLL, WON, DRAWN, TRUNCATED = range(6)
# action kinds and source kinds (columns of the action table)
K_PLAY, K_DISCARD, K_COIN, K_BUY, K_PAY, K_DECLINE, K_END = range(7)
SRC_HAND, SRC_STOCK, SRC_DISCARD = range(3)
A_KIND, A_SRC, A_INDEX, A_OWNER, A_PILE, A_CARD = range(6)
COIN = -1

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
    of `rank`: the kernels' one statement of engine.fits."""
    if rank == 0:
        return prm[P_WOW] or not shows_wild
    return rank == shows + 1


@jit(inline="always")
def fits_rank(prm, piles, lens, g, rank, i):
    """Whether building pile i takes a card of `rank`."""
    k = prm[P_BUILD] + i
    size = lens[g, k]
    return fits_shown(prm, rank, size, size > 0 and piles[g, k, size - 1] == 0)


@jit(inline="always")
def fits(prm, piles, lens, g, card, i):
    """Whether building pile i takes card."""
    return fits_rank(prm, piles, lens, g, card % (prm[P_TOP] + 1), i)


@jit(inline="always")
def public_changed(scal, prm, g, k, card, delta):
    """Public pile k gained (delta 1) or lost (-1) card: its cached encoding is stale."""
    scal[g, prm[P_SDIRTY] + k - prm[P_PUB0]] = 1
    scal[g, prm[P_SPUB] + card] += delta


@jit(inline="always")
def draw_card(piles, lens, rng, prm, g):
    """The draw pile's top card (-2 when nothing is left to draw); an empty draw pile is
    replaced by the shuffled set-aside cards."""
    dk, ak = prm[P_DRAW], prm[P_ASIDE]
    if lens[g, dk] == 0:
        n = lens[g, ak]
        if n == 0:
            return -2
        for i in range(n):
            piles[g, dk, i] = piles[g, ak, i]
        lens[g, dk] = n
        lens[g, ak] = 0
        shuffle(piles, rng, g, dk, n)
    lens[g, dk] -= 1
    return piles[g, dk, lens[g, dk]]


@jit(inline="always")
def draw(piles, lens, rng, prm, g, p, count):
    hk = prm[P_HANDS] + p
    for _ in range(count):
        card = draw_card(piles, lens, rng, prm, g)
        if card == -2:
            return
        piles[g, hk, lens[g, hk]] = card
        lens[g, hk] += 1


@jit(inline="always")
def start_turn(piles, lens, scal, rng, prm, g):
    p = scal[g, S_CUR]
    scal[g, S_PLAYED] = 0
    hs = prm[P_HS]
    if prm[P_STACKED]:
        for s in range(hs):
            card = draw_card(piles, lens, rng, prm, g)
            if card == -2:
                return
            k = prm[P_HANDS] + p * hs + s
            piles[g, k, lens[g, k]] = card
            lens[g, k] += 1
            public_changed(scal, prm, g, k, card, 1)
    else:
        draw(piles, lens, rng, prm, g, p, hs - lens[g, prm[P_HANDS] + p])


@jit
def deal(piles, lens, scal, rng, prm, deck, g):
    """A new game in row g from its generator as it stands (Game.__init__ with that
    generator): shuffle the deck, deal the stocks from its end, seat 0 starts."""
    n, b = prm[P_N], prm[P_B]
    lens[g, :] = 0
    dk = prm[P_DRAW]
    m = 0
    for card in range(deck.shape[0]):
        for _ in range(deck[card]):
            piles[g, dk, m] = card
            m += 1
    shuffle(piles, rng, g, dk, m)
    size = prm[P_STOCK]
    for p in range(n):
        sk = prm[P_STOCKS] + p
        for i in range(size):
            piles[g, sk, i] = piles[g, dk, m - size + i]
        lens[g, sk] = size
        m -= size
    lens[g, dk] = m
    scal[g, :S_COINS] = 0
    scal[g, S_WIN] = -1
    scal[g, S_PPILE] = -1
    for p in range(n):
        scal[g, S_COINS + p] = prm[P_COINS]
        scal[g, S_COINS + n + b + p] = 0
    for i in range(b):
        scal[g, S_COINS + n + i] = 0
    for q in range(prm[P_NPUB]):
        scal[g, prm[P_SDIRTY] + q] = 1
    for c in range(prm[P_R]):
        scal[g, prm[P_SPUB] + c] = 0
    start_turn(piles, lens, scal, rng, prm, g)


@jit(inline="always")
def team_stocks_empty(lens, prm, team_id, teams, g, p):
    if prm[P_TEAMS] == 0:
        return lens[g, prm[P_STOCKS] + p] == 0
    for s in teams[team_id[p]]:
        if lens[g, prm[P_STOCKS] + s] != 0:
            return False
    return True


@jit(inline="always")
def end_turn(piles, lens, scal, rng, prm, g):
    scal[g, S_PHASE] = PLAY
    scal[g, S_PPILE] = -1
    scal[g, S_PTOLL] = 0
    scal[g, S_TURN] += 1
    if scal[g, S_PLAYED] == 0 and lens[g, prm[P_DRAW]] == 0 and lens[g, prm[P_ASIDE]] == 0:
        scal[g, S_STALL] += 1
    else:
        scal[g, S_STALL] = 0
    if scal[g, S_STALL] >= prm[P_N]:
        scal[g, S_PHASE] = DRAWN
        return
    if scal[g, S_TURN] >= prm[P_MAXT]:
        scal[g, S_PHASE] = TRUNCATED
        return
    scal[g, S_CUR] = (scal[g, S_CUR] + 1) % prm[P_N]
    start_turn(piles, lens, scal, rng, prm, g)


@jit(inline="always")
def place(piles, lens, scal, rng, prm, team_id, teams, g, card, i, stock_owner):
    """Put card on building pile i (engine.Game._place)."""
    n, top = prm[P_N], prm[P_TOP]
    p = scal[g, S_CUR]
    k = prm[P_BUILD] + i
    piles[g, k, lens[g, k]] = card
    lens[g, k] += 1
    scal[g, S_PLAYED] = 1
    if scal[g, S_PHASE] == FOLLOWUP:
        scal[g, S_PHASE] = PLAY
        scal[g, S_PPILE] = -1
    if lens[g, k] == top:
        ak = prm[P_ASIDE]
        for j in range(top):
            c = piles[g, k, j]
            if c != COIN:
                piles[g, ak, lens[g, ak]] = c
                lens[g, ak] += 1
        lens[g, k] = 0
        pc = S_COINS + n + i
        if scal[g, pc]:
            for m in range(scal[g, pc]):
                scal[g, S_COINS + (p + m) % n] += 1
            scal[g, pc] = 0
    if stock_owner >= 0 and team_stocks_empty(lens, prm, team_id, teams, g, stock_owner):
        scal[g, S_WIN] = stock_owner
        scal[g, S_PHASE] = WON
        return
    toll = card // (top + 1)
    if toll:
        scal[g, S_PHASE] = TOLL
        scal[g, S_PPILE] = i
        scal[g, S_PTOLL] = toll
        return
    if not prm[P_STACKED] and lens[g, prm[P_HANDS] + p] == 0:
        draw(piles, lens, rng, prm, g, p, prm[P_HS])


@jit(inline="always")
def remove_from_hand(piles, lens, prm, g, p, card):
    """Take the matching card held longest out of a refill hand."""
    hk = prm[P_HANDS] + p
    size = lens[g, hk]
    j = 0
    while piles[g, hk, j] != card:
        j += 1
    for m in range(j, size - 1):
        piles[g, hk, m] = piles[g, hk, m + 1]
    lens[g, hk] = size - 1


@jit
def step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, a):
    """Apply action a (trusted legal) to game g (engine.Game.step)."""
    n, d = prm[P_N], prm[P_D]
    p = scal[g, S_CUR]
    kind = act[a, A_KIND]
    if kind == K_PLAY:
        src, pile = act[a, A_SRC], act[a, A_PILE]
        if src == SRC_HAND:
            if prm[P_STACKED]:
                k = prm[P_HANDS] + p * prm[P_HS] + act[a, A_INDEX]
                lens[g, k] -= 1
                card = piles[g, k, lens[g, k]]
                public_changed(scal, prm, g, k, card, -1)
            else:
                card = act[a, A_INDEX]
                remove_from_hand(piles, lens, prm, g, p, card)
            place(piles, lens, scal, rng, prm, team_id, teams, g, card, pile, -1)
        else:
            owner = owners[p, act[a, A_OWNER]]
            if src == SRC_STOCK:
                k = prm[P_STOCKS] + owner
            else:
                k = prm[P_DISCS] + owner * d + act[a, A_INDEX]
            lens[g, k] -= 1
            card = piles[g, k, lens[g, k]]
            if src == SRC_DISCARD:
                public_changed(scal, prm, g, k, card, -1)
            place(piles, lens, scal, rng, prm, team_id, teams, g, card, pile,
                  owner if src == SRC_STOCK else -1)
    elif kind == K_DISCARD:
        card = act[a, A_CARD]
        remove_from_hand(piles, lens, prm, g, p, card)
        k = prm[P_DISCS] + p * d + act[a, A_PILE]
        piles[g, k, lens[g, k]] = card
        lens[g, k] += 1
        public_changed(scal, prm, g, k, card, 1)
        end_turn(piles, lens, scal, rng, prm, g)
    elif kind == K_END or kind == K_DECLINE:
        end_turn(piles, lens, scal, rng, prm, g)
    elif kind == K_COIN:
        i = act[a, A_PILE]
        k = prm[P_BUILD] + i
        need = lens[g, k] + 1
        scal[g, S_COINS + p] -= need
        scal[g, S_COINS + n + i] += need
        piles[g, k, lens[g, k]] = COIN
        lens[g, k] += 1
        scal[g, S_PLAYED] = 1
        scal[g, S_PHASE] = FOLLOWUP
        scal[g, S_PPILE] = i
    elif kind == K_BUY:
        seller = (p + act[a, A_OWNER]) % n
        src = act[a, A_SRC]
        if src == SRC_STOCK:
            k = prm[P_STOCKS] + seller
        else:
            k = prm[P_DISCS] + seller * d + act[a, A_INDEX]
        scal[g, S_COINS + p] -= 1
        scal[g, S_COINS + seller] += 1
        lens[g, k] -= 1
        card = piles[g, k, lens[g, k]]
        if src == SRC_DISCARD:
            public_changed(scal, prm, g, k, card, -1)
        place(piles, lens, scal, rng, prm, team_id, teams, g, card, act[a, A_PILE],
              seller if src == SRC_STOCK else -1)
    else:  # pay the toll
        toll = scal[g, S_PTOLL]
        scal[g, S_COINS + p] -= toll
        scal[g, S_COINS + n + scal[g, S_PPILE]] += toll
        scal[g, S_PHASE] = PLAY
        scal[g, S_PPILE] = -1
        scal[g, S_PTOLL] = 0
        if lens[g, prm[P_HANDS] + p] == 0:
            draw(piles, lens, rng, prm, g, p, prm[P_HS])


@jit(inline="always")
def _mark_plays(masks, prm, piles, lens, g, card, source):
    """Mark the plays of card from play source number `source`; returns how many."""
    b = prm[P_B]
    rank = card % (prm[P_TOP] + 1)  # once per source, not once per pile
    marked = 0
    for i in range(b):
        if fits_rank(prm, piles, lens, g, rank, i):
            masks[g, source * b + i] = 1
            marked += 1
    return marked


@jit
def legal_mask(piles, lens, scal, prm, owners, g, masks):
    """Write game g's legal actions into mask (engine.Game._compute_legal); returns their
    number."""
    masks[g, :] = 0
    phase = scal[g, S_PHASE]
    p = scal[g, S_CUR]
    b, d = prm[P_B], prm[P_D]
    if phase == TOLL:
        count = 1
        if scal[g, S_COINS + p] >= scal[g, S_PTOLL]:
            masks[g, prm[P_PAY]] = 1
            count = 2
        masks[g, prm[P_DECLINE]] = 1
        return count
    if phase == FOLLOWUP:
        i = scal[g, S_PPILE]
        count = 0
        hk = prm[P_HANDS] + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if fits(prm, piles, lens, g, c, i):
                if masks[g, c * b + i] == 0:
                    count += 1
                masks[g, c * b + i] = 1
        s = prm[P_STOCKSRC]
        for j in range(d + 1):
            k = prm[P_STOCKS] + p if j == 0 else prm[P_DISCS] + p * d + j - 1
            if lens[g, k] and fits(prm, piles, lens, g, piles[g, k, lens[g, k] - 1], i):
                masks[g, (s + j) * b + i] = 1
                count += 1
        return count
    if phase != PLAY:
        return 0
    count = 0
    if prm[P_STACKED]:
        hs = prm[P_HS]
        for s in range(hs):
            k = prm[P_HANDS] + p * hs + s
            if lens[g, k]:
                count += _mark_plays(masks, prm, piles, lens, g, piles[g, k, lens[g, k] - 1], s)
    else:
        hk = prm[P_HANDS] + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if masks[g, prm[P_DBASE] + c * d] == 0:  # first of its kind: plays and discards
                count += _mark_plays(masks, prm, piles, lens, g, c, c)
                for m in range(d):
                    masks[g, prm[P_DBASE] + c * d + m] = 1
                count += d
    s = prm[P_STOCKSRC]
    for t in range(prm[P_TM] + 1):
        owner = owners[p, t]
        for j in range(d + 1):
            k = prm[P_STOCKS] + owner if j == 0 else prm[P_DISCS] + owner * d + j - 1
            if lens[g, k]:
                count += _mark_plays(masks, prm, piles, lens, g, piles[g, k, lens[g, k] - 1], s)
            s += 1
    if prm[P_STACKED]:
        if count == 0:
            masks[g, prm[P_END]] = 1
            count = 1
        return count
    hand_empty = lens[g, prm[P_HANDS] + p] == 0
    if prm[P_COINS]:
        count += _coin_actions(piles, lens, scal, prm, g, p, masks)
    if hand_empty:
        masks[g, prm[P_END]] = 1
        count += 1
    return count


@jit
def _coin_actions(piles, lens, scal, prm, g, p, masks):
    """Skip-Bo Masters: coin plays (only with a follow-up from the player's own cards), then
    purchases (engine.Game._coin_actions)."""
    n, b, d, top = prm[P_N], prm[P_B], prm[P_D], prm[P_TOP]
    coins = scal[g, S_COINS + p]
    count = 0
    hk = prm[P_HANDS] + p
    for i in range(b):
        need = lens[g, prm[P_BUILD] + i] + 1
        if need >= top or coins < need:
            continue
        ok = False
        # With the coin in place the pile shows `need`, and its top is no wild.
        for j in range(lens[g, hk]):
            rank = piles[g, hk, j] % (top + 1)
            if fits_shown(prm, rank, need, False):
                ok = True
        for j in range(d + 1):
            k = prm[P_STOCKS] + p if j == 0 else prm[P_DISCS] + p * d + j - 1
            if lens[g, k]:
                rank = piles[g, k, lens[g, k] - 1] % (top + 1)
                if fits_shown(prm, rank, need, False):
                    ok = True
        if ok:
            masks[g, prm[P_CBASE] + i] = 1
            count += 1
    if coins >= 1:
        src = 0
        for offset in range(1, n):
            seller = (p + offset) % n
            for j in range(d + 1):
                k = prm[P_STOCKS] + seller if j == 0 else prm[P_DISCS] + seller * d + j - 1
                if lens[g, k]:
                    card = piles[g, k, lens[g, k] - 1]
                    for i in range(b):
                        if fits(prm, piles, lens, g, card, i):
                            masks[g, prm[P_PBASE] + src * b + i] = 1
                            count += 1
                src += 1
    return count


# -- observation ---------------------------------------------------------------------------------
@jit(inline="always")
def _encode_pile(piles, lens, prm, scale, g, k, cache, q, so):
    """Public pile k into cache[g, q]: size, top one-hot, top codes, counts below
    (ObservationEncoder); `so` is where a pile's scale factors start (the same for every
    pile)."""
    r, depth = prm[P_R], prm[O_DEPTH]
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
def encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, seat, obs):
    """Game g from `seat`'s point of view into obs (ObservationEncoder.encode); `seen` is a
    scratch row of card counts, `cache` holds each public pile's encoding, redone when the
    pile's dirty flag is set."""
    n, b, d, top, r = prm[P_N], prm[P_B], prm[P_D], prm[P_TOP], prm[P_R]
    hs, stacked = prm[P_HS], prm[P_STACKED]
    obs[g, :] = 0.0
    seen[g, :] = 0
    cur = scal[g, S_CUR]
    obs[g, prm[O_TOACT] + (cur - seat) % n] = 1.0
    o = prm[O_DRAW]
    obs[g, o] = np.float32(lens[g, prm[P_DRAW]]) * scale[o]
    ak = prm[P_ASIDE]
    obs[g, o + 1] = np.float32(lens[g, ak]) * scale[o + 1]
    obs[g, o + 2] = np.float32(scal[g, S_TURN]) * scale[o + 2]
    for j in range(lens[g, ak]):
        seen[g, piles[g, ak, j]] += 1
    ob, ow = prm[O_BUILD], prm[O_BWILD]
    for i in range(b):
        k = prm[P_BUILD] + i
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
        oh = prm[O_OWN]
        hk = prm[P_HANDS] + seat
        for j in range(lens[g, hk]):
            seen[g, piles[g, hk, j]] += 1
            obs[g, oh + piles[g, hk, j]] += 1.0
        for c in range(r):
            obs[g, oh + c] *= scale[oh + c]
    width, pw, poff = prm[O_SEATW], prm[O_PILEW], prm[O_PILEOFF]
    so = prm[O_SEATS] + poff
    team = team_id[seat]
    for m in range(n):
        p = (seat + m) % n
        o = prm[O_SEATS] + m * width
        if team_id[p] == team:
            obs[g, o] = 1.0
        obs[g, o + 1] = np.float32(min(scal[g, S_COINS + n + b + p], 500)) * scale[o + 1]
        sk = prm[P_STOCKS] + p
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
            obs[g, o + 4 + r] = np.float32(lens[g, prm[P_HANDS] + p]) * scale[o + 4 + r]
        for s in range(per_seat):
            q = p * per_seat + s
            if scal[g, prm[P_SDIRTY] + q]:
                _encode_pile(piles, lens, prm, scale, g, prm[P_PUB0] + q, cache, q, so)
                scal[g, prm[P_SDIRTY] + q] = 0
            # Through views indexed from 0, the copy compiles to vector instructions.
            dst = obs[g, o + poff + s * pw:o + poff + (s + 1) * pw]
            src = cache[g, q]
            for j in range(pw):
                dst[j] = src[j]
    u = prm[O_UNSEEN]
    for c in range(r):
        seen[g, c] += scal[g, prm[P_SPUB] + c]
    for c in range(r):
        obs[g, u + c] = np.float32(deck[c] - seen[g, c]) * scale[u + c]
    if prm[P_COINS]:
        o = prm[O_COINS]
        for m in range(n):
            obs[g, o + m] = np.float32(scal[g, S_COINS + (seat + m) % n]) * scale[o + m]
        o = prm[O_PCOINS]
        for i in range(b):
            obs[g, o + i] = np.float32(scal[g, S_COINS + n + i]) * scale[o + i]
        if scal[g, S_PPILE] >= 0:
            o = prm[O_PEND]
            if scal[g, S_PHASE] == TOLL:
                obs[g, o] = 1.0
                obs[g, o + 1] = np.float32(scal[g, S_PTOLL]) * scale[o + 1]
            else:
                obs[g, o + 2] = 1.0
            obs[g, o + 3 + scal[g, S_PPILE]] = 1.0


# -- outcomes ------------------------------------------------------------------------------------
@jit(inline="always")
def is_over(scal, g):
    return scal[g, S_PHASE] >= WON


@jit
def write_returns(scal, prm, team_id, g, out):
    """+1 for the winner (each member of a winning team), -1 for the others, else 0."""
    out[g, :] = 0.0
    if scal[g, S_PHASE] == WON:
        winner_team = team_id[scal[g, S_WIN]]
        for p in range(prm[P_N]):
            out[g, p] = 1.0 if team_id[p] == winner_team else -1.0


# -- batched entry points ------------------------------------------------------------------------
@jit
def observe(piles, lens, scal, prm, owners, team_id, scale, deck, obs, masks, nlegal, seats,
            seen, cache, g):
    """Game g's seat to act, its legal actions (mask and count) and its observation."""
    seats[g] = scal[g, S_CUR]
    nlegal[g] = legal_mask(piles, lens, scal, prm, owners, g, masks)
    encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, seats[g], obs)


@jit(parallel=True)
def reset_all(piles, lens, scal, rng, prm, owners, team_id, scale, deck, obs, masks, nlegal,
              seats, seen, cache):
    """Deal every game from its generator and observe the player to act."""
    for g in prange(piles.shape[0]):
        deal(piles, lens, scal, rng, prm, deck, g)
        observe(piles, lens, scal, prm, owners, team_id, scale, deck, obs, masks, nlegal, seats,
                seen, cache, g)


@jit(parallel=True)
def observe_all(piles, lens, scal, prm, owners, team_id, scale, deck, obs, masks, nlegal, seats,
                seen, cache):
    """Observe the player to act in every game."""
    for g in prange(piles.shape[0]):
        observe(piles, lens, scal, prm, owners, team_id, scale, deck, obs, masks, nlegal, seats,
                seen, cache, g)


@jit
def first_illegal(masks, scal, actions):
    """The first game not over whose action its mask does not allow (-1 when all are
    legal)."""
    A = masks.shape[1]
    for g in range(actions.shape[0]):
        if is_over(scal, g):
            continue
        a = actions[g]
        if a < 0 or a >= A or masks[g, a] == 0:
            return g
    return -1


@jit(inline="always")
def pick_random(masks, nlegal, arng, g):
    """A uniformly random legal action of game g (-1 when it has none)."""
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
def advance(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, g, a, obs,
            masks, nlegal, seats, rewards, terminated, truncated, final_obs, seen, cache,
            autoreset):
    """Game g's share of a batched step: apply action a (unless the game is over); a finished
    game is scored, observed into final_obs from the seat that acted last and dealt again when
    `autoreset`; then the player to act is observed."""
    terminated[g] = False
    truncated[g] = False
    rewards[g, :] = 0.0
    if is_over(scal, g):
        return
    step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, a)
    if is_over(scal, g):
        write_returns(scal, prm, team_id, g, rewards)
        terminated[g] = scal[g, S_PHASE] != TRUNCATED
        truncated[g] = scal[g, S_PHASE] == TRUNCATED
        encode(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, scal[g, S_CUR],
               final_obs)
        if autoreset:
            deal(piles, lens, scal, rng, prm, deck, g)
    seats[g] = scal[g, S_CUR]
    nlegal[g] = legal_mask_inline(piles, lens, scal, prm, owners, g, masks)
    encode_inline(piles, lens, scal, prm, team_id, scale, deck, seen, cache, g, seats[g], obs)


@jit(parallel=True)
def step_all(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, actions,
             obs, masks, nlegal, seats, rewards, terminated, truncated, final_obs, seen,
             cache, autoreset):
    """Apply one action in every game (`advance`)."""
    for g in prange(piles.shape[0]):
        advance(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, g,
                actions[g], obs, masks, nlegal, seats, rewards, terminated, truncated, final_obs,
                seen, cache, autoreset)


@jit(parallel=True)
def step_random(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, arng,
                actions, obs, masks, nlegal, seats, rewards, terminated, truncated, final_obs,
                seen, cache, autoreset):
    """Apply a uniformly random legal action in every game (written to actions, -1 in a game
    that is over), then as `step_all`."""
    for g in prange(piles.shape[0]):
        actions[g] = pick_random(masks, nlegal, arng, g)
        advance(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, g,
                actions[g], obs, masks, nlegal, seats, rewards, terminated, truncated, final_obs,
                seen, cache, autoreset)


@jit(parallel=True)
def random_actions(masks, nlegal, arng, out):
    """A uniformly random legal action for every game (-1 where the game is over)."""
    for g in prange(masks.shape[0]):
        out[g] = pick_random(masks, nlegal, arng, g)
