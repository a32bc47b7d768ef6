"""Train a MaskablePPO policy from a YAML config (docs/training.md); the same as `skipbo train`:

    python -m training.train --config configs/standard_2p.yaml

The training code is the package's (skipbo_env/train/ppo.py); this script only runs it.
"""

import sys

from skipbo_env.train.ppo import main

if __name__ == "__main__":
    sys.exit(main())
