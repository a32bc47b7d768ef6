"""Join value networks into one that averages them (skipbo_env/train/value_average.py):
``python -m training.value_average --networks A.npz B.npz --out runs/value/avg/NAME.npz``."""

from __future__ import annotations

import argparse
import sys

from skipbo_env.train.value_average import average_value_nets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--networks", nargs="+", required=True,
                        help="value checkpoints (.npz with their model cards), two or more")
    parser.add_argument("--out", required=True, help="the averaged network's .npz (its card "
                        "is written beside it)")
    args = parser.parse_args(argv)
    try:
        path = average_value_nets(args.networks, args.out)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
