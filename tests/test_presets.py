"""Rules presets: every variant's table row, overrides, and errors for impossible rules."""

import json
import math

import pytest

import skipbo_env.rules as rules_module
from skipbo_env import VARIANTS, Game, Rules, allowed_players
from skipbo_env.rules import MAX_TURN_MOVES

TABLE = {
    # name: (players, deck size, max rank, stock by players, hand size, hand mode, discard piles)
    "standard": ((2, 3, 4, 5, 6), 162, 12, {2: 30, 3: 30, 4: 30, 5: 20, 6: 20}, 5, "refill", 4),
    "short": ((2, 3, 4, 5, 6), 162, 12, dict.fromkeys(range(2, 7), 10), 5, "refill", 4),
    "quick": ((2, 3, 4, 5, 6), 162, 12, {2: 20, 3: 20, 4: 20, 5: 15, 6: 15}, 5, "refill", 4),
    "partnership": ((4,), 162, 12, {4: 30}, 5, "refill", 4),
    "junior": ((2, 3, 4), 96, 10, {2: 10, 3: 10, 4: 10}, 3, "stacked", 0),
    "junior_classic": ((2, 3, 4), 96, 10, {2: 15, 3: 12, 4: 10}, 4, "stacked", 0),
    "masters": ((2, 3, 4, 5, 6), 168, 12, dict.fromkeys(range(2, 7), 15), 5, "refill", 4),
    "masters_short": ((2, 3, 4, 5, 6), 168, 12, dict.fromkeys(range(2, 7), 10), 5, "refill", 4),
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
    (lambda: Rules.preset("standard", 2, stall_outcome="lowest_score"),
     "stall_outcome must be one of ('draw', 'fewest_stock'), got 'lowest_score'"),
    (lambda: Rules.preset("standard", 2, stall_outcome=1), "stall_outcome must be one of"),
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


@pytest.mark.parametrize("field, value, constant", [
    ("num_players", 7, "MAX_PLAYERS"), ("stock_size", 101, "MAX_STOCK_SIZE"),
    ("hand_size", 31, "MAX_HAND_SIZE"), ("max_rank", 51, "MAX_RANK"),
    ("copies_per_rank", 10**6, "MAX_COPIES_PER_RANK"), ("wilds", 201, "MAX_WILDS"),
    ("building_piles", 17, "MAX_BUILDING_PILES"), ("discard_piles", 17, "MAX_DISCARD_PILES"),
    ("max_turns", 10**30, "MAX_TURNS"), ("coins_per_player", 1001, "MAX_COINS_PER_PLAYER"),
])
def test_rules_sizes_are_bounded_and_the_error_names_the_field_and_the_bound(field, value,
                                                                              constant):
    base = Rules.preset("masters" if field == "coins_per_player" else "standard", 2)
    with pytest.raises(ValueError) as err:
        Rules.from_dict(dict(base.to_dict(), **{field: value}))
    bound = getattr(rules_module, constant)
    assert f"{field} must be at most {bound} ({constant}), got {value}" in str(err.value)


@pytest.mark.parametrize("overrides, message", [
    ({"max_rank": 50, "copies_per_rank": 100}, "at most 1000 cards (MAX_DECK_SIZE), got 5024"),
    ({"toll_table": [[12, 21, 1]]}, "toll 1..20 (MAX_TOLL)"),
    ({"toll_table": [[12, 20, 1]]}, "card ids must be at most 128 (MAX_CARD_IDS), got 273"),
])
def test_the_deck_and_the_card_ids_are_bounded(overrides, message):
    with pytest.raises(ValueError) as err:
        Rules.preset("masters", 2, **overrides)
    assert message in str(err.value)


def test_every_preset_lies_within_the_bounds_with_room_for_house_rules():
    for name in VARIANTS:
        for n in allowed_players(name):
            rules = Rules.preset(name, n)
            assert rules.num_players <= rules_module.MAX_PLAYERS
            assert 2 * rules.stock_size <= rules_module.MAX_STOCK_SIZE
            assert 2 * rules.deck_size <= rules_module.MAX_DECK_SIZE
            assert 2 * rules.num_card_ids <= rules_module.MAX_CARD_IDS
            assert 100 * rules.max_turns <= rules_module.MAX_TURNS
    assert Game(Rules.preset("standard", 6, copies_per_rank=60, wilds=90, stock_size=100), 0)


@pytest.mark.parametrize("overrides", [
    {"teams": [[0.0, 2], [1, 3]]}, {"teams": [[True, 2], [False, 3]]},
    {"teams": [["0", "2"], ["1", "3"]]}, {"teams": [[0, math.inf], [1, 3]]},
    {"teams": "0213"}, {"toll_table": [[5, 1.5, 2]]}, {"toll_table": [[5, math.inf, 1]]},
    {"toll_table": [[5, 1, math.nan]]}, {"toll_table": "5,1,2"},
])
def test_teams_and_toll_tables_take_only_integers(overrides):
    variant = "partnership" if "teams" in overrides else "masters"
    with pytest.raises(TypeError) as err:  # also a ValueError (checks.ArgumentTypeError)
        Rules.preset(variant, 4, **overrides)
    assert isinstance(err.value, ValueError)
    assert f"{next(iter(overrides))} must be" in str(err.value)


def test_rules_from_dict_refuses_wrong_types_and_keys_of_any_type_with_a_value_error():
    d = Rules.preset("standard").to_dict()
    for field, value in [("variant", ["standard"]), ("hand_mode", {"a": 1}), ("wilds", 18.0),
                         ("stall_outcome", None),
                         ("wild_on_wild", 1), ("max_turns", math.inf), ("stock_size", None)]:
        with pytest.raises(ValueError, match=field):
            Rules.from_dict(dict(d, **{field: value}))
    with pytest.raises(ValueError, match=r"unknown rules field\(s\) \[1, None\]"):
        Rules.from_dict({**d, 1: 2, None: 3})


def test_rules_written_before_the_move_limit_of_a_turn_existed_read_with_no_limit():
    d = Rules.preset("standard", 2).to_dict()
    assert d["max_turn_moves"] == 500
    del d["max_turn_moves"]
    assert Rules.from_dict(d).max_turn_moves == MAX_TURN_MOVES == 10**9


def test_rules_written_before_the_stall_outcome_existed_read_as_a_draw():
    d = Rules.preset("standard", 2).to_dict()
    assert d["stall_outcome"] == "fewest_stock"
    del d["stall_outcome"]
    assert Rules.from_dict(d).stall_outcome == "draw"
    assert Rules.from_dict(dict(d, stall_outcome="fewest_stock")).stall_outcome == "fewest_stock"
