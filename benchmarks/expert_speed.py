"""Whole games per second of `expert` against `expert` (standard, 2 players, stock 30): the
batched engine's expert (skipbo_env/vector/scripted.py) beside the reference `ExpertAgent` on
the reference engine, measured in the same run, with batched `naive` for scale.

    python benchmarks/expert_speed.py [--rows 1024] [--games-per-row 4] [--reference-games 60]

The batched figure is all cores (numba's threads) over `rows` games played `games-per-row`
times each (`VectorEngine.play`, after a warm-up that loads the compiled kernels); the
reference figure is one core, `reference-games` games in a plain loop.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np

from skipbo_env import Game, Rules
from skipbo_env.players.registry import make_agent
from skipbo_env.vector import VectorEngine


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1024)
    parser.add_argument("--games-per-row", type=int, default=4)
    parser.add_argument("--reference-games", type=int, default=60)
    args = parser.parse_args(argv)
    if min(args.rows, args.games_per_row, args.reference_games) < 1:
        parser.error("every count must be at least 1")
    engine = VectorEngine("standard", 2, num_games=args.rows)
    engine.reset(seed=0)
    engine.play(["expert", "expert"], games_per_row=1)  # warm-up: loads or compiles kernels
    rates = {}
    for names in (["expert", "expert"], ["naive", "naive"]):
        engine.reset(seed=1)
        start = time.perf_counter()
        result = engine.play(names, games_per_row=args.games_per_row)
        seconds = time.perf_counter() - start
        rates[names[0]] = result["games"] / seconds
        print(f"batched {','.join(names)}: {result['games']} games in {seconds:.2f} s = "
              f"{rates[names[0]]:,.0f} games/s, {result['actions'] / result['games']:.0f} "
              f"actions a game")
    rules = Rules.preset("standard", 2)
    agents = [make_agent("expert", 0), make_agent("expert", 1)]
    actions = 0
    start = time.perf_counter()
    for seed in np.random.default_rng(2).integers(2**63, size=args.reference_games):
        game = Game(rules, seed=int(seed))
        while not game.is_over:
            game.step(agents[game.current_player].act(game.view()))
            actions += 1
    seconds = time.perf_counter() - start
    reference = args.reference_games / seconds
    print(f"reference expert,expert: {args.reference_games} games in {seconds:.2f} s = "
          f"{reference:.1f} games/s, {actions / args.reference_games:.0f} actions a game "
          f"(one core)")
    print(f"expert speed: batched {rates['expert']:,.0f} games/s, reference {reference:.1f} "
          f"games/s, ratio {rates['expert'] / reference:.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
