"""Skip-Bo as an OpenSpiel game (skipbo_env/integrations/openspiel.py, docs/openspiel.md)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from skipbo_env import Game
from skipbo_env.integrations import openspiel
from skipbo_env.rules import VARIANTS, allowed_players

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]
SMALL = {"standard": 3, "short": 2, "quick": 2, "partnership": 2, "junior": 3,
         "junior_classic": 3, "masters": 3, "masters_short": 2}


def load(variant="short", players=2, **params):
    return pyspiel.load_game("python_skipbo", {"variant": variant, "players": players,
                                               **params})


@pytest.mark.parametrize("variant,players", CASES)
def test_every_variant_and_player_count_loads_with_its_rules(variant, players):
    game = load(variant, players)
    assert game.num_players() == players and game.rules.variant == variant
    state = game.new_initial_state()
    assert state.current_player() == 0 and state.legal_actions()


def test_the_stock_size_is_a_parameter():
    state = load("standard", 2, stock_size=7).new_initial_state()
    assert [len(s) for s in state.position.stocks] == [7, 7]


@pytest.mark.parametrize("params,needle", [
    ({"colour": "red"}, "colour"), ({"stall_outcome": "coin"}, "stall_outcome"),
    ({"variant": "poker"}, "poker")])
def test_a_bad_parameter_is_refused_naming_it(params, needle):
    with pytest.raises(Exception, match=needle):
        load(**params)


def test_the_game_type_says_what_skipbo_is():
    kind = load().get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM


def test_a_free_for_all_of_three_is_general_sum_and_teams_of_two_zero_sum():
    assert load("standard", 3).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert load("partnership", 4).get_type().utility == pyspiel.GameType.Utility.ZERO_SUM


@pytest.mark.parametrize("variant", VARIANTS)
def test_openspiels_random_simulation_test_passes_for_every_variant_family(variant):
    players = 4 if variant == "partnership" else 2
    game = load(variant, players, stock_size=SMALL[variant], seed=1)
    pyspiel.random_sim_test(game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.parametrize("seed", [30, 37, 47, 59])
def test_always_taking_the_first_legal_action_ends_within_max_game_length(seed):
    # On these deals the draw pile comes to hold only Skip-Bo cards, which the first legal
    # action plays for ever within one turn: the move limit of a turn ends the game.
    game = load(seed=seed)
    state = game.new_initial_state()
    for _ in range(game.max_game_length()):
        if state.is_terminal():
            break
        state.apply_action(state.legal_actions()[0])
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.position.truncated and state.position.turn_moves == 500
    assert game.max_game_length() == 1000 * 500  # max_turns * max_turn_moves


def test_a_seeded_game_deals_the_same_states_in_the_same_order():
    a, b = load(seed=5), load(seed=5)
    assert [str(a.new_initial_state()) for _ in range(3)] == \
        [str(b.new_initial_state()) for _ in range(3)]
    assert str(load(seed=6).new_initial_state()) != str(load(seed=5).new_initial_state())


def test_a_clone_is_independent_of_its_original():
    state = load(seed=2).new_initial_state()
    copy = state.clone()
    copy.apply_action(copy.legal_actions()[0])
    assert len(state.actions) == 0 and len(copy.actions) == 1
    assert str(state) != str(copy) or state.position.hands != copy.position.hands


def _positions(game, count: int, seed: int):
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for _ in range(count):
        if state.is_terminal():
            state = game.new_initial_state()
        yield state
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize("variant,players", [("standard", 2), ("masters", 3),
                                             ("partnership", 4), ("junior", 2)])
def test_tensors_and_strings_hide_what_the_seat_cannot_see(variant, players):
    game = load(variant, players, seed=3)
    rng = np.random.default_rng(0)
    changed = 0
    for state in _positions(game, 150, 4):
        for seat in range(players):
            other = openspiel.SkipBoState(game, Game.from_view(state.position.view(seat), rng),
                                          state.actions)
            changed += other.position.hands != state.position.hands or \
                other.position.stocks != state.position.stocks
            assert state.observation_string(seat) == other.observation_string(seat)
            assert state.information_state_string(seat) == other.information_state_string(seat)
            assert state.observation_tensor(seat) == other.observation_tensor(seat)
            assert state.information_state_tensor(seat) == \
                other.information_state_tensor(seat)
    assert changed > 100  # the re-deals really moved hidden cards


def test_another_seats_hand_is_not_in_a_seats_strings():
    state = load("standard", 2, seed=9).new_initial_state()
    text = state.observation_string(1)
    own = state.observation_string(0)
    theirs = text.split("player 0")[1].split("\n")[0]
    assert f"hand {len(state.position.hands[0])} cards" in theirs  # how many, not which
    assert f"hand {len(state.position.hands[0])} cards" not in own.split("player 0")[1]


def test_the_information_state_string_holds_the_public_history():
    state = load(seed=1).new_initial_state()
    first = state.information_state_string(0)
    state.apply_action(state.legal_actions()[0])
    assert first.endswith("history ") and state.information_state_string(1).endswith(
        f"history {state.actions[0]}")


def test_openspiels_ismcts_bot_plays_whole_games_through_the_resampler():
    game = load("short", 2, stock_size=3, seed=4)
    bots = [openspiel.ismcts_bot(game, simulations=10, seed=s) for s in (1, 2)]
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_seeded_ismcts_bot_repeats_its_game():
    def game_of(seed):
        game = load("short", 2, stock_size=2, seed=4)
        bots = [openspiel.ismcts_bot(game, simulations=8, seed=seed + s) for s in (0, 1)]
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(bots[state.current_player()].step(state))
        return state.actions
    assert game_of(3) == game_of(3)


def test_the_resampler_keeps_the_seats_own_cards_and_the_history():
    state = next(s for i, s in enumerate(_positions(load(seed=8), 40, 1)) if i == 39)
    seat = state.current_player()
    other = openspiel.resampler(0)(state, seat)
    assert other.position.hands[seat] == state.position.hands[seat]
    assert other.actions == state.actions
    assert other.legal_actions() == state.legal_actions()
