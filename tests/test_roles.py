"""The roles env (skipbo_env.envs.roles): the PettingZoo AEC env that RLlib trains on, with agents
named by role and scripted opponents played inside it."""

import numpy as np
import pytest
from pettingzoo.test import api_test

import skipbo_env
from skipbo_env.envs.roles import RolesEnv, check_opponents


def play_out(env, rng):
    """Random legal actions until every agent is done; returns {agent: total reward}."""
    totals = dict.fromkeys(env.agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


@pytest.mark.parametrize("kw", [
    {},
    {"opponents": {"self_play": 1, "random": 1}},
    {"variant": "partnership", "num_players": 4, "opponents": {"self_play": 1, "greedy": 1}},
    {"num_players": 3, "opponents": {"naive": 1, "self_play": 1}},
    {"variant": "masters", "num_players": 3, "opponents": {"self_play": 1, "greedy": 1}},
    {"variant": "junior", "num_players": 2},
])
def test_the_roles_env_passes_pettingzoos_api_test_in_every_kind_of_game(kw):
    api_test(RolesEnv(stock_size=3, seed=0, **kw), num_cycles=300)


def test_agents_are_named_by_role_learner_then_opponents():
    env = RolesEnv("partnership", 4)
    assert env.possible_agents == ["learner_0", "learner_1", "opponent_0", "opponent_1"]
    assert RolesEnv(num_players=3).possible_agents == ["learner_0", "opponent_0", "opponent_1"]


def test_scripted_opponents_play_inside_the_env_and_never_appear_as_agents():
    env = RolesEnv(stock_size=3, opponents={"greedy": 1.0}, seed=1)
    for _episode in range(5):
        env.reset()
        assert env.agents == ["learner_0"]
        seen = set()
        for agent in env.agent_iter():
            seen.add(agent)
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
        assert seen == {"learner_0"}


def test_self_play_opponents_are_agents_for_the_frozen_copies():
    env = RolesEnv(stock_size=3, opponents={"self_play": 1.0}, seed=1)
    env.reset()
    assert env.agents == ["learner_0", "opponent_0"]
    assert sorted(env.seat_of.values()) == [0, 1]


def test_the_learner_plays_every_seat_over_many_games():
    env = RolesEnv(stock_size=3, seed=2)
    seats = set()
    for _ in range(20):
        env.reset()
        seats.add(env.seat_of["learner_0"])
    assert seats == {0, 1}


def test_partnership_learners_are_teammates_and_share_the_reward():
    env = RolesEnv("partnership", 4, stock_size=2, opponents={"self_play": 1, "random": 1},
                   seed=3)
    rng = np.random.default_rng(0)
    for _ in range(6):
        env.reset()
        a, b = env.seat_of["learner_0"], env.seat_of["learner_1"]
        assert any(a in t and b in t for t in env.rules.teams)
        totals = play_out(env, rng)
        assert totals["learner_0"] == totals["learner_1"]
        if "opponent_0" in totals:
            assert totals["opponent_0"] == totals["opponent_1"] == -totals["learner_0"]


def test_the_observation_is_the_aec_envs_under_the_key_observations():
    env = RolesEnv(stock_size=5, opponents={"self_play": 1.0}, seed=4)
    env.reset()
    agent = env.agent_selection
    obs = env.observe(agent)
    assert set(obs) == {"observations", "action_mask"}
    aec = skipbo_env.raw_env("standard", 2, stock_size=5)
    aec.reset(options={"state": env.game.to_dict()})
    ref = aec.observe(f"player_{env.seat_of[agent]}")
    np.testing.assert_array_equal(obs["observations"], ref["observation"])
    np.testing.assert_array_equal(obs["action_mask"], ref["action_mask"])


def test_a_seed_makes_the_games_and_seating_repeat():
    def run(seed):
        env = RolesEnv(stock_size=3, opponents={"self_play": 1, "naive": 1}, seed=seed)
        out = []
        for _ in range(4):
            env.reset()
            out.append((dict(env.seat_of), env.game.to_dict()))
            play_out(env, np.random.default_rng(1))
        return out
    assert run(5) == run(5)
    assert run(5) != run(6)


def test_with_illegal_action_raise_an_illegal_action_raises_naming_the_legal_ones():
    env = RolesEnv(stock_size=3, seed=0, illegal_action="raise")
    env.reset()
    illegal = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="legal actions are"):
        env.step(illegal)


def test_an_illegal_action_ends_the_game_as_a_loss_for_the_agent_that_played_it():
    env = RolesEnv(stock_size=3, seed=0, opponents={"self_play": 1.0})
    env.reset()
    before = env.game.to_dict()
    offender = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(offender)["action_mask"] == 0)[0])
    env.step(illegal)
    assert env.game.to_dict() == before  # the game is left as it was
    assert all(env.terminations.values()) and all(env.truncations.values())
    totals = dict.fromkeys(env.agents, 0.0)
    flags = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        assert term and trunc and not obs["action_mask"].any()
        totals[agent] += reward
        flags[agent] = info["illegal_action"]
        env.step(None)
    assert totals == {a: (-1.0 if a == offender else 0.0) for a in totals}
    assert flags == {a: a == offender for a in flags}


@pytest.mark.parametrize("bad", [1.5, "3", None, -1, 10**9, True])
def test_an_action_that_is_no_integer_of_the_space_is_an_error_not_a_loss(bad):
    env = RolesEnv(stock_size=3, seed=0)
    env.reset()
    with pytest.raises(ValueError, match="action"):
        env.step(bad)
    assert not any(env.terminations.values())


def test_rllibs_env_check_passes_on_the_rllib_env():
    pytest.importorskip("ray.rllib", reason="the rllib extra is not installed")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from skipbo_env.integrations.rllib import SkipBoPettingZooEnv

    for seed in range(10):  # random actions: most are illegal, some legal
        env = SkipBoPettingZooEnv({"opponents": {"self_play": 1.0, "expert": 1.0},
                                   "stock_size": 5, "seed": seed})
        check_multiagent_environments(env)


@pytest.mark.parametrize("bad, message", [
    ({}, "non-empty mapping"),
    ([("random", 1)], "non-empty mapping"),
    ({"rando": 1.0}, "unknown opponent 'rando'"),
    ({"random": -1}, "opponents.random must be a finite non-negative number"),
    ({"random": True}, "opponents.random must be a finite non-negative number"),
    ({"random": 0, "self_play": 0}, "must not all be zero"),
    ({"nowhere/policy.zip": 1.0}, "checkpoint nowhere/policy.zip does not exist"),
])
def test_bad_opponents_are_refused_by_name(bad, message):
    with pytest.raises(ValueError, match=message):
        check_opponents(bad)
    with pytest.raises(ValueError, match=message):
        RolesEnv(opponents=bad)


def _stock_plays(env, seat: int) -> tuple[int, int]:
    """Cards played from the stocks of `seat`'s team and of the other teams (stocks of 4)."""
    team = next(t for t in env.rules.teams if seat in t)
    played = sum(4 - len(env.game.stocks[p]) for p in team)
    return played, sum(4 - len(s) for s in env.game.stocks) - played


def test_stock_reward_pays_each_agent_of_a_team_for_the_teams_stock_plays():
    env = RolesEnv("partnership", 4, stock_size=4, opponents={"self_play": 1.0},
                   stock_reward=0.25, seed=7)
    rng = np.random.default_rng(2)
    for _ in range(3):
        env.reset()
        seats = dict(env.seat_of)
        totals = play_out(env, rng)
        returns = env.game.returns()
        for agent, seat in seats.items():
            played, _ = _stock_plays(env, seat)
            assert totals[agent] == pytest.approx(0.25 * played + returns[seat])


def test_opponent_stock_reward_pays_each_agent_for_the_other_teams_stock_plays():
    env = RolesEnv("partnership", 4, stock_size=4, opponents={"self_play": 1.0},
                   stock_reward=0.25, opponent_stock_reward=-0.5, seed=7)
    rng = np.random.default_rng(3)
    for _ in range(3):
        env.reset()
        seats = dict(env.seat_of)
        totals = play_out(env, rng)
        returns = env.game.returns()
        for agent, seat in seats.items():
            played, others = _stock_plays(env, seat)
            assert totals[agent] == pytest.approx(0.25 * played - 0.5 * others
                                                  + returns[seat])


def test_a_bad_stock_reward_is_refused():
    with pytest.raises(ValueError, match="stock_reward must be a finite number"):
        RolesEnv(stock_reward=float("nan"))
