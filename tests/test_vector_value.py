"""The value player as a batched opponent (skipbo_env/vector/value.py and the vector env):
it chooses the single-game `ValueAgent`'s segment and plays whole games."""

from __future__ import annotations

import numpy as np
import pytest

from skipbo_env import ObservationEncoder, Rules
from skipbo_env.players.value import ValueAgent, ValueNet
from skipbo_env.players.value_features import GapFeatures
from skipbo_env.vector import SkipBoVectorEnv, VectorEngine
from skipbo_env.vector.value import BatchedValuePlayer


def random_net(inputs: int, seed: int = 0, features: str | None = None) -> ValueNet:
    rng = np.random.default_rng(seed)
    return ValueNet([(rng.normal(0, 0.3, (16, inputs)), rng.normal(0, 0.1, 16)),
                     (rng.normal(0, 0.3, (1, 16)), np.zeros(1))], features=features)


@pytest.mark.parametrize("features", [None, "gaps"])
def test_a_batched_value_player_plans_the_value_agents_segment_in_every_game(features):
    rules = Rules.preset("standard", 2, stock_size=10)
    engine = VectorEngine.of(rules, num_games=40, autoreset=False)
    engine.reset(seed=5)
    for _ in range(23):
        engine.step(engine.scripted_actions("expert,greedy"))
    width = GapFeatures(rules).width if features else 0
    net = random_net(engine.obs_size + width, features=features)
    player = BatchedValuePlayer(net, engine)
    rows = np.flatnonzero(~(engine.terminated | engine.truncated))
    assert rows.size > 30
    player.plan(rows)
    agent = ValueAgent(net, rules)
    for g in rows:
        sequences, values = agent.evaluate(engine.game(int(g)).view())
        best = tuple(sequences[int(np.argmax(values))])
        assert tuple(int(a) for a in player.plans[g, :player.length[g]]) == best


def test_a_value_player_plays_whole_games_as_a_vector_env_opponent():
    env = SkipBoVectorEnv("standard", 2, num_envs=6, opponents="value_standard_2p",
                          stock_size=4)
    env.reset(seed=2)
    ended = 0
    for _ in range(150):
        _, _, terminated, truncated, _ = env.step(env.action_masks().argmax(axis=1))
        ended += int((terminated | truncated).sum())
    assert ended >= 6


def test_a_vector_env_with_a_value_opponent_repeats_under_a_seed():
    def run() -> list[np.ndarray]:
        env = SkipBoVectorEnv("standard", 2, num_envs=4,
                              opponents={"value_standard_2p": 1.0, "expert": 1.0},
                              stock_size=4)
        obs, _ = env.reset(seed=9)
        return [obs] + [env.step(env.action_masks().argmax(axis=1))[0] for _ in range(40)]

    assert all(np.array_equal(a, b) for a, b in zip(run(), run()))


def test_a_value_network_of_another_size_is_refused_naming_both_sizes():
    engine = VectorEngine("standard", 2, num_games=2)
    with pytest.raises(ValueError, match="reads 7 inputs"):
        BatchedValuePlayer(random_net(7), engine)


def test_a_value_opponent_for_another_table_is_refused():
    with pytest.raises(ValueError, match="inputs"):
        SkipBoVectorEnv("standard", 3, num_envs=2, opponents="value_standard_2p")


def test_a_missing_value_checkpoint_is_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="nothing.npz"):
        SkipBoVectorEnv("standard", 2, num_envs=2, opponents=str(tmp_path / "nothing.npz"))


def _crowded_masters_game():
    """A Masters position (four players, stock 8) whose walk passes 2**15 positions."""
    from positions import expert_positions, segment_count

    rules = Rules.preset("masters", 4, stock_size=8)
    for game in expert_positions(rules, games=2, every=5):
        if segment_count(rules, game) == float("inf"):
            return rules, game.clone()
    raise AssertionError("no crowded position found")


def test_past_the_walk_bound_the_value_agent_plays_experts_move_and_counts_it(monkeypatch):
    import skipbo_env.players.value as value
    from skipbo_env.players.registry import make_agent

    monkeypatch.setattr(value, "TABLE_BITS", 16)
    rules, game = _crowded_masters_game()
    agent = ValueAgent(random_net(ObservationEncoder(rules).size), rules)
    assert agent.act(game.view()) == make_agent("expert", rules=rules).act(game.view())
    assert agent.fallbacks == 1


def test_past_the_walk_bound_the_batched_value_player_plays_experts_move(monkeypatch):
    import skipbo_env.vector.value as batched

    monkeypatch.setattr(batched, "TABLE_BITS", 16)
    rules, game = _crowded_masters_game()
    engine = VectorEngine.of(rules, num_games=3, autoreset=False)
    engine.reset(seed=1)
    engine.set_game(1, game)
    player = BatchedValuePlayer(random_net(engine.obs_size), engine)
    expert = engine.scripted_actions("expert,expert,expert,expert")[1]
    actions = player.actions(np.arange(3))
    assert actions[1] == expert and player.fallbacks == 1
    assert all(engine.masks[g, actions[g]] for g in range(3))


def _search_candidates(rules: Rules, count: int):
    """`count` segments of a short game's decision between `expert`s, each as the position
    before its last move and that move, some ending in a chance event and some not."""
    from skipbo_env import Game
    from skipbo_env.players.registry import make_agent
    from skipbo_env.players.value import reference_lister
    from skipbo_env.segments import segment_ending

    game, expert = Game(rules, seed=3), make_agent("expert", rules=rules)
    while True:
        sequences, _ = reference_lister(rules)(game)
        candidates, endings = [], set()
        for sequence in sequences[:count]:
            before = game.clone()
            for action in sequence[:-1]:
                before.step(action)
            after = before.clone()
            after.step(sequence[-1])
            endings.add(segment_ending(before, after, sequence[-1], game.current_player))
            candidates.append((before, sequence[-1]))
        if len(candidates) == count and "turn_end" in endings and endings & {"stock", "refill"}:
            return candidates
        game.step(expert.act(game.view()))


def test_the_value_search_scores_each_candidate_by_its_td_label_at_the_decision():
    """The searcher's score of a segment is the label one round of TD bootstrapped from the
    player's network at the decision gives it (vector/labels.py), all candidates in one
    group's deals."""
    from skipbo_env.players.registry import make_agent
    from skipbo_env.vector.labels import SegmentLabels, value_searcher

    rules = Rules.preset("short", 2)
    net = make_agent("value_short_2p", rules=rules).net
    candidates = _search_candidates(rules, 6)
    scores = value_searcher(rules, net, 2, 8, seed=7)(candidates)
    labels = SegmentLabels(rules, 8, 7, 2, bootstrap=net, bootstrap_at="decision")
    for j, (before, last) in enumerate(candidates):
        labels.add(j, before, last, 1)
    labels.flush()
    assert scores.tolist() == [labels.labels[j] for j in range(6)]


def test_a_value_search_of_more_candidates_than_its_rows_is_refused():
    from skipbo_env.players.registry import make_agent
    from skipbo_env.vector.labels import value_searcher

    rules = Rules.preset("short", 2)
    net = make_agent("value_short_2p", rules=rules).net
    with pytest.raises(ValueError, match="1 to 2 candidates, got 3"):
        value_searcher(rules, net, 1, 2, seed=0)(_search_candidates(rules, 3))


def test_each_search_deals_the_hidden_cards_afresh():
    """Two searches of the same candidates are two groups of deals: other scores."""
    from skipbo_env.players.registry import make_agent
    from skipbo_env.vector.labels import value_searcher

    rules = Rules.preset("short", 2)
    searched = value_searcher(rules, make_agent("value_short_2p", rules=rules).net, 1, 6, 7)
    candidates = _search_candidates(rules, 6)
    assert searched(candidates).tolist() != searched(candidates).tolist()


def test_the_search_around_a_value_player_is_no_batched_opponent():
    with pytest.raises(ValueError, match="no batched player 'lookahead:value_short_2p'"):
        SkipBoVectorEnv("short", 2, num_envs=2, opponents="lookahead:value_short_2p")

