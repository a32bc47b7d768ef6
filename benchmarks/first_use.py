"""A user's first use of the batched engine on an empty numba cache, timed:

    python benchmarks/first_use.py [--envs 64] [--steps 100] [--kernels 10]

A fresh process with an empty ``NUMBA_CACHE_DIR`` runs ``gymnasium.make_vec("SkipBo-v0",
num_envs=64, vectorization_mode="vector_entry_point")``, ``reset`` and 100 steps of the first
legal action, then the same again on the cache the first left (a later start). Prints the
seconds of each part, and the kernels that took longest to compile in the first (seconds of
their own, without the kernels they call, from numba's compile events).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

FIRST_USE = """
import sys, time
t0 = time.perf_counter()
from numba.core import event
recorder = event.install_recorder("numba:compile")
events = recorder.__enter__()
import gymnasium, numpy as np
import skipbo_env
t1 = time.perf_counter()
env = gymnasium.make_vec("SkipBo-v0", num_envs=int(sys.argv[1]),
                         vectorization_mode="vector_entry_point")
env.reset(seed=0)
t2 = time.perf_counter()
for _ in range(int(sys.argv[2])):
    env.step(env.unwrapped.action_masks().argmax(axis=1))
t3 = time.perf_counter()
recorder.__exit__(None, None, None)
print(f"{t1 - t0:.1f} {t2 - t1:.1f} {t3 - t2:.1f} {t3 - t0:.1f}")
stack, own = [], {}
for stamp, ev in events.buffer:
    name = ev.data["dispatcher"].py_func.__qualname__
    if ev.is_start:
        stack.append([name, stamp, 0.0])
        continue
    name, start, inner = stack.pop()
    took = stamp - start
    own[name] = own.get(name, 0.0) + took - inner
    if stack:
        stack[-1][2] += took
for name, seconds in sorted(own.items(), key=lambda kv: -kv[1]):
    print(f"{seconds:.1f} {name}")
"""


def first_use(cache: str, envs: int, steps: int) -> tuple[list[float], list[str], str]:
    """(import, make_vec + reset, steps, whole) seconds, the compile lines and stderr of one
    fresh process on the numba cache `cache`."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    done = subprocess.run([sys.executable, "-c", FIRST_USE, str(envs), str(steps)], env=env,
                          capture_output=True, text=True, check=True)
    lines = done.stdout.splitlines()
    return [float(x) for x in lines[0].split()], lines[1:], done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--kernels", type=int, default=10, help="compile times to show")
    args = parser.parse_args()
    if args.envs < 1 or args.steps < 0 or args.kernels < 0:
        parser.error("--envs must be positive, --steps and --kernels at least 0")
    with tempfile.TemporaryDirectory() as cache:
        for label in ("first use, empty cache", "later start, same cache"):
            times, kernels, stderr = first_use(cache, args.envs, args.steps)
            print(f"{label}: {times[3]:.1f} s (import {times[0]:.1f} s, make_vec + reset "
                  f"{times[1]:.1f} s, {args.steps} steps {times[2]:.1f} s)")
            for line in stderr.splitlines():
                print(f"  stderr: {line}")
            if kernels and args.kernels:
                print("  compile seconds of its own, longest first: " + ", ".join(
                    "{1} {0}".format(*k.split()) for k in kernels[:args.kernels]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
