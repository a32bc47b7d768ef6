"""Labels a second of the batched rollout teacher (skipbo_env/vector/rollout.py), and how
often its label differs from `expert`'s move, in games of `expert` against `expert`.

    python benchmarks/rollout_teacher.py [--variant standard] [--stock-size 30]
        [--games 1024] [--steps 20] [--margin 1.0]

Every step labels each of `games` decisions (after a warm-up step that loads or compiles the
kernels), then plays `expert`'s moves; the last line reads
``rollout teacher: L labels/s, differs from expert in P% of D decisions``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np  # noqa: E402

from skipbo_env.vector import VectorEngine  # noqa: E402
from skipbo_env.vector.players import AGENT_NAMES  # noqa: E402
from skipbo_env.vector.rollout import rollout_labels, scratch_engine  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--stock-size", type=int, default=30)
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--margin", type=float, default=1.0)
    args = parser.parse_args(argv)
    if min(args.games, args.steps, args.stock_size) < 1 or not 0 <= args.margin < 1e6:
        parser.error("--games, --steps and --stock-size must be at least 1, --margin in "
                     "[0, 1e6)")
    try:
        engine = VectorEngine(args.variant, args.players, num_games=args.games,
                              stock_size=args.stock_size)
    except ValueError as e:
        parser.error(str(e))
    engine.reset(seed=0)
    kinds = np.full((args.games, args.players), AGENT_NAMES.index("expert"), dtype=np.int64)
    scratch = scratch_engine(engine)
    rollout_labels(engine, engine.scripted_actions(kinds).copy(), scratch)  # warm-up
    labelled = differ = 0
    seconds = 0.0
    for _ in range(args.steps):
        expert = engine.scripted_actions(kinds).copy()
        start = time.perf_counter()
        labels = rollout_labels(engine, expert, scratch, margin=args.margin)
        seconds += time.perf_counter() - start
        labelled += len(labels)
        differ += int((labels != expert).sum())
        engine.step(expert)
    print(f"rollout teacher: {labelled / seconds:.0f} labels/s, differs from expert in "
          f"{differ / labelled:.1%} of {labelled} decisions")
    return 0


if __name__ == "__main__":
    sys.exit(main())
