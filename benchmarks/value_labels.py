"""How much the value training's labels separate a decision's candidates
(skipbo_env/train/value.py): from a samples file written by ``training/value_train.py
--samples``, the mean regret of `expert`'s own choice and of a choice at random against the
best label of each decision, and the spread of the labels within a decision (label units:
lookahead's score over the config's label_scale, 20 by default).

    python benchmarks/value_labels.py runs/value/standard.samples.npz [more.npz ...]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def summary(path: str) -> str:
    with np.load(path, allow_pickle=False) as data:
        y, decision, expert = data["y"], data["decision"], data["expert"].astype(bool)
    n = int(decision.max()) + 1
    best = np.full(n, -np.inf)
    np.maximum.at(best, decision, y)
    count = np.bincount(decision, minlength=n)
    mean = np.bincount(decision, y, minlength=n) / count
    spread = np.sqrt(np.maximum(np.bincount(decision, y * y, minlength=n) / count - mean**2, 0))
    own = np.zeros(n)
    own[decision[expert]] = y[expert]
    return (f"{path}: {n:,} decisions, {len(y):,} samples; regret of expert's choice "
            f"{(best - own).mean():.4f}, of a random candidate {(best - mean).mean():.4f}; "
            f"labels' spread within a decision {spread.mean():.4f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("samples", nargs="+", help="samples files (.npz)")
    args = parser.parse_args(argv)
    for path in args.samples:
        try:
            print(summary(path), flush=True)
        except (OSError, KeyError, ValueError) as e:
            print(f"{path}: not a samples file ({e})", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
