"""The batched engine: thousands of games at once as arrays, compiled with numba.

`VectorEngine` runs every seat (multi-agent); `SkipBoVectorEnv` is the learner's seat against
batched scripted players as a `gymnasium.vector.VectorEnv` (for stable-baselines3 and
sb3-contrib, `skipbo_env.integrations.sb3.sb3_vec_env` wraps it). Both are proven equal to the
reference engine and players by tests/test_vector.py (docs/vector.md).

The modules, each above those it uses: `threads` (the engine's worker threads: how its entry
points share the cores), `bundles` (the arrays every kernel takes), `generator`
(numpy's PCG64 on arrays), `play_rules` (the rules of play), `observe` (the observation),
`scripted` (the batched scripted players), `seating` (the vector env's seats and rewards),
`kernels` (the entry points), `tables` (a rules set as the kernels' tables),
`batched` (`VectorEngine`), `rollout` (a search teacher for cloning) and `env`
(`SkipBoVectorEnv`).
"""

from .batched import VectorEngine
from .env import SkipBoVectorEnv

__all__ = ["SkipBoVectorEnv", "VectorEngine"]
