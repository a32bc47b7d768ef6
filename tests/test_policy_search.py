"""`lookahead:CHECKPOINT`: the search player around a trained policy (players/lookahead.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skipbo_env import Game, Rules
from skipbo_env.players.lookahead import PolicyLookaheadAgent
from skipbo_env.players.registry import PlayerKind, make_agent, parse_player

pytest.importorskip("sb3_contrib")

CKPT = str(Path(__file__).resolve().parent.parent / "checkpoints" / "short_2p.zip")
NAME = "lookahead:" + CKPT
RULES = Rules.preset("short", 2, stock_size=5)


def _moves(agent, seed: int, turns: int = 60) -> list[int]:
    """The agent's moves in seat 0 of a game against expert."""
    game, expert, out = Game(RULES, seed=seed), make_agent("expert", 1), []
    while not game.is_over and game.turn < turns:
        if game.current_player == 0:
            action = agent.act(game.view())
            assert game.action_mask()[action]
            out.append(action)
            game.step(action)
        else:
            game.step(expert.act(game.view()))
    return out


def test_lookahead_colon_a_checkpoint_names_the_search_around_that_policy():
    spec = parse_player(NAME)
    assert spec.name == NAME and spec.path == CKPT and spec.kind is PlayerKind.SEARCH
    agent = make_agent(NAME, 3, RULES)
    assert isinstance(agent, PolicyLookaheadAgent) and agent.policy.path == CKPT
    with pytest.raises(ValueError, match="does not exist"):
        parse_player("lookahead:checkpoints/missing.zip")
    with pytest.raises(ValueError, match="unknown player 'lookahead:expert'"):
        parse_player("lookahead:expert")
    # Where only some checkpoints are allowed (the web server), so is the search around them.
    assert parse_player(NAME, checkpoints=[CKPT]).name == NAME
    with pytest.raises(ValueError, match="unknown"):
        parse_player("lookahead:checkpoints/standard_2p.zip", checkpoints=[CKPT])


def _plays_as_the_policy(agent, policy, seed: int) -> None:
    game = Game(RULES, seed=seed)
    for _ in range(40):
        if game.is_over:
            break
        assert agent.act(game.view()) == policy.act(game.view())
        game.step(policy.act(game.view()))


def test_the_search_plays_the_policys_move_where_the_policy_is_sure(monkeypatch):
    # Under the default bar: where the policy's best move is at least SURE likely the agent
    # plays it without a rollout; elsewhere it searches. Both kinds of decision occur.
    agent, policy = make_agent(NAME, 0, RULES), make_agent(CKPT, 0, RULES)
    rollouts = []
    real = PolicyLookaheadAgent._values
    monkeypatch.setattr(PolicyLookaheadAgent, "_values",
                        lambda self, *a: rollouts.append(1) or real(self, *a))
    sure = searched = 0
    for seed in range(3):
        game, expert = Game(RULES, seed=seed), make_agent("expert", 1)
        while not game.is_over and game.turn < 40:
            view = game.view()
            if game.current_player != 0:
                game.step(expert.act(view))
                continue
            rollouts.clear()
            move = agent.act(view)
            if policy.probabilities(view).max() >= agent.SURE:
                assert move == policy.act(view) and not rollouts
                sure += 1
            searched += bool(rollouts)
            game.step(move)
    assert sure > 0 and searched > 0


def test_a_rollout_cap_too_small_for_two_deals_an_action_plays_the_policys_move():
    policy = make_agent(CKPT, 0, RULES)
    _plays_as_the_policy(PolicyLookaheadAgent(policy, seed=0, rollouts=3), policy, seed=4)


def test_the_search_is_a_function_of_its_seed_and_sometimes_overrules_the_policy():
    first = _moves(make_agent(NAME, 7, RULES), seed=5)
    assert _moves(make_agent(NAME, 7, RULES), seed=5) == first
    policy = make_agent(CKPT, 0, RULES)
    differs = 0
    for seed in range(6):
        agent = make_agent(NAME, seed, RULES)
        game = Game(RULES, seed=seed)
        expert = make_agent("expert", 1)
        while not game.is_over and game.turn < 60:
            if game.current_player == 0:
                action = agent.act(game.view())
                differs += action != policy.act(game.view())
                game.step(action)
            else:
                game.step(expert.act(game.view()))
    assert differs > 0


def test_the_search_plays_in_the_tournament_harness():
    from skipbo_env.arena.tournament import run_games

    result = run_games(RULES, [NAME, "naive"], games=2, seed=0, workers=1, progress=False)
    assert result["games"] == 2 and set(result["players"]) == {NAME, "naive"}
    assert sum(p["wins"] for p in result["players"].values()) + result["draws"] == 2
