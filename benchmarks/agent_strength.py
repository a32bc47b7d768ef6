"""The strength table of docs/agents.md, regenerated with the tournament harness.

    python benchmarks/agent_strength.py [--games 10000] [--seed 0] [--skip lookahead]
                                        [--stall-outcome draw]

Each row is the same as `skipbo tournament --players A,B,... --games N --stock-size S`, with
stalled games drawn (`--stall-outcome draw`, the reading the table was measured under; the
rules' default, "fewest_stock", decides them: docs/rules.md, "A stalled game").
"""

from __future__ import annotations

import argparse

from skipbo_env import Rules
from skipbo_env.arena.tournament import run_games
from skipbo_env.rules import STALL_OUTCOMES

MATCHES = [
    # (players, stock size or None for the preset's, share of --games)
    (["expert", "naive"], 20, 1.0),
    (["greedy", "naive"], 20, 1.0),
    (["expert", "greedy"], 20, 1.0),
    (["naive", "random"], 20, 1.0),
    (["expert", "random"], 20, 0.2),
    (["expert", "naive"], None, 0.4),
    (["expert", "random"], None, 0.2),
    (["expert", "naive", "naive", "naive"], 20, 0.4),
    (["lookahead", "expert"], 20, 0.04),  # about 0.2 s per game-second: a small share
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stall-outcome", default="draw", choices=STALL_OUTCOMES,
                        help="how a stalled game ends (default: draw, as the table was measured)")
    parser.add_argument("--skip", default="", help="leave out the rows with these players "
                                                   "(comma-separated), e.g. lookahead")
    args = parser.parse_args()
    skip = {name.strip() for name in args.skip.split(",") if name.strip()}
    print("| players | stock | games | first player's win rate (95% interval) | others | draws "
          "| turns |")
    print("|---|---|---|---|---|---|---|")
    for players, stock, share in MATCHES:
        if skip & set(players):
            continue
        overrides = {"stall_outcome": args.stall_outcome}
        if stock is not None:
            overrides["stock_size"] = stock
        rules = Rules.preset("standard", len(players), **overrides)
        result = run_games(rules, players, max(len(players), int(args.games * share)), args.seed,
                           progress=False)
        first = result["players"][players[0]]
        others = ", ".join(f"{name} {p['win_rate']:.1%}" for name, p in result["players"].items()
                           if name != players[0])
        lo, hi = first["ci95"]
        print(f"| {','.join(players)} | {rules.stock_size} | {result['games']} | "
              f"{first['win_rate']:.1%} ({lo:.1%}-{hi:.1%}) | {others} | "
              f"{result['draw_rate']:.1%} | {result['mean_turns']:.1f} |", flush=True)


if __name__ == "__main__":
    main()
