"""Policy opponents in the batched vector env: checkpoints and the learner's past selves play
their seats between the learner's steps, as a checkpoint opponent plays in `SkipBo-v0`.

Differential tests against the reference engine and the reference policy player
(`players.policy.PolicyAgent`, deterministic), and determinism tests.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from skipbo_env.observation import ObservationEncoder
from skipbo_env.players.policy import load_policy_agent
from skipbo_env.players.registry import make_agent, shipped_checkpoint
from skipbo_env.players.value import load_value_agent
from skipbo_env.vector import SkipBoVectorEnv
from skipbo_env.vector import seating as KA
from skipbo_env.vector.scripted import BATCHED_PLAYERS

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parent.parent
SHORT = str(ROOT / "checkpoints" / "short_2p.zip")
STANDARD = str(ROOT / "checkpoints" / "standard_2p.zip")


def _reference_players(env, paths):
    """The reference player of every kind the env can seat: scripted ones by name, policy
    slot k by the reference PolicyAgent of paths[k]."""
    players = {BATCHED_PLAYERS.index(name): make_agent(name)
               for name in ("naive", "greedy", "expert")}
    for k, path in enumerate(paths):
        players[KA.POLICY + k] = (load_value_agent(path, env.rules) if path.endswith(".npz")
                                  else load_policy_agent(path, env.rules))
    return players


def _play_side_by_side(env, players, steps, seed):
    """Step `env` with the learner's last legal action and replay every game in the reference
    engine, the other seats played by `players`; compare states, rewards and ends. Returns
    (games finished, decisions the policies took)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    finished = decided = 0
    for _ in range(steps):
        games = [env.game(i) for i in range(env.num_envs)]
        kinds = env.kinds.copy()
        masks = env.action_masks()
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        _, rewards, terminated, truncated, infos = env.step(actions)
        for i, game in enumerate(games):
            seat = game.current_player
            game.step(int(actions[i]))
            while not game.is_over and game.current_player != seat:
                kind = int(kinds[i, game.current_player])
                decided += kind >= KA.POLICY
                game.step(players[kind].act(game.view()))
            if game.is_over:
                finished += 1
                assert terminated[i] or truncated[i]
                assert rewards[i] == game.returns()[seat]
                assert np.array_equal(infos["final_obs"][i],
                                      ObservationEncoder(env.rules).encode(game, seat))
            else:
                assert env.game(i).to_dict() == game.to_dict()
                assert rewards[i] == 0 and not terminated[i] and not truncated[i]
    return finished, decided


def test_a_checkpoint_opponent_plays_the_reference_policy_players_moves():
    env = SkipBoVectorEnv("short", 2, num_envs=24, opponents=[SHORT], stock_size=4)
    finished, decided = _play_side_by_side(env, _reference_players(env, [SHORT]), 40, seed=5)
    assert finished > 10 and decided > 200


def test_scripted_and_policy_opponents_mixed_in_one_batch_play_their_reference_moves():
    env = SkipBoVectorEnv("standard", 2, num_envs=24, stock_size=5,
                          opponents={"expert": 1, "greedy": 1, STANDARD: 1, SHORT: 1})
    finished, decided = _play_side_by_side(env, _reference_players(env, [STANDARD, SHORT]),
                                           40, seed=2)
    assert finished > 10 and decided > 100


def test_a_value_opponent_plays_the_reference_value_players_moves():
    value = shipped_checkpoint("value_standard_2p")
    assert value is not None
    env = SkipBoVectorEnv("standard", 2, num_envs=16, stock_size=5,
                          opponents={"expert": 1, value: 2})
    finished, decided = _play_side_by_side(env, _reference_players(env, [value]), 30, seed=4)
    assert finished > 5 and decided > 100


def test_a_policy_seat_sees_only_its_own_view_of_the_game():
    env = SkipBoVectorEnv("short", 2, num_envs=16, opponents=[SHORT], stock_size=6)
    seen = []
    inner = env._policy_actions

    def spy(slot, rows):
        for g in rows:
            game = env.game(int(g))
            seat = game.current_player
            assert seat != env.learner[g]
            assert np.array_equal(env.engine.obs[g],
                                  ObservationEncoder(env.rules).encode(game, seat))
            assert np.array_equal(env.engine.masks[g].astype(bool),
                                  game.action_mask().astype(bool))
            seen.append(int(g))
        return inner(slot, rows)

    env._policy_actions = spy
    env.reset(seed=0)
    for _ in range(10):
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    assert len(seen) > 50


def test_every_game_is_back_at_the_learners_turn_after_each_step():
    env = SkipBoVectorEnv("short", 2, num_envs=32, opponents={SHORT: 1, "naive": 1},
                          stock_size=3)
    env.reset(seed=1)
    for _ in range(30):
        assert (env.seating.status == KA.LEARNER).all()
        for i in range(env.num_envs):
            assert env.game(i).current_player == env.learner[i]
        env.step(np.array([int(np.flatnonzero(m)[-1]) for m in env.action_masks()]))


def test_seeded_runs_with_policy_opponents_repeat_exactly():
    def run():
        env = SkipBoVectorEnv("short", 2, num_envs=16, opponents={SHORT: 1, "expert": 1},
                              stock_size=5)
        obs, _ = env.reset(seed=11)
        out = [obs.copy(), env.kinds.copy()]
        for _ in range(25):
            obs, rewards, terminated, _, _ = env.step(
                np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
            out += [obs.copy(), rewards.copy(), terminated.copy()]
        return out

    first, second = run(), run()
    assert all(np.array_equal(a, b) for a, b in zip(first, second))


def _pool_with(directory, names):
    os.makedirs(directory, exist_ok=True)
    for name in names:
        shutil.copy(SHORT, os.path.join(directory, name + ".zip"))
        shutil.copy(SHORT.replace(".zip", ".json"), os.path.join(directory, name + ".json"))


def test_self_play_draws_from_the_newest_pool_size_snapshots_of_the_pool(tmp_path):
    pool = str(tmp_path / "pool")
    env = SkipBoVectorEnv("short", 2, num_envs=64, opponents={"naive": 1}, self_play=3.0,
                          pool=pool, pool_size=2, stock_size=4)
    env.reset(seed=0)  # no directory yet: every seat goes to naive
    assert (env.kinds[np.arange(64), 1 - env.learner] == BATCHED_PLAYERS.index("naive")).all()
    _pool_with(pool, ["step_000000100", "step_000000200", "step_000000300"])
    assert env.refresh_pool() == 2
    live = sorted(env._pool_slots)
    assert [os.path.basename(p) for p in live] == ["step_000000200.zip", "step_000000300.zip"]
    shares = np.diff(env.weights, prepend=0.0)
    assert shares[BATCHED_PLAYERS.index("naive")] == pytest.approx(0.25)
    assert shares[KA.POLICY:].sum() == pytest.approx(0.75)
    env.reset(seed=0)
    opponents = env.kinds[np.arange(64), 1 - env.learner]
    assert (opponents >= KA.POLICY).mean() > 0.5
    for _ in range(5):
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))


def test_a_game_keeps_its_snapshot_opponent_when_the_pool_moves_on(tmp_path):
    pool = str(tmp_path / "pool")
    _pool_with(pool, ["step_1"])
    env = SkipBoVectorEnv("short", 2, num_envs=32, opponents={"naive": 1}, self_play=1e6,
                          pool=pool, pool_size=1, stock_size=10)
    env.reset(seed=3)
    old = env.kinds[np.arange(32), 1 - env.learner].copy()
    assert (old == KA.POLICY).sum() > 20
    _pool_with(pool, ["step_2"])
    env.refresh_pool()
    playing = env.kinds[np.arange(32), 1 - env.learner]
    assert np.array_equal(playing, old)  # mid-game seats do not change
    assert env._policies[0] is not None  # still played, so still loaded
    env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    shares = np.diff(env.weights, prepend=0.0)
    assert shares[KA.POLICY] == 0 and shares[KA.POLICY + 1] > 0.99


def test_the_vector_env_refuses_policies_that_do_not_fit_and_self_play_without_a_pool(tmp_path):
    with pytest.raises(ValueError, match="observes vectors of shape"):
        SkipBoVectorEnv("standard", 3, num_envs=2, opponents=[STANDARD])
    with pytest.raises(ValueError, match="does not exist"):
        SkipBoVectorEnv(num_envs=2, opponents=[str(tmp_path / "missing.zip")])
    with pytest.raises(ValueError, match="self_play needs pool"):
        SkipBoVectorEnv(num_envs=2, self_play=0.5)
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError):
        SkipBoVectorEnv(num_envs=2, opponents=[str(bad)])
    with pytest.raises(ValueError, match="no batched player"):
        SkipBoVectorEnv(num_envs=2, opponents=["lookahead"])


def test_a_stock_size_step_cuts_off_the_games_in_progress_and_deals_the_new_size():
    env = SkipBoVectorEnv("short", 2, num_envs=8, opponents={SHORT: 1, "naive": 1},
                          stock_size=5)
    obs, _ = env.reset(seed=4)
    env.set_stock_size(2)
    before = obs.copy()
    obs, rewards, terminated, truncated, infos = env.step(
        np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    assert (terminated | truncated).all() and infos["_final_obs"].all()
    cut = ~terminated
    assert cut.any()
    for i in range(env.num_envs):
        game = env.game(i)
        assert game.rules.stock_size == 2 and game.current_player == env.learner[i]
        assert np.array_equal(obs[i], ObservationEncoder(env.rules).encode(game,
                                                                           int(env.learner[i])))
    assert not np.array_equal(before, obs)
    with pytest.raises(ValueError):
        env.set_stock_size(0)


def test_a_policy_that_fails_leaves_the_env_to_be_reset_not_stepped():
    env = SkipBoVectorEnv("short", 2, num_envs=8, opponents=[SHORT], stock_size=5)
    env.reset(seed=0)

    def broken(slot, rows):
        raise RuntimeError("broken policy")

    env._policy_actions = broken
    with pytest.raises(RuntimeError, match="broken policy"):
        for _ in range(500):
            env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(8, dtype=np.int64))


def test_a_policy_opponent_whose_scores_are_not_numbers_is_refused_not_played():
    import torch

    env = SkipBoVectorEnv("short", 2, num_envs=8, opponents=[SHORT], stock_size=5)
    env.reset(seed=0)
    with torch.no_grad():
        env._policies[0].action_net.bias.fill_(float("nan"))
    with pytest.raises(RuntimeError, match="opponent slot 0 gave no usable action scores"):
        for _ in range(500):
            env.step(np.array([int(np.flatnonzero(m)[0]) for m in env.action_masks()]))


def test_the_sb3_view_runs_an_env_method_once_for_all_its_games(tmp_path):
    from skipbo_env.integrations.sb3 import sb3_vec_env

    env = SkipBoVectorEnv("short", 2, num_envs=16, opponents={"naive": 1}, self_play=1.0,
                          pool=str(tmp_path), stock_size=5)
    calls = []
    inner = env.refresh_pool
    env.refresh_pool = lambda: calls.append(1) or inner()
    assert sb3_vec_env(env).env_method("refresh_pool") == [0] * 16
    assert calls == [1]
