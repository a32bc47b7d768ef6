"""How many games each reading of a stalled game leaves decided, to choose `stall_outcome`.

    python benchmarks/stall_outcome.py [--games 1000] [--variants standard,short,quick]

A game stalls when the draw pile and the set-aside cards are gone and a full round passes with
no card played (docs/rules.md). Under `stall_outcome="draw"` it is drawn; under
`"fewest_stock"` the team with the fewest stock cards left wins it (a tie for the fewest is
still drawn). Each row plays the same seat-rotated deals (the tournament harness, seed 0)
under both readings, which differ only at the end of a stalled game, and prints the share of
games decided (won by someone) under each, and the share that stalled at all.
"""

from __future__ import annotations

import argparse

from skipbo_env import VARIANTS, Rules
from skipbo_env.arena.tournament import run_games

PAIRINGS = ("random,random", "naive,random", "expert,random", "expert,expert")


def decided(variant: str, players: list[str], games: int,
            outcome: str) -> tuple[float, float, int]:
    """The shares of decided and of drawn games under `outcome`, and the games played."""
    rules = Rules.preset(variant, len(players), stall_outcome=outcome)
    result = run_games(rules, players, games, seed=0, progress=False)
    total = result["games"]
    drawn = (result["draws"] - result["truncated"]) / total  # "draws" counts the cut-off too
    return (total - result["draws"]) / total, drawn, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--variants", default="standard,short,quick")
    parser.add_argument("--pairings", default=";".join(PAIRINGS),
                        help="two-player pairings separated by ';' (names by ',')")
    args = parser.parse_args()
    variants = args.variants.split(",")
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        parser.error(f"unknown variant(s) {unknown}; expected some of {', '.join(VARIANTS)}")
    print(f"{'variant':14s} {'players':16s} {'games':>6s} {'decided, draw':>14s} "
          f"{'decided, fewest_stock':>22s} {'stalled':>8s}")
    for variant in variants:
        for pairing in args.pairings.split(";"):
            players = pairing.split(",")
            as_draw, stalled, games = decided(variant, players, args.games, "draw")
            as_fewest, _, _ = decided(variant, players, args.games, "fewest_stock")
            # Under "draw" every drawn game is a stalled one; the others end alike under both.
            print(f"{variant:14s} {pairing:16s} {games:6d} {as_draw:14.1%} {as_fewest:22.1%} "
                  f"{stalled:8.1%}")


if __name__ == "__main__":
    main()
