"""Game lengths (in turns) under random play, to set each preset's default `max_turns`.

    python benchmarks/turn_limits.py [--games 2000] [--variants standard,junior]

Two random players are measured: `random` takes a uniformly random legal action; `eager`
takes a uniformly random play when one is legal, else a random legal action (so it keeps
games moving, as real players do). Games run with no turn limit; the table shows the
99.9th percentile and the longest game, beside the preset's default `max_turns`, which must
stay above what random play reaches in 0.1% of games.
"""

from __future__ import annotations

import argparse

import numpy as np

from skipbo_env import VARIANTS, Game, Rules, allowed_players


def play(rules: Rules, seed: int, eager: bool) -> int:
    """Turns taken by one game of random play."""
    game = Game(rules, seed)
    rng = np.random.default_rng(seed)
    plays_end = game.layout.num_plays
    while not game.is_over:
        legal = game.legal_actions()
        if eager and legal[0] < plays_end:
            legal = [a for a in legal if a < plays_end]
        game.step(legal[rng.integers(len(legal))])
    return game.turn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    print(f"{args.games} games per row, no turn limit")
    print(f"{'variant':16s} {'players':>7s} {'player':>7s} {'mean':>7s} {'p99.9':>7s} "
          f"{'max':>6s} {'default max_turns':>18s}")
    for variant in args.variants.split(","):
        for n in allowed_players(variant):
            default = Rules.preset(variant, n).max_turns
            rules = Rules.preset(variant, n, max_turns=10**9)
            for name, eager in (("random", False), ("eager", True)):
                turns = np.array([play(rules, seed, eager) for seed in range(args.games)])
                print(f"{variant:16s} {n:7d} {name:>7s} {turns.mean():7.1f} "
                      f"{np.percentile(turns, 99.9):7.0f} {turns.max():6d} {default:18d}")


if __name__ == "__main__":
    main()
