"""Plot learning curves from model cards (docs/training.md):

    python -m training.plot checkpoints/standard_2p.json [more cards] --out curves.png

The plotting code is the package's (skipbo_env/train/plot.py); this script only runs it.
"""

import sys

from skipbo_env.train.plot import main

if __name__ == "__main__":
    sys.exit(main())
