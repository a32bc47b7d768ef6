"""Turn segments per decision, for every variant: how many distinct positions the player to act
can reach before the next chance event (skipbo_env/segments.py), at each segment start of games
between `expert`s, and how long the batched engine's kernel and the reference take to list them.

    python benchmarks/segments.py [--games 20] [--reference-every 10]

A decision is a segment start: the start of a turn, or the position after a stock top turned
up or the hand was refilled. Counts come from the kernel (skipbo_env/vector/segments.py, one
game at a time on one core, as a value player lists them); the reference's time is measured on
every `reference-every`-th decision, in the same run.
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
from skipbo_env.rules import VARIANTS, allowed_players
from skipbo_env.segments import segment_ending, turn_segments
from skipbo_env.vector.segments import SegmentLister


def decisions(rules: Rules, games: int):
    """Every segment start of `games` games between `expert`s."""
    for seed in range(games):
        game = Game(rules, seed=seed)
        agents = [make_agent("expert", seed=s, rules=rules) for s in range(rules.num_players)]
        start = True
        while not game.is_over:
            if start:
                yield game
            p = game.current_player
            action = agents[p].act(game.view())
            pre = game.clone()
            game.step(action)
            start = segment_ending(pre, game, action, p) is not None


def measure(rules: Rules, games: int, every: int) -> dict:
    lister = SegmentLister.of(rules)
    lister.list_game(Game(rules, seed=0))  # loads the compiled kernel
    counts, kernel, reference = [], [], []
    for i, game in enumerate(decisions(rules, games)):
        start = time.perf_counter()
        listing = lister.list_game(game)
        kernel.append(time.perf_counter() - start)
        counts.append(int(listing.offsets[1]))
        if every and i % every == 0 and counts[-1] <= 20_000:
            start = time.perf_counter()
            turn_segments(game)
            reference.append((time.perf_counter() - start, kernel[-1]))
    c = np.array(counts)
    ratio = (sum(r for r, _ in reference) / sum(k for _, k in reference)) if reference else 0
    return {"decisions": len(c), "median": float(np.median(c)),
            "p99": float(np.percentile(c, 99)), "max": int(c.max()),
            "kernel_ms": 1e3 * float(np.mean(kernel)), "reference_x": ratio}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--reference-every", type=int, default=10)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args(argv)
    if args.games < 1 or args.reference_every < 0:
        parser.error("--games must be at least 1 and --reference-every at least 0")
    print("| variant | players | stock | decisions | segments: median | 99th percentile | "
          "largest | kernel, mean ms | reference / kernel time |")
    print("|---|---|---|---|---|---|---|---|---|")
    for variant in args.variants.split(","):
        if variant not in VARIANTS:
            parser.error(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
        for players in allowed_players(variant):
            rules = Rules.preset(variant, players)
            m = measure(rules, args.games, args.reference_every)
            print(f"| {variant} | {players} | {rules.stock_size} | {m['decisions']:,} | "
                  f"{m['median']:,.0f} | {m['p99']:,.0f} | {m['max']:,} | "
                  f"{m['kernel_ms']:.2f} | {m['reference_x']:.0f}x |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
