"""Reshuffling, partnership play, stalled games, the turn limit and scoring across games."""

import pytest
from positions import described, play, position

from skipbo_env import Game, Match, Rules

STANDARD = Rules.preset("standard", 2)
PARTNERSHIP = Rules.preset("partnership", 4)
W = 0


# -- reshuffling ---------------------------------------------------------------------------------
def _nearly_empty_draw_pile():
    """Player 0 is about to discard; player 1 needs 3 cards and the draw pile holds 1."""
    deck = Rules.preset("standard", 2, copies_per_rank=4, wilds=4, stock_size=5)
    set_aside = list(range(1, 13)) + [W] + list(range(2, 13))  # two completed piles
    state = position(deck, set_aside=set_aside, building=[[1, 2, 3], [], [], []],
                     players=[{"hand": [4, 5, 6, 7, 8], "stock": [9]},
                              {"hand": [10, 10], "stock": [11]}]).to_dict()
    # Park all but one draw-pile card on player 0's last discard pile.
    state["players"][0]["discard_piles"][3] = state["draw_pile"][:-1]
    state["draw_pile"] = state["draw_pile"][-1:]
    return Game.from_dict(state)


def test_when_the_draw_pile_runs_out_the_set_aside_cards_are_shuffled_into_a_new_draw_pile():
    game = _nearly_empty_draw_pile()
    assert len(game.draw_pile) == 1
    drawn_before = list(game.draw_pile)
    aside = sorted(game.set_aside)
    play(game, "discard hand 8 -> discard pile 0")
    assert game.set_aside == []
    # Player 1 drew the old draw pile's cards, then cards from the reshuffled set-aside cards.
    new_cards = game.hands[1][2 + len(drawn_before):]
    assert game.hands[1][2:2 + len(drawn_before)] == list(reversed(drawn_before))
    assert sorted(game.draw_pile + new_cards) == aside


def test_unfinished_building_piles_are_never_reshuffled():
    game = _nearly_empty_draw_pile()
    play(game, "discard hand 8 -> discard pile 0")
    assert game.building[0] == [1, 2, 3]


def test_the_reshuffle_uses_the_game_seeded_generator():
    first, second = _nearly_empty_draw_pile(), _nearly_empty_draw_pile()
    play(first, "discard hand 8 -> discard pile 0")
    play(second, "discard hand 8 -> discard pile 0")
    assert first.to_dict() == second.to_dict()
    state = _nearly_empty_draw_pile().to_dict()
    state["rng"]["state"]["state"] += 1
    other = Game.from_dict(state)
    play(other, "discard hand 8 -> discard pile 0")
    assert other.draw_pile != first.draw_pile


# -- partnership ---------------------------------------------------------------------------------
def test_partnership_seats_0_and_2_play_against_1_and_3():
    assert PARTNERSHIP.teams == ((0, 2), (1, 3))
    assert PARTNERSHIP.team_of(2) == (0, 2)


def test_a_partner_may_play_the_partners_stock_top_and_discard_pile_tops():
    game = position(PARTNERSHIP, players=[
        {"hand": [9, 9, 10, 11, 12], "stock": [5]},
        {"stock": [1], "discard_piles": [[1], [], [], []]},
        {"stock": [1], "discard_piles": [[], [W], [], []]},
        {"stock": [1]}])
    legal = described(game)
    assert "player 2's stock 1 -> building pile 0" in legal
    assert "player 2's discard pile 1 top Skip-Bo -> building pile 0 as 1" in legal
    assert not any("player 1" in d or "player 3" in d for d in legal)
    play(game, "player 2's stock 1 -> building pile 0")
    assert game.stocks[2] == [] and not game.is_over


def test_in_partnership_discards_go_only_onto_the_players_own_piles():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 10, 11, 12], "stock": [5]},
                                          {"stock": [5]}, {"stock": [5]}, {"stock": [5]}])
    play(game, "discard hand 10 -> discard pile 3")
    assert game.discards[0][3] == [10] and game.discards[2] == [[], [], [], []]
    assert game.layout.num_discards == 13 * 4


def test_a_partner_whose_stock_is_empty_keeps_taking_turns():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 10, 11, 12], "stock": [5]},
                                          {"hand": [9, 9, 10, 11, 12], "stock": [6]},
                                          {"stock": []}, {"stock": [7]}])
    play(game, "discard hand 9 -> discard pile 0")
    play(game, "discard hand 9 -> discard pile 0")
    assert game.current_player == 2 and not game.is_over
    assert len(game.hands[2]) == 5


def test_the_team_wins_when_both_its_stocks_are_empty():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 10, 11, 12], "stock": [1]},
                                          {"stock": [6]}, {"stock": []}, {"stock": [7, 7]}])
    play(game, "stock 1 -> building pile 0")
    assert game.is_over and game.winners == (0, 2)
    assert game.returns() == [1.0, -1.0, 1.0, -1.0]


def test_the_team_also_wins_when_a_player_empties_the_partners_stock():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 10, 11, 12], "stock": []},
                                          {"stock": [6]}, {"stock": [1]}, {"stock": [7]}])
    play(game, "player 2's stock 1 -> building pile 0")
    assert game.winners == (0, 2)


# -- games that cannot progress ------------------------------------------------------------------
def _stuck(stall_turns=0, outcome="draw", stocks=([11], [9, 8])):
    """Nothing left to draw, nobody able to play: player 0 holds 12, player 1 holds 10."""
    rules = Rules.preset("standard", 2, copies_per_rank=1, wilds=0, stock_size=2,
                         stall_outcome=outcome)
    return position(rules, building=[[1, 2, 3, 4], [], [], []],
                    players=[{"hand": [12], "stock": list(stocks[0]),
                              "discard_piles": [[6, 7], [], [], []]},
                             {"hand": [10], "stock": list(stocks[1]),
                              "discard_piles": [[5], [], [], []]}],
                    stall_turns=stall_turns)


def _stall(game):
    play(game, "discard hand 12 -> discard pile 1")
    assert not game.is_over
    play(game, "discard hand 10 -> discard pile 1")
    assert game.is_over


def test_a_full_round_with_no_card_played_and_nothing_to_draw_ends_the_game_as_a_draw():
    game = _stuck()
    _stall(game)
    assert game.phase == "drawn" and game.winners == ()
    assert game.returns() == [0.0, 0.0]


def test_under_fewest_stock_a_stalled_game_goes_to_the_player_with_the_fewest_stock_cards():
    game = _stuck(outcome="fewest_stock")
    _stall(game)
    assert game.phase == "won" and game.winners == (0,)
    assert game.returns() == [1.0, -1.0]


def test_under_fewest_stock_a_tie_for_the_fewest_stock_cards_is_a_draw():
    rules = Rules.preset("standard", 2, copies_per_rank=1, wilds=0, stock_size=2,
                         stall_outcome="fewest_stock")
    game = position(rules, building=[[1, 2, 3, 4], [], [], []],
                    players=[{"hand": [12], "stock": [11], "discard_piles": [[6, 7], [], [], []]},
                             {"hand": [10], "stock": [9], "discard_piles": [[5], [8], [], []]}])
    _stall(game)
    assert game.phase == "drawn" and game.winners == () and game.returns() == [0.0, 0.0]


def test_under_fewest_stock_a_stalled_partnership_goes_to_the_team_with_the_fewest_stock_cards():
    rules = Rules.preset("partnership", 4, copies_per_rank=1, wilds=0, stock_size=2,
                         stall_outcome="fewest_stock")
    # Team (0, 2) holds 1 + 2 stock cards, team (1, 3) 1 + 1: fewer together.
    game = position(rules, building=[[1, 2, 3], [], [], []], players=[
        {"hand": [12], "stock": [11]}, {"hand": [10], "stock": [9]},
        {"hand": [8], "stock": [7, 6]}, {"hand": [5], "stock": [4]}])
    for card in (12, 10, 8):
        play(game, f"discard hand {card} -> discard pile 0")
        assert not game.is_over
    play(game, "discard hand 5 -> discard pile 0")
    assert game.phase == "won" and game.winners == (1, 3)
    assert game.returns() == [-1.0, 1.0, -1.0, 1.0]


def test_the_default_outcome_of_a_stalled_game_is_the_fewest_stock_cards():
    assert Rules.preset("standard", 2).stall_outcome == "fewest_stock"
    assert Rules.preset("junior", 3).stall_outcome == "fewest_stock"


def test_a_card_reaching_a_building_pile_restarts_the_round():
    game = _stuck()
    play(game, "discard hand 12 -> discard pile 1")
    play(game, "discard pile 0 top 5 -> building pile 0")
    play(game, "discard hand 10 -> discard pile 1")
    assert not game.is_over and game.stall_turns == 0


def test_no_draw_is_declared_while_cards_remain_to_draw():
    game = position(STANDARD, players=[{"hand": [9, 9, 10, 11, 12], "stock": [5]},
                                       {"hand": [9, 9, 10, 11, 12], "stock": [6]}])
    for _ in range(6):
        play(game, "discard hand 9 -> discard pile 0" if 9 in game.hands[game.current_player]
             else f"discard hand {game.hands[game.current_player][0]} -> discard pile 1")
    assert not game.is_over


def test_no_draw_is_declared_while_set_aside_cards_remain_to_reshuffle():
    # The draw pile is empty and nobody can play, but a completed pile waits to be shuffled
    # in: a full round of turns without a card played is no stalled round.
    rules = Rules.preset("standard", 2, copies_per_rank=3, wilds=0, stock_size=6)
    game = position(rules, building=[[1, 2, 3, 4], [], [], []], set_aside=range(1, 13),
                    players=[{"hand": [12, 12, 11, 11, 10], "stock": [10, 9],
                              "discard_piles": [[5, 6], [], [], []]},
                             {"hand": [9, 8, 8, 7, 7], "stock": [1, 2, 3, 4, 5, 6]}])
    assert not game.draw_pile
    play(game, "discard hand 12 -> discard pile 1")
    play(game, "discard hand 9 -> discard pile 1")  # player 1 held five cards: drew none
    assert not game.is_over and game.stall_turns == 0
    # Player 0's draw shuffled the set-aside pile in.
    assert game.set_aside == [] and len(game.draw_pile) == 11 and len(game.hands[0]) == 5


def test_max_turns_truncates_the_game():
    rules = Rules.preset("standard", 2, max_turns=3)
    game = Game(rules, 0)
    while not game.is_over:
        legal = game.legal_actions()
        game.step(legal[-1])  # the highest action is always a discard or end turn
    assert game.phase == "truncated" and game.truncated and game.turn == 3
    assert game.winners == () and game.returns() == [0.0, 0.0]


def test_the_default_turn_limit_is_1000():
    assert Rules.preset("standard", 2).max_turns == 1000
    assert Rules.preset("junior", 3).max_turns == 1000


def _skip_bo_cards_only(max_turn_moves: int):
    """Player 0 holds five Skip-Bo cards and the draw pile holds only the other 13: every
    number is in a stock or a discard pile, out of reach. Playing Skip-Bo cards onto building
    pile 0 completes it every 12 cards, and the completed pile comes back as the draw pile."""
    rules = Rules.preset("standard", 2, copies_per_rank=1, stock_size=3,
                         max_turn_moves=max_turn_moves)
    return position(rules, draw_pile=[0] * 13,
                    players=[{"hand": [0] * 5, "stock": [9, 8, 7],
                              "discard_piles": [[12, 6], [11, 5], [10, 4], []]},
                             {"stock": [3, 2, 1]}])


def _play_skip_bo_onto_pile_0(game) -> None:
    for action in game.legal_actions():
        if game.describe(action).startswith("hand Skip-Bo -> building pile 0"):
            game.step(action)
            return
    raise AssertionError(f"no Skip-Bo card to play onto building pile 0: {described(game)}")


def test_without_a_move_limit_a_turn_of_skip_bo_cards_can_go_on_for_ever():
    # Why the limit exists: the same turn, 600 actions on, with no end in sight.
    game = _skip_bo_cards_only(max_turn_moves=10**9)
    for _ in range(600):
        _play_skip_bo_onto_pile_0(game)
    assert not game.is_over and game.turn == 0 and game.turn_moves == 600
    assert game.set_aside or game.draw_pile  # completed piles come back round


def test_the_action_that_reaches_max_turn_moves_within_a_turn_truncates_the_game():
    game = _skip_bo_cards_only(max_turn_moves=40)
    for _ in range(39):
        _play_skip_bo_onto_pile_0(game)
    assert not game.is_over and game.turn_moves == 39
    _play_skip_bo_onto_pile_0(game)
    assert game.phase == "truncated" and game.truncated and game.turn == 0
    assert game.turn_moves == 40 and game.winners == () and game.returns() == [0.0, 0.0]


def test_a_turn_that_ends_counts_its_actions_from_zero_again():
    game = _skip_bo_cards_only(max_turn_moves=2)
    _play_skip_bo_onto_pile_0(game)
    play(game, "discard hand Skip-Bo -> discard pile 3")  # the second action ends the turn
    assert not game.is_over and game.current_player == 1 and game.turn_moves == 0


def test_a_game_won_by_the_action_that_reaches_max_turn_moves_is_won():
    rules = Rules.preset("standard", 2, max_turn_moves=1)
    game = position(rules, players=[{"hand": [5, 6, 7, 8, 9], "stock": [1]}, {"stock": [2]}])
    play(game, "stock 1 -> building pile 0")
    assert game.phase == "won" and game.winners == (0,) and game.turn_moves == 1


def test_the_default_move_limit_of_a_turn_is_500():
    assert Rules.preset("standard", 2).max_turn_moves == 500
    assert Rules.preset("masters", 6).max_turn_moves == 500


# -- scoring across games ------------------------------------------------------------------------
def test_the_winner_scores_25_plus_5_for_each_card_left_in_the_opponents_stocks():
    rules = Rules.preset("standard", 3)
    game = position(rules, building=[[1, 2, 3, 4, 5, 6], [], [], []],
                    players=[{"hand": [9], "stock": [7]}, {"stock": [4, 4, 4]},
                             {"stock": [4, 4]}])
    play(game, "stock 7 -> building pile 0")
    assert game.points() == [25 + 5 * 5, 0, 0]


def test_a_partnership_scores_as_a_team():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 10, 11, 12], "stock": [1]},
                                          {"stock": [6, 6]}, {"stock": []}, {"stock": [7]}])
    play(game, "stock 1 -> building pile 0")
    assert game.points() == [40, 0, 40, 0]


def test_a_drawn_game_scores_nothing():
    game = _stuck()
    _stall(game)
    assert game.points() == [0, 0]


def test_a_stalled_game_won_by_the_fewest_stock_cards_scores_as_a_win():
    game = _stuck(outcome="fewest_stock")
    _stall(game)
    assert game.points() == [25 + 5 * 2, 0]


def _finish(game):
    while not game.is_over:
        game.step(game.legal_actions()[0])


def test_the_first_player_of_each_game_moves_one_seat_to_the_left():
    match = Match(Rules.preset("short", 3, stock_size=2), seed=1)
    firsts = [match.game.current_player]
    for _ in range(3):
        _finish(match.game)
        match.next_game()
        firsts.append(match.game.current_player)
    assert firsts == [0, 1, 2, 0]


def test_the_first_player_can_stay_seat_0_as_in_skip_bo_junior():
    match = Match(Rules.preset("junior", 2, stock_size=2), seed=1, rotate_first_player=False)
    _finish(match.game)
    match.next_game()
    assert match.game.current_player == 0


def test_the_first_to_500_points_wins_the_match():
    match = Match(Rules.preset("short", 2, stock_size=3), seed=2)
    games = 0
    while not match.winners:
        _finish(match.game)
        scored = match.game.points()
        before = list(match.scores)
        match.next_game()
        games += 1
        assert match.scores == [b + s for b, s in zip(before, scored)]
    assert max(match.scores) >= 500 and match.scores[match.winners[0]] == max(match.scores)
    assert match.games_played == games
    with pytest.raises(ValueError, match="match is over"):
        match.next_game()


def test_the_next_game_cannot_start_before_the_current_one_ends():
    match = Match(STANDARD, seed=0)
    with pytest.raises(ValueError, match="not over"):
        match.next_game()
