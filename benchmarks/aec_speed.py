"""Turns per second of the wrapped Skip-Bo AEC env under random legal play, beside PettingZoo's
connect_four_v3 measured the same way in the same run.

    python benchmarks/aec_speed.py [--seconds 0.3] [--rounds 20] [--variants standard,junior]

A "turn" is one player's whole turn: one action in connect four, one or more in Skip-Bo (the
same agent acts again until it discards or ends its turn). Each env is driven the way a
training loop drives it: ``last()`` (observation and mask) before every ``step``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

import numpy as np


def measure(make_env, seconds: float, seed: int = 0) -> tuple[float, float]:
    """(turns per second, actions per second) of random legal play through `make_env()`."""
    env = make_env()
    rng = random.Random(seed)  # cheaper per call than numpy's generator: less harness cost
    turns = actions = 0
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        env.reset(seed=rng.randrange(2**31))
        games += 1
        previous = None
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            if agent != previous:
                turns += 1
                previous = agent
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.randrange(len(legal))]))
            actions += 1
    elapsed = time.process_time() - start
    env.close()
    return turns / elapsed, actions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.3, help="length of one measurement")
    parser.add_argument("--rounds", type=int, default=20,
                        help="rounds; each measures connect_four_v3 and every variant in turn, "
                             "and the medians are reported (this machine's speed drifts)")
    parser.add_argument("--variants",
                        default="standard,short,quick,partnership,junior,junior_classic,"
                                "masters,masters_short")
    args = parser.parse_args()

    from pettingzoo.classic import connect_four_v3

    import skipbo_env

    rows = {"connect_four_v3": (connect_four_v3.env, 1)}
    for variant in args.variants.split(","):
        players = 4 if variant == "partnership" else 2
        rows[f"skipbo_v0 {variant} {players}p"] = (
            lambda v=variant, p=players: skipbo_env.env(variant=v, num_players=p), players)
    turns = {name: [] for name in rows}
    actions = {name: [] for name in rows}
    ratios = {name: [] for name in rows}
    for r in range(args.rounds):
        for name, (make, _) in rows.items():
            t, a = measure(make, args.seconds, seed=r)
            turns[name].append(t)
            actions[name].append(a)
            ratios[name].append(t / turns["connect_four_v3"][-1])
    print(f"python {platform.python_version()}, {platform.machine()}, "
          f"skipbo_env {skipbo_env.__version__}; medians of {args.rounds} rounds of "
          f"{args.seconds:g} s per env")
    print(f"{'env':28s} {'turns/s':>10s} {'actions/s':>10s} {'turns/s vs connect_four_v3':>28s}")
    for name in rows:
        print(f"{name:28s} {statistics.median(turns[name]):10.0f} "
              f"{statistics.median(actions[name]):10.0f} {statistics.median(ratios[name]):27.2f}x")


if __name__ == "__main__":
    main()
