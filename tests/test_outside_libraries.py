"""Outside libraries' own code paths, run unchanged on the envs: a user changes only the env's
name or constructor. Small and fast; each library is pinned in the test extra."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest

import skipbo_env


@pytest.fixture(autouse=True)
def _torch_distribution_checks():
    """TorchRL turns torch.distributions' argument checks off for the whole process when it is
    first imported; put them back as they were, so the other tests run as torch starts."""
    torch = pytest.importorskip("torch")
    before = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(before)


# -- PettingZoo --------------------------------------------------------------------------------
def test_pettingzoo_make_builds_the_wrapped_aec_env_and_its_api_test_passes():
    import pettingzoo
    from pettingzoo.test import api_test

    env = pettingzoo.make("aec", "SkipBo-v0", variant="short", stock_size=3)
    assert type(env) is type(skipbo_env.env())
    assert env.unwrapped.rules.variant == "short" and env.metadata["name"] == "skipbo_v0"
    api_test(env, num_cycles=300)


def test_the_versioned_module_skipbo_v0_has_env_and_raw_env_as_pettingzoos_classic_games():
    from skipbo_env import skipbo_v0

    assert type(skipbo_v0.env()) is type(skipbo_env.env())
    assert isinstance(skipbo_v0.raw_env(), skipbo_env.raw_env)


# -- stable-baselines3 -------------------------------------------------------------------------
def test_sb3_make_vec_env_with_its_defaults_trains_maskable_ppo_a_few_hundred_steps():
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    # make_vec_env asks for render_mode="rgb_array" and falls back only on a TypeError.
    venv = make_vec_env("SkipBo-v0", n_envs=2, seed=0,
                        env_kwargs={"opponents": "random", "stock_size": 3})
    assert venv.envs[0].unwrapped.render_mode == "rgb_array"
    model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=64, n_epochs=1, seed=0,
                        device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256


def test_an_unknown_keyword_is_a_type_error_as_pythons_so_libraries_fall_back():
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make("SkipBo-v0", frameskip=4)
    with pytest.raises(TypeError, match="unexpected keyword argument 'max_cycles'"):
        skipbo_env.env(max_cycles=10)
    with pytest.raises(ValueError, match="stock_size"):  # a known field, a bad value
        gymnasium.make("SkipBo-v0", stock_size=-1)


# -- TorchRL -----------------------------------------------------------------------------------
def test_torchrl_gym_env_of_skipbo_v0_passes_check_env_specs():
    from torchrl.envs import GymEnv
    from torchrl.envs.utils import check_env_specs

    env = GymEnv("SkipBo-v0", opponents="naive", stock_size=3)  # TorchRL passes frameskip
    check_env_specs(env, seed=0)
    rollout = env.rollout(20)
    assert rollout["observation"].shape[-1] == env.observation_spec["observation"].shape[-1]


def test_torchrl_pettingzoo_wrapper_with_masks_passes_check_env_specs():
    from torchrl.envs import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    env = PettingZooWrapper(skipbo_env.env(stock_size=3), use_mask=True)
    check_env_specs(env, seed=0)
    assert env.rollout(20).batch_size[0] == 20


# -- Tianshou ----------------------------------------------------------------------------------
def test_tianshou_collects_a_thousand_steps_with_a_masked_random_policy():
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():  # one stock card each: random play wins games rather than stalling them
        return PettingZooEnv(skipbo_env.env(stock_size=1))

    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    env = make()
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[MARLRandomDiscreteMaskedOffPolicyAlgorithm(env.action_space)
                    for _ in env.agents], env=env)
    collector = Collector(algorithm, DummyVectorEnv([make, make]), VectorReplayBuffer(2000, 2))
    collector.reset()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # Tianshou's notes on its own statistics
        stats = collector.collect(n_step=1000)
    assert stats.n_collected_steps >= 1000 and stats.n_collected_episodes >= 2
    info = collector.buffer.info
    assert info.won.dtype == bool and info.won.shape[1:] == (2,)
    assert info.won.any()  # games were won, and stored as they ended


# -- Gymnasium's vector API (tests/test_vector_autoreset.py has the rest) ----------------------
def test_gymnasium_make_vec_sync_mode_wraps_skipbo_v0_with_the_mask_in_the_info():
    env = gymnasium.make_vec("SkipBo-v0", num_envs=2, vectorization_mode="sync",
                             opponents="naive", stock_size=2, illegal_action="raise")
    _, info = env.reset(seed=0)
    for _ in range(50):
        actions = np.array([int(np.flatnonzero(m)[0]) if m.any() else 0
                            for m in info["action_mask"]])
        _, _, _, _, info = env.step(actions)
        assert info["action_mask"].shape == (2, env.single_action_space.n)
