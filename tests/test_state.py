"""The state dictionary: its shape, exact round trips, and clear errors for malformed states."""

import copy
import json

import pytest

from skipbo_env import Game, Rules

STANDARD = Rules.preset("standard", 2)


def _played(rules, seed, steps):
    game = Game(rules, seed)
    for i in range(steps):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.step(legal[(i * 7919) % len(legal)])
    return game


def test_the_state_has_the_documented_shape():
    d = Game(STANDARD, 0).to_dict()
    assert d["format"] == "skipbo-state/1"
    assert set(d["rules"]) == set(Rules.field_names())
    assert {"current_player", "turn", "phase", "draw_pile", "set_aside", "building_piles",
            "players", "winner", "rng"} <= set(d)
    assert len(d["building_piles"]) == 4 and all(p == [] for p in d["building_piles"])
    assert set(d["players"][0]) == {"stock", "hand", "discard_piles"}
    assert len(d["players"][0]["discard_piles"]) == 4
    assert d["winner"] is None and d["phase"] == "play"


def test_every_list_is_bottom_first_so_the_stock_top_is_the_last_card():
    game = Game(STANDARD, 5)
    d = game.to_dict()
    top = d["players"][0]["stock"][-1]
    assert game.stocks[0][-1] == top
    next_card = d["draw_pile"][-1]
    game.step(game.legal_actions()[-1])  # discard, ending the turn; player 1 draws 5
    assert game.hands[1][0] == next_card


def test_stacked_hands_are_lists_of_stacks():
    d = Game(Rules.preset("junior", 2), 0).to_dict()
    assert [len(s) for s in d["players"][0]["hand"]] == [1, 1, 1]
    assert "discard_piles" in d["players"][0] and d["players"][0]["discard_piles"] == []


@pytest.mark.parametrize("variant, players", [("standard", 3), ("partnership", 4),
                                              ("junior", 2), ("junior_classic", 4)])
def test_from_dict_of_to_dict_is_exact_through_json(variant, players):
    game = _played(Rules.preset(variant, players), 3, 200)
    d = json.loads(json.dumps(game.to_dict()))
    again = Game.from_dict(d)
    assert again.to_dict() == game.to_dict()


def test_the_generator_state_round_trips_so_play_continues_identically():
    game = _played(STANDARD, 11, 300)
    copy_ = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    for i in range(400):
        if game.is_over:
            break
        legal = game.legal_actions()
        assert copy_.legal_actions() == legal
        game.step(legal[i % len(legal)])
        copy_.step(legal[i % len(legal)])
    assert game.to_dict() == copy_.to_dict()


def test_clone_is_independent_and_equal():
    game = _played(STANDARD, 2, 50)
    twin = game.clone()
    assert twin.to_dict() == game.to_dict()
    twin.step(twin.legal_actions()[0])
    assert twin.to_dict() != game.to_dict()


def _bad(mutate):
    d = _played(STANDARD, 4, 60).to_dict()
    mutate(d)
    return d


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(format="skipbo-state/0"), "unknown state format"),
    (lambda d: d.pop("draw_pile"), "missing key(s) ['draw_pile']"),
    (lambda d: d.update(extra=1), "unknown key(s) ['extra']"),
    (lambda d: d["draw_pile"].append(13), "draw_pile holds 13"),
    (lambda d: d["draw_pile"].append(-1), "cards are integers 0 (wild) to 12"),
    (lambda d: d["draw_pile"].append("7"), "draw_pile holds '7'"),
    (lambda d: d["draw_pile"].pop(), "the cards by id"),
    (lambda d: d["building_piles"].append([]), "building_piles must be a list of 4 piles"),
    (lambda d: d["players"][0]["discard_piles"].append([]), "discard_piles must be a list of 4"),
    (lambda d: d["players"].pop(), "players must be a list of 2 players"),
    (lambda d: d.update(current_player=2), "current_player must be a seat in 0..1"),
    (lambda d: d.update(phase="finished"), "phase must be one of"),
    (lambda d: d.update(winner=0), "winner must be null while the phase is 'play'"),
    (lambda d: d["rules"].update(stock_size=-3), "stock_size must be positive"),
    (lambda d: d["rules"].pop("wilds"), "missing rules field(s) ['wilds']"),
    (lambda d: d.update(rng={"bit_generator": "MT19937"}), "rng is not a PCG64 generator state"),
    (lambda d: d.update(rng=None), "rng is not a PCG64 generator state"),
    (lambda d: d["players"][0].update(hand=[1, 2, 3, 4, 5, 6]), "hand holds 6 cards"),
    (lambda d: d["building_piles"].__setitem__(0, [2]), "has 2 in place 0"),
    (lambda d: d.update(scores=[1]), "scores must be a list of 2"),
    (lambda d: d.update(turn=1001), "turn is 1001, past max_turns 1000"),
    (lambda d: d.update(stall_turns=2), "stall_turns is 2"),
    (lambda d: d["rules"].update(copies_per_rank=10**6), "copies_per_rank must be at most 100"),
    (lambda d: d["rng"]["state"].update(inc=1.5), "rng.state.inc must be an integer"),
    (lambda d: d.update(current_player=1.0), "current_player must be a seat in 0..1, got 1.0"),
])
def test_from_dict_rejects_a_malformed_state_saying_what_is_wrong(mutate, message):
    with pytest.raises(ValueError) as err:
        Game.from_dict(_bad(mutate))
    assert message in str(err.value)


def test_from_dict_rejects_a_state_that_is_not_a_dictionary():
    with pytest.raises(ValueError, match="must be a dictionary"):
        Game.from_dict([1, 2])


def test_from_dict_leaves_its_input_unchanged():
    d = _played(STANDARD, 4, 60).to_dict()
    before = copy.deepcopy(d)
    game = Game.from_dict(d)
    game.step(game.legal_actions()[0])
    assert d == before


def test_describe_names_the_action_in_words():
    game = Game(STANDARD, 0)
    words = [game.describe(a) for a in game.legal_actions()]
    assert all(" -> " in w for w in words)
    assert game.describe(game.layout.end_turn) == "end turn"
    assert game.describe(game.layout.play(7, 2)) == "hand 7 -> building pile 2"
    assert game.describe(game.layout.discard(5, 1)) == "discard hand 5 -> discard pile 1"


def test_an_illegal_action_is_refused_with_the_legal_ones_listed():
    game = Game(STANDARD, 0)
    illegal = next(a for a in range(game.num_actions) if a not in game.legal_actions())
    before = game.to_dict()
    with pytest.raises(ValueError) as err:
        game.step(illegal)
    assert "illegal action" in str(err.value) and "legal actions are" in str(err.value)
    with pytest.raises(ValueError, match="outside 0..124"):
        game.step(125)
    with pytest.raises(ValueError, match="must be an integer"):
        game.step("3")
    assert game.to_dict() == before


def test_a_sample_of_another_seats_coin_follow_up_deals_it_a_card_to_follow_the_coin():
    import numpy as np
    from positions import position

    masters = Rules.preset("masters", 2)
    game = Game.from_dict(position(masters, building=[[1, 2, 3]], players=[
        {"hand": [5, 9, 9, 9, 9], "stock": [7]}, {"stock": [6]}]).to_dict())
    game.step(next(a for a in game.legal_actions()
                   if game.describe(a) == "pay 4 coins as the 4 on building pile 0"))
    assert game.phase == "coin_followup"
    for seed in range(20):
        sample = Game.from_view(game.view(1), np.random.default_rng(seed))
        assert sample.legal_actions()  # player 0's unseen hand can follow the coin play
        assert Game.from_dict(sample.to_dict()).to_dict() == sample.to_dict()
