"""The ``skipbo`` command line."""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from .engine import Game
from .render import render_table
from .rules import VARIANTS, Rules


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def demo(variant: str, num_players: int, seed: int, stock_size: int | None, out=sys.stdout) -> Game:
    """Play one seeded game between uniformly random players, printing every turn."""
    overrides = {} if stock_size is None else {"stock_size": stock_size}
    rules = Rules.preset(variant, num_players, **overrides)
    game = Game(rules, seed)
    rng = np.random.default_rng(seed)
    print(render_table(game), file=out)
    turn = game.turn
    while not game.is_over:
        player = game.current_player
        action = int(rng.choice(game.legal_actions()))
        print(f"  player {player}: {game.describe(action)}", file=out)
        game.step(action)
        if game.turn != turn and not game.is_over:
            turn = game.turn
            print("\n" + render_table(game), file=out)
    print("\n" + render_table(game), file=out)
    print(f"returns {game.returns()}, points {game.points()}", file=out)
    return game


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``skipbo`` command."""
    parser = argparse.ArgumentParser(prog="skipbo",
                                     description="Skip-Bo for reinforcement learning")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("demo", help="play a seeded game between random players, as text")
    p.add_argument("--variant", choices=VARIANTS, default="short")
    p.add_argument("--players", type=_positive, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--stock-size", type=_positive, default=None,
                   help="override the variant's stock size")
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            try:
                demo(args.variant, args.players, args.seed, args.stock_size)
            except ValueError as e:
                parser.error(str(e))
    except BrokenPipeError:
        # The reader (say, `head`) went away: stop quietly, as command-line tools do.
        sys.stdout = open(os.devnull, "w")
    return 0


if __name__ == "__main__":
    sys.exit(main())
