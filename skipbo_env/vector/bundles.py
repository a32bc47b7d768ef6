"""The bundles every kernel of the batched engine takes, and the decorator that compiles them.

Every kernel takes a few named bundles (numba named tuples) rather than loose arrays:
- `State`, the games: ``piles[g, k, :lens[g, k]]`` is pile k of game g, bottom first (int8
  card ids, -1 a coin play's place): the draw pile, the set-aside cards, the building piles,
  the stocks, the hands (one per seat in refill mode, one per stack in stacked mode) and the
  discard piles, at the offsets in the parameters; ``scal[g]`` holds the slots named in
  `SCALARS` (current player, turn, phase, ..., then coins, pile coins and scores, then, for
  the observation, a dirty flag per public pile and the count of each card id in the public
  piles); ``rng[g]`` is numpy's PCG64 state (state, increment, buffered 32 bits), so
  reshuffles draw the very numbers the reference engine's generator draws (`generator`);
  ``arng[g]`` is the players' own generator (splitmix64);
- `Static`, one rules set (skipbo_env/vector/tables.py builds it from the `GameSpec` and the
  observation encoder): ``prm``, the `Params` named tuple of ints whose fields are named in
  `PARAMS` (``prm.n`` players, ``prm.b`` building piles, ...; a tuple, so the kernels hold it
  in registers, and its fields are read at fixed places), and the action, seat and scale
  tables;
- `Buffers`, what a step writes: observations, masks, rewards and the observation's caches.

The entry points (`entry`) run on the engine's own threads (`threads`), each taking the next
chunk of games with `next_chunk`.
"""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._cache import cached_jit
from .threads import Launcher


def jit(fn=None, **options):
    """numba's njit as every kernel here uses it: machine code cached on disk under a key of
    the batched engine's sources (`_cache`: an edit to any of them recompiles every kernel);
    numpy's error model (no zero-division checks: no divisor here is zero); and no reference
    counting (numba's `_nrt=False`): the kernels only index arrays they are given, never
    allocate, and the atomic counts on every call cost a fifth of a step (24% more steps a
    second without them, median of 12 alternating rounds)."""
    options.setdefault("error_model", "numpy")
    options["_nrt"] = False
    top = options.pop("top", False)
    if fn is None:
        return lambda f: cached_jit(njit, f, options, top)
    return cached_jit(njit, fn, options, top)


def entry(fn=None, *, over: str = "st"):
    """An entry point of the engine: a kernel ``fn(work, ...)`` over the games of its argument
    `over` that releases the GIL and takes its rows chunk by chunk (`next_chunk`), as
    Python calls it without `work` (`threads.Launcher`: the threads share the chunks)."""
    if fn is None:
        return lambda f: entry(f, over=over)
    return Launcher(jit(fn, nogil=True, top=True), over)


@intrinsic
def _fetch_add(typingctx, counter, value):
    """counter[0] += value, atomically; returns what counter[0] held before."""
    sig = types.int64(counter, types.int64)

    def codegen(context, builder, signature, args):
        array = context.make_array(signature.args[0])(context, builder, args[0])
        slot = cgutils.get_item_pointer(context, builder, signature.args[0], array,
                                        [context.get_constant(types.intp, 0)])
        return builder.atomic_rmw("add", slot, args[1], "seq_cst")

    return sig, codegen


@jit(inline="always")
def next_chunk(work):
    """The next chunk of games, [lo, hi), of an entry point for the thread that asks (lo >= hi:
    none is left); work is (next chunk, games a chunk, games), the first counted atomically."""
    lo = _fetch_add(work, np.int64(1)) * work[1]  # type: ignore[call-arg]  # typing ctx
    return lo, min(lo + work[1], work[2])


def _slots(kind: str, names: tuple[str, ...]):
    """A named tuple of the slot numbers 0, 1, ... of `names` (``S.cur`` is the slot of the
    current player): one list of names, no hand-numbered ranges."""
    return namedtuple(kind, names)(*range(len(names)))


# -- static parameters: the fields of prm --------------------------------------------------------
PARAMS = (
    # the rules
    "n", "b", "d", "hs", "top", "r", "stacked", "coins", "wow", "stock", "maxt", "maxm", "deck",
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
# Built from PARAMS, one list of names: mypy wants the names written out in the call.
Params = namedtuple("Params", PARAMS)  # type: ignore[misc]

# -- scalar slots of a game's row; "coins" starts the per-seat and per-pile counts --------------
SCALARS = ("cur", "turn", "phase", "win", "played", "stall", "ppile", "ptoll", "first", "moves",
           "coins")
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
