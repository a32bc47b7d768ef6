"""OpenSpiel's ISMCTS bot on Skip-Bo against `expert` (or another
scripted player): seat-rotated paired games (each deal
played from both seats) through `pyspiel`, the win rate with its 95% interval and the ISMCTS
bot's time per move (the openspiel extra; skipbo_env/integrations/openspiel.py).

    python benchmarks/openspiel_ismcts.py [--variant short] [--stock-size N]
        [--simulations 100] [--games 40] [--seed 0] [--opponent expert]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import pyspiel

from skipbo_env.arena.stats import wilson
from skipbo_env.integrations import openspiel
from skipbo_env.players.registry import make_agent


def play(game, seat: int, simulations: int, seed: int,
         opponent: str = "expert") -> tuple[float, int, float]:
    """One game, the ISMCTS bot in `seat` and `opponent` in the other: (its return, its moves
    with a choice, their seconds)."""
    bot = openspiel.ismcts_bot(game, simulations, seed)
    expert = make_agent(opponent, seed + 1)
    state = game.new_initial_state()
    moves, seconds = 0, 0.0
    while not state.is_terminal():
        if state.current_player() == seat:
            start = time.perf_counter()
            action = bot.step(state)
            if len(state.legal_actions()) > 1:
                seconds += time.perf_counter() - start
                moves += 1
        else:
            action = expert.act(state.position.view())
        state.apply_action(action)
    return state.returns()[seat], moves, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="short")
    parser.add_argument("--stock-size", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opponent", default="expert", help="a scripted player's name")
    args = parser.parse_args(argv)
    if args.games < 2 or args.simulations < 1:
        parser.error("--games must be at least 2 and --simulations at least 1")
    wins = draws = moves = 0
    seconds = 0.0
    deals = (args.games + 1) // 2
    for deal in range(deals):
        for seat in (0, 1):  # the same deal from each seat: the game's seed is the deal's
            game = pyspiel.load_game(openspiel.SHORT_NAME, {
                "variant": args.variant, "players": 2, "stock_size": args.stock_size,
                "seed": args.seed * 100003 + deal})
            result, m, s = play(game, seat, args.simulations, args.seed * 7919 + deal,
                                   args.opponent)
            wins += result > 0
            draws += result == 0
            moves, seconds = moves + m, seconds + s
    games = 2 * deals
    lo, hi = wilson(wins, games)
    print(f"ISMCTS ({args.simulations} simulations a move, stock-lead evaluator) against "
          f"{args.opponent}, {args.variant}, {games} games: won {wins} ({wins / games:.1%}, 95% "
          f"{lo:.1%}-{hi:.1%}), drawn {draws}; {1000 * seconds / max(moves, 1):.0f} ms a move "
          f"with a choice ({moves} moves)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
