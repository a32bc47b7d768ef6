"""Soak: many random games of every variant and player count on both engines, counting
failures and the process's memory growth (flat memory is the target: long training runs and
servers must not grow).

    python benchmarks/soak.py [--games 20000] [--batched-games 20000] [--seed 0]
                              [--stock-sizes]

Reference engine: `--games` games, round robin over every (variant, player count), each with
uniformly random legal actions; with --stock-sizes (the default) each game draws its stock size
from 1 to the preset's, so the process meets many rules sets, as a server hosting tables of
every size does. Batched engine: `--batched-games` finished games, shared out over the same
(variant, player count) pairs, played by `VectorEngine.step_random` (256 games per engine).
A failure is any exception, or a game that is not over but has no legal action. Memory is the
resident set size (VmRSS): for the reference engine after a warm-up game of every pair and
after its games, for the batched engine once its kernels are loaded and after its games (the
exit status is 1 if anything failed).
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np

from skipbo_env import Game, Rules
from skipbo_env.rules import VARIANTS, allowed_players


def rss_mb() -> float:
    """This process's resident set size in MB (Linux), else its peak from getrusage."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def pairs() -> list[tuple[str, int]]:
    return [(v, n) for v in VARIANTS for n in allowed_players(v)]


def play_reference(rules: Rules, seed: int, rng: np.random.Generator) -> None:
    game = Game(rules, seed=seed)
    while not game.is_over:
        legal = game.legal_actions()
        if not legal:
            raise RuntimeError(f"no legal action in an active game ({rules.variant}, "
                               f"{rules.num_players} players, seed {seed})")
        game.step(legal[int(rng.integers(len(legal)))])


def soak_reference(games: int, seed: int, vary: bool, failures: collections.Counter) -> int:
    rng = np.random.default_rng(seed)
    todo = pairs()
    for i in range(games):
        variant, n = todo[i % len(todo)]
        preset = Rules.preset(variant, n)
        stock = int(rng.integers(1, preset.stock_size + 1)) if vary else preset.stock_size
        try:
            play_reference(Rules.preset(variant, n, stock_size=stock), seed + i, rng)
        except Exception as e:  # a soak counts every failure, whatever its kind
            failures[f"reference {variant} {n}p: {type(e).__name__}: {e}"[:200]] += 1
    return games


def soak_batched(games: int, seed: int, failures: collections.Counter) -> int:
    from skipbo_env.vector import VectorEngine

    todo = pairs()
    share = -(-games // len(todo))
    done = 0
    for k, (variant, n) in enumerate(todo):
        try:
            engine = VectorEngine(variant, n, num_games=256)
            engine.reset(seed=seed + k)
            finished = 0
            while finished < share:
                _, mask, _, term, trunc, _ = engine.step_random()
                finished += int(term.sum() + trunc.sum())
                if not mask.any(axis=1).all():
                    raise RuntimeError("a game without a legal action")
            done += finished
        except Exception as e:  # a soak counts every failure, whatever its kind
            failures[f"batched {variant} {n}p: {type(e).__name__}: {e}"[:200]] += 1
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="reference-engine games")
    parser.add_argument("--batched-games", type=int, default=20_000,
                        help="batched-engine games (0: skip the batched engine)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fixed-stock", action="store_true",
                        help="every game at its preset's stock size (one rules set per pair)")
    args = parser.parse_args(argv)
    if args.games < 0 or args.batched_games < 0:
        parser.error("--games and --batched-games must be at least 0")
    failures: collections.Counter = collections.Counter()
    soak_reference(len(pairs()), args.seed + 10**6, False, failures)  # warm-up
    before = rss_mb()
    start = time.perf_counter()
    ref = soak_reference(args.games, args.seed, not args.fixed_stock, failures)
    ref_s = time.perf_counter() - start
    mid = rss_mb()
    batched, batched_s, warm = 0, 0.0, mid
    if args.batched_games:
        soak_batched(1, args.seed + 10**6, failures)  # compiles (or loads) the kernels
        warm = rss_mb()
        start = time.perf_counter()
        batched = soak_batched(args.batched_games, args.seed, failures)
        batched_s = time.perf_counter() - start
    after = rss_mb()
    from skipbo_env import spec

    memo_keys = sum(len(m) for m in spec._TARGET_MEMOS.values())
    print(f"reference engine: {ref} games in {ref_s:.0f} s "
          f"({len(pairs())} variant/player pairs, "
          f"{'varied' if not args.fixed_stock else 'preset'} stock sizes)")
    print(f"batched engine:   {batched} games in {batched_s:.0f} s")
    print(f"failures: {sum(failures.values())}")
    for text, count in failures.most_common(10):
        print(f"  {count} x {text}")
    print(f"RSS, reference engine: {before:.0f} MB after a warm-up game of every pair, "
          f"{mid:.0f} MB after its games: growth {mid - before:+.0f} MB")
    if args.batched_games:
        print(f"RSS, batched engine: {warm:.0f} MB once its kernels are loaded, {after:.0f} MB "
              f"after its games: growth {after - warm:+.0f} MB")
    print(f"memo: {len(spec._SPECS)} rules specs, {memo_keys} target keys")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
