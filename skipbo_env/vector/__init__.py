"""The batched engine: thousands of games at once as arrays, compiled with numba.

`VectorEngine` runs every seat (multi-agent); `SkipBoVectorEnv` is the learner's seat against
batched scripted players as a `gymnasium.vector.VectorEnv`, and `sb3_vec_env`
(skipbo_env/integrations/sb3.py) hands it to stable-baselines3 / sb3-contrib. Both are proven
equal to the reference engine and players by tests/test_vector.py (docs/vector.md).
"""

from ..integrations.sb3 import sb3_vec_env
from .batched import VectorEngine
from .env import SkipBoVectorEnv

__all__ = ["SkipBoVectorEnv", "VectorEngine", "sb3_vec_env"]
