"""Multi-agent self-play PPO on Ray RLlib from a YAML config (docs/distributed.md):

    python -m training.rllib_train --config configs/rllib_standard_2p.yaml [--address auto]

The training code is the package's (skipbo_env/train/rllib_ppo.py); this script only runs it.
"""

import sys

from skipbo_env.train.rllib_ppo import main

if __name__ == "__main__":
    sys.exit(main())
