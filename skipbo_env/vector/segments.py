"""Turn segments on arrays: for many games at once, every distinct position the player to act can
reach before the next chance event, with one action sequence each and the observation of the
resulting position from the acting seat's view (the reference statement is
skipbo_env/segments.py; tests/test_vector_segments.py proves the two list the same segments,
with the same sequences and observations, on every variant and player count).

Each game is walked depth first on scratch rows, one row per move of the walk's path, the
legal actions of each position in increasing order. Positions are told apart by a 64-bit hash
of their canonical form (building piles, and each seat's discard piles or hand stacks, as
multisets; the own hand as a multiset): equivalent positions hash alike and are walked or listed
once, as the reference merges them. Two positions that are not equivalent share a hash with a
chance of about one in 2**64 / (positions of one decision)**2: below 10**-11 a decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .. import checks
from ..rules import Rules
from ..segments import TooManyPositions
from . import threads
from .batched import VectorEngine
from .bundles import (
    K_BUY,
    K_DECLINE,
    K_DISCARD,
    K_END,
    K_PLAY,
    SRC_HAND,
    SRC_STOCK,
    A,
    Buffers,
    S,
    State,
    _fetch_add,
    entry,
    jit,
    next_chunk,
)
from .observe import encode
from .play_rules import is_over, legal_mask, public_changed, step_game
from .rollout import _mix  # splitmix64's finaliser: a uint64 scrambled

MAX_CAPACITY = 2**24
"""The segments a lister holds room for at the start, at most (it grows past it as needed)."""
MAX_MOVES = 96
"""The most moves one segment may take (a longer one is reported, never cut short)."""
TABLE_BITS = 16
"""Each walk's table of positions seen starts with 2**TABLE_BITS places, filled at most half;
a walk that needs more is walked again with a table four times larger, up to 2**MAX_TABLE_BITS."""
MAX_TABLE_BITS = 24
# Why a segment ends (segments.ENDINGS, in order); NONE: it goes on.
NONE, TURN_END, GAME_END, STOCK, REFILL = -1, 0, 1, 2, 3
# A game's status after the walk.
OK, TOO_LONG, TOO_MANY = 0, 1, 2
_SEEN_SALT = np.uint64(0x9E3779B97F4A7C15)
_FOUND_SALT = np.uint64(0xD6E8FEB86659FD93)


class Scratch(NamedTuple):
    """The walks' rows and tables: slot k (one per thread) owns rows k * (MAX_MOVES + 1) ..."""

    st: State  # the positions on each walk's path
    masks: np.ndarray  # [rows, actions] int8: their legal actions
    buf: Buffers  # the observation's scratch (seen, cache, obs) for those rows
    keys: np.ndarray  # [slots, 2**TABLE_BITS] uint64: positions seen, by hash
    stamps: np.ndarray  # [slots, 2**TABLE_BITS] int64: the walk that wrote each key
    path: np.ndarray  # [slots, MAX_MOVES + 1, 2] int64: each depth's action, next to try
    slots: np.ndarray  # [2] int64: the next free slot; walks so far (the stamp)


class Found(NamedTuple):
    """The segments listed, in the order the threads wrote them (`order` and `game` sort
    them): one row each, up to the capacity; `counter` counts every one, so a listing that
    did not fit says how much room it needs."""

    counter: np.ndarray  # [1] int64
    game: np.ndarray  # [capacity] int32: the game of each segment
    order: np.ndarray  # [capacity] int32: its place among that game's segments
    ending: np.ndarray  # [capacity] int8: why it ends (segments.ENDINGS)
    length: np.ndarray  # [capacity] int16: its moves
    actions: np.ndarray  # [capacity, MAX_MOVES] int16
    obs: np.ndarray  # [capacity, observation] float32
    counts: np.ndarray  # [games] int64: segments of each game
    status: np.ndarray  # [games] int8: OK, TOO_LONG or TOO_MANY


@jit(inline="always")
def _fold(h, v):
    """Hash h with the small integer v (at least -2) folded in."""
    return _mix(h ^ np.uint64(np.int64(v) + 2))


@jit(inline="always")
def _pile_hash(st, g, k):
    """Pile k of game g, bottom to top, as a hash."""
    size = st.lens[g, k]
    h = _mix(np.uint64(size) + np.uint64(0x632BE59BD9B4E019))
    for j in range(size):
        h = _mix(h ^ np.uint64(st.piles[g, k, j] + 2))
    return h


@jit
def position_hash(st, tb, g, seat, hidden):
    """Game g as `seat` knows it, as a hash: equal for equivalent positions (the order of the
    building piles and of each seat's discard piles or hand stacks aside, the hand a multiset;
    segments.position_key). Stock tops of the seats in the bitmask `hidden` are unknown.
    Mirror: segments.position_key"""
    piles, lens, scal, prm = st.piles, st.lens, st.scal, tb.prm
    n, b = prm.n, prm.b
    total = np.uint64(0)
    for i in range(b):  # the building piles as a multiset, each with its coins and pending flag
        extra = np.uint64(scal[g, S.coins + n + i]) * np.uint64(0x9FB21C651E98DF25)
        if scal[g, S.ppile] == i:
            extra ^= np.uint64(0xC2B2AE3D27D4EB4F)
        total += _mix(_pile_hash(st, g, prm.build + i) ^ extra)
    h = _mix(total)
    per_seat = prm.hs if prm.stacked else prm.d
    for s in range(n):
        total = np.uint64(0)
        for j in range(per_seat):
            total += _mix(_pile_hash(st, g, prm.pub0 + s * per_seat + j))
        h = _mix(h ^ total ^ np.uint64(s))
        sk = prm.stocks + s
        size = lens[g, sk]
        top = -1 if size == 0 or (hidden >> s) & 1 else piles[g, sk, size - 1]
        held = 0
        if prm.stacked:
            for j in range(per_seat):
                held += lens[g, prm.hands + s * per_seat + j]
        else:
            held = lens[g, prm.hands + s]
        h = _fold(_fold(_fold(h, size), top), held)
        h = _fold(_fold(h, scal[g, S.coins + s]), scal[g, S.coins + n + b + s])
    if not prm.stacked:  # the own hand as a multiset
        hk = prm.hands + seat
        total = np.uint64(0)
        for j in range(lens[g, hk]):
            total += _mix(np.uint64(piles[g, hk, j] + 0x51))
        h = _mix(h ^ total)
    total = np.uint64(0)  # the set-aside cards as a multiset
    for j in range(lens[g, prm.aside]):
        total += _mix(np.uint64(piles[g, prm.aside, j] + 0x77))
    h = _mix(h ^ total)
    h = _fold(_fold(_fold(_fold(h, seat), scal[g, S.cur]), scal[g, S.turn]), scal[g, S.phase])
    h = _fold(_fold(_fold(h, scal[g, S.ptoll]), scal[g, S.played]), scal[g, S.stall])
    return _fold(h, lens[g, prm.draw])


@jit(inline="always")
def _insert(sc, slot, stamp, key):
    """Add key to the slot's table of this walk: 1 if it is new, 0 if it was there, -1 when
    the table is full."""
    keys, stamps = sc.keys, sc.stamps
    mask = keys.shape[1] - 1
    i = np.int64(key & np.uint64(mask))
    for _ in range(keys.shape[1]):
        if stamps[slot, i] != stamp:
            stamps[slot, i], keys[slot, i] = stamp, key
            return 1
        if keys[slot, i] == key:
            return 0
        i = (i + 1) & mask
    return -1


@jit(inline="always")
def _copy_row(src, g, dst, h):
    """Game g of `src` into row h of `dst` (the piles up to their lengths)."""
    for k in range(src.lens.shape[1]):
        size = src.lens[g, k]
        for j in range(size):
            dst.piles[h, k, j] = src.piles[g, k, j]
        dst.lens[h, k] = size
    for j in range(src.scal.shape[1]):
        dst.scal[h, j] = src.scal[g, j]
    for j in range(src.rng.shape[1]):
        dst.rng[h, j] = src.rng[g, j]


@jit(inline="always")
def segment_ending(st, tb, pre, post, a, p):
    """Why the segment ends with action a, which took row pre to row post (NONE: it goes on).
    Mirror: segments.segment_ending"""
    act, prm, lens = tb.act, tb.prm, st.lens
    if is_over(st, post):
        return GAME_END
    kind = act[a, A.kind]
    if kind in (K_DISCARD, K_END, K_DECLINE) or st.scal[post, S.cur] != p:
        return TURN_END
    if kind in (K_PLAY, K_BUY) and act[a, A.src] == SRC_STOCK:
        return STOCK
    if not prm.stacked:
        took = 1 if kind == K_PLAY and act[a, A.src] == SRC_HAND else 0
        if lens[post, prm.hands + p] > lens[pre, prm.hands + p] - took:
            return REFILL
    return NONE


@jit(inline="always")
def unseen_outcome(st, tb, pre, post, p, ending):
    """Take out of row post what the chance revealed: a refilled hand is emptied, the cards
    the next player put face up on its hand stacks go back; returns the bitmask of the seats
    whose stock top turned up (unknown).
    Mirror: segments.unseen_outcome"""
    lens, prm = st.lens, tb.prm
    hidden = 0
    for s in range(prm.n):
        size = lens[post, prm.stocks + s]
        if 0 < size < lens[pre, prm.stocks + s]:
            hidden |= 1 << s
    if ending == REFILL:
        lens[post, prm.hands + p] = 0
    elif ending == TURN_END and prm.stacked:
        q = st.scal[post, S.cur]
        for j in range(prm.hs):
            k = prm.hands + q * prm.hs + j
            while lens[post, k] > lens[pre, k]:
                lens[post, k] -= 1
                public_changed(st, tb, post, k, st.piles[post, k, lens[post, k]], -1)
    return hidden


@jit
def _observe(st, tb, sc, h, p, hidden, out, idx):
    """Row h from seat p's view into out.obs[idx], the stock tops in `hidden` unknown."""
    prm, buf, scale, deck = tb.prm, sc.buf, tb.scale, tb.deck
    for q in range(prm.npub):
        st.scal[h, prm.sdirty + q] = 1  # the row's cached pile encodings are another row's
    encode(st, tb, buf, h, p, buf.obs)
    obs, seen, r, u = buf.obs, buf.seen, prm.r, prm.o_unseen
    for s in range(prm.n):
        if (hidden >> s) & 1:
            sk = prm.stocks + s
            c = st.piles[h, sk, st.lens[h, sk] - 1]
            o = prm.o_seats + ((s - p) % prm.n) * prm.o_seatw
            obs[h, o + 2 + c] = 0.0
            obs[h, o + 2 + r] = 1.0
            seen[h, c] -= 1
            obs[h, u + c] = np.float32(deck[c] - seen[h, c]) * scale[u + c]
    for j in range(obs.shape[1]):
        out.obs[idx, j] = obs[h, j]


@jit
def _emit(st, tb, sc, slot, g, row, depth, p, hidden, ending, found, out):
    """List the segment ending in `row` (its moves are the path's first depth + 1)."""
    idx: int = _fetch_add(out.counter, np.int64(1))  # type: ignore[call-arg]  # typing ctx
    if idx >= out.game.shape[0]:
        return  # no room: counted, the caller lists again with more
    out.game[idx], out.order[idx], out.ending[idx] = g, found, ending
    out.length[idx] = depth + 1
    for m in range(depth + 1):
        out.actions[idx, m] = sc.path[slot, m, 0]
    _observe(sc.st, tb, sc, row, p, hidden, out, idx)


@jit
def walk(st, tb, sc, g, slot, stamp, out):
    """List game g's segments (module docstring) on the slot's scratch rows.
    Mirror: segments.turn_segments"""
    prm, ss, path = tb.prm, sc.st, sc.path
    base = slot * (MAX_MOVES + 1)
    _copy_row(st, g, ss, base)
    p = st.scal[g, S.cur]
    found, status, entries = 0, OK, 0
    out.counts[g] = 0
    if is_over(st, g):
        out.status[g] = OK
        return
    _insert(sc, slot, stamp, position_hash(ss, tb, base, p, 0) ^ _SEEN_SALT)
    legal_mask(ss, tb, sc.masks, base)
    path[slot, 0, 1] = 0
    depth = 0
    while depth >= 0:
        row = base + depth
        a = path[slot, depth, 1]
        while a < prm.a and sc.masks[row, a] == 0:
            a += 1
        if a >= prm.a:
            depth -= 1
            continue
        path[slot, depth, 1] = a + 1
        path[slot, depth, 0] = a
        nxt = row + 1
        _copy_row(ss, row, ss, nxt)
        step_game(ss, tb, nxt, a)
        ending = segment_ending(ss, tb, row, nxt, a, p)
        if ending == NONE:
            if depth + 1 >= MAX_MOVES:
                status = TOO_LONG
                break
            new = _insert(sc, slot, stamp, position_hash(ss, tb, nxt, p, 0) ^ _SEEN_SALT)
            entries += new == 1
            if new == 1:
                depth += 1
                legal_mask(ss, tb, sc.masks, nxt)
                path[slot, depth, 1] = 0
        else:
            hidden = unseen_outcome(ss, tb, row, nxt, p, ending)
            new = _insert(sc, slot, stamp, position_hash(ss, tb, nxt, p, hidden) ^ _FOUND_SALT)
            entries += new == 1
            if new == 1:
                _emit(st, tb, sc, slot, g, nxt, depth, p, hidden, ending, found, out)
                found += 1
        if new < 0 or 2 * entries > sc.keys.shape[1]:
            status = TOO_MANY
            break
    out.counts[g] = found
    out.status[g] = status


@entry
def list_all(work, st, tb, sc, want, out):
    """Walk every game g with want[g] (`walk`), each thread on its own scratch slot."""
    slot: int = _fetch_add(sc.slots, np.int64(1))  # type: ignore[call-arg]  # typing ctx
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            if want[g]:
                stamp = _fetch_add(sc.slots[1:], np.int64(1)) + 1  # type: ignore[call-arg]
                walk(st, tb, sc, g, slot, stamp, out)
        lo, hi = next_chunk(work)


class Listing(NamedTuple):
    """The segments of a batch of games, game by game, each game's in the order the reference
    lists them: game g's are rows ``offsets[g]:offsets[g + 1]``."""

    offsets: np.ndarray  # [games + 1] int64
    ending: np.ndarray  # [segments] int8: why each ends (an index into segments.ENDINGS)
    length: np.ndarray  # [segments] int16: its moves
    actions: np.ndarray  # [segments, MAX_MOVES] int16: its moves, then zeros
    obs: np.ndarray  # [segments, observation] float32: its resulting position's observation

    def sequence(self, row: int) -> tuple[int, ...]:
        """The moves of segment `row`."""
        return tuple(int(a) for a in self.actions[row, :self.length[row]])


class SegmentLister:
    """Lists the segments of the games of a `VectorEngine` (`list`), or of one reference game
    (`list_game`), with this module's kernel on the engine's threads."""

    def __init__(self, engine: VectorEngine, capacity: int = 0,
                 max_table_bits: int = MAX_TABLE_BITS):
        if not isinstance(engine, VectorEngine):
            raise TypeError(f"a SegmentLister lists the games of a VectorEngine, got "
                            f"{type(engine).__name__}")
        self.engine = engine
        self.capacity = checks.integer(capacity, "capacity", minimum=0,
                                       maximum=MAX_CAPACITY) or 64 * engine.num_games
        # A walk of over 2**max_table_bits / 2 positions raises TooManyPositions.
        self.max_table_bits = checks.integer(max_table_bits, "max_table_bits",
                                             minimum=TABLE_BITS, maximum=MAX_TABLE_BITS)
        self._scratch: Scratch | None = None
        self._found: Found | None = None

    @classmethod
    def of(cls, rules: Rules) -> SegmentLister:
        """A lister of one game at a time of `rules` (`list_game`)."""
        return cls(VectorEngine.of(rules, num_games=1, autoreset=False))

    def _scratch_for(self, slots: int, bits: int = TABLE_BITS) -> Scratch:
        sc = self._scratch
        if sc is not None and sc.keys.shape[0] >= slots and sc.keys.shape[1] >= 2**bits:
            return sc
        t = self.engine.tables
        rows = slots * (MAX_MOVES + 1)
        st = State(piles=np.zeros((rows, t.num_piles, t.capacity), dtype=np.int8),
                   lens=np.zeros((rows, t.num_piles), dtype=np.int32),
                   scal=np.zeros((rows, t.num_scalars), dtype=np.int32),
                   rng=np.zeros((rows, 6), dtype=np.uint64), arng=np.zeros(rows, np.uint64))
        one = np.zeros(1, dtype=np.int64)
        buf = Buffers(obs=np.zeros((rows, t.obs_size), dtype=np.float32),
                      masks=np.zeros((1, 1), dtype=np.int8), nlegal=one, seats=one,
                      rewards=np.zeros((1, 1), dtype=np.float32),
                      terminated=np.zeros(1, dtype=np.bool_),
                      truncated=np.zeros(1, dtype=np.bool_),
                      final_obs=np.zeros((1, 1), dtype=np.float32), actions=one,
                      seen=np.zeros((rows, self.engine.rules.num_card_ids), dtype=np.int64),
                      cache=np.zeros((rows, t.num_public_piles, t.param("o_pilew")),
                                     dtype=np.float32))
        size = 2**bits
        sc = self._scratch = Scratch(
            st=st, masks=np.zeros((rows, t.num_actions), dtype=np.int8), buf=buf,
            keys=np.zeros((slots, size), dtype=np.uint64),
            stamps=np.zeros((slots, size), dtype=np.int64),
            path=np.zeros((slots, MAX_MOVES + 1, 2), dtype=np.int64),
            slots=np.zeros(2, dtype=np.int64))
        return sc

    def _found_for(self, capacity: int) -> Found:
        out = self._found
        games = self.engine.num_games
        if out is not None and out.game.shape[0] >= capacity:
            return out
        out = self._found = Found(
            counter=np.zeros(1, dtype=np.int64), game=np.zeros(capacity, dtype=np.int32),
            order=np.zeros(capacity, dtype=np.int32), ending=np.zeros(capacity, dtype=np.int8),
            length=np.zeros(capacity, dtype=np.int16),
            actions=np.zeros((capacity, MAX_MOVES), dtype=np.int16),
            obs=np.zeros((capacity, self.engine.obs_size), dtype=np.float32),
            counts=np.zeros(games, dtype=np.int64), status=np.zeros(games, dtype=np.int8))
        return out

    def list(self, want: np.ndarray | None = None) -> Listing:
        """The segments of every game of the engine (or of those where `want` is true; the
        others, and games that are over, have none)."""
        out, listed = self._walk(want)
        index = np.lexsort((out.order[:listed], out.game[:listed]))
        offsets = np.zeros(self.engine.num_games + 1, dtype=np.int64)
        np.cumsum(out.counts, out=offsets[1:])
        return Listing(offsets=offsets, ending=out.ending[index], length=out.length[index],
                       actions=out.actions[index], obs=out.obs[index])

    def observations(self, want: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(game, observation) of every segment `list` lists, in the order the walks found
        them and without their moves: for work that does not need the reference's order (a
        value network's best segment of each game), without `list`'s sorted copy of them.
        Views of the lister's buffers: valid until its next call."""
        out, listed = self._walk(want)
        return out.game[:listed], out.obs[:listed]

    def _walk(self, want: np.ndarray | None) -> tuple[Found, int]:
        """Walk the games `want` asks for; the found segments and their number."""
        engine = self.engine
        games = engine.num_games
        if want is None:
            want = np.ones(games, dtype=np.uint8)
        else:
            given = np.asarray(want)
            if given.shape != (games,) or given.dtype.kind not in "bui":
                raise ValueError(f"want must be {games} booleans (or 0/1 integers), got shape "
                                 f"{given.shape} of {given.dtype}")
            want = (given != 0).astype(np.uint8)
        slots, bits = threads.thread_count(), TABLE_BITS
        while True:
            sc = self._scratch_for(slots, bits)
            out = self._found_for(self.capacity)
            out.counter[0] = 0
            out.counts[:] = 0  # a game not walked this time has none (not the last call's)
            out.status[:] = 0
            sc.slots[0] = 0
            list_all(engine.state, engine.static, sc, want, out)
            listed = int(out.counter[0])
            if listed > out.game.shape[0]:
                self.capacity = listed + listed // 4
                continue
            crowded = out.status == TOO_MANY
            if crowded.any() and sc.keys.shape[1] < 2**self.max_table_bits:
                bits = min(int(np.log2(sc.keys.shape[1])) + 2, self.max_table_bits)
                continue
            break
        bad = np.flatnonzero(out.status)
        if bad.size:
            g = int(bad[0])
            if out.status[g] == TOO_LONG:
                raise RuntimeError(f"game {g}: a segment of over {MAX_MOVES} moves "
                                   f"(skipbo_env.vector.segments limits)")
            raise TooManyPositions(f"game {g}: over {2**self.max_table_bits // 2:,} positions "
                                   f"to walk (SegmentLister's max_table_bits)",
                                   games=tuple(np.flatnonzero(out.status == TOO_MANY).tolist()))
        return out, listed

    def list_game(self, game) -> Listing:
        """The segments of the reference `game` (a one-game engine's lister)."""
        self.engine.set_game(0, game)
        return self.list()


class Sequences:
    """The action sequences of a listing's segments, each made a tuple only when asked for."""

    def __init__(self, actions: np.ndarray, length: np.ndarray):
        self.actions, self.length = actions, length

    def __len__(self) -> int:
        return len(self.length)

    def __getitem__(self, i: int) -> tuple[int, ...]:
        return tuple(int(a) for a in self.actions[i, :self.length[i]])


def kernel_lister(rules: Rules, max_table_bits: int = MAX_TABLE_BITS):
    """A segment lister of games of `rules` (`players.value.Lister`) on this module's kernel:
    the reference's sequences and observations (tests/test_vector_segments.py); a walk past
    `max_table_bits` raises `TooManyPositions`."""
    lister = SegmentLister(VectorEngine.of(rules, num_games=1, autoreset=False),
                           max_table_bits=max_table_bits)

    def listed(game) -> tuple[Sequences, np.ndarray]:
        listing = lister.list_game(game)
        n = int(listing.offsets[1])
        return Sequences(listing.actions[:n], listing.length[:n]), listing.obs[:n]

    return listed
