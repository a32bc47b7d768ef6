"""Old import paths of modules that moved, kept working for one release with a warning.

An old module (say ``skipbo_env.aec``) is the new module itself (``skipbo_env.envs.aec``):
every name, private ones included, resolves as before, and so do pickles that name it.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from types import ModuleType

# old module -> new module
MOVED = {
    "skipbo_env.aec": "skipbo_env.envs.aec",
    "skipbo_env.gym_env": "skipbo_env.envs.gym",
    "skipbo_env.roles": "skipbo_env.envs.roles",
    "skipbo_env.agents": "skipbo_env.players.registry",
    "skipbo_env.policy": "skipbo_env.players.policy",
    "skipbo_env.tournament": "skipbo_env.players.tournament",
    "skipbo_env.rllib": "skipbo_env.integrations.rllib",
    "skipbo_env.cli": "skipbo_env.apps.cli",
    "skipbo_env.play": "skipbo_env.apps.session",
    "skipbo_env.terminal": "skipbo_env.apps.terminal",
    "skipbo_env.render": "skipbo_env.text",
    "skipbo_env.web": "skipbo_env.apps.web",
    "skipbo_env.web.server": "skipbo_env.apps.web.server",
    "skipbo_env.vector.engine": "skipbo_env.vector.batched",
}


def moved(old: str) -> ModuleType:
    """Warn that `old` moved, and put the new module in its place in ``sys.modules``."""
    new = MOVED[old]
    warnings.warn(f"{old} moved to {new}; the old path works for one more release",
                  DeprecationWarning, stacklevel=3)
    module = importlib.import_module(new)
    sys.modules[old] = module
    return module
