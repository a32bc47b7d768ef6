"""The observation on arrays: `encode` writes one game from one seat's point of view as
`observation.ObservationEncoder.encode` does (tests/test_vector.py proves them equal), each
public pile's encoding cached until the pile changes."""

from __future__ import annotations

import numpy as np

from .bundles import TOLL, S, jit


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
def _encode_table(st, tb, buf, g, seat, obs):
    """The seat to act, the draw pile and set-aside sizes, the turn, the building piles and
    the seat's own refill hand; counts the cards seen there into buf.seen."""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    scale, seen = tb.scale, buf.seen
    n, b, top, r = prm.n, prm.b, prm.top, prm.r
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
    if not prm.stacked:
        oh = prm.o_own
        hk = prm.hands + seat
        for j in range(lens[g, hk]):
            seen[g, piles[g, hk, j]] += 1
            obs[g, oh + piles[g, hk, j]] += 1.0
        for c in range(r):
            obs[g, oh + c] *= scale[oh + c]


@jit
def _encode_seats(st, tb, buf, g, seat, obs):
    """Every seat's block, the observer's first: teammate flag, score, stock top and size,
    hand size (refill mode) and its public piles (each copied from buf.cache, encoded again
    when its dirty flag is set); counts the stock tops into buf.seen."""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    team_id, scale, seen, cache = tb.team_id, tb.scale, buf.seen, buf.cache
    n, b, d, r = prm.n, prm.b, prm.d, prm.r
    width, pw, poff = prm.o_seatw, prm.o_pilew, prm.o_pileoff
    so = prm.o_seats + poff
    team = team_id[seat]
    per_seat = prm.hs if prm.stacked else d
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
        if not prm.stacked:
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


@jit
def _encode_coins(st, tb, g, seat, obs):
    """Skip-Bo Masters: every seat's coins (observer first), the coins beside each building
    pile, and the coin step due."""
    scal, prm, scale = st.scal, tb.prm, tb.scale
    n, b = prm.n, prm.b
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


@jit
def encode(st, tb, buf, g, seat, obs):
    """Game g from `seat`'s point of view into obs (buf.obs or buf.final_obs); buf.seen is a
    scratch row of card counts, buf.cache holds each public pile's encoding, redone when the
    pile's dirty flag is set.
    Mirror: observation.ObservationEncoder.encode"""
    scal, prm, scale, deck, seen = st.scal, tb.prm, tb.scale, tb.deck, buf.seen
    obs[g, :] = 0.0
    seen[g, :] = 0
    _encode_table(st, tb, buf, g, seat, obs)
    _encode_seats(st, tb, buf, g, seat, obs)
    u = prm.o_unseen
    for c in range(prm.r):
        seen[g, c] += scal[g, prm.spub + c]
    for c in range(prm.r):
        obs[g, u + c] = np.float32(deck[c] - seen[g, c]) * scale[u + c]
    if prm.coins:
        _encode_coins(st, tb, g, seat, obs)


# A copy inlined where every step observes every game (see play_rules.legal_mask_inline).
encode_inline = jit(inline="always")(encode.py_func)
