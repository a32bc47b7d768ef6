"""The argument checks every edge uses (skipbo_env/checks.py): a wrong type is a TypeError
that is also a ValueError, a bad value a ValueError, and each names the argument and value."""

import math

import numpy as np
import pytest

from skipbo_env import Rules, checks


def test_a_wrong_type_is_a_type_error_and_a_value_error_naming_the_argument():
    for bad in (True, 1.5, "3", None, [1]):
        with pytest.raises(TypeError, match=r"^count must be an integer, got "):
            checks.integer(bad, "count")
        with pytest.raises(ValueError):
            checks.integer(bad, "count")


def test_an_integer_out_of_range_is_a_value_error_not_a_type_error():
    with pytest.raises(ValueError, match="games must be a positive integer, got 0") as caught:
        checks.integer(0, "games", minimum=1)
    assert not isinstance(caught.value, TypeError)
    assert checks.integer(np.int64(7), "games", minimum=1) == 7
    assert type(checks.integer(np.int32(7), "games")) is int


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, True, "1"])
def test_a_number_must_be_finite_and_not_a_bool(bad):
    with pytest.raises(ValueError, match="weight must be"):
        checks.number(bad, "weight", minimum=0)


def test_a_seat_lies_in_the_game_and_random_is_the_only_word_for_a_seat_option():
    assert checks.seat(2, 3) == 2
    with pytest.raises(ValueError, match=r"seat must be a seat in 0\.\.2, got 3"):
        checks.seat(3, 3)
    assert checks.seat_or_random("random", 2) == "random"
    with pytest.raises(ValueError, match="'random' or a seat in 0..1"):
        checks.seat_or_random("left", 2)


def test_a_choice_names_the_choices():
    assert checks.one_of("lose", ("lose", "raise"), "illegal_action") == "lose"
    with pytest.raises(ValueError, match="illegal_action must be 'lose' or 'raise', got 'win'"):
        checks.one_of("win", ("lose", "raise"), "illegal_action")
    with pytest.raises(ValueError, match="must be one of 'a', 'b', 'c'"):
        checks.one_of(["unhashable"], ("a", "b", "c"), "x")


def test_an_unknown_rules_field_is_a_type_error_as_an_unknown_keyword_is():
    with pytest.raises(TypeError, match="unknown rules field"):
        Rules.preset("standard", 2, stock=3)
    with pytest.raises(ValueError, match="unknown rules field"):
        Rules.preset("standard", 2, stock=3)
    # In Python's words, which TorchRL's GymEnv matches to drop the frameskip it passes.
    with pytest.raises(TypeError, match="got an unexpected keyword argument 'frameskip'"):
        Rules.preset("standard", 2, frameskip=1)
    assert Rules.preset("standard", np.int64(3)).num_players == 3
    assert type(Rules.preset("standard", np.int64(3)).num_players) is int
