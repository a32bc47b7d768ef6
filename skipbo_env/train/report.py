"""What every training run reports: win-rate summaries and the versions it ran with (for the
model card)."""

from __future__ import annotations

import platform

import numpy as np

from ..version import __version__


def summary(results: dict, path: str) -> dict:
    """{opponent: win rate, interval, draw rate, games} of the player `path` from tournament
    results by opponent."""
    return {name: {"win_rate": r["players"][path]["win_rate"],
                   "ci95": r["players"][path]["ci95"], "draw_rate": r["draw_rate"],
                   "games": r["games"]} for name, r in results.items()}


def versions(*extra: str) -> dict:
    """The versions of Python, this package and the training stack (and of the modules named
    in `extra`, e.g. "ray")."""
    import importlib

    import gymnasium
    import sb3_contrib
    import stable_baselines3
    import torch
    out = {"python": platform.python_version(), "skipbo_env": __version__,
           "numpy": np.__version__, "gymnasium": gymnasium.__version__,
           "torch": torch.__version__, "stable_baselines3": stable_baselines3.__version__,
           "sb3_contrib": sb3_contrib.__version__}
    for name in extra:
        out[name] = importlib.import_module(name).__version__
    return out
