"""stable-baselines3 / sb3-contrib: the batched vector env as an SB3 `VecEnv` (`sb3_vec_env`).

The single-game envs (`SkipBo-v0`) need no adapter: SB3 and MaskablePPO take them as they are.
"""

from __future__ import annotations

import numpy as np

from ..vector.env import SkipBoVectorEnv


def sb3_vec_env(env: SkipBoVectorEnv):
    """`env` as a stable-baselines3 VecEnv that sb3-contrib's MaskablePPO trains on directly
    (its `action_masks` reach MaskablePPO through `env_method`). SB3 resets finished games
    itself in the same step, so `env` must be in autoreset mode SAME_STEP (its default)."""
    from gymnasium.vector import AutoresetMode
    from stable_baselines3.common.vec_env import VecEnv

    if getattr(env, "autoreset_mode", None) != AutoresetMode.SAME_STEP:
        raise ValueError(f"sb3_vec_env needs a SkipBoVectorEnv in autoreset mode SAME_STEP, "
                         f"got {getattr(env, 'autoreset_mode', None)!r}; build it with "
                         f"SkipBoVectorEnv(..., autoreset_mode='same_step')")

    class SB3SkipBoVecEnv(VecEnv):
        """A SkipBoVectorEnv seen through stable-baselines3's VecEnv interface."""

        def __init__(self, inner: SkipBoVectorEnv):
            self.inner = inner
            self._actions: np.ndarray | None = None
            super().__init__(inner.num_envs, inner.single_observation_space,
                             inner.single_action_space)

        def reset(self):
            seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
            obs, _ = self.inner.reset(seed=seed)
            self._reset_seeds()
            return obs

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self):
            obs, rewards, terminated, truncated, infos = self.inner.step(self._actions)
            dones = terminated | truncated
            out: list[dict] = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(dones):
                out[i]["terminal_observation"] = infos["final_obs"][i]
                out[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
            return obs, rewards.astype(np.float32), dones, out

        def action_masks(self) -> np.ndarray:
            return self.inner.action_masks()

        def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
            rows = self._get_indices(indices)
            if method_name == "action_masks":
                masks = self.inner.action_masks()
                return [masks[i] for i in rows]
            # One env holds every game: its other methods run once, their result per row.
            result = getattr(self.inner, method_name)(*method_args, **method_kwargs)
            return [result for _ in rows]

        def get_attr(self, attr_name, indices=None):
            value = getattr(self.inner, attr_name)
            return [value for _ in self._get_indices(indices)]

        def set_attr(self, attr_name, value, indices=None) -> None:
            setattr(self.inner, attr_name, value)

        def env_is_wrapped(self, wrapper_class, indices=None):
            return [False for _ in self._get_indices(indices)]

        def close(self) -> None:
            pass

    return SB3SkipBoVecEnv(env)
