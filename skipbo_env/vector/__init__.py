"""The batched engine: thousands of games at once as arrays, compiled with numba.

`VectorEngine` runs every seat (multi-agent); `SkipBoVectorEnv` is the learner's seat against
batched scripted opponents as a `gymnasium.vector.VectorEnv`. Both are proven equal to the
reference engine by tests/test_vector.py (docs/vector.md).
"""

from .engine import VectorEngine

__all__ = ["VectorEngine"]
