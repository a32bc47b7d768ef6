"""Loading a state accepts only states the engine can reach (docs/rules.md, "Loading a state").

Mutated states of several variants (hypothesis) are either refused with a clear error
(ValueError or TypeError) or load as games that keep the engine's invariants; then one test for
each kind of unreachable state, named as the rule it breaks.
"""

import contextlib
import copy
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from positions import position
from test_properties import card_counts

from skipbo_env import Game, Rules
from skipbo_env.rules import FIELDS_ADDED_LATER
from skipbo_env.state import Phase
from skipbo_env.state_io import KEYS_ADDED_LATER

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
MASTERS = Rules.preset("masters", 2)
PARTNERSHIP = Rules.preset("partnership", 4)
STANDARD = Rules.preset("standard", 2)


def _states(rules: Rules, seed: int, every: int = 17) -> list[dict]:
    """States of one random game (every `every`-th action, and the last), preferring plays."""
    rng = np.random.default_rng(seed)
    game, out, step = Game(rules, seed), [], 0
    while not game.is_over:
        if step % every == 0:
            out.append(game.to_dict())
        legal = game.legal_actions()
        plays = [a for a in legal if a < game.layout.num_plays]
        pool = plays if plays and rng.random() < 0.7 else legal
        game.step(int(pool[rng.integers(len(pool))]))
        step += 1
    return out + [game.to_dict()]


def _stalled_at_the_limit(outcome: str = "fewest_stock") -> tuple[Game, Game]:
    """(the position before, the game after) a stalled round (won under fewest_stock, drawn
    under draw) on exactly the turn that reaches max_turns."""
    rules = Rules.preset("standard", 2, copies_per_rank=1, wilds=0, stock_size=2,
                         stall_outcome=outcome, max_turns=2)
    before = position(rules, building=[[1, 2, 3, 4], [], [], []],
                      players=[{"hand": [12], "stock": [11],
                                "discard_piles": [[6, 7], [], [], []]},
                               {"hand": [10], "stock": [9, 8],
                                "discard_piles": [[5], [], [], []]}])
    game = before.clone()
    game.step(game.layout.discard(12, 1))
    game.step(game.layout.discard(10, 1))
    return before, game


SOURCES = [s for rules, seed in [
    (STANDARD, 1), (Rules.preset("standard", 2, stock_size=3), 2),
    (PARTNERSHIP, 3), (Rules.preset("partnership", 4, stock_size=2), 4),
    (MASTERS, 5), (Rules.preset("masters", 3, stock_size=3, max_turns=15), 6),
    (Rules.preset("junior", 2), 7), (Rules.preset("junior", 3, max_turns=10), 8),
] for s in _states(rules, seed)] + [
    # real end-of-game positions at the turn limit: a stalled round on its last turn
    _stalled_at_the_limit(outcome)[1].to_dict() for outcome in ("fewest_stock", "draw")]


def test_the_sources_cover_every_phase():
    assert {s["phase"] for s in SOURCES} >= {"play", "won", "truncated", "toll",
                                              "coin_followup"}


# -- the invariants of an accepted state ---------------------------------------------------------


def assert_reachable_relations(game: Game) -> None:
    """What every state the engine reaches keeps, stated from the rules of play."""
    rules, n = game.rules, game.rules.num_players
    over = game.is_over
    assert card_counts(game) == rules.deck_counts()
    assert sum(game.coins) + sum(game.pile_coins) == rules.coins_per_player * n
    assert bool(game.legal_actions()) != over  # a legal action exactly while not over
    assert np.flatnonzero(game.action_mask()).tolist() == game.legal_actions()
    stall_won = game.phase == Phase.WON and any(game.stocks[s] for s in list(game.winners))
    if not over or (game.phase == Phase.WON and not stall_won):
        assert game.turn < rules.max_turns  # a stalled round may end the game on its last turn
    if game.truncated:
        assert game.turn == rules.max_turns
    if game.phase == Phase.DRAWN or stall_won:
        assert game.stall_turns == n and not game.draw_pile and not game.set_aside
        assert (game.stall_winner() is not None) == stall_won
    else:
        assert game.stall_turns < n
    teams = rules.teams or [(p,) for p in range(n)]
    empty = [list(t) for t in teams if all(not game.stocks[s] for s in t)]
    assert empty == ([list(game.winners)] if game.phase == Phase.WON and not stall_won else [])


def assert_invariants(game: Game, state: dict, seed: int) -> None:
    """An accepted state: written back exactly, loads again, and plays on keeping the rules."""
    if isinstance(state.get("rules"), dict):  # a field added later reads as it was, and is written
        state = {**state, "rules": {**FIELDS_ADDED_LATER, **state["rules"]}}
    state = {**KEYS_ADDED_LATER, **state}  # a key added later too
    assert game.to_dict() == state  # no value was coerced
    text = json.dumps(game.to_dict(), allow_nan=False)
    assert Game.from_dict(json.loads(text)).to_dict() == state
    rng = np.random.default_rng(seed)
    for _ in range(20):
        assert_reachable_relations(game)
        if game.is_over:
            return
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])


# -- mutations -----------------------------------------------------------------------------------
KEYS = ["format", "rules", "current_player", "turn", "phase", "draw_pile", "building_piles",
        "players", "winner", "stall_turns", "coins", "pending", "rng", "stock", "hand", "pile",
        "toll", "state", "inc", "has_uint32", "teams", "toll_table", "extra"]
STRINGS = ["coin", "draw", "play", "won", "drawn", "truncated", "toll", "coin_followup",
           "PCG64", "skipbo-state/1", "standard", "refill", "stacked", "0", "1.5"]
leaves = (st.none() | st.booleans() | st.integers(-3, 40)
          | st.integers(-2**200, 2**200) | st.sampled_from([2**64, 2**128, 2**128 - 1, 10**9])
          | st.floats(allow_nan=True, allow_infinity=True)
          | st.sampled_from([math.nan, math.inf, -math.inf, 0.5, 1.5, 1.0])
          | st.text(max_size=6) | st.sampled_from(STRINGS))
json_values = st.recursive(
    leaves, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=3),
    max_leaves=8)


def deep(depth: int, kind: str = "list"):
    """A value nested `depth` deep (beyond Python's recursion limit for the larger ones)."""
    value: object = 0
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    return value


def _place(data, state):
    """A random place in `state`: (container, key), by a walk from the root."""
    parent, key = state, data.draw(st.sampled_from(sorted(state)))
    while isinstance(parent[key], (dict, list)) and parent[key] \
            and data.draw(st.integers(0, 2)) > 0:
        parent = parent[key]
        key = data.draw(st.sampled_from(sorted(parent) if isinstance(parent, dict)
                                        else list(range(len(parent)))))
    return parent, key


def _card_lists(state):
    stacked = state["rules"]["hand_mode"] == "stacked"
    out = [state["draw_pile"], state["set_aside"], *state["building_piles"]]
    for pl in state["players"]:
        out += [pl["stock"], *pl["discard_piles"]]
        out += pl["hand"] if stacked else [pl["hand"]]
    return out


def _mutate(data, state) -> None:
    # An earlier change may have taken away the place this one needs.
    with contextlib.suppress(KeyError, IndexError, TypeError, AttributeError):
        _change(data, state)


def _change(data, state) -> None:
    n = len(state["players"])
    kind = data.draw(st.sampled_from(["replace", "nearby", "delete", "add", "move",
                                      "plausible", "rules"]))
    if kind == "move":  # a card from one pile to another: the card total still holds
        piles = _card_lists(state)
        source = data.draw(st.sampled_from([p for p in piles if p] or piles))
        if source:
            card = source.pop(data.draw(st.integers(0, len(source) - 1)))
            target = data.draw(st.sampled_from(piles))
            target.insert(data.draw(st.integers(0, len(target))), card)
        return
    if kind == "plausible":
        rules = state["rules"]
        choices = {
            "phase": ["play", "won", "drawn", "truncated", "toll", "coin_followup"],
            "winner": [None, "draw", *range(n), *(rules["teams"] or [])],
            "turn": [0, n, rules["max_turns"] - 1, rules["max_turns"], rules["max_turns"] + 1],
            "stall_turns": list(range(n + 2)),
            "played_this_turn": [True, False],
            "current_player": list(range(n)),
            "pending": [None, {"pile": 0, "toll": 0}, {"pile": 1, "toll": 1}],
        }
        field = data.draw(st.sampled_from(sorted(choices)))
        state[field] = data.draw(st.sampled_from(choices[field]))
        return
    if kind == "rules":
        parent, key = state["rules"], data.draw(st.sampled_from(sorted(state["rules"])))
    else:
        parent, key = _place(data, state)
    if kind == "delete":
        del parent[key]
    elif kind == "add":
        if isinstance(parent, dict):
            parent[data.draw(st.sampled_from(KEYS))] = data.draw(json_values)
        else:
            parent.insert(key, data.draw(json_values))
    elif kind == "nearby" and isinstance(parent[key], int) and not isinstance(parent[key], bool):
        parent[key] += data.draw(st.sampled_from([-1, 1, 2**64, -(2**64)]))
    else:
        parent[key] = data.draw(json_values)


@settings(SETTINGS, max_examples=400)
@given(st.data())
def test_a_mutated_state_is_refused_with_a_clear_error_or_keeps_every_invariant(data):
    state = copy.deepcopy(data.draw(st.sampled_from(SOURCES)))
    for _ in range(data.draw(st.integers(1, 3))):
        _mutate(data, state)
    try:
        game = Game.from_dict(state)
    except (ValueError, TypeError) as e:
        assert str(e)  # a message saying what is wrong
        event("refused")
        return
    event("accepted")
    assert_invariants(game, state, data.draw(st.integers(0, 2**32)))


@SETTINGS
@given(st.sampled_from(SOURCES), st.data())
def test_every_source_state_loads_and_keeps_every_invariant(state, data):
    assert_invariants(Game.from_dict(copy.deepcopy(state)), state,
                      data.draw(st.integers(0, 2**32)))


@settings(max_examples=100, deadline=None)
@given(json_values)
def test_any_json_like_value_in_place_of_a_state_is_refused_with_a_value_error(value):
    with pytest.raises(ValueError):
        Game.from_dict(value)


@pytest.mark.parametrize("key", sorted(SOURCES[0]) + [f"rules.{k}" for k in SOURCES[0]["rules"]])
@pytest.mark.parametrize("value", [deep(5000), deep(5000, "dict"), 10**5000, -(10**5000),
                                   math.inf, math.nan, [0] * 100_000],
                         ids=["deep list", "deep dict", "huge", "-huge", "inf", "nan", "long"])
def test_deep_huge_and_long_values_anywhere_are_refused_with_a_value_error(key, value):
    state = copy.deepcopy(SOURCES[0])
    where = state["rules"] if key.startswith("rules.") else state
    where[key.removeprefix("rules.")] = value
    with pytest.raises(ValueError) as err:
        Game.from_dict(state)
    assert len(str(err.value)) < 2000  # the value is shortened in the message


# -- each kind of unreachable state, refused by name ---------------------------------------------
def _state(rules=STANDARD, seed=4, steps=60) -> dict:
    game = Game(rules, seed)
    for i in range(steps):
        legal = game.legal_actions()
        game.step(legal[(i * 7919) % len(legal)])
        if game.is_over:
            raise AssertionError("the game ended early")
    return game.to_dict()


def _refused(state: dict, *words: str) -> str:
    with pytest.raises(ValueError) as err:
        Game.from_dict(state)
    for w in words:
        assert w in str(err.value)
    return str(err.value)


def test_a_state_at_max_turns_cannot_be_active():
    d = _state()
    d["rules"]["max_turns"] = d["turn"]
    _refused(d, "turn is", "max_turns", "is over")


def test_a_turn_past_max_turns_is_refused_whatever_the_phase():
    d = _state()
    d.update(turn=d["rules"]["max_turns"] + 1)
    _refused(d, "past max_turns")


def test_a_game_is_truncated_only_when_its_turn_reaches_max_turns():
    d = _state()
    d.update(phase="truncated")
    _refused(d, "truncated when its turn reaches max_turns")
    d["rules"]["max_turns"] = d["turn"]
    assert Game.from_dict(d).truncated


def test_a_state_whose_turn_reached_max_turn_moves_cannot_be_active():
    d = _state()
    d.update(turn_moves=5)
    d["rules"]["max_turn_moves"] = 5
    _refused(d, "turn_moves is 5", "max_turn_moves 5", "ends the game")


def test_turn_moves_past_max_turn_moves_or_not_a_count_are_refused():
    d = _state()
    for bad in (501, -1, 1.5, "3", True, None):
        d.update(turn_moves=bad)
        _refused(d, "turn_moves")
    d.update(turn_moves=10**400)
    assert len(_refused(d, "turn_moves is <an integer of")) < 200  # the value shortened


def test_a_game_is_truncated_by_the_move_limit_only_when_its_turn_moves_reach_it():
    d = _state()
    d.update(phase="truncated", turn_moves=4)
    d["rules"]["max_turn_moves"] = 5
    _refused(d, "turn_moves 4", "max_turn_moves 5, not before")
    d["rules"]["max_turn_moves"] = 4
    assert Game.from_dict(d).truncated


def test_a_game_that_ended_with_a_turn_counts_no_actions_of_the_next():
    d = _state()
    d.update(phase="truncated", turn_moves=3)
    d["rules"]["max_turns"] = d["turn"]
    _refused(d, "turn_moves is 3", "counts the actions from 0 again")


def test_a_state_written_before_turn_moves_existed_reads_it_as_zero():
    d = _state()
    del d["turn_moves"]
    assert Game.from_dict(d).turn_moves == 0


def test_a_full_round_of_stalled_turns_cannot_leave_the_game_active():
    d = _state()
    d.update(stall_turns=2)
    _refused(d, "stall_turns is 2", "nothing to draw end the game")


def test_stalled_turns_count_only_turns_with_nothing_to_draw():
    d = _state()
    d.update(stall_turns=1, played_this_turn=False)
    _refused(d, "stall_turns is 1", "draw_pile and set_aside hold")


def test_a_drawn_game_has_nothing_left_to_draw():
    d = _state()
    d.update(phase="drawn", winner="draw", stall_turns=2, played_this_turn=False)
    _refused(d, "a game is drawn only when nothing is left to draw")


def test_a_drawn_game_follows_a_full_round_of_stalled_turns():
    d = _state()
    d.update(phase="drawn", winner="draw", stall_turns=1)
    _refused(d, "stall_turns is 1", "a game is drawn only after 2 turns")


def _stalled(outcome: str, stocks=([11], [9, 8])) -> dict:
    """A game that the round just played with nothing to draw and no card played ended."""
    rules = Rules.preset("standard", 2, copies_per_rank=1, wilds=0, stock_size=2,
                         stall_outcome=outcome)
    game = position(rules, building=[[1, 2, 3, 4], [], [], []],
                    players=[{"hand": [12], "stock": list(stocks[0]),
                              "discard_piles": [[6, 7], [], [], []]},
                             {"hand": [10], "stock": list(stocks[1]),
                              "discard_piles": [[5], [], [], []]}])
    game.step(game.layout.discard(12, 1))
    game.step(game.layout.discard(10, 1))
    assert game.is_over
    return game.to_dict()


def test_a_stalled_game_won_with_stock_cards_left_loads_under_fewest_stock():
    d = _stalled("fewest_stock")
    game = Game.from_dict(d)
    assert game.phase == "won" and game.winners == (0,) and game.to_dict() == d


def test_a_game_won_with_stock_cards_left_is_refused_under_the_draw_reading():
    d = _stalled("fewest_stock")
    d["rules"]["stall_outcome"] = "draw"
    _refused(d, "winner 0 still has stock cards", "only stall_outcome 'fewest_stock' allows")


def test_a_stalled_game_goes_to_the_team_with_the_fewest_stock_cards_and_no_other():
    d = _stalled("fewest_stock")
    d["winner"] = 1
    _refused(d, "winner 1 still has stock cards", "goes to seats [0], with the fewest")


def test_under_fewest_stock_a_drawn_game_is_a_tie_for_the_fewest_stock_cards():
    d = _stalled("draw")
    d["rules"]["stall_outcome"] = "fewest_stock"
    _refused(d, "seats [0] have the fewest stock cards", "not drawn")


def test_a_stalled_game_won_with_stock_cards_left_follows_a_full_round_of_stalled_turns():
    d = _stalled("fewest_stock")
    d["stall_turns"] = 1
    _refused(d, "stall_turns is 1", "won with stock cards left only after 2 turns")


def _followup() -> tuple[Game, dict]:
    """Masters: player 0 has paid 4 coins as the 4 on building pile 0 and must follow it."""
    game = Game.from_dict(position(MASTERS, building=[[1, 2, 3]], players=[
        {"hand": [5, 9, 9, 9, 9], "stock": [7]}, {"stock": [6]}]).to_dict())
    coin = next(a for a in game.legal_actions() if game.describe(a).startswith("pay 4 coins"))
    game.step(coin)
    return game, game.to_dict()


def test_a_coin_play_cannot_be_pending_without_a_card_to_follow_it():
    game, d = _followup()
    assert game.phase == Phase.COIN_FOLLOWUP and Game.from_dict(d).legal_actions()
    # Swap the 5 in hand for a 10 from the draw pile: nothing follows the coin play.
    hand, pile = d["players"][0]["hand"], d["draw_pile"]
    hand[hand.index(5)] = 10
    pile[pile.index(10)] = 5
    _refused(d, "pending: player 0 has no card to follow the coin play on building pile 0")


def test_a_coin_play_shows_only_on_the_pile_awaiting_its_follow_up():
    _, d = _followup()
    d.update(phase="play", pending=None)
    _refused(d, "building_piles[0] shows a coin play", "followed by a card at once")


def test_the_coins_beside_a_pile_cover_the_coin_plays_in_it():
    _, d = _followup()
    d["pile_coins"][0] -= 1
    d["coins"][1] += 1
    _refused(d, "pile_coins[0] is 3, but the coin plays in building_piles[0] paid 4")


def test_a_toll_is_due_only_for_the_tolled_card_just_played():
    d = Game.from_dict(position(MASTERS, building=[[1, 2, 3]], players=[
        {"hand": [9, 9, 9, 9, 9], "stock": [7]}, {"stock": [6]}]).to_dict()).to_dict()
    d.update(phase="toll", pending={"pile": 0, "toll": 1}, played_this_turn=True)
    _refused(d, "a toll of 1 is due for the card just played on building pile 0")


def test_tolls_and_coin_follow_ups_are_played_only_with_coins():
    d = _state()
    d.update(phase="toll", pending={"pile": 0, "toll": 1})
    _refused(d, "phase 'toll' needs coins")


def _won_partnership() -> dict:
    """Partnership: player 0 has just played seat 2's last stock card; seat 0's is gone too."""
    game = Game.from_dict(position(PARTNERSHIP, players=[
        {"hand": [9, 9, 10, 11, 12], "stock": []}, {"stock": [6]}, {"stock": [1]},
        {"stock": [7]}]).to_dict())
    stock = next(a for a in game.legal_actions()
                 if game.describe(a) == "player 2's stock 1 -> building pile 0")
    game.step(stock)
    assert game.winners == (0, 2)
    return game.to_dict()


def test_a_won_game_loads():
    assert Game.from_dict(_won_partnership()).winners == (0, 2)


def test_the_winner_has_an_empty_stock():
    d = Game.from_dict(position(STANDARD, building=[[1, 2, 3, 4, 5, 6]], players=[
        {"hand": [9], "stock": [7]}, {"stock": [4, 4]}]).to_dict()).to_dict()
    d.update(phase="won", winner=1, played_this_turn=True)
    _refused(d, "winner 1 still has stock cards")


def test_a_winning_team_has_every_partners_stock_empty():
    d = _won_partnership()
    # Move a card of the draw pile onto seat 2's stock: one of the two winners still has one.
    d["players"][2]["stock"].append(d["draw_pile"].pop())
    _refused(d, "winner [0, 2] still has stock cards")


def test_a_game_ends_when_the_first_team_runs_out_of_stock_cards():
    d = _won_partnership()
    for seat in (1, 3):
        d["draw_pile"] += d["players"][seat]["stock"]
        d["players"][seat]["stock"] = []
    _refused(d, "all have empty stocks", "the first team's stock runs out")


def test_a_won_game_was_won_by_a_card_played_this_turn_by_the_winning_team():
    d = _won_partnership()
    d["played_this_turn"] = False
    _refused(d, "played_this_turn is false")
    d = _won_partnership()
    d["current_player"] = 1
    _refused(d, "played by the winner's team, but current_player is 1")


def test_a_game_with_an_empty_stock_is_won():
    d = _won_partnership()
    d.update(phase="play", winner=None)
    _refused(d, "seats [0, 2] have empty stocks, so the game is won")


@pytest.mark.parametrize("field, value", [
    ("current_player", 1.0), ("current_player", True), ("current_player", "1"),
    ("first_player", 0.0), ("first_player", False), ("winner", [0.0, 2.0]),
    ("winner", [True, 2]), ("winner", ["0", "2"])])
def test_seats_are_integers_not_floats_bools_or_strings(field, value):
    d = _won_partnership() if field == "winner" else _state()
    d[field] = value
    _refused(d, field)


@pytest.mark.parametrize("teams", [[[0.0, 2], [1, 3]], [[False, 2], [True, 3]],
                                   [["0", "2"], ["1", "3"]], [[0, math.inf], [1, 3]],
                                   [[0, 2**200], [1, 3]], "0213", [[0, 2], 13]])
def test_teams_are_lists_of_integer_seats(teams):
    d = Game(PARTNERSHIP, 0).to_dict()
    d["rules"]["teams"] = teams
    _refused(d, "bad rules in state: teams must")


@pytest.mark.parametrize("path, value, words", [
    (("state", "state"), 1.5, "rng.state.state must be an integer"),
    (("state", "state"), 2**128, "rng.state.state must be an integer in 0..2**128-1"),
    (("state", "inc"), -1, "rng.state.inc must be an integer"),
    (("state", "inc"), 2, "rng.state.inc must be odd"),
    (("has_uint32",), 2, "rng.has_uint32 must be 0 or 1"),
    (("has_uint32",), True, "rng.has_uint32 must be 0 or 1"),
    (("uinteger",), 2**32, "rng.uinteger must be an integer in 0..2**32-1"),
    (("uinteger",), math.inf, "rng.uinteger"),
    (("bit_generator",), "MT19937", "rng.bit_generator must be 'PCG64'"),
    (("extra",), 0, "rng is not a PCG64 generator state"),
])
def test_the_generator_state_is_a_pcg64_state_with_every_value_in_range(path, value, words):
    d = _state()
    where = d["rng"]
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value
    _refused(d, words)


def test_scores_are_bounded():
    d = _state()
    d["scores"] = [10**10, 0]
    _refused(d, "scores must be a list of 2 integers in 0..1000000000 (MAX_SCORE)")


def test_a_state_with_no_legal_action_while_not_over_is_refused_even_past_the_checks(
        monkeypatch):
    import skipbo_env.state_io as state_io

    game, d = _followup()
    hand, pile = d["players"][0]["hand"], d["draw_pile"]
    hand[hand.index(5)] = 10
    pile[pile.index(10)] = 5
    monkeypatch.setattr(state_io, "_check_coin_step", lambda g, rules: None)
    _refused(d, "the state has no legal action for player 0")


def test_a_stalled_round_ending_on_the_turn_that_reaches_max_turns_wins_and_loads():
    from skipbo_env.envs.aec import env as aec_env
    from skipbo_env.vector import VectorEngine

    before, game = _stalled_at_the_limit()
    assert game.phase == Phase.WON and game.turn == game.rules.max_turns  # the round came first
    d = game.to_dict()
    assert Game.from_dict(d).to_dict() == d
    engine = VectorEngine.of(game.rules, num_games=1, autoreset=False)
    engine.reset(seed=0)
    engine.set_game(0, before)  # the batched engine reaches it too, and gives it back
    for action in (before.layout.discard(12, 1), before.layout.discard(10, 1)):
        engine.step(np.array([action]))
    reached = engine.game(0)
    assert reached.phase == Phase.WON and reached.turn == 2 and reached.winners == (0,)
    e = aec_env(variant="standard", num_players=2, copies_per_rank=1, wilds=0, stock_size=2,
                stall_outcome="fewest_stock", max_turns=2)
    e.reset(options={"state": d})
    assert all(e.terminations.values())


def test_a_game_won_on_the_turn_limit_otherwise_than_by_a_stalled_round_is_refused():
    _, game = _stalled_at_the_limit()
    d = game.to_dict()
    d["stall_turns"] = 1  # then the limit, not the round, ended it: truncated, not won
    _refused(d, "stall_turns is 1")
