"""The value player against `expert` with and without a margin (players/value.py: with a
margin it plays `expert`'s segment unless the network values its best segment higher by more
than the margin) and with chance averaging (`--samples K`: the `--top` best segments that end
in a chance event valued as the mean over K outcomes drawn from the seat's view),
seat-rotated paired games on one core, and its time per move.

    python benchmarks/value_margin.py [--player value_standard_2p] [--margins none,0.02]
        [--samples 0] [--top 8] [--games 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env import Game
from skipbo_env.arena.stats import wilson
from skipbo_env.players.checkpoints import card_rules, model_card
from skipbo_env.players.registry import checkpoint_file, make_agent
from skipbo_env.players.value import ValueAgent, load_value_agent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="value_standard_2p")
    parser.add_argument("--margins", default="none,0.02")
    parser.add_argument("--samples", type=int, default=0)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 2:
        parser.error("--games must be at least 2")
    path = checkpoint_file(args.player)
    card = model_card(path) or {}
    rules = card_rules(card, path)
    net = load_value_agent(path, rules).net
    print(f"{args.player}: {rules.variant}, {rules.num_players} players, stock "
          f"{rules.stock_size}; {args.games} seat-rotated games against expert")
    for word in args.margins.split(","):
        margin = None if word == "none" else float(word)
        wins, moves, spent = 0, 0, 0.0
        for k in range(args.games):
            seat = k % 2
            game = Game(rules, seed=args.seed + k // 2)
            me = ValueAgent(net, rules, seed=k, path=path, margin=margin,
                            samples=args.samples, top=args.top)
            other = make_agent("expert", seed=k, rules=rules)
            while not game.is_over:
                mine = game.current_player == seat
                start = time.perf_counter()
                action = (me if mine else other).act(game.view())
                if mine:
                    spent += time.perf_counter() - start
                    moves += 1
                game.step(action)
            wins += seat in game.winners
        lo, hi = wilson(wins, args.games)
        print(f"margin {word}, samples {args.samples}, top {args.top}: {wins}/{args.games} = "
              f"{100 * wins / args.games:.1f}% "
              f"({100 * lo:.1f}-{100 * hi:.1f}), {1e3 * spent / moves:.1f} ms a move",
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
