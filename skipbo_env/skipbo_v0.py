"""The AEC env as a versioned module, as PettingZoo's classic games ship them
(``pettingzoo.classic.connect_four_v3``): ``skipbo_v0.env(...)`` is `skipbo_env.env` (the
env with PettingZoo's wrappers) and ``skipbo_v0.raw_env(...)`` the bare env. The same env is
registered as ``pettingzoo.make("aec", "SkipBo-v0", ...)``. A change that alters
observations, actions or rewards gets a new version (skipbo_v1), the old one kept."""

from .envs.aec import env, raw_env

__all__ = ["env", "raw_env"]
