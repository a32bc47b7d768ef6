"""Read and check a training config without training (docs/training.md):

    python -m training.check_config configs/standard_2p.yaml [more configs]

Prints each config's resolved rules and opponents, or the first problem found in it.
"""

import sys

from skipbo_env.train.config import ConfigError, load


def main(argv: list[str] | None = None) -> int:
    """Check each config named in `argv`; 0 if all are fine, 2 otherwise."""
    paths = sys.argv[1:] if argv is None else argv
    if not paths:
        print("usage: python -m training.check_config CONFIG [CONFIG ...]", file=sys.stderr)
        return 2
    status = 0
    for path in paths:
        try:
            cfg = load(path)
        except ConfigError as e:
            print(f"{path}: {e}", file=sys.stderr)
            status = 2
            continue
        rules = cfg.game_rules
        print(f"{path}: {cfg.name}: {rules.variant}, {rules.num_players} players, stock "
              f"{rules.stock_size}; opponents {cfg.opponents}; vec_env {cfg.vec_env}")
    return status


if __name__ == "__main__":
    sys.exit(main())
