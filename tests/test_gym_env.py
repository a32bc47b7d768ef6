"""The Gymnasium single-agent environment: the learner's seat against opponents."""

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from positions import position

from skipbo_env import Game, Rules
from skipbo_env.envs.gym import SkipBoEnv
from skipbo_env.players.registry import make_agent


def _play(env, seed, learner=None):
    """Play to the end, randomly among the legal actions or as the `learner` agent; the
    observations, rewards and final info."""
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=seed)
    trace, rewards = [obs], []
    while True:
        if learner is not None and not env.game.is_over:
            action = learner.act(env.game.view())
        else:
            action = rng.choice(np.flatnonzero(env.action_masks()))
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append(obs)
        rewards.append(reward)
        if terminated or truncated:
            return trace, rewards, info


def _plain(info: dict) -> dict:
    return {k: v.tolist() if isinstance(v, np.ndarray) else v for k, v in info.items()}


@pytest.mark.parametrize("variant,players", [("standard", 2), ("partnership", 4),
                                             ("masters", 3), ("junior", 2)])
def test_gymnasiums_env_checker_passes(variant, players):
    check_env(SkipBoEnv(variant, players, opponents="greedy", stock_size=3),
              skip_render_check=True)


def test_importing_the_package_registers_skipbo_v0():
    env = gym.make("SkipBo-v0", variant="short", opponents="naive")
    assert isinstance(env.unwrapped, SkipBoEnv)
    assert env.unwrapped.rules == Rules.preset("short", 2)


def test_a_reset_with_a_seed_repeats_the_deal_the_seat_and_the_opponents_moves():
    env = SkipBoEnv("standard", 3, opponents=["expert", "random"], stock_size=5)
    first, second = _play(env, seed=4), _play(env, seed=4)
    assert len(first[0]) == len(second[0])
    for a, b in zip(first[0], second[0]):
        np.testing.assert_array_equal(a, b)
    assert first[1] == second[1] and _plain(first[2]) == _plain(second[2])
    assert _play(env, seed=5)[0][0].tobytes() != first[0][0].tobytes()


def test_the_observation_is_the_aec_envs_seat_view_and_the_mask_its_legal_actions():
    env = SkipBoEnv("standard", 2, opponents="naive", seat=1)
    obs, info = env.reset(seed=0)
    assert info["seat"] == 1 and env.game.current_player == 1
    np.testing.assert_array_equal(obs, env.encoder.encode(env.game, 1))
    assert list(np.flatnonzero(env.action_masks())) == env.game.legal_actions()


def test_the_opponents_play_inside_step_until_the_learners_turn():
    env = SkipBoEnv("standard", 2, opponents="naive", seat=0, stock_size=5)
    env.reset(seed=1)
    for _ in range(200):
        mask = env.action_masks()
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(mask)[-1]))
        if terminated or truncated:
            break
        assert env.game.current_player == 0


def test_the_reward_is_plus_one_for_a_win_minus_one_for_a_loss_with_the_end_in_info():
    seen = set()
    for seed in range(30):
        env = SkipBoEnv("standard", 2, opponents="naive", stock_size=3)
        _, rewards, info = _play(env, seed, learner=make_agent("greedy"))
        assert all(r == 0 for r in rewards[:-1])
        assert info["stock_sizes"].tolist() == [len(s) for s in env.game.stocks]
        assert info["turn"] == env.game.turn
        assert info["won"].tolist() == [p in list(env.game.winners) for p in range(2)]
        expected = 0.0 if not env.game.winners else (
            1.0 if info["seat"] in env.game.winners else -1.0)
        assert rewards[-1] == expected
        seen.add(expected)
    assert {1.0, -1.0} <= seen


def test_stock_reward_adds_a_shaping_reward_per_stock_card_the_learner_plays():
    rules = Rules.preset("standard", 2)
    game = position(rules, building=[[1, 2]],
                    players=[{"hand": [9, 9, 9, 9, 9], "stock": [8, 3]}, {"stock": [12]}])
    env = SkipBoEnv("standard", 2, opponents="naive", seat=0, stock_reward=0.1)
    env.reset(seed=0, options={"state": game.to_dict()})
    play = next(a for a in env.game.legal_actions() if env.game.describe(a).startswith("stock"))
    _, reward, _, _, _ = env.step(play)
    assert reward == pytest.approx(0.1)


def test_opponent_stock_reward_adds_a_shaping_reward_per_stock_card_the_opponents_play():
    # The learner can only discard; then naive, holding five 9s from the draw pile, plays
    # its stock top 3 and nothing else before the learner's next turn.
    rules = Rules.preset("standard", 2)
    game = position(rules, building=[[1, 2]], draw_pile=[9] * 5,
                    players=[{"hand": [10, 10, 10, 10, 11], "stock": [8, 7]},
                             {"stock": [12, 3]}])
    env = SkipBoEnv("standard", 2, opponents="naive", seat=0, stock_reward=0.5,
                    opponent_stock_reward=-0.1)
    env.reset(seed=0, options={"state": game.to_dict()})
    _, reward, _, _, _ = env.step(env.game.legal_actions()[0])
    assert env.game.current_player == 0 and env.game.stocks[1] == [12]
    assert reward == pytest.approx(-0.1)


def test_an_illegal_action_ends_the_game_as_a_loss_or_raises_if_asked():
    env = SkipBoEnv("standard", 2, opponents="naive", seat=0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.action_masks() == 0)[0])
    before = env.game.to_dict()
    _, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.to_dict() == before
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(illegal)
    strict = SkipBoEnv("standard", 2, opponents="naive", seat=0, illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="illegal action"):
        strict.step(illegal)


def test_opponents_are_names_agents_or_callables_one_per_other_seat():
    calls = []

    def first_legal(view):  # a player is given its seat's view, never the game
        calls.append(view.seat)
        return view.legal_actions[0]

    env = SkipBoEnv("standard", 3, opponents=[make_agent("greedy", 1), first_legal], seat=0,
                    stock_size=10)
    _play(env, seed=0)
    assert calls and set(calls) == {2}


@pytest.mark.parametrize("kwargs,message", [
    ({"opponents": "genius"}, "unknown opponent 'genius'"),
    ({"opponents": ["naive", "naive"]}, "one opponent for each of the 1 other seats"),
    ({"opponents": 7}, "opponents must be an agent name"),
    ({"opponents": [7]}, "an opponent must be"),
    ({"seat": 2}, "seat must be 'random' or a seat in 0..1"),
    ({"illegal_action": "ignore"}, "illegal_action must be 'lose' or 'raise'"),
    ({"stock_reward": float("nan")}, "stock_reward must be a finite number"),
    ({"opponent_stock_reward": "lots"}, "opponent_stock_reward must be a finite number"),
    ({"render_mode": "rgb"}, "render_mode must be one of"),
    ({"opponents": "missing/policy.zip"}, "missing/policy.zip"),
])
def test_bad_arguments_are_refused_with_the_problem_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SkipBoEnv("standard", 2, **kwargs)


def test_reset_options_set_the_seat_or_the_position_and_refuse_anything_else():
    env = SkipBoEnv("standard", 2, opponents="naive")
    assert env.reset(seed=0, options={"seat": 1})[1]["seat"] == 1
    state = Game(Rules.preset("standard", 2), 9).to_dict()
    env.reset(options={"state": state, "seat": 0})
    assert env.game.to_dict() == state
    with pytest.raises(ValueError, match="unknown reset option"):
        env.reset(options={"stock": 3})
    with pytest.raises(ValueError, match="differ from this env's"):
        env.reset(options={"state": Game(Rules.preset("short", 2), 1).to_dict()})


def test_a_random_seat_takes_every_seat():
    env = SkipBoEnv("standard", 3, opponents="naive")
    assert {env.reset(seed=s)[1]["seat"] for s in range(30)} == {0, 1, 2}


@pytest.mark.parametrize("action", [80.9, 3.0, np.float32(3.0), True, "3", None, [80]])
def test_an_action_that_is_not_an_integer_is_refused_not_rounded(action):
    env = gym.make("SkipBo-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action must be an integer"):
        env.step(action)


@pytest.mark.parametrize("action", [-1, 125, 10**20])
def test_an_action_outside_the_action_space_is_refused(action):
    env = gym.make("SkipBo-v0")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="is outside 0..124"):
        env.step(action)


def test_every_info_has_the_same_keys_each_of_one_type_and_shape():
    env = SkipBoEnv("standard", 2, opponents="naive", stock_size=3)
    seen = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        infos = [info]
        done = False
        while not done:
            _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
            infos.append(info)
            done = term or trunc
        for info in infos:
            shape = tuple((k, type(v).__name__, getattr(v, "shape", None),
                           getattr(v, "dtype", None)) for k, v in sorted(info.items()))
            seen.add(shape)
        assert infos[-1]["won"].any() == (list(env.game.winners) != [])
        assert not infos[-1]["action_mask"].any() and infos[0]["action_mask"].any()
    assert len(seen) == 1, seen
    assert {k for k, *_ in seen.pop()} == {"seat", "turn", "won", "stock_sizes",
                                             "illegal_action", "action_mask"}


def test_the_info_action_mask_is_the_action_masks_method():
    env = SkipBoEnv("standard", 2, opponents="expert")
    _, info = env.reset(seed=3)
    for _ in range(20):
        assert np.array_equal(info["action_mask"], env.action_masks())
        _, _, term, trunc, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        if term or trunc:
            break


def test_rgb_array_frames_record_a_video_with_gymnasiums_record_video(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(gym.make("SkipBo-v0", render_mode="rgb_array", opponents="naive",
                               stock_size=2), str(tmp_path), episode_trigger=lambda e: True,
                      disable_logger=True)
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = term or trunc
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
