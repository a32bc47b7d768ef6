"""Numba kernels of the batched engine: the reference engine's rules (skipbo_env/engine.py) on
arrays, one game per row. Proven equal to the reference by tests/test_vector.py; change the
two together.

State of game g (see `Tables` in layout.py for the static side):
- ``piles[g, k, :lens[g, k]]``: pile k bottom first (int8 card ids, -1 a coin play's place):
  the draw pile, the set-aside cards, the building piles, the stocks, the hands (one per seat
  in refill mode, one per stack in stacked mode) and the discard piles, at the offsets in prm;
- ``scal[g]``: current player, turn, phase, winner, played-this-turn, stall turns, pending
  pile and toll, first player, then coins, pile coins and scores;
- ``rng[g]``: numpy's PCG64 state (state, increment, buffered 32 bits), so reshuffles draw the
  very numbers the reference engine's generator draws.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

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
NPRM = 47

# -- scalar slots --------------------------------------------------------------------------------
S_CUR, S_TURN, S_PHASE, S_WIN, S_PLAYED, S_STALL, S_PPILE, S_PTOLL, S_FIRST, S_COINS = range(10)
# phases, in the order of engine.PHASES
PLAY, FOLLOWUP, TOLL, WON, DRAWN, TRUNCATED = range(6)
# action kinds and source kinds (columns of the action table)
K_PLAY, K_DISCARD, K_COIN, K_BUY, K_PAY, K_DECLINE, K_END = range(7)
SRC_HAND, SRC_STOCK, SRC_DISCARD = range(3)
A_KIND, A_SRC, A_INDEX, A_OWNER, A_PILE, A_CARD = range(6)
COIN = -1

# -- numpy's PCG64 (XSL-RR 128/64) and its bounded integers -----------------------------------------
_MUL_HI = np.uint64(2549297995355413924)
_MUL_LO = np.uint64(4865540595714422341)
_M32 = np.uint64(0xFFFFFFFF)
_U32 = np.uint64(32)
_U58 = np.uint64(58)
_U63 = np.uint64(63)
_U64 = np.uint64(64)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit(cache=True, inline="always")
def _mulhi(a, b):
    a_lo, a_hi = a & _M32, a >> _U32
    b_lo, b_hi = b & _M32, b >> _U32
    lo_lo = a_lo * b_lo
    mid1 = a_hi * b_lo
    mid2 = a_lo * b_hi
    carry = ((lo_lo >> _U32) + (mid1 & _M32) + (mid2 & _M32)) >> _U32
    return a_hi * b_hi + (mid1 >> _U32) + (mid2 >> _U32) + carry


@njit(cache=True)
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


@njit(cache=True)
def next_uint32(rng, g):
    if rng[g, 4] != _ZERO:
        rng[g, 4] = _ZERO
        return rng[g, 5]
    value = next_uint64(rng, g)
    rng[g, 4] = _ONE
    rng[g, 5] = value >> _U32
    return value & _M32


@njit(cache=True)
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


@njit(cache=True)
def shuffle(piles, rng, g, k, n):
    """Shuffle the first n cards of pile k as `Generator.shuffle` does."""
    for i in range(n - 1, 0, -1):
        j = random_interval(rng, g, i)
        c = piles[g, k, i]
        piles[g, k, i] = piles[g, k, j]
        piles[g, k, j] = c


# -- agents' own random numbers (splitmix64), apart from the games' generators -------------------
@njit(cache=True)
def agent_random(arng, g, top):
    """A number in 0..top-1 from game g's agent generator."""
    z = arng[g] + np.uint64(0x9E3779B97F4A7C15)
    arng[g] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(top))


# -- rules --------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def fits(prm, piles, lens, g, card, i):
    """Whether building pile i takes card (engine.fits)."""
    k = prm[P_BUILD] + i
    size = lens[g, k]
    rank = card % (prm[P_TOP] + 1)
    if rank == 0:
        if prm[P_WOW]:
            return True
        return not (size > 0 and piles[g, k, size - 1] == 0)
    return rank == size + 1


@njit(cache=True)
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


@njit(cache=True)
def draw(piles, lens, rng, prm, g, p, count):
    hk = prm[P_HANDS] + p
    for _ in range(count):
        card = draw_card(piles, lens, rng, prm, g)
        if card == -2:
            return
        piles[g, hk, lens[g, hk]] = card
        lens[g, hk] += 1


@njit(cache=True)
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
    else:
        draw(piles, lens, rng, prm, g, p, hs - lens[g, prm[P_HANDS] + p])


@njit(cache=True)
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
    start_turn(piles, lens, scal, rng, prm, g)


@njit(cache=True)
def team_stocks_empty(lens, prm, team_id, teams, g, p):
    if prm[P_TEAMS] == 0:
        return lens[g, prm[P_STOCKS] + p] == 0
    for s in teams[team_id[p]]:
        if lens[g, prm[P_STOCKS] + s] != 0:
            return False
    return True


@njit(cache=True)
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


@njit(cache=True)
def place(piles, lens, scal, rng, prm, team_id, teams, g, card, i, stock_owner):
    """Put card on building pile i (engine.Game._place)."""
    n, b, top = prm[P_N], prm[P_B], prm[P_TOP]
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


@njit(cache=True)
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


@njit(cache=True)
def step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, a):
    """Apply action a (trusted legal) to game g (engine.Game.step)."""
    n, b, d = prm[P_N], prm[P_B], prm[P_D]
    p = scal[g, S_CUR]
    kind = act[a, A_KIND]
    if kind == K_PLAY:
        src, pile = act[a, A_SRC], act[a, A_PILE]
        if src == SRC_HAND:
            if prm[P_STACKED]:
                k = prm[P_HANDS] + p * prm[P_HS] + act[a, A_INDEX]
                lens[g, k] -= 1
                card = piles[g, k, lens[g, k]]
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
            place(piles, lens, scal, rng, prm, team_id, teams, g, card, pile,
                  owner if src == SRC_STOCK else -1)
    elif kind == K_DISCARD:
        card = act[a, A_CARD]
        remove_from_hand(piles, lens, prm, g, p, card)
        k = prm[P_DISCS] + p * d + act[a, A_PILE]
        piles[g, k, lens[g, k]] = card
        lens[g, k] += 1
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


@njit(cache=True)
def _mark_plays(mask, prm, piles, lens, g, card, source):
    """Mark the plays of card from play source number `source`; returns how many."""
    b = prm[P_B]
    marked = 0
    for i in range(b):
        if fits(prm, piles, lens, g, card, i):
            mask[source * b + i] = 1
            marked += 1
    return marked


@njit(cache=True)
def legal_mask(piles, lens, scal, prm, owners, g, mask):
    """Write game g's legal actions into mask (engine.Game._compute_legal); returns their
    number."""
    mask[:] = 0
    phase = scal[g, S_PHASE]
    p = scal[g, S_CUR]
    n, b, d, top = prm[P_N], prm[P_B], prm[P_D], prm[P_TOP]
    if phase == TOLL:
        count = 1
        if scal[g, S_COINS + p] >= scal[g, S_PTOLL]:
            mask[prm[P_PAY]] = 1
            count = 2
        mask[prm[P_DECLINE]] = 1
        return count
    if phase == FOLLOWUP:
        i = scal[g, S_PPILE]
        count = 0
        hk = prm[P_HANDS] + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if fits(prm, piles, lens, g, c, i):
                if mask[c * b + i] == 0:
                    count += 1
                mask[c * b + i] = 1
        s = prm[P_STOCKSRC]
        for j in range(d + 1):
            k = prm[P_STOCKS] + p if j == 0 else prm[P_DISCS] + p * d + j - 1
            if lens[g, k] and fits(prm, piles, lens, g, piles[g, k, lens[g, k] - 1], i):
                mask[(s + j) * b + i] = 1
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
                count += _mark_plays(mask, prm, piles, lens, g, piles[g, k, lens[g, k] - 1], s)
    else:
        hk = prm[P_HANDS] + p
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if mask[prm[P_DBASE] + c * d] == 0:  # first of its kind: plays and discards
                count += _mark_plays(mask, prm, piles, lens, g, c, c)
                for m in range(d):
                    mask[prm[P_DBASE] + c * d + m] = 1
                count += d
    s = prm[P_STOCKSRC]
    for t in range(prm[P_TM] + 1):
        owner = owners[p, t]
        for j in range(d + 1):
            k = prm[P_STOCKS] + owner if j == 0 else prm[P_DISCS] + owner * d + j - 1
            if lens[g, k]:
                count += _mark_plays(mask, prm, piles, lens, g, piles[g, k, lens[g, k] - 1], s)
            s += 1
    if prm[P_STACKED]:
        if count == 0:
            mask[prm[P_END]] = 1
            count = 1
        return count
    hand_empty = lens[g, prm[P_HANDS] + p] == 0
    if prm[P_COINS]:
        count += _coin_actions(piles, lens, scal, prm, g, p, mask)
    if hand_empty:
        mask[prm[P_END]] = 1
        count += 1
    return count


@njit(cache=True)
def _coin_actions(piles, lens, scal, prm, g, p, mask):
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
        # With the coin in place the pile shows `need` and no wild: a wild or need+1 follows.
        for j in range(lens[g, hk]):
            rank = piles[g, hk, j] % (top + 1)
            if rank == 0 or rank == need + 1:
                ok = True
        for j in range(d + 1):
            k = prm[P_STOCKS] + p if j == 0 else prm[P_DISCS] + p * d + j - 1
            if lens[g, k]:
                rank = piles[g, k, lens[g, k] - 1] % (top + 1)
                if rank == 0 or rank == need + 1:
                    ok = True
        if ok:
            mask[prm[P_CBASE] + i] = 1
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
                            mask[prm[P_PBASE] + src * b + i] = 1
                            count += 1
                src += 1
    return count


# -- observation ---------------------------------------------------------------------------------
@njit(cache=True)
def _encode_pile(piles, lens, prm, scale, deck, g, k, obs, o):
    """One pile at obs[o:]: size, top one-hot, top codes, counts below (ObservationEncoder)."""
    r, depth = prm[P_R], prm[O_DEPTH]
    size = lens[g, k]
    obs[o] = np.float32(size) * scale[o]
    if size:
        obs[o + 1 + piles[g, k, size - 1]] = scale[o + 1 + piles[g, k, size - 1]]
    else:
        obs[o + 1 + r] = scale[o + 1 + r]
    codes = o + 2 + r
    shown = min(size, depth)
    for m in range(shown):
        c = piles[g, k, size - 1 - m]
        obs[codes + m] = np.float32(c + 1) * scale[codes + m]
    below = codes + depth
    for m in range(size - shown):
        c = piles[g, k, m]
        obs[below + c] += np.float32(1.0)
    if size > shown:
        for c in range(r):
            obs[below + c] *= scale[below + c]


@njit(cache=True)
def encode(piles, lens, scal, prm, team_id, scale, deck, seen, g, seat, obs):
    """Game g from `seat`'s point of view into obs (ObservationEncoder.encode); `seen` is a
    scratch row of card counts."""
    n, b, d, top, r = prm[P_N], prm[P_B], prm[P_D], prm[P_TOP], prm[P_R]
    hs, stacked = prm[P_HS], prm[P_STACKED]
    obs[:] = 0.0
    seen[:] = 0
    cur = scal[g, S_CUR]
    obs[prm[O_TOACT] + (cur - seat) % n] = 1.0
    o = prm[O_DRAW]
    obs[o] = np.float32(lens[g, prm[P_DRAW]]) * scale[o]
    ak = prm[P_ASIDE]
    obs[o + 1] = np.float32(lens[g, ak]) * scale[o + 1]
    obs[o + 2] = np.float32(scal[g, S_TURN]) * scale[o + 2]
    for j in range(lens[g, ak]):
        seen[piles[g, ak, j]] += 1
    ob, ow = prm[O_BUILD], prm[O_BWILD]
    for i in range(b):
        k = prm[P_BUILD] + i
        obs[ob + i * top + lens[g, k]] = 1.0
        wilds = 0
        for j in range(lens[g, k]):
            c = piles[g, k, j]
            if c >= 0:
                seen[c] += 1
            if c == 0:
                wilds += 1
        obs[ow + i] = np.float32(wilds) * scale[ow + i]
    if not stacked:
        oh = prm[O_OWN]
        hk = prm[P_HANDS] + seat
        for j in range(lens[g, hk]):
            seen[piles[g, hk, j]] += 1
            obs[oh + piles[g, hk, j]] += 1.0
        for c in range(r):
            obs[oh + c] *= scale[oh + c]
    width, pw, poff = prm[O_SEATW], prm[O_PILEW], prm[O_PILEOFF]
    team = team_id[seat]
    for m in range(n):
        p = (seat + m) % n
        o = prm[O_SEATS] + m * width
        if team_id[p] == team:
            obs[o] = 1.0
        obs[o + 1] = np.float32(min(scal[g, S_COINS + n + b + p], 500)) * scale[o + 1]
        sk = prm[P_STOCKS] + p
        size = lens[g, sk]
        if size:
            c = piles[g, sk, size - 1]
            obs[o + 2 + c] = 1.0
            seen[c] += 1
        else:
            obs[o + 2 + r] = 1.0
        obs[o + 3 + r] = np.float32(size) * scale[o + 3 + r]
        if stacked:
            for s in range(hs):
                k = prm[P_HANDS] + p * hs + s
                _encode_pile(piles, lens, prm, scale, deck, g, k, obs, o + poff + s * pw)
                for j in range(lens[g, k]):
                    seen[piles[g, k, j]] += 1
        else:
            obs[o + 4 + r] = np.float32(lens[g, prm[P_HANDS] + p]) * scale[o + 4 + r]
            for s in range(d):
                k = prm[P_DISCS] + p * d + s
                _encode_pile(piles, lens, prm, scale, deck, g, k, obs, o + poff + s * pw)
                for j in range(lens[g, k]):
                    seen[piles[g, k, j]] += 1
    u = prm[O_UNSEEN]
    for c in range(r):
        obs[u + c] = np.float32(deck[c] - seen[c]) * scale[u + c]
    if prm[P_COINS]:
        o = prm[O_COINS]
        for m in range(n):
            obs[o + m] = np.float32(scal[g, S_COINS + (seat + m) % n]) * scale[o + m]
        o = prm[O_PCOINS]
        for i in range(b):
            obs[o + i] = np.float32(scal[g, S_COINS + n + i]) * scale[o + i]
        if scal[g, S_PPILE] >= 0:
            o = prm[O_PEND]
            if scal[g, S_PHASE] == TOLL:
                obs[o] = 1.0
                obs[o + 1] = np.float32(scal[g, S_PTOLL]) * scale[o + 1]
            else:
                obs[o + 2] = 1.0
            obs[o + 3 + scal[g, S_PPILE]] = 1.0


# -- outcomes ------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def is_over(scal, g):
    return scal[g, S_PHASE] >= WON


@njit(cache=True)
def write_returns(scal, prm, team_id, g, out):
    """+1 for the winner (each member of a winning team), -1 for the others, else 0."""
    out[:] = 0.0
    if scal[g, S_PHASE] == WON:
        winner_team = team_id[scal[g, S_WIN]]
        for p in range(prm[P_N]):
            out[p] = 1.0 if team_id[p] == winner_team else -1.0


# -- batched entry points ------------------------------------------------------------------------
@njit(cache=True, parallel=True)
def reset_all(piles, lens, scal, rng, prm, deck, obs, masks, seats, seen, team_id, owners,
              scale):
    """Deal every game from its generator and observe the player to act."""
    for g in prange(piles.shape[0]):
        deal(piles, lens, scal, rng, prm, deck, g)
        seats[g] = scal[g, S_CUR]
        legal_mask(piles, lens, scal, prm, owners, g, masks[g])
        encode(piles, lens, scal, prm, team_id, scale, deck, seen[g], g, seats[g], obs[g])


@njit(cache=True)
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


@njit(cache=True, parallel=True)
def step_all(piles, lens, scal, rng, prm, owners, team_id, teams, act, deck, scale, actions,
             obs, masks, seats, rewards, terminated, truncated, final_obs, seen, autoreset):
    """Apply one action in every game; finished games are observed into final_obs (from the
    seat that acted last), scored, and dealt again when `autoreset`."""
    for g in prange(piles.shape[0]):
        terminated[g] = False
        truncated[g] = False
        rewards[g, :] = 0.0
        if is_over(scal, g):
            continue
        step_game(piles, lens, scal, rng, prm, owners, team_id, teams, act, g, actions[g])
        if is_over(scal, g):
            write_returns(scal, prm, team_id, g, rewards[g])
            terminated[g] = scal[g, S_PHASE] != TRUNCATED
            truncated[g] = scal[g, S_PHASE] == TRUNCATED
            encode(piles, lens, scal, prm, team_id, scale, deck, seen[g], g, scal[g, S_CUR],
                   final_obs[g])
            if autoreset:
                deal(piles, lens, scal, rng, prm, deck, g)
        seats[g] = scal[g, S_CUR]
        legal_mask(piles, lens, scal, prm, owners, g, masks[g])
        encode(piles, lens, scal, prm, team_id, scale, deck, seen[g], g, seats[g], obs[g])


@njit(cache=True, parallel=True)
def random_actions(masks, arng, out):
    """A uniformly random legal action for every game (its mask's set entries)."""
    A = masks.shape[1]
    for g in prange(masks.shape[0]):
        count = 0
        for a in range(A):
            count += masks[g, a]
        if count == 0:
            out[g] = -1
            continue
        pick = agent_random(arng, g, count)
        for a in range(A):
            if masks[g, a]:
                if pick == 0:
                    out[g] = a
                    break
                pick -= 1
