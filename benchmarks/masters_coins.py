"""How much `expert`'s coin play is worth in Skip-Bo Masters (the table in docs/agents.md).

    python benchmarks/masters_coins.py [--games 2000] [--seed 0] [--workers 2]
                                       [--sweep | --head-to-head]

Each row plays paired deals (every deal in both seatings, as the tournament harness does) on
the two-player Masters preset (stock 15): `expert` (coin plays and purchases, as shipped)
against `expert_tolls` (the toll-only player it replaced) and `greedy`. With `--sweep` it also
plays the variants of the coin step the shipped constants were chosen from (the most coins a
coin play may cost, `ExpertAgent.COIN_LIMIT`; whether another player's stock top may be
bought, `BUY_STOCK`; no purchases at all; no coin plays at all) against `expert_tolls`; with
`--head-to-head`, only the closest variants against the shipped `expert` itself.
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


class _NoPurchases(ExpertAgent):
    def _seller(self, view, rank):
        return None


def _variant(name: str, seed: int):
    """A player by name: a registered player, or a variant of the coin step."""
    if name.startswith("limit"):
        cls = type(name, (ExpertAgent,), {"COIN_LIMIT": int(name[5:])})
        return cls(seed)
    if name == "no_stock_buys":
        return type(name, (ExpertAgent,), {"BUY_STOCK": False})(seed)
    if name == "no_purchases":
        return _NoPurchases(seed)
    return make_agent(name, seed)


def _play(args) -> list[int]:
    """Wins of the first player over deals `deals`, each played in both seatings (a draw 0.5,
    counted twice: 1 for half a win)."""
    first, second, seed, deals = args
    rules = Rules.preset("masters", 2)
    halves = []
    for deal in deals:
        seeds = np.random.SeedSequence([seed, deal]).generate_state(5, np.uint64) >> np.uint64(1)
        for rotation in range(2):
            names = [first, second] if rotation == 0 else [second, first]
            agents = [_variant(name, int(seeds[1 + rotation * 2 + i]))
                      for i, name in enumerate(names)]
            game = Game(rules, int(seeds[0]))
            while not game.is_over:
                game.step(agents[game.current_player].act(game.view()))
            winners = list(game.winners)  # the first player sits in seat `rotation`
            halves.append(1 if not winners else 2 * (rotation in winners))
    return halves


def match(first: str, second: str, games: int, seed: int, workers: int) -> str:
    deals = list(range(games // 2))
    chunks = [deals[i::workers] for i in range(workers)]
    start = time.perf_counter()
    with ProcessPoolExecutor(workers) as pool:
        halves = [h for part in pool.map(_play, [(first, second, seed, c) for c in chunks])
                  for h in part]
    wins = sum(halves) / 2
    lo, hi = wilson(round(wins), len(halves))
    return (f"| {first} | {second} | {len(halves)} | {wins / len(halves):.1%} ({lo:.1%}-{hi:.1%}) "
            f"| {time.perf_counter() - start:.0f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--sweep", action="store_true",
                        help="also the coin-step variants the shipped constants were chosen from")
    parser.add_argument("--head-to-head", action="store_true",
                        help="only the variants against the shipped expert (docs/agents.md: "
                             "--games 4000 --seed 1)")
    args = parser.parse_args()
    if not 2 <= args.games <= 1_000_000 or not 1 <= args.workers <= 64:
        parser.error("--games is 2..1000000 and --workers 1..64")
    rows = [("expert", "expert_tolls"), ("expert", "greedy"), ("expert_tolls", "greedy")]
    if args.head_to_head:
        rows = [(v, "expert") for v in ("limit6", "no_stock_buys", "limit4")]
    elif args.sweep:
        rows += [(v, "expert_tolls") for v in ("limit0", "limit3", "limit6", "limit9",
                                                "no_stock_buys", "no_purchases")]
    print("| player | against | games | win rate (95% interval) | time |")
    print("|---|---|---|---|---|")
    for first, second in rows:
        print(match(first, second, args.games, args.seed, args.workers), flush=True)


if __name__ == "__main__":
    main()
