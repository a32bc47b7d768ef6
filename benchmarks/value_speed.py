"""What a value network's negligible weights cost: the network over the segments of real
decisions, with its weights as trained and as the player reads them (those below
`players.value.NEGLIGIBLE` in magnitude as zero), on one core.

    python benchmarks/value_speed.py [--player value_short_2p] [--games 4] [--seed 0]
        [--repeats 3]

The value player plays `--games` games against `expert` under its checkpoint's rules; every
decision's segment observations are kept, then both networks value them all, `--repeats`
times each in alternation (the faster time of each is printed). Prints how many weights are
negligible, the two times, their ratio and the largest difference between the two networks'
values (0 when reading them as zero changes no value).
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy loads its BLAS: one core

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env import Game  # noqa: E402
from skipbo_env.players.checkpoints import card_rules, model_card  # noqa: E402
from skipbo_env.players.registry import checkpoint_file, make_agent  # noqa: E402
from skipbo_env.players.value import NEGLIGIBLE, load_value_agent  # noqa: E402


def as_trained(path: str) -> list[tuple[np.ndarray, np.ndarray]]:
    """The network's layers as stored, [in, out] weights (nothing read as zero)."""
    with np.load(path, allow_pickle=False) as data:
        return [(data[f"w{i}"].T.copy(), data[f"b{i}"].copy())
                for i in range(len(data.files) // 2)]


def forward(layers: list[tuple[np.ndarray, np.ndarray]], x: np.ndarray) -> np.ndarray:
    """The plain MLP of `players.value.ValueNet` (ReLU, tanh output) over the rows of `x`."""
    h = x
    for w, b in layers[:-1]:
        h = np.maximum(h @ w + b, 0.0)
    w, b = layers[-1]
    return np.tanh(h @ w + b)[:, 0]


def decisions(path: str, games: int, seed: int) -> list[np.ndarray]:
    """The segment observations of every decision the value player took in `games` games."""
    rules = card_rules(model_card(path), path)
    agent = load_value_agent(path, rules, seed)
    kept: list[np.ndarray] = []
    evaluate = agent.evaluate

    def keeping(view):
        sequences, values = evaluate(view)
        kept.append(agent._obs.copy())
        return sequences, values

    agent.evaluate = keeping  # type: ignore[method-assign]
    for game_number in range(games):
        expert = make_agent("expert", seed + game_number, rules=rules)
        seats = [agent, expert] if game_number % 2 == 0 else [expert, agent]
        game = Game(rules, seed + game_number // 2)
        while not game.is_over:
            game.step(seats[game.current_player].act(game.view()))
    return kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="value_short_2p")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if args.games < 1 or args.repeats < 1 or args.seed < 0:
        parser.error("--games and --repeats must be at least 1, --seed at least 0")
    try:
        path = checkpoint_file(args.player)
        read = load_value_agent(path).net
    except ValueError as e:
        parser.error(str(e))
    trained = as_trained(path)
    small = sum(int(((w != 0) & (np.abs(w) < NEGLIGIBLE)).sum()) for w, _ in trained)
    total = sum(w.size for w, _ in trained)
    observations = decisions(path, args.games, args.seed)
    rows = sum(len(x) for x in observations)
    best = {"as trained": float("inf"), "as read": float("inf")}
    for _ in range(args.repeats):
        for name, net in (("as trained", lambda x: forward(trained, x)), ("as read", read)):
            start = time.perf_counter()
            for x in observations:
                net(x)
            best[name] = min(best[name], time.perf_counter() - start)
    difference = max(float(np.abs(forward(trained, x) - read(x)).max()) for x in observations)
    print(f"{args.player}: {small:,} of {total:,} weights below {NEGLIGIBLE:g} in magnitude")
    print(f"{len(observations)} decisions, {rows:,} segments: as trained "
          f"{best['as trained']:.3f} s, as read {best['as read']:.3f} s, "
          f"{best['as trained'] / best['as read']:.2f} times faster; "
          f"largest difference of a value {difference:.3g}")


if __name__ == "__main__":
    main()
