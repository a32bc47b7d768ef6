"""The environments: PettingZoo AEC (`aec`), Gymnasium single-agent (`gym`) and the roles AEC
env for multi-agent libraries (`roles`). The batched vector env is in `skipbo_env.vector`."""

from .aec import env, raw_env
from .gym import OpponentPool, SkipBoEnv
from .roles import RolesEnv

__all__ = ["OpponentPool", "RolesEnv", "SkipBoEnv", "env", "raw_env"]
