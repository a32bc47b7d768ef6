"""The value player (skipbo_env/players/value.py): its checkpoint, its choices, its names."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skipbo_env import Game, ObservationEncoder, Rules
from skipbo_env.players.registry import PlayerKind, make_agent, parse_player
from skipbo_env.players.value import (
    SEARCH_DEALS,
    SEARCH_TOP,
    ValueAgent,
    ValueNet,
    lister_for,
    load_value_agent,
    reference_lister,
    save_value_net,
)
from skipbo_env.rules import VARIANTS, allowed_players
from skipbo_env.segments import played_segment, position_key, segment_ending


def random_layers(rules: Rules, seed: int = 0, hidden: int = 16, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    size = ObservationEncoder(rules).size
    return [(rng.normal(scale=scale, size=(hidden, size)).astype(np.float32),
             rng.normal(size=hidden).astype(np.float32)),
            (rng.normal(size=(1, hidden)).astype(np.float32), np.zeros(1, np.float32))]


def write_checkpoint(tmp_path, rules: Rules, layers=None, **card) -> str:
    path = str(tmp_path / "v.npz")
    save_value_net(path, layers or random_layers(rules))
    body = {"kind": "value", "obs_version": 1, "rules": rules.to_dict(), **card}
    (tmp_path / "v.json").write_text(json.dumps(body))
    return path


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_value_player_plays_only_legal_moves_to_the_end(variant, tmp_path):
    rules = Rules.preset(variant, allowed_players(variant)[0], stock_size=5)
    agent = load_value_agent(write_checkpoint(tmp_path, rules), rules)
    game = Game(rules, seed=1)
    other = make_agent("expert", rules=rules)
    while not game.is_over:
        player = agent if game.current_player == 0 else other
        game.step(player.act(game.view()))  # step raises on an illegal action


def test_a_value_player_plays_the_segment_it_values_highest(tmp_path):
    rules = Rules.preset("standard", 2)
    net = ValueNet(random_layers(rules, seed=3))
    game = Game(rules, seed=5)
    sequences, obs = reference_lister(rules)(game)
    best = sequences[int(np.argmax(net(obs)))]
    agent = ValueAgent(net, rules, seed=9)
    played = []
    while len(played) < len(best):
        action = agent.act(game.view())
        played.append(action)
        game.step(action)
    assert tuple(played) == best


def test_a_value_players_choice_does_not_depend_on_the_hidden_cards():
    """It lists segments in a deal of its own (its seed): any deal gives the same choice."""
    rules = Rules.preset("standard", 2)
    net = ValueNet(random_layers(rules, seed=4))
    for seed in range(3):
        game = Game(rules, seed=seed)
        choices = {ValueAgent(net, rules, seed=s).act(game.view()) for s in range(4)}
        assert len(choices) == 1


def test_the_kernel_lister_lists_what_the_reference_lists():
    rules = Rules.preset("standard", 2)
    game = Game(rules, seed=2)
    fast, slow = lister_for(rules)(game), reference_lister(rules)(game)
    assert [fast[0][i] for i in range(len(fast[0]))] == slow[0]
    assert np.array_equal(fast[1], slow[1])


def test_a_value_checkpoint_holds_no_pickle(tmp_path):
    rules = Rules.preset("standard", 2)
    path = write_checkpoint(tmp_path, rules)
    np.savez(path.replace(".npz", ".tmp.npz"), w0=np.array([object()]), b0=np.zeros(1))
    (tmp_path / "v.tmp.npz").replace(path)
    with pytest.raises(ValueError, match="not a plain array file|float32"):
        load_value_agent(path, rules)


def test_a_value_checkpoint_needs_its_card(tmp_path):
    rules = Rules.preset("standard", 2)
    path = write_checkpoint(tmp_path, rules)
    (tmp_path / "v.json").unlink()
    with pytest.raises(ValueError, match="has no model card"):
        load_value_agent(path, rules)


def test_a_policy_card_is_not_a_value_card(tmp_path):
    rules = Rules.preset("standard", 2)
    path = write_checkpoint(tmp_path, rules, kind="policy")
    with pytest.raises(ValueError, match="not a value network"):
        load_value_agent(path, rules)


def test_a_value_checkpoint_of_another_observation_version_is_refused(tmp_path):
    rules = Rules.preset("standard", 2)
    path = write_checkpoint(tmp_path, rules, obs_version=99)
    with pytest.raises(ValueError, match="observation version"):
        load_value_agent(path, rules)


def test_a_network_that_reads_other_rules_is_refused(tmp_path):
    path = write_checkpoint(tmp_path, Rules.preset("standard", 2))
    with pytest.raises(ValueError, match="inputs"):
        load_value_agent(path, Rules.preset("standard", 3))


def test_a_network_with_a_number_that_is_not_finite_is_refused(tmp_path):
    rules = Rules.preset("standard", 2)
    layers = random_layers(rules)
    layers[0][0][0, 0] = np.nan
    with pytest.raises(ValueError, match="not finite"):
        load_value_agent(write_checkpoint(tmp_path, rules, layers), rules)


def test_a_file_that_is_not_an_npz_is_refused(tmp_path):
    rules = Rules.preset("standard", 2)
    path = write_checkpoint(tmp_path, rules)
    (tmp_path / "v.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not an .npz file"):
        load_value_agent(path, rules)


def test_layers_that_do_not_fit_together_are_refused():
    rules = Rules.preset("standard", 2)
    (w0, b0), (w1, b1) = random_layers(rules)
    with pytest.raises(ValueError, match="do not fit"):
        ValueNet([(w0, b0), (w1[:, :3], b1)])


def test_negligible_weights_are_read_as_zero_and_change_no_value():
    rules = Rules.preset("standard", 2)
    layers = random_layers(rules)
    (w0, b0), (w1, b1) = layers
    w0[:, ::3] = 1e-32  # what weight decay leaves of the weights of inputs seldom on
    b0[0] = -1e-25
    given = [(w0.copy(), b0.copy()), (w1.copy(), b1.copy())]
    net = ValueNet(layers)
    assert (net.layers[0][0][::3] == 0).all() and net.layers[0][1][0] == 0
    assert (net.layers[0][0][1::3] == w0.T[1::3]).all()  # the others as they were
    for (w, b), (w_given, b_given) in zip(layers, given, strict=True):  # the caller's arrays
        assert np.array_equal(w, w_given) and np.array_equal(b, b_given)
    x = reference_lister(rules)(Game(rules, 3))[1]
    plain = np.tanh(np.maximum(x @ w0.T + b0, 0) @ w1.T + b1)[:, 0]
    np.testing.assert_allclose(net(x), plain, rtol=1e-6, atol=1e-7)


def test_a_bias_that_does_not_fit_its_weights_is_refused():
    rules = Rules.preset("standard", 2)
    (w0, b0), (w1, b1) = random_layers(rules)
    with pytest.raises(ValueError, match="bias must fit"):
        ValueNet([(w0, b0[:3]), (w1, b1)])


def test_an_npz_path_names_a_value_player(tmp_path):
    spec = parse_player(str(tmp_path / "mine.npz"), exists=False)
    assert spec.kind is PlayerKind.VALUE


def test_lookahead_around_a_value_player_is_that_player_with_its_search(tmp_path):
    rules = Rules.preset("short", 2)
    path = write_checkpoint(tmp_path, rules)
    spec = parse_player(f"lookahead:{path}")
    assert (spec.kind, spec.path, spec.label) == (PlayerKind.SEARCH, path, "lookahead:v")
    agent = make_agent(spec, rules=rules)
    assert isinstance(agent, ValueAgent)
    assert (agent.search, agent.top) == (SEARCH_DEALS, SEARCH_TOP)
    assert make_agent(path, rules=rules).search == 0


def test_a_search_around_a_value_player_plays_only_legal_moves_to_the_end(tmp_path):
    rules = Rules.preset("short", 2, stock_size=3)
    agent = make_agent(f"lookahead:{write_checkpoint(tmp_path, rules)}", rules=rules)
    game, other = Game(rules, seed=2), make_agent("expert", rules=rules)
    while not game.is_over:
        player = agent if game.current_player == 1 else other
        game.step(player.act(game.view()))  # step raises on an illegal action


def test_a_searching_player_plays_the_best_scored_of_its_top_segments(monkeypatch):
    """Of the `top` best-valued segments, the one the searcher scores highest is played; the
    searcher is given each as the position before its last move and that move."""
    import skipbo_env.players.value as value

    rules = Rules.preset("standard", 2)
    net = ValueNet(random_layers(rules, seed=3))
    game = Game(rules, seed=5)
    sequences, obs = reference_lister(rules)(game)
    top = np.argsort(-net(obs), kind="stable")[:3]
    given = []

    def searcher(rules_, net_, deals, rows, seed):
        assert (rules_, net_, deals, rows) == (rules, net, 2, 3)

        def scored(candidates):
            given.extend(candidates)
            return np.array([0.0, -0.5, 0.25])  # the third best-valued scores highest

        return scored

    monkeypatch.setattr(value, "_searchers", [searcher])
    agent = ValueAgent(net, rules, seed=9, search=2, top=3)
    played = []
    while len(played) < len(sequences[top[2]]):
        action = agent.act(game.view())
        played.append(action)
        game.step(action)
    assert tuple(played) == sequences[top[2]]
    assert [(position_key(g.view()), last) for g, last in given] == [
        (position_key(_before_last(Game(rules, seed=5), sequences[i]).view()),
         sequences[i][-1]) for i in top]


def test_a_searching_player_plays_games_of_other_rules_in_turn(tmp_path):
    """One player, two stock sizes one after the other: a search for each rules."""
    agent = make_agent(f"lookahead:{write_checkpoint(tmp_path, Rules.preset('short', 2))}")
    for stock in (10, 3, 10):
        rules = Rules.preset("short", 2, stock_size=stock)
        game, other = Game(rules, seed=stock), make_agent("expert", rules=rules)
        for _ in range(30):
            if game.is_over:
                break
            player = agent if game.current_player == 0 else other
            game.step(player.act(game.view()))


def test_a_search_with_nothing_wired_in_says_so(monkeypatch):
    import skipbo_env.players.value as value

    monkeypatch.setattr(value, "_searchers", [None])
    rules = Rules.preset("short", 2)
    agent = ValueAgent(ValueNet(random_layers(rules)), rules, search=2, top=3)
    with pytest.raises(RuntimeError, match="use_searcher"):
        agent.act(Game(rules, seed=1).view())


def _before_last(game: Game, sequence) -> Game:
    for action in sequence[:-1]:
        game.step(action)
    return game


def test_a_searching_player_chooses_from_the_seats_view_alone():
    """Two deals with one view (other hands, stock cards below the tops, draw order): the same
    choices, seeded: the search deals the hidden cards afresh from the seat's view."""
    rules = Rules.preset("short", 2)
    net = ValueNet(random_layers(rules, seed=5, scale=0.05))
    for seed in range(3):
        game = Game(rules, seed=seed)
        other = Game.from_view(game.view(), np.random.default_rng(seed + 50))
        a = ValueAgent(net, rules, seed=1, search=2, top=4).act(game.view())
        b = ValueAgent(net, rules, seed=1, search=2, top=4).act(other.view())
        assert a == b


@pytest.mark.parametrize("options,key", [
    ({"search": -1}, "search"), ({"search": 65}, "search"), ({"search": "2"}, "search"),
    ({"search": 2, "top": 65}, "top"), ({"search": 2, "top": 1}, "top"),
    ({"search": 2, "samples": 2}, "samples"),
    ({"search": 2, "margin": 0.1}, "margin")])
def test_bad_search_parameters_are_refused_by_name(options, key):
    rules = Rules.preset("short", 2)
    with pytest.raises(ValueError, match=key):
        ValueAgent(ValueNet(random_layers(rules)), rules, **options)


def _segment_end(game: Game, agent) -> tuple:
    """The position `agent` reaches from `game` at the end of its segment."""
    return position_key(played_segment(game, agent).view)


def test_with_a_margin_the_value_player_plays_experts_segment_unless_sure():
    """A margin above any value difference leaves every choice to `expert`."""
    rules = Rules.preset("standard", 2)
    net = ValueNet(random_layers(rules, seed=6))
    expert = make_agent("expert", rules=rules)
    game = Game(rules, seed=8)
    for _ in range(40):
        if game.is_over:
            break
        careful = ValueAgent(net, rules, seed=1, margin=10.0)
        assert _segment_end(game, careful) == _segment_end(game, expert)
        game.step(expert.act(game.view()))


def test_a_negative_margin_is_refused():
    rules = Rules.preset("standard", 2)
    with pytest.raises(ValueError, match="margin"):
        ValueAgent(ValueNet(random_layers(rules)), rules, margin=-1.0)


def _chance_segments(game: Game, sequences) -> set[int]:
    """The segments (indices) that end in a chance event: a stock top turned up, a refill."""
    p, chance = game.current_player, set()
    for i, sequence in enumerate(sequences):
        g = game.clone()
        *head, last = sequence
        for action in head:
            g.step(action)
        before = g.clone()
        g.step(last)
        if segment_ending(before, g, last, p) in ("stock", "refill"):
            chance.add(i)
    return chance


def _chance_position(rules: Rules, net: ValueNet):
    """A position of a game between `expert`s with segments ending in a chance event both
    among the network's three best and past them; its sequences, values, the three best and
    the chance segments."""
    expert = make_agent("expert", rules=rules)
    game = Game(rules, seed=7)
    listed = reference_lister(rules)
    while True:
        sequences, obs = listed(game)
        values = net(obs)
        top = set(np.argsort(-values, kind="stable")[:3].tolist())
        chance = _chance_segments(game, sequences)
        if chance & top and chance - top:
            return game, sequences, values, top, chance
        game.step(expert.act(game.view()))


def test_averaging_values_a_chance_segment_by_the_outcomes_the_seat_would_see():
    """With one sample, a chance-ending segment's value is the network's value of the position
    the segment reaches in a deal drawn from the seat's view, the outcome seen."""
    rules = Rules.preset("standard", 2, stock_size=10)
    net = ValueNet(random_layers(rules, seed=2, scale=0.05))
    game, sequences, values, top, chance = _chance_position(rules, net)
    i = min(top & chance)
    agent = ValueAgent(net, rules, seed=3, samples=1)
    averaged = agent.averaged(game.view(), sequences, values)
    deal = Game.from_view(game.view(), np.random.default_rng(3))
    for action in sequences[i]:
        deal.step(action)
    mine = net(ObservationEncoder(rules).encode(deal, game.current_player)[None])[0]
    assert averaged[i] == pytest.approx(mine, abs=1e-6)
    assert averaged[i] != values[i]


def test_averaging_changes_only_chance_segments_among_the_top():
    rules = Rules.preset("standard", 2, stock_size=10)
    net = ValueNet(random_layers(rules, seed=2, scale=0.05))
    game, sequences, values, top, chance = _chance_position(rules, net)
    averaged = ValueAgent(net, rules, seed=3, samples=4, top=3).averaged(game.view(),
                                                                         sequences, values)
    assert set(np.flatnonzero(averaged != values).tolist()) == chance & top


def test_an_averaging_player_chooses_from_the_seats_view_alone():
    """Two deals with one view (other hands, stock cards below the tops, draw order): the same
    choices, seeded."""
    rules = Rules.preset("standard", 2, stock_size=10)
    net = ValueNet(random_layers(rules, seed=5, scale=0.05))
    for seed in range(3):
        game = Game(rules, seed=seed)
        other = Game.from_view(game.view(), np.random.default_rng(seed + 50))
        a = ValueAgent(net, rules, seed=1, samples=3).act(game.view())
        b = ValueAgent(net, rules, seed=1, samples=3).act(other.view())
        assert a == b


@pytest.mark.parametrize("key,value", [("samples", -1), ("samples", 2000), ("samples", "3"),
                                       ("top", 0), ("top", 1.5)])
def test_bad_averaging_parameters_are_refused_by_name(key, value):
    rules = Rules.preset("standard", 2)
    with pytest.raises(ValueError, match=key):
        ValueAgent(ValueNet(random_layers(rules)), rules, **{key: value})
