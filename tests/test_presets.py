"""Rules presets: every variant's table row, overrides, and errors for impossible rules."""

import json

import pytest

from skipbo_env import VARIANTS, Game, Rules, allowed_players

TABLE = {
    # name: (players, deck size, max rank, stock by players, hand size, hand mode, discard piles)
    "standard": ((2, 3, 4, 5, 6), 162, 12, {2: 30, 3: 30, 4: 30, 5: 20, 6: 20}, 5, "refill", 4),
    "short": ((2, 3, 4, 5, 6), 162, 12, {n: 10 for n in range(2, 7)}, 5, "refill", 4),
    "quick": ((2, 3, 4, 5, 6), 162, 12, {2: 20, 3: 20, 4: 20, 5: 15, 6: 15}, 5, "refill", 4),
    "partnership": ((4,), 162, 12, {4: 30}, 5, "refill", 4),
    "junior": ((2, 3, 4), 96, 10, {2: 10, 3: 10, 4: 10}, 3, "stacked", 0),
    "junior_classic": ((2, 3, 4), 96, 10, {2: 15, 3: 12, 4: 10}, 4, "stacked", 0),
    "masters": ((2, 3, 4, 5, 6), 168, 12, {n: 15 for n in range(2, 7)}, 5, "refill", 4),
    "masters_short": ((2, 3, 4, 5, 6), 168, 12, {n: 10 for n in range(2, 7)}, 5, "refill", 4),
}


def test_every_variant_has_a_preset():
    assert set(VARIANTS) == set(TABLE)


@pytest.mark.parametrize("name", TABLE)
def test_each_preset_matches_the_variant_table(name):
    players, deck, top, stock, hand, mode, discards = TABLE[name]
    assert allowed_players(name) == players
    for n in players:
        rules = Rules.preset(name, n)
        assert (rules.variant, rules.num_players) == (name, n)
        assert rules.deck_size == deck and rules.max_rank == top
        assert rules.stock_size == stock[n]
        assert (rules.hand_size, rules.hand_mode, rules.discard_piles) == (hand, mode, discards)
        assert rules.building_piles == 4


def test_the_standard_deck_is_12_of_each_number_and_18_wilds():
    assert Rules.preset("standard").deck_counts() == [18] + [12] * 12


def test_the_junior_deck_is_8_of_each_number_and_16_wilds():
    assert Rules.preset("junior").deck_counts() == [16] + [8] * 10


def test_every_preset_field_can_be_overridden():
    rules = Rules.preset("standard", 2, stock_size=5, hand_size=3, max_turns=50)
    assert (rules.stock_size, rules.hand_size, rules.max_turns) == (5, 3, 50)
    game = Game(rules, 0)
    assert len(game.stocks[0]) == 5 and len(game.hands[0]) == 3


@pytest.mark.parametrize("call, message", [
    (lambda: Rules.preset("poker"), "unknown variant 'poker'; expected one of standard"),
    (lambda: Rules.preset("partnership", 2), "allows 4 players, not 2"),
    (lambda: Rules.preset("junior", 5), "allows 2, 3, 4 players, not 5"),
    (lambda: Rules.preset("standard", 2, stock_size=100), "cannot deal 2 stocks of 100"),
    (lambda: Rules.preset("standard", 2, stock_size=0), "stock_size must be positive"),
    (lambda: Rules.preset("standard", 2, hand_size=-1), "hand_size must be positive"),
    (lambda: Rules.preset("standard", 2, building_piles=0), "building_piles must be positive"),
    (lambda: Rules.preset("standard", 2, hand_mode="fan"), "hand_mode must be one of"),
    (lambda: Rules.preset("standard", 2, discard_piles=0), "needs at least 1 discard pile"),
    (lambda: Rules.preset("standard", 2, colour="red"), "unknown rules field(s) ['colour']"),
    (lambda: Rules.preset("standard", 2, stock_size="30"), "stock_size must be an integer"),
    (lambda: Rules.preset("standard", 2, teams=[[0], [0]]), "teams must split seats"),
    (lambda: Rules.preset("standard", 3, teams=[[0, 1], [2]]), "equal size"),
    (lambda: Rules.preset("standard", 2, wild_on_wild="yes"), "wild_on_wild must be"),
])
def test_impossible_rules_raise_a_value_error_naming_what_is_allowed(call, message):
    with pytest.raises(ValueError) as err:
        call()
    assert message in str(err.value)


def test_rules_round_trip_through_json():
    for name in VARIANTS:
        rules = Rules.preset(name, allowed_players(name)[-1])
        assert Rules.from_dict(json.loads(json.dumps(rules.to_dict()))) == rules


def test_rules_are_frozen_and_hashable():
    rules = Rules.preset("partnership", 4)
    with pytest.raises(AttributeError):
        rules.stock_size = 3
    assert hash(rules) == hash(Rules.preset("partnership", 4))


def test_game_requires_a_rules_object():
    with pytest.raises(TypeError, match="Rules.preset"):
        Game("standard", 0)
    with pytest.raises(ValueError, match="first_player"):
        Game(Rules.preset("standard"), 0, first_player=2)
