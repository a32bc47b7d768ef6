"""Speed of the batched engine (skipbo_env.vector) beside the wrapped AEC env, from one run.

    python benchmarks/vector_speed.py [--games 4096] [--rounds 10] [--seconds 1]
                                      [--variants standard:2,partnership:4,junior:2,masters:2]
                                      [--skip-cold]

Everything is wall-clock time on this machine, all cores (numba's threads), and every figure
is the median of `rounds` rounds; in each round the batched engine and the AEC env are
measured one after the other, so the ratio compares them under the same conditions (this
machine's speed drifts by up to a factor of two within a minute).

- start-up: a fresh Python process that imports the engine, deals, steps and runs the vector
  env once: "cold" compiles every kernel into an empty numba cache directory, "warm" is the
  second start from that directory;
- game steps per second with uniformly random legal actions, masks and observations produced
  for every game after every step: `VectorEngine.step_random()` (the actions drawn inside the
  kernel) and `random_actions()` + `step(actions)` (the actions passed in from Python and
  checked), beside `skipbo_env.env()` (the wrapped PettingZoo AEC env, `last()` before every
  `step`, random legal actions); `step_random()` again beside one busy process (a Python
  loop in a second process, as a second job or a torch update would be), measured right after
  the quiet figure in every round;
- whole games per second of `naive` against `naive` (two players, stock 20) in the engine;
- learner steps per second of `SkipBoVectorEnv` against batched `naive` and `greedy`, quiet
  and beside one busy process.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

import numpy as np

STARTUP = """
import time
t0 = time.perf_counter()
from skipbo_env.vector import SkipBoVectorEnv, VectorEngine
e = VectorEngine("standard", 2, num_games=64)
e.reset(seed=0)
e.step_random()
e.step(e.random_actions())
e.play(["naive", "greedy"], 1)
env = SkipBoVectorEnv(num_envs=8)
env.reset(seed=0)
env.step(env.action_masks().argmax(axis=1))
print(time.perf_counter() - t0)
"""


def startup(cache_dir: str | None) -> tuple[float, float]:
    """(whole process seconds, seconds from the first import to the env's first step), with
    numba's cache in `cache_dir` (None: its default place, beside the package)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", STARTUP], env=env, check=True,
                         capture_output=True, text=True).stdout
    return time.perf_counter() - start, float(out.split()[-1])


@contextlib.contextmanager
def busy_process() -> Iterator[None]:
    """One other process that keeps a core busy (a Python loop) while the block runs."""
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.2)  # running before the measurement starts
        yield
    finally:
        loop.kill()
        loop.wait()


def engine_rate(engine, seconds: float, external: bool) -> float:
    """Game steps per second of random legal play in every game of `engine`."""
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if external:
            engine.step(engine.random_actions())
        else:
            engine.step_random()
        calls += 1
    return calls * engine.num_games / (time.perf_counter() - start)


def aec_rate(variant: str, players: int, seconds: float, seed: int) -> float:
    """Actions per second of random legal play through the wrapped AEC env."""
    import skipbo_env

    env = skipbo_env.env(variant=variant, num_players=players)
    rng = random.Random(seed)
    actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=rng.randrange(2**31))
        for _ in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            actions += 1
            if time.perf_counter() - start >= seconds:
                break
    elapsed = time.perf_counter() - start
    env.close()
    return actions / elapsed


def _arguments() -> tuple[argparse.Namespace, list[tuple[str, int]]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=4096, help="games in the batched engine")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0, help="length of one measurement")
    parser.add_argument("--variants", default="standard:2,partnership:4,junior:2,masters:2",
                        help="variant:players pairs, comma-separated; the first is the headline")
    parser.add_argument("--skip-cold", action="store_true",
                        help="skip the cold start-up (it compiles every kernel: minutes)")
    args = parser.parse_args()
    if args.games < 1 or args.rounds < 1 or args.seconds <= 0:
        parser.error("--games and --rounds must be positive, --seconds above 0")
    cases = []
    for item in args.variants.split(","):
        variant, _, players = item.partition(":")
        if not players.isdigit():
            parser.error(f"--variants takes variant:players pairs, got {item!r}")
        cases.append((variant, int(players)))
    return args, cases


def print_startup(skip_cold: bool) -> None:
    """The start-up lines: cold (an empty numba cache) unless skipped, then warm."""
    if skip_cold:
        # Warm from numba's own cache beside the package: start twice, report the second.
        startup(None)
        whole, inner = startup(None)
        print(f"start-up, warm (second start, numba cache): {whole:.2f} s "
              f"({inner:.2f} s after the interpreter started)")
        return
    with tempfile.TemporaryDirectory() as cache:
        whole, inner = startup(cache)
        print(f"start-up, cold (compiles every kernel): {whole:.1f} s "
              f"({inner:.1f} s after the interpreter started)")
        whole, inner = startup(cache)
        print(f"start-up, warm (second start, numba cache): {whole:.2f} s "
              f"({inner:.2f} s after the interpreter started)")


def print_variants(args: argparse.Namespace, cases: list[tuple[str, int]]) -> None:
    """The table: the engine's steps a second beside the AEC env's, per variant."""
    from skipbo_env.vector import VectorEngine

    rows = []
    for variant, players in cases:
        engine = VectorEngine(variant, players, num_games=args.games)
        engine.reset(seed=0)
        for _ in range(500):  # into mid-game, where the piles have grown
            engine.step_random()
        inside, busy, outside, aec, ratio = [], [], [], [], []
        for r in range(args.rounds):
            inside.append(engine_rate(engine, args.seconds, external=False))
            with busy_process():
                busy.append(engine_rate(engine, args.seconds, external=False))
            outside.append(engine_rate(engine, args.seconds, external=True))
            aec.append(aec_rate(variant, players, args.seconds, seed=r))
            ratio.append(inside[-1] / aec[-1])
        rows.append((f"{variant} {players}p", statistics.median(inside),
                     statistics.median(busy), statistics.median(outside),
                     statistics.median(aec), statistics.median(ratio)))
    print()
    print("| variant | engine step_random (steps/s) | beside one busy process | engine "
          "random_actions + step (steps/s) | AEC env (steps/s) | engine / AEC |")
    print("|---|---|---|---|---|---|")
    for name, inside, busy, outside, aec, ratio in rows:
        print(f"| {name} | {inside:,.0f} | {busy:,.0f} ({busy / inside:.0%}) | {outside:,.0f} "
              f"| {aec:,.0f} | {ratio:.0f}x |")


def print_players(args: argparse.Namespace) -> None:
    """Whole games of naive against naive, and the vector env's learner steps a second."""
    from skipbo_env.vector import SkipBoVectorEnv, VectorEngine

    engine = VectorEngine("standard", 2, num_games=2048, stock_size=20)
    engine.reset(seed=0)
    engine.play(["naive", "naive"], 1)
    rates, lengths = [], []
    for _ in range(args.rounds):
        start = time.perf_counter()
        result = engine.play(["naive", "naive"], 2)
        rates.append(result["games"] / (time.perf_counter() - start))
        lengths.append(result["actions"] / result["games"])
    print()
    print(f"naive vs naive, standard 2p, stock 20: {statistics.median(rates):,.0f} games/s "
          f"({statistics.median(lengths):.0f} actions a game)")
    env = SkipBoVectorEnv("standard", 2, num_envs=args.games, opponents="naive,greedy",
                          copy=False)
    env.reset(seed=0)
    def env_rate() -> float:
        calls, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            env.step(env.engine.random_actions())
            calls += 1
        return calls * env.num_envs / (time.perf_counter() - start)

    rates, busy = [], []
    for _ in range(args.rounds):
        rates.append(env_rate())
        with busy_process():
            busy.append(env_rate())
    quiet, loaded = statistics.median(rates), statistics.median(busy)
    print(f"SkipBoVectorEnv, standard 2p, learner at random vs naive/greedy: {quiet:,.0f} "
          f"learner steps/s (opponents' moves included); beside one busy process {loaded:,.0f} "
          f"({loaded / quiet:.0%})")


def main() -> None:
    args, cases = _arguments()
    import numba

    from skipbo_env import __version__

    try:
        from skipbo_env.vector import threads  # noqa: F401
        how = "the engine's own threads"
    except ImportError:  # an earlier version: numba's parallel loops
        how = "numba's parallel loops"
    print(f"python {platform.python_version()}, numba {numba.__version__} "
          f"({numba.config.NUMBA_NUM_THREADS} threads on {os.cpu_count()} cores, {how}), "
          f"skipbo_env {__version__}; {args.games} games, medians of {args.rounds} rounds of "
          f"{args.seconds:g} s")
    print_startup(args.skip_cold)
    print_variants(args, cases)
    print_players(args)


if __name__ == "__main__":
    main()
