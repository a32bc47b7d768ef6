"""Skip-Bo Masters: coins in place of a card, purchases, tolls and the hand-out of pile coins."""

import json

import numpy as np
import pytest
from positions import described, play, position, toll

from skipbo_env import Game, ObservationEncoder, Rules

MASTERS = Rules.preset("masters", 2)
W = 0


def t(rank, coins):
    return toll(rank, coins, MASTERS)


# -- the set ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_masters_has_168_cards_and_12_coins_for_each_player(players):
    rules = Rules.preset("masters", players)
    game = Game(rules, 0)
    assert rules.deck_size == 168 and sum(rules.deck_counts()) == 168
    assert game.coins == [12] * players and sum(game.coins) == 12 * players
    assert rules.stock_size == 15 and Rules.preset("masters_short", players).stock_size == 10


def test_the_six_player_game_uses_all_72_coins():
    assert sum(Game(Rules.preset("masters", 6), 1).coins) == 72


def test_the_assumed_deck_has_two_1_coin_and_one_2_coin_toll_card_of_each_number():
    counts = MASTERS.deck_counts()
    r = MASTERS.max_rank + 1
    assert counts[0] == 24  # wilds carry no toll
    for rank in range(1, 13):
        assert (counts[rank], counts[rank + r], counts[rank + 2 * r]) == (9, 2, 1)


def test_the_deck_composition_and_toll_table_are_rules_fields():
    rules = Rules.preset("masters", 2, wilds=18, toll_table=[[5, 3, 4]])
    assert rules.deck_size == 162 and rules.max_toll == 3
    assert rules.deck_counts()[5 + 3 * 13] == 4
    with pytest.raises(ValueError, match="tolled copies of 5"):
        Rules.preset("masters", 2, toll_table=[[5, 1, 13]])
    with pytest.raises(ValueError, match="toll_table entries are"):
        Rules.preset("masters", 2, toll_table=[[5, 1]])


def test_a_masters_turn_is_a_standard_turn():
    game = position(MASTERS, players=[{"hand": [1, 2, 9, 9, 9], "stock": [4, 3]},
                                      {"stock": [6]}])
    play(game, "hand 1 -> building pile 0")
    play(game, "hand 2 -> building pile 0")
    play(game, "stock 3 -> building pile 0")
    play(game, "discard hand 9 -> discard pile 0")
    assert game.current_player == 1 and game.discards[0][0] == [9]


# -- coins in place of a card ------------------------------------------------------------------
def test_a_player_may_pay_n_coins_as_the_n_a_building_pile_needs():
    game = position(MASTERS, building=[[1, 2, 3]],
                    players=[{"hand": [9, 9, 10, 11, 12], "stock": [5]}, {"stock": [6]}])
    play(game, "pay 4 coins as the 4 on building pile 0")
    assert game.coins[0] == 8 and game.pile_coins[0] == 4
    assert game.phase == "coin_followup" and len(game.building[0]) == 4


def test_after_a_coin_play_the_next_card_must_be_played_at_once_on_the_same_pile():
    game = position(MASTERS, building=[[1, 2, 3], [1, 2, 3, 4]],
                    players=[{"hand": [W, 9, 10, 11, 12], "stock": [8, 5]}, {"stock": [6]}])
    play(game, "pay 4 coins as the 4 on building pile 0")
    assert set(described(game)) == {"stock 5 -> building pile 0",
                                    "hand Skip-Bo -> building pile 0 as 5"}
    play(game, "stock 5 -> building pile 0")
    assert game.phase == "play" and len(game.building[0]) == 5
    assert "hand Skip-Bo -> building pile 1 as 5" in described(game)


def test_a_coin_play_is_offered_only_when_the_player_can_follow_it_from_their_own_cards():
    game = position(MASTERS, building=[[1, 2, 3]],
                    players=[{"hand": [9, 9, 10, 11, 12], "stock": [7]},
                             {"stock": [5], "discard_piles": [[5], [], [], []]}])
    assert not any(d.startswith("pay 4 coins") for d in described(game))


def test_a_coin_play_needs_enough_coins():
    game = position(MASTERS, building=[[1, 2, 3, 4, 5, 6, 7, 8]], coins=[8, 16],
                    players=[{"hand": [10, 9, 9, 11, 12], "stock": [7]}, {"stock": [6]}])
    assert not any(d.startswith("pay 9 coins") for d in described(game))


def test_no_coin_is_played_as_a_12_for_no_card_could_follow_it():
    # "You must play the next card in sequence": after a 12 there is none, whatever the
    # player holds (a 1 or a Skip-Bo would start a new pile, not follow the coin).
    game = position(MASTERS, building=[list(range(1, 12))], coins=[12, 12], players=[
        {"hand": [W, 12, 1, 9, 9], "stock": [7]}, {"stock": [6]}])
    moves = described(game)
    assert "pay 11 coins as the 11 on building pile 0" not in moves  # the pile shows 11
    assert not any(d.startswith("pay 12 coins") for d in moves)
    assert "pay 1 coin as the 1 on building pile 1" in moves  # coins are played elsewhere
    play(game, "hand 12 -> building pile 0")  # the batched engine offered the same moves
    assert game.building[0] == []


def test_a_coin_place_is_no_card_when_the_pile_is_set_aside():
    game = position(MASTERS, building=[list(range(1, 11))], players=[
        {"hand": [12, 9, 9, 9, 9], "stock": [7]}, {"stock": [6]}])
    play(game, "pay 11 coins as the 11 on building pile 0")
    play(game, "hand 12 -> building pile 0")
    assert game.building[0] == [] and game.set_aside == list(range(1, 11)) + [12]


# -- buying ------------------------------------------------------------------------------------
def test_a_player_may_buy_another_players_stock_or_discard_top_for_1_coin():
    game = position(MASTERS, players=[{"hand": [9, 9, 10, 11, 12], "stock": [7]},
                                      {"stock": [6, 1], "discard_piles": [[], [2], [], []]}])
    play(game, "buy player 1's stock 1 -> building pile 0")
    assert game.coins == [11, 13] and game.stocks[1] == [6]
    play(game, "buy player 1's discard pile 1 top 2 -> building pile 0")
    assert game.coins == [10, 14] and game.discards[1][1] == []
    assert game.building[0] == [1, 2] and game.hands[0] == [9, 9, 10, 11, 12]


def test_buying_needs_a_coin():
    game = position(MASTERS, coins=[0, 24], players=[
        {"hand": [9, 9, 10, 11, 12], "stock": [7]}, {"stock": [6, 1]}])
    assert not any(d.startswith("buy") for d in described(game))


def test_buying_the_last_card_of_another_stock_makes_that_player_win():
    game = position(MASTERS, players=[{"hand": [9, 9, 10, 11, 12], "stock": [7]},
                                      {"stock": [1]}])
    play(game, "buy player 1's stock 1 -> building pile 0")
    assert game.is_over and game.winners == (1,)


# -- tolls -------------------------------------------------------------------------------------
def test_after_a_toll_card_the_player_pays_the_toll_to_go_on_and_the_coins_lie_by_the_pile():
    game = position(MASTERS, players=[{"hand": [t(1, 2), 2, 9, 9, 9], "stock": [7]},
                                      {"stock": [6]}])
    play(game, "hand 1 (toll 2) -> building pile 3")
    assert game.phase == "toll"
    assert described(game) == ["pay the toll of 2 coins", "decline the toll (ends the turn)"]
    play(game, "pay the toll of 2 coins")
    assert game.coins[0] == 10 and game.pile_coins[3] == 2 and game.phase == "play"
    assert "hand 2 -> building pile 3" in described(game)


def test_declining_a_toll_ends_the_turn_at_once_with_no_discard():
    game = position(MASTERS, players=[{"hand": [t(1, 1), 2, 9, 9, 9], "stock": [7]},
                                      {"stock": [6]}])
    play(game, "hand 1 (toll 1) -> building pile 0")
    play(game, "decline the toll (ends the turn)")
    assert game.current_player == 1 and game.discards[0] == [[], [], [], []]
    assert sorted(game.hands[0]) == [2, 9, 9, 9] and game.coins[0] == 12


def test_a_player_who_cannot_pay_a_toll_can_only_decline_it():
    game = position(MASTERS, coins=[1, 23], players=[
        {"hand": [t(1, 2), 2, 9, 9, 9], "stock": [7]}, {"stock": [6]}])
    play(game, "hand 1 (toll 2) -> building pile 0")
    assert described(game) == ["decline the toll (ends the turn)"]


def test_a_toll_falls_due_for_a_bought_card_too():
    game = position(MASTERS, players=[{"hand": [9, 9, 10, 11, 12], "stock": [7]},
                                      {"stock": [6, t(1, 1)]}])
    play(game, "buy player 1's stock 1 (toll 1) -> building pile 0")
    assert game.phase == "toll" and game.coins == [11, 13]


def test_the_toll_is_settled_before_an_emptied_hand_is_refilled():
    game = position(MASTERS, building=[[1, 2, 3]],
                    players=[{"hand": [t(4, 1)], "stock": [7]}, {"stock": [6]}])
    play(game, "hand 4 (toll 1) -> building pile 0")
    assert game.hands[0] == [] and game.phase == "toll"
    play(game, "pay the toll of 1 coin")
    assert len(game.hands[0]) == 5


def test_the_last_stock_card_wins_even_with_a_toll_on_it():
    game = position(MASTERS, players=[{"hand": [9, 9, 10, 11, 12], "stock": [t(1, 2)]},
                                      {"stock": [6]}])
    play(game, "stock 1 (toll 2) -> building pile 0")
    assert game.is_over and game.winners == (0,) and game.coins[0] == 12


# -- handing coins back --------------------------------------------------------------------------
def test_a_cleared_piles_coins_go_out_one_at_a_time_from_the_player_who_cleared_it():
    rules = Rules.preset("masters", 3)
    game = position(rules, current_player=1, building=[list(range(1, 12))],
                    coins=[10, 10, 11], pile_coins=[5, 0, 0, 0],
                    players=[{"stock": [7]}, {"hand": [12, 9, 9, 9, 9], "stock": [7]},
                             {"stock": [6]}])
    play(game, "hand 12 -> building pile 0")
    assert game.pile_coins[0] == 0
    assert game.coins == [10 + 1, 10 + 2, 11 + 2]


def test_a_toll_paid_on_the_card_that_clears_a_pile_waits_by_the_freed_place():
    game = position(MASTERS, building=[list(range(1, 12))], pile_coins=[2, 0, 0, 0],
                    coins=[10, 12], players=[{"hand": [t(12, 1), 9, 9, 9, 9], "stock": [7]},
                                             {"stock": [6]}])
    play(game, "hand 12 (toll 1) -> building pile 0")
    assert game.coins == [11, 13] and game.pile_coins[0] == 0
    play(game, "pay the toll of 1 coin")
    assert game.pile_coins[0] == 1 and game.coins[0] == 10


# -- state and observation -----------------------------------------------------------------------
def test_a_card_with_a_toll_is_written_rank_and_toll_and_the_state_round_trips():
    game = position(MASTERS, building=[[1, 2, 3]],
                    players=[{"hand": [t(9, 2), 9, 10, 11, 12], "stock": [5]}, {"stock": [6]}])
    play(game, "pay 4 coins as the 4 on building pile 0")
    d = json.loads(json.dumps(game.to_dict()))
    assert [9, 2] in d["players"][0]["hand"] and 9 in d["players"][0]["hand"]
    assert d["building_piles"][0] == [1, 2, 3, "coin"]
    assert d["coins"] == [8, 12] and d["pile_coins"] == [4, 0, 0, 0]
    assert d["phase"] == "coin_followup" and d["pending"] == {"pile": 0, "toll": 0}
    assert Game.from_dict(d).to_dict() == d


def test_from_dict_rejects_coins_that_do_not_add_up():
    d = Game(MASTERS, 0).to_dict()
    d["coins"][0] += 1
    with pytest.raises(ValueError, match="coins and pile_coins total 25, but the game has 24"):
        Game.from_dict(d)


def test_the_observation_shows_coins_pile_coins_and_the_tolls_of_visible_cards():
    game = position(MASTERS, pile_coins=[0, 3, 0, 0], coins=[9, 12], players=[
        {"hand": [9, 9, 10, 11, 12], "stock": [5]}, {"stock": [6, t(7, 2)]}])
    enc = ObservationEncoder(MASTERS)
    obs = enc.encode(game, 0)
    assert np.array_equal(game.check_batched().obs[0], obs)  # the batched engine's alike
    sections = {name: (start, width) for name, start, width in enc.sections}
    start, width = sections["coins"]
    assert np.allclose(obs[start:start + width] * 24, [9, 12])
    start, width = sections["pile_coins"]
    assert np.allclose(obs[start:start + width] * 24, [0, 3, 0, 0])
    o = sections["seats"][0] + enc.seat_width
    assert np.argmax(obs[o + 2:o + 3 + enc.num_ranks]) == t(7, 2)


def test_describe_names_the_coin_actions():
    game = position(MASTERS, building=[[1, 2, 3]],
                    players=[{"hand": [t(9, 2), 9, 10, 11, 5], "stock": [7]},
                             {"stock": [6, 1]}])
    words = described(game)
    assert "pay 4 coins as the 4 on building pile 0" in words
    assert "buy player 1's stock 1 -> building pile 1" in words
    assert "discard hand 9 (toll 2) -> discard pile 0" in words


def test_masters_games_score_as_the_standard_game():
    game = position(MASTERS, building=[[1, 2, 3, 4, 5, 6]],
                    players=[{"hand": [9], "stock": [7]}, {"stock": [4, 4, 4]}])
    play(game, "stock 7 -> building pile 0")
    assert game.points() == [25 + 5 * 3, 0]
