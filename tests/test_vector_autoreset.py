"""The batched env as Gymnasium's vector API has it: both autoreset modes, the `_key` masks of
vector infos, the mask in the info, and `gymnasium.make_vec` through the vector entry point."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

import skipbo_env  # noqa: F401  (registers SkipBo-v0)
from skipbo_env.integrations.sb3 import sb3_vec_env
from skipbo_env.vector import SkipBoVectorEnv
from skipbo_env.vector.scripted import BATCHED_PLAYERS


def _first_legal(masks: np.ndarray) -> np.ndarray:
    return masks.argmax(1).astype(np.int64)


def _rows(env, steps: int, seed: int):
    """Each row's steps as (obs, reward, terminated, truncated, seat) with the first legal
    action of the mask every step; for NEXT_STEP, also which steps were the new-game steps."""
    obs, info = env.reset(seed=seed)
    out = [[(obs[i], None, None, None, info["seat"][i])] for i in range(env.num_envs)]
    shown = [[] for _ in range(env.num_envs)]
    for _ in range(steps):
        pending = env._pending.copy()
        obs, rew, term, trunc, info = env.step(_first_legal(info["action_mask"]))
        for i in range(env.num_envs):
            out[i].append((obs[i], rew[i], term[i], trunc[i], info["seat"][i]))
            shown[i].append(bool(pending[i]))
        if env.autoreset_mode == AutoresetMode.SAME_STEP and (term | trunc).any():
            done = term | trunc
            assert info["_final_obs"].tolist() == done.tolist()
            assert info["_final_info"].tolist() == done.tolist()
            for i in np.flatnonzero(done):
                out[i][-1] = out[i][-1] + (info["final_obs"][i], info["final_info"]["seat"][i])
    return out, shown


def test_next_step_autoreset_shows_the_end_then_the_new_game_with_reward_zero():
    kw = dict(num_envs=3, opponents="naive", stock_size=2, seat="random")
    same, _ = _rows(SkipBoVectorEnv(**kw), 120, seed=5)
    nxt, shown = _rows(SkipBoVectorEnv(**kw, autoreset_mode="next_step"), 140, seed=5)
    ends = 0
    for i in range(3):
        s, n, k = same[i], nxt[i], 0
        # Walk the SAME_STEP row; NEXT_STEP has one extra step after every end.
        for j in range(1, len(s)):
            k += 1
            if k >= len(n):
                break
            assert not shown[i][k - 1]
            sj, nk = s[j], n[k]
            assert sj[1] == nk[1] and sj[2] == nk[2] and sj[3] == nk[3]
            if sj[2] or sj[3]:  # the end: NEXT_STEP shows the last observation and seat
                ends += 1
                np.testing.assert_array_equal(nk[0], sj[5])
                assert nk[4] == sj[6]
                k += 1
                if k >= len(n):
                    break
                assert shown[i][k - 1]  # the step after an end only shows the new game
                np.testing.assert_array_equal(n[k][0], sj[0])
                assert n[k][1] == 0 and not n[k][2] and not n[k][3] and n[k][4] == sj[4]
            else:
                np.testing.assert_array_equal(nk[0], sj[0])
                assert nk[4] == sj[4]
    assert ends >= 3


def test_next_step_ignores_the_action_of_a_game_shown_ended_and_allows_every_action():
    env = SkipBoVectorEnv(num_envs=4, opponents="naive", stock_size=2,
                          autoreset_mode=AutoresetMode.NEXT_STEP)
    _, info = env.reset(seed=1)
    for _ in range(200):
        _, _, term, trunc, info = env.step(_first_legal(info["action_mask"]))
        if (term | trunc).any():
            break
    done = term | trunc
    assert done.any() and info["action_mask"][done].all()
    assert env.action_masks()[done].all()
    actions = _first_legal(info["action_mask"])
    new_games = env.engine.obs[done].copy()  # the deals waiting to be shown
    for i in np.flatnonzero(done):  # an action the new game refuses: ignored, not an error
        actions[i] = np.flatnonzero(~env.engine.masks[i].astype(bool))[0]
    obs, rew, term, trunc, _ = env.step(actions)
    assert (rew[done] == 0).all() and not (term | trunc)[done].any()
    np.testing.assert_array_equal(obs[done], new_games)


def test_a_curriculum_step_under_next_step_cuts_games_in_progress_not_the_waiting_deals():
    env = SkipBoVectorEnv(num_envs=6, opponents="naive", stock_size=2, autoreset_mode="next_step")
    _, info = env.reset(seed=3)
    for _ in range(200):
        _, _, term, trunc, info = env.step(_first_legal(info["action_mask"]))
        if (term | trunc).any() and not (term | trunc).all():
            break
    waiting = term | trunc
    assert waiting.any() and not waiting.all()
    env.set_stock_size(3)
    obs, rew, term, trunc, _ = env.step(_first_legal(info["action_mask"]))
    assert not (term | trunc)[waiting].any() and (rew[waiting] == 0).all()
    assert (term | trunc)[~waiting].all()  # the games in progress end: cut off, or won now
    np.testing.assert_array_equal(obs[waiting], env.engine.obs[waiting])
    assert env.rules.stock_size == 3


def test_make_vec_refuses_what_the_batched_env_cannot_honour_naming_the_sync_mode():
    for kw, word in [({"illegal_action": "lose"}, "illegal_action"),
                     ({"render_mode": "rgb_array"}, "render_mode"),
                     ({"pile_depth": 4}, "pile_depth")]:
        with pytest.raises(ValueError, match=f"{word}.*vectorization_mode='sync'"):
            gymnasium.make_vec("SkipBo-v0", num_envs=2, **kw)
    env = gymnasium.make_vec("SkipBo-v0", num_envs=2, illegal_action="raise", render_mode=None)
    assert isinstance(env.unwrapped, SkipBoVectorEnv)  # Gymnasium's default for SkipBo-v0


def test_make_vec_refuses_more_games_than_the_batched_engine_may_hold_naming_num_envs():
    with pytest.raises(ValueError, match="num_envs: 1000000000 games of these rules need"):
        gymnasium.make_vec("SkipBo-v0", num_envs=10**9)
    with pytest.raises(ValueError, match="num_envs must be"):
        gymnasium.make_vec("SkipBo-v0", num_envs="8")


def test_every_vector_info_key_comes_with_its_mask():
    for mode in ("same_step", "next_step"):
        env = SkipBoVectorEnv(num_envs=3, opponents="naive", stock_size=2, autoreset_mode=mode)
        _, info = env.reset(seed=0)
        for _ in range(60):
            for key in [k for k in info if not k.startswith("_")]:
                assert f"_{key}" in info, key
                assert info[f"_{key}"].dtype == bool and info[f"_{key}"].shape == (3,)
            np.testing.assert_array_equal(info["action_mask"], env.action_masks())
            _, _, _, _, info = env.step(_first_legal(info["action_mask"]))


def test_autoreset_mode_must_be_same_step_or_next_step():
    for bad in ("disabled", AutoresetMode.DISABLED, 1, None, "sideways"):
        with pytest.raises(ValueError, match="autoreset_mode"):
            SkipBoVectorEnv(num_envs=2, autoreset_mode=bad)
    for good in ("SameStep", "same_step", "NEXT_STEP", AutoresetMode.NEXT_STEP):
        env = SkipBoVectorEnv(num_envs=2, autoreset_mode=good)
        assert env.metadata["autoreset_mode"] == env.autoreset_mode


def test_the_sb3_adapter_refuses_a_next_step_env():
    with pytest.raises(ValueError, match="SAME_STEP"):
        sb3_vec_env(SkipBoVectorEnv(num_envs=2, autoreset_mode="next_step"))


def test_make_vec_with_the_vector_entry_point_builds_the_batched_env_with_gymnasiums_defaults():
    env = gymnasium.make_vec("SkipBo-v0", num_envs=4, vectorization_mode="vector_entry_point",
                             variant="short", stock_size=3)
    inner = env.unwrapped
    assert isinstance(inner, SkipBoVectorEnv) and inner.num_envs == 4
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert inner.rules.variant == "short" and inner.rules.stock_size == 3
    weights = np.diff(inner.weights, prepend=0.0)
    assert weights[BATCHED_PLAYERS.index("expert")] == 1.0  # SkipBo-v0's default opponent


def test_gymnasiums_vector_observation_wrappers_accept_the_make_vec_env():
    from gymnasium.wrappers.vector import NormalizeObservation, RecordEpisodeStatistics

    env = gymnasium.make_vec("SkipBo-v0", num_envs=4, vectorization_mode="vector_entry_point",
                             opponents="naive", stock_size=2)
    env = RecordEpisodeStatistics(NormalizeObservation(env))
    obs, info = env.reset(seed=0)
    episodes, recorded = 0, 0
    for _ in range(150):
        obs, _, term, trunc, info = env.step(_first_legal(info["action_mask"]))
        assert obs.shape == (4, env.single_observation_space.shape[0])
        done = term | trunc
        episodes += int(done.sum())
        if done.any():
            recorded += int(info["_episode"][done].sum())
            assert (info["episode"]["l"][done] > 0).all()
    assert episodes >= 4 and recorded == episodes
