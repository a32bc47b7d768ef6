"""Seconds per move of each scripted player, on one core.

    python benchmarks/agent_speed.py [--games 20] [--seed 0] [--players random,naive,...]
        [--variant standard] [--stock-size 20]

Each player plays `--games` two-player games (standard, stock 20, unless `--variant` and
`--stock-size` say otherwise) against `expert`, from both seats; the script times every call
of its `act` and prints the mean, the 95th percentile and the largest in milliseconds, with
the moves per game. A player may be a checkpoint, ``lookahead:CHECKPOINT`` or a value player
(time it in the game it was trained for: ``--stock-size 30`` for ``value_standard_2p``,
``--variant short --stock-size 10`` for ``value_short_2p``); torch then runs on one thread.

One core: numpy's BLAS (a value player's network) is held to one thread, as torch is (a second
thread only fights the other work on the machine: a value player ran 4.6 s of network in the
time one thread took 1.25 s, with a tournament on the other core). Each player makes one
untimed move before the timed games, so the times leave out loading its compiled kernels.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy loads its BLAS

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from skipbo_env import Game, Rules  # noqa: E402
from skipbo_env.players.registry import SCRIPTED, make_agent  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--players", default=",".join(SCRIPTED))
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--stock-size", type=int, default=20)
    args = parser.parse_args()
    try:
        rules = Rules.preset(args.variant, 2, stock_size=args.stock_size)
    except ValueError as e:
        parser.error(str(e))
    try:
        import torch
        torch.set_num_threads(1)
    except ImportError:
        pass
    print("| player | moves per game | mean ms/move | 95th percentile ms | largest ms |")
    print("|---|---|---|---|---|")
    for name in args.players.split(","):
        make_agent(name, args.seed, rules=rules).act(Game(rules, args.seed + args.games).view())
        times = []
        for game_number in range(args.games):
            seat = game_number % 2
            agents = [make_agent("expert", args.seed + game_number, rules=rules)] * 2
            agents[seat] = make_agent(name, args.seed + game_number, rules=rules)
            game = Game(rules, args.seed + game_number // 2)
            while not game.is_over:
                agent = agents[game.current_player]
                start = time.perf_counter()
                action = agent.act(game.view())
                if game.current_player == seat:
                    times.append(time.perf_counter() - start)
                game.step(action)
        t = np.array(times) * 1000
        print(f"| {name} | {len(t) / args.games:.0f} | {t.mean():.3g} | "
              f"{np.percentile(t, 95):.3g} | {t.max():.3g} |", flush=True)


if __name__ == "__main__":
    main()
