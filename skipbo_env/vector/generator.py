"""The batched engine's random numbers: numpy's PCG64 and its bounded integers, one generator
per game, so a reshuffle draws the very numbers the reference engine's generator draws; and the
players' own generator (splitmix64), apart from the games'."""

from __future__ import annotations

import numpy as np

from .bundles import jit

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


# -- the players' own random numbers (splitmix64) ---------------------------------------------
@jit(inline="always")
def agent_random(arng, g, top):
    """A number in 0..top-1 from game g's agent generator."""
    z = arng[g] + np.uint64(0x9E3779B97F4A7C15)
    arng[g] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(top))
