"""Compile every kernel of the batched engine into its cache at once:

    python -m skipbo_env.vector          (or skipbo_env.vector.precompile.precompile())

A first use compiles the kernels it calls, for minutes; done here beforehand (after an
install, say, or before starting several processes), every later start loads them in
seconds. Processes compiling at the same time share the work (`_cache`: a kernel compiles
once, under its lock, and the others load it)."""

from __future__ import annotations

import sys
import time

import numpy as np

from . import seating as KS
from ._cache import CACHE_DIR, _CompileNotice
from .batched import VectorEngine
from .env import SkipBoVectorEnv
from .rollout import redeal, rollout, rollout_to_decision, rollout_to_turn


def precompile() -> float:
    """Call every kernel once on a few games (loading it from the cache, or compiling it
    there); returns the seconds it took."""
    start = time.perf_counter()
    engine = VectorEngine("standard", 2, num_games=2)
    engine.reset(seed=0)
    engine.step(engine.random_actions())
    engine.step_random()
    engine.observe_all()
    engine.observe(0)
    engine.scripted_actions(["expert", "naive"])
    engine.play(["greedy", "random"])
    env = SkipBoVectorEnv("standard", 2, num_envs=2, opponents="expert")
    env.reset(seed=0)
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    e, none = env.engine, np.zeros(0, dtype=np.int64)
    KS.policy_step(e.state, e.static, e.buffers, env.seating, env.seat_option, none, none)
    seats = np.full(engine.num_games, -1, dtype=np.int64)
    redeal(engine.state, engine.static, engine.buffers, seats,
           np.ones(engine.num_games, dtype=np.uint64))
    rollout(engine.state, engine.static, engine.buffers, seats, seats, 10.0,
            np.zeros(engine.num_games))
    rollout_to_turn(engine.state, engine.static, engine.buffers, seats, seats, 10.0,
                    np.zeros(engine.num_games))
    rollout_to_decision(engine.state, engine.static, engine.buffers, seats, seats, 10.0,
                        np.zeros(engine.num_games))
    env.turn_segments()  # the segment lister's kernel
    return time.perf_counter() - start


def main() -> int:
    where = CACHE_DIR or "no cache (none is writable)"
    _CompileNotice.shown = True  # this line says it
    print(f"compiling the batched engine's kernels into {where} ...", file=sys.stderr,
          flush=True)
    seconds = precompile()
    print(f"done in {seconds:.0f} s", file=sys.stderr)
    return 0
