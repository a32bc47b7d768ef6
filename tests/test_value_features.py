"""The inputs a value network may read beside the observation (players/value_features.py):
computed from the observation alone, they are the gaps the position's cards have on the
building piles, counted here from the game itself."""

from __future__ import annotations

import numpy as np
import pytest

from skipbo_env import Game, Rules
from skipbo_env.observation import ObservationEncoder
from skipbo_env.players.registry import make_agent
from skipbo_env.players.value import ValueAgent, ValueNet
from skipbo_env.players.value_features import GapFeatures, features_for

SETTINGS = [("standard", 2), ("short", 2), ("standard", 3), ("partnership", 4),
            ("masters", 2), ("junior", 2)]


def positions(rules: Rules, count: int = 40, seed: int = 0):
    """Positions of a game between experts, one every few moves."""
    game = Game(rules, seed=seed)
    agents = [make_agent("expert", seed=seed + p, rules=rules)
              for p in range(rules.num_players)]
    moves = 0
    while not game.is_over and count:
        if moves % 3 == 0:
            yield game.clone()
            count -= 1
        game.step(agents[game.current_player].act(game.view()))
        moves += 1


def expected(rules: Rules, game: Game, seat: int) -> np.ndarray:
    """The `gaps` features of `game` seen by `seat`, counted from the game's piles."""
    m = rules.max_rank
    nxt = [len(pile) + 1 for pile in game.building]  # a pile shows its length

    def gaps(card):
        if card is None:
            return None
        rank = card % (m + 1)
        return [0 if rank == 0 else (rank - n) % m for n in nxt]

    def one_hot(g):
        out = np.zeros(m + 1, dtype=np.float32)
        out[m if g is None else min(g)] = 1.0
        return out

    parts = []
    for k in range(rules.num_players):
        p = (seat + k) % rules.num_players
        stock = gaps(game.stocks[p][-1] if game.stocks[p] else None)
        parts.append(one_hot(stock))
        parts.append(np.array(sorted(stock) if stock else [0] * len(nxt),
                              dtype=np.float32) / (m - 1))
        parts.extend(one_hot(gaps(pile[-1] if pile else None))
                     for pile in (game.stacks[p] if rules.stacked else game.discards[p]))
    if not rules.stacked:
        hand = np.zeros(m, dtype=np.float32)
        for card in game.hands[seat]:
            hand[min(gaps(card))] += 1.0 / rules.hand_size
        parts.append(hand)
    return np.concatenate(parts)


@pytest.mark.parametrize("variant,players", SETTINGS)
def test_the_gaps_are_those_the_cards_have_on_the_building_piles(variant, players):
    rules = Rules.preset(variant, players)
    encoder, features = ObservationEncoder(rules), GapFeatures(rules)
    checked = 0
    for game in positions(rules):
        seat = game.current_player
        obs = encoder.encode(game, seat)[None]
        got = features(obs)[0]
        assert np.array_equal(got[:encoder.size], obs[0])  # the observation comes first
        assert got.size == encoder.size + features.width
        np.testing.assert_allclose(got[encoder.size:], expected(rules, game, seat), atol=1e-6)
        checked += 1
    assert checked >= 10


def test_a_stock_top_not_yet_seen_counts_as_none():
    rules = Rules.preset("standard", 2)
    encoder, features = ObservationEncoder(rules), GapFeatures(rules)
    obs = encoder.encode(Game(rules, seed=1), 0)[None].copy()
    seat = encoder.sections[[s[0] for s in encoder.sections].index("seats")][1]
    obs[0, seat + 2:seat + 3 + rules.num_card_ids] = 0.0  # how a segment shows it
    got = features(obs)[0, encoder.size:]
    assert got[rules.max_rank] == 1.0 and got[:rules.max_rank].sum() == 0.0


def test_features_of_the_wrong_width_are_refused():
    rules = Rules.preset("standard", 2)
    with pytest.raises(ValueError, match="observations of"):
        GapFeatures(rules)(np.zeros((2, 5), dtype=np.float32))


def test_an_unknown_feature_set_is_refused():
    with pytest.raises(ValueError, match="features"):
        features_for("colour", Rules.preset("standard", 2))
    with pytest.raises(ValueError, match="features"):
        ValueNet([(np.zeros((1, 3), np.float32), np.zeros(1, np.float32))], features="colour")


def net_for(rules: Rules, features: str | None, seed: int = 0) -> ValueNet:
    size = ObservationEncoder(rules).size
    width = GapFeatures(rules).width if features else 0
    rng = np.random.default_rng(seed)
    return ValueNet([(rng.normal(0, 0.2, (8, size + width)).astype(np.float32),
                      np.zeros(8, np.float32)),
                     (rng.normal(0, 0.2, (1, 8)).astype(np.float32), np.zeros(1, np.float32))],
                    features=features)


def test_a_network_that_reads_features_is_prepared_before_it_plays():
    rules = Rules.preset("standard", 2)
    net = net_for(rules, "gaps")
    with pytest.raises(RuntimeError, match="prepare"):
        net(np.zeros((1, ObservationEncoder(rules).size), np.float32))
    agent = ValueAgent(net, rules)  # prepares it
    game = Game(rules, seed=0)
    other = make_agent("expert", rules=rules)
    while not game.is_over:
        game.step((agent if game.current_player == 0 else other).act(game.view()))


def test_a_network_too_narrow_for_its_features_is_refused():
    rules = Rules.preset("standard", 2)
    size = ObservationEncoder(rules).size
    net = ValueNet([(np.zeros((1, size), np.float32), np.zeros(1, np.float32))],
                   features="gaps")
    with pytest.raises(ValueError, match="gaps features"):
        net.prepare(rules)
