"""What `expert`'s chains to a teammate's stock are worth in the partnership game
(docs/agents.md).

    python benchmarks/partner_play.py [--games 2000] [--seed 0] [--workers 2] [--stock 15]

Four players in two teams (the partnership preset at stock 15, as the benchmark task
`partnership_4p`): a team of two `expert`s (which, with no chain to their own stock top,
build one to their partner's) against a team of two `own_chain` players (`expert` as it was
before: chains to its own stock top only). Every deal is played twice, each team starting
once (paired deals). Prints the first team's win rate with its 95% interval, and by seat.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from skipbo_env import Game, Rules
from skipbo_env.arena.stats import wilson
from skipbo_env.players.registry import make_agent
from skipbo_env.players.scripted import ExpertAgent


class OwnChainExpert(ExpertAgent):
    """`expert` with chains to its own stock top only."""

    def _chain_step(self, view, plays):
        return self._chain_to(view, plays, view.seat)


def _agent(name: str, seed: int):
    return OwnChainExpert(seed) if name == "own_chain" else make_agent(name, seed)


def _play(args) -> list[tuple[int, int]]:
    """(rotation, result) per game: result 2 a win of the first team, 1 a draw, 0 a loss."""
    first, second, stock, seed, deals = args
    rules = Rules.preset("partnership", 4, stock_size=stock)
    out = []
    for deal in deals:
        seeds = np.random.SeedSequence([seed, deal]).generate_state(9, np.uint64) >> np.uint64(1)
        for rotation in range(2):
            names = [first, second] * 2 if rotation == 0 else [second, first] * 2
            agents = [_agent(name, int(seeds[1 + rotation * 4 + i]))
                      for i, name in enumerate(names)]
            game = Game(rules, int(seeds[0]))
            while not game.is_over:
                game.step(agents[game.current_player].act(game.view()))
            winners = list(game.winners)
            out.append((rotation, 1 if not winners else 2 * (rotation in winners)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--stock", type=int, default=15)
    parser.add_argument("--first", default="expert")
    parser.add_argument("--second", default="own_chain")
    args = parser.parse_args()
    if not 2 <= args.games <= 1_000_000 or not 1 <= args.workers <= 64 \
            or not 1 <= args.stock <= 30:
        parser.error("--games is 2..1000000, --workers 1..64, --stock 1..30")
    deals = list(range(args.games // 2))
    start = time.perf_counter()
    jobs = [(args.first, args.second, args.stock, args.seed, deals[i::args.workers])
            for i in range(args.workers)]
    with ProcessPoolExecutor(args.workers) as pool:
        games = [g for part in pool.map(_play, jobs) for g in part]
    print("| team | against | games | win rate (95% interval) | starting | second | time |")
    print("|---|---|---|---|---|---|---|")
    cells = []
    for rotation in (None, 0, 1):
        part = [r for rot, r in games if rotation is None or rot == rotation]
        wins = sum(part) / 2
        lo, hi = wilson(round(wins), len(part))
        cells.append((len(part), wins / len(part), lo, hi))
    n, rate, lo, hi = cells[0]
    print(f"| {args.first} | {args.second} | {n} | {rate:.1%} ({lo:.1%}-{hi:.1%}) | "
          f"{cells[1][1]:.1%} | {cells[2][1]:.1%} | {time.perf_counter() - start:.0f} s |")


if __name__ == "__main__":
    main()
