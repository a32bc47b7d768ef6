"""How many actions a turn takes when `expert`s play, to set the default `max_turn_moves`.

    python benchmarks/turn_moves.py [--games 200] [--variants standard,short]

Each preset is played by `expert` in every seat (two players; four in partnership), with no
move limit within a turn. The table shows the actions of a turn (every play, coin step and
the discard or end of turn that ends it): the median and 99.9th percentile over all turns and
the longest turn, beside the preset's default `max_turn_moves`, which must stay far above
what any sensible player takes (docs/rules.md, "The move limit of a turn").
"""

from __future__ import annotations

import argparse

import numpy as np

from skipbo_env import VARIANTS, Game, Rules, allowed_players
from skipbo_env.players.registry import make_agent


def turn_lengths(rules: Rules, seed: int) -> list[int]:
    """The actions of each turn of one game between `expert`s."""
    game = Game(rules, seed)
    agents = [make_agent("expert", seed * 7 + s, rules) for s in range(rules.num_players)]
    lengths, turn, moves = [], game.turn, 0
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))
        moves += 1
        if game.turn != turn or game.is_over:
            lengths.append(moves)
            turn, moves = game.turn, 0
    return lengths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    print(f"{args.games} games of expert against expert per row, no move limit")
    print(f"{'variant':16s} {'players':>7s} {'median':>7s} {'p99.9':>7s} {'max':>5s} "
          f"{'default max_turn_moves':>23s}")
    for variant in args.variants.split(","):
        n = 4 if variant == "partnership" else allowed_players(variant)[0]
        default = Rules.preset(variant, n).max_turn_moves
        rules = Rules.preset(variant, n, max_turn_moves=10**9)
        moves = np.array([m for seed in range(args.games) for m in turn_lengths(rules, seed)])
        print(f"{variant:16s} {n:7d} {np.median(moves):7.0f} {np.percentile(moves, 99.9):7.0f} "
              f"{moves.max():5d} {default:23d}")


if __name__ == "__main__":
    main()
