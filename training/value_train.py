"""Train the value player's network from a YAML config (skipbo_env/train/value.py):
``python -m training.value_train --config configs/value_standard_2p.yaml``."""

from __future__ import annotations

import argparse
import sys

from skipbo_env.train.value import load_value_config, train_value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", required=True, help="a value config (configs/value_*.yaml)")
    parser.add_argument("--out", default="runs/value", help="folder for <name>.npz and .json")
    parser.add_argument("--samples", help="an .npz the collected samples are written to, or read "
                        "from when it exists (to fit again without collecting)")
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                        help="torch device of the fit")
    args = parser.parse_args(argv)
    try:
        cfg = load_value_config(args.config)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("error: --device cuda: torch sees no CUDA device here", file=sys.stderr)
            return 2
    try:
        path = train_value(cfg, args.out, log=lambda line: print(line, flush=True),
                           samples=args.samples, device=args.device)
    except (OSError, ValueError) as e:  # a samples file that is not one, an unwritable --out
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
