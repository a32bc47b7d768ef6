"""Deprecated import path (see skipbo_env/_moved.py): use skipbo_env.apps.cli."""
import sys

if __name__ == "__main__":  # python -m skipbo_env.cli, as before
    from skipbo_env.apps.cli import main
    sys.exit(main())
else:
    from skipbo_env._moved import moved
    moved(__name__)
