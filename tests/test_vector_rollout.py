"""The batched rollout teacher (skipbo_env/vector/rollout.py): expert's move unless another
legal move's rollout in the true game beats it by the margin. The reference engine and the
reference `expert` are its oracle: every rollout score is the score of the same rollout
played move by move on a reference `Game`."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from skipbo_env import Game, Phase
from skipbo_env.players.scripted import ExpertAgent
from skipbo_env.segments import segment_ending
from skipbo_env.spec import GameSpec
from skipbo_env.vector import VectorEngine
from skipbo_env.vector import bundles as K
from skipbo_env.vector.rollout import (
    redeal,
    rollout,
    rollout_labels,
    rollout_to_decision,
    rollout_to_turn,
    scratch_engine,
)
from skipbo_env.vector.scripted import BATCHED_PLAYERS

EXPERT = BATCHED_PLAYERS.index("expert")


def reference_score(game, action: int, win_bonus: float) -> float:
    """The rollout on the reference engine: `action`, then `expert` in every seat until the
    acting seat's next turn has ended or the game is over; that team's stock lead."""
    seat, agent = game.current_player, ExpertAgent(0)
    game.step(action)
    ends = 0 if game.current_player == seat else 1
    while ends < 2 and not game.is_over:
        before = game.current_player
        game.step(agent.act(game.view()))
        if before == seat and game.current_player != seat:
            ends += 1
    spec = GameSpec.of(game.rules)
    own_team = spec.team_of(seat)
    others = [sum(len(game.stocks[p]) for p in team) for team in spec.teams
              if tuple(team) != tuple(own_team)]
    lead = float(min(others) - game.team_stock_size(seat))
    if game.phase == Phase.WON:
        lead += win_bonus if seat in list(game.winners) else -win_bonus
    return lead


def positions(variant: str, players: int, games: int, moves: int, **rules) -> VectorEngine:
    """`games` games of expert against expert, `moves` moves in, each at a decision."""
    engine = VectorEngine(variant, players, num_games=games, **rules)
    engine.reset(seed=5)
    kinds = np.full((games, players), EXPERT, dtype=np.int64)
    for _ in range(moves):
        engine.step(engine.scripted_actions(kinds).copy())
    return engine


@pytest.mark.parametrize("variant,players,rules", [
    ("short", 2, {}), ("standard", 3, {"stock_size": 8}), ("partnership", 4, {"stock_size": 5}),
])
def test_every_rollout_scores_as_the_same_rollout_on_the_reference_engine(variant, players,
                                                                         rules):
    engine = positions(variant, players, 12, 23, **rules)
    scratch = scratch_engine(engine)
    seats = engine.state.scal[:, K.S.cur].astype(np.int64)
    out = np.empty(engine.num_games)
    compared = 0
    for j in range(6):
        actions = np.array([np.flatnonzero(m)[j] if m.sum() > j else -1 for m in engine.masks],
                           dtype=np.int64)
        for src, dst in zip(engine.state, scratch.state):
            dst[:] = src
        rollout(scratch.state, scratch.static, scratch.buffers, actions, seats, 10.0, out)
        for i in np.flatnonzero(actions >= 0):
            assert out[i] == reference_score(engine.game(i), int(actions[i]), 10.0)
            compared += 1
    assert compared > 30


def reference_to_turn(game, action: int) -> Game:
    """`action`, then `expert` in every seat until the acting seat's next turn would start
    (its hand drawn) or the game is over."""
    seat, agent = game.current_player, ExpertAgent(0)
    game.step(action)
    ends = 0 if game.current_player == seat else 1
    while not game.is_over and not (ends == 1 and game.current_player == seat):
        before = game.current_player
        game.step(agent.act(game.view()))
        if before == seat and game.current_player != seat:
            ends += 1
    return game


@pytest.mark.parametrize("variant,players,rules", [
    ("short", 2, {}), ("standard", 3, {"stock_size": 8}), ("partnership", 4, {"stock_size": 5}),
    ("masters", 2, {"stock_size": 6}),
])
def test_a_rollout_to_the_next_turn_stops_where_the_reference_game_starts_that_turn(
        variant, players, rules):
    engine = positions(variant, players, 12, 23, **rules)
    scratch = scratch_engine(engine)
    seats = engine.state.scal[:, K.S.cur].astype(np.int64)
    out = np.empty(engine.num_games)
    stopped = 0
    for j in range(6):
        actions = np.array([np.flatnonzero(m)[j] if m.sum() > j else -1 for m in engine.masks],
                           dtype=np.int64)
        for src, dst in zip(engine.state, scratch.state):
            dst[:] = src
        rollout_to_turn(scratch.state, scratch.static, scratch.buffers, actions, seats, 10.0,
                        out)
        assert (out[actions < 0] == -np.inf).all()
        for i in np.flatnonzero(actions >= 0):
            game = reference_to_turn(engine.game(i), int(actions[i]))
            assert scratch.state_dict(i) == game.to_dict()  # the same position, cards and all
            if game.is_over:
                assert out[i] == reference_score(engine.game(i), int(actions[i]), 10.0)
            else:
                assert np.isnan(out[i]) and game.current_player == seats[i]
                stopped += 1
    assert stopped > 30


def reference_to_decision(game, action: int) -> Game:
    """`action`; then, unless the acting seat is to act again in the same turn (or the game
    is over), `reference_to_turn`'s continuation."""
    seat = game.current_player
    probe = game.clone()
    probe.step(action)
    if probe.is_over or probe.current_player == seat:
        return probe
    return reference_to_turn(game, action)


@pytest.mark.parametrize("variant,players,rules", [
    ("short", 2, {}), ("standard", 3, {"stock_size": 8}), ("partnership", 4, {"stock_size": 5}),
    ("masters", 2, {"stock_size": 6}),
])
def test_a_rollout_to_the_next_decision_stops_where_the_seat_acts_again_or_its_next_turn_starts(
        variant, players, rules):
    engine = positions(variant, players, 12, 23, **rules)
    scratch = scratch_engine(engine)
    seats = engine.state.scal[:, K.S.cur].astype(np.int64)
    out = np.empty(engine.num_games)
    again = later = 0
    for j in (0, 1, 2, -1, -2):
        actions = np.array([np.flatnonzero(m)[j] if m.sum() > abs(j) else -1
                            for m in engine.masks], dtype=np.int64)
        for src, dst in zip(engine.state, scratch.state):
            dst[:] = src
        rollout_to_decision(scratch.state, scratch.static, scratch.buffers, actions, seats,
                            10.0, out)
        assert (out[actions < 0] == -np.inf).all()
        for i in np.flatnonzero(actions >= 0):
            game = reference_to_decision(engine.game(i), int(actions[i]))
            assert scratch.state_dict(i) == game.to_dict()  # the same position, cards and all
            if game.is_over:
                assert out[i] == reference_score(engine.game(i), int(actions[i]), 10.0)
                continue
            assert np.isnan(out[i]) and game.current_player == seats[i]
            if game.turn == engine.game(i).turn:
                again += 1
            else:
                later += 1
    assert again > 10 and later > 10  # both stops are met


def segment_ends(engine: VectorEngine) -> list[list[tuple[int, str]]]:
    """For each game, its legal moves that end a segment, each with why (the reference's
    `segment_ending`): the moves a value training's labels start from."""
    ends = []
    for i in range(engine.num_games):
        game, found = engine.game(i), []
        for a in np.flatnonzero(engine.masks[i]):
            post = game.clone()
            post.step(int(a))
            why = segment_ending(game, post, int(a), game.current_player)
            if why is not None:
                found.append((int(a), why))
        ends.append(sorted(found, key=lambda e: e[1] == "turn_end"))  # the chance ends first
    return ends


def test_a_rollout_to_the_next_decision_stops_as_the_reference_does_after_every_segment_end():
    """Stock plays, refills, turn ends and game ends, on every variant family (the moves a
    segment ends with; a game end is met at stock 1)."""
    seen: Counter = Counter()
    for variant, players, moves, rules in [
            ("short", 2, 23, {}), ("standard", 3, 23, {"stock_size": 8}),
            ("partnership", 4, 23, {"stock_size": 5}), ("masters", 2, 23, {"stock_size": 6}),
            ("junior", 2, 23, {}), ("short", 2, 0, {"stock_size": 1})]:
        engine = positions(variant, players, 32, moves, **rules)
        scratch = scratch_engine(engine)
        seats = engine.state.scal[:, K.S.cur].astype(np.int64)
        out = np.empty(engine.num_games)
        ends = segment_ends(engine)
        for j in range(3):
            actions = np.array([e[j][0] if len(e) > j else -1 for e in ends], dtype=np.int64)
            for src, dst in zip(engine.state, scratch.state):
                dst[:] = src
            rollout_to_decision(scratch.state, scratch.static, scratch.buffers, actions, seats,
                                10.0, out)
            for i in np.flatnonzero(actions >= 0):
                game = reference_to_decision(engine.game(i), int(actions[i]))
                assert scratch.state_dict(i) == game.to_dict()
                why = ends[i][j][1]
                assert game.is_over or why != "game_end"
                if game.is_over:  # by the move, or by another seat before the next turn
                    assert out[i] == reference_score(engine.game(i), int(actions[i]), 10.0)
                else:
                    assert np.isnan(out[i]) and game.current_player == seats[i]
                    assert (game.turn == engine.game(i).turn) == (why != "turn_end")
                seen[why] += 1
    assert seen["stock"] >= 5 and seen["refill"] >= 1 and seen["game_end"] >= 2
    assert seen["turn_end"] >= 50


def test_a_label_is_experts_move_unless_another_beats_it_by_more_than_the_margin():
    engine = positions("standard", 2, 64, 37, stock_size=12)
    expert = engine.scripted_actions(np.full((64, 2), EXPERT, dtype=np.int64)).copy()
    labels = rollout_labels(engine, expert, margin=1.0)
    assert engine.masks[np.arange(64), labels].all()  # every label is legal
    changed = np.flatnonzero(labels != expert)
    assert changed.size  # the rollouts find better moves somewhere
    for i in changed:
        assert (reference_score(engine.game(i), int(labels[i]), 10.0)
                > reference_score(engine.game(i), int(expert[i]), 10.0) + 1.0)
    assert np.array_equal(rollout_labels(engine, expert, margin=1000.0), expert)


def test_experts_plays_from_its_stock_are_kept():
    engine = positions("short", 2, 64, 11)
    expert = engine.scripted_actions(np.full((64, 2), EXPERT, dtype=np.int64)).copy()
    act = engine.static.act
    stock = (act[expert, K.A.kind] == K.K_PLAY) & (act[expert, K.A.src] == K.SRC_STOCK)
    assert stock.any()
    labels = rollout_labels(engine, expert, margin=0.0)
    assert np.array_equal(labels[stock], expert[stock])


def test_labelling_leaves_the_games_as_they_were():
    engine = positions("short", 2, 16, 9)
    before = [a.copy() for a in engine.state]
    expert = engine.scripted_actions(np.full((16, 2), EXPERT, dtype=np.int64)).copy()
    rollout_labels(engine, expert)
    assert all(np.array_equal(a, b) for a, b in zip(before, engine.state))


def redealt(engine, keys, seats=None) -> VectorEngine:
    """A copy of `engine` whose games have the cards hidden from their seat to act dealt
    afresh by `keys` (one per game), observed again."""
    copy = scratch_engine(engine)
    for src, dst in zip(engine.state, copy.state):
        dst[:] = src
    copy.buffers.cache[:] = engine.buffers.cache  # the public piles' encodings (kept clean)
    seats = engine.state.scal[:, K.S.cur].astype(np.int64) if seats is None else seats
    redeal(copy.state, copy.static, copy.buffers, seats, np.asarray(keys, dtype=np.uint64))
    copy.observe_all()
    copy._ready = True
    return copy


def hidden_cards(engine, i: int) -> list:
    """The cards of game i its seat to act cannot see, pile by pile, in order."""
    game, seat = engine.game(i), int(engine.seats[i])
    hands = [] if game.rules.stacked else [h for p, h in enumerate(game.hands) if p != seat]
    return [list(game.draw_pile), *(s[:-1] for s in game.stocks), *hands]


@pytest.mark.parametrize("variant,players,rules", [
    ("standard", 2, {"stock_size": 12}), ("standard", 3, {"stock_size": 8}),
    ("partnership", 4, {"stock_size": 5}), ("masters", 2, {"stock_size": 10}),
    ("junior", 2, {}),
])
def test_a_redeal_changes_only_the_cards_the_seat_to_act_cannot_see(variant, players, rules):
    engine = positions(variant, players, 24, 17, **rules)
    copy = redealt(engine, np.arange(1, 25))
    # The seat sees the same game: the same observation and the same legal actions ...
    assert np.array_equal(copy.obs, engine.obs)
    assert np.array_equal(copy.masks, engine.masks)
    assert np.array_equal(copy.state.lens, engine.state.lens)
    moved = 0
    for i in range(24):
        before, after = engine.game(i), copy.game(i)
        # ... every pile holds as many cards, the deck is the same cards ...
        assert sorted(before.card_counts()) == sorted(after.card_counts())
        assert before.view(int(engine.seats[i])) == after.view(int(engine.seats[i]))
        # ... and only the hidden ones move.
        h0, h1 = hidden_cards(engine, i), hidden_cards(copy, i)
        assert sorted(c for pile in h0 for c in pile) == sorted(c for pile in h1 for c in pile)
        moved += h0 != h1
    assert moved > 12  # a fresh deal, not the old one


def sampled(engine, seed: int) -> VectorEngine:
    """A copy of `engine` whose every game is another the seat to act cannot tell from it:
    dealt by the reference engine's `Game.from_view` (the oracle of what a seat sees)."""
    copy = scratch_engine(engine)
    for src, dst in zip(engine.state, copy.state):
        dst[:] = src
    rng = np.random.default_rng(seed)
    for i in range(engine.num_games):
        copy.set_game(i, Game.from_view(engine.game(i).view(int(engine.seats[i])), rng))
    return copy


VARIANTS = [("standard", 2, {"stock_size": 12}), ("standard", 3, {"stock_size": 8}),
            ("partnership", 4, {"stock_size": 5}), ("masters", 2, {"stock_size": 10}),
            ("junior", 2, {})]


@pytest.mark.parametrize("variant,players,rules", VARIANTS)
def test_a_redeal_depends_only_on_what_the_seat_sees_and_the_key(variant, players, rules):
    engine = positions(variant, players, 24, 21, **rules)
    other = sampled(engine, 3)  # the same views, other hidden cards
    assert any(hidden_cards(engine, i) != hidden_cards(other, i) for i in range(24))
    a, b = redealt(engine, np.arange(7, 31)), redealt(other, np.arange(7, 31))
    for x, y in zip(a.state, b.state):
        assert np.array_equal(x, y)


def test_a_redeal_skips_the_games_whose_seat_is_negative():
    engine = positions("short", 2, 8, 5)
    seats = np.where(np.arange(8) % 2 == 0, engine.seats, -1).astype(np.int64)
    copy = redealt(engine, np.arange(1, 9), seats)
    for i in range(1, 8, 2):
        assert hidden_cards(copy, i) == hidden_cards(engine, i)
        assert np.array_equal(copy.state.rng[i], engine.state.rng[i])


@pytest.mark.parametrize("variant,players,rules", VARIANTS)
def test_determinised_labels_depend_only_on_what_the_seat_sees(variant, players, rules):
    engine = positions(variant, players, 48, 29, **rules)
    expert = engine.scripted_actions(np.full((48, players), EXPERT, dtype=np.int64)).copy()
    other = sampled(engine, 11)
    labels = rollout_labels(engine, expert, deals=3, seed=4, margin=0.5)
    assert np.array_equal(labels, rollout_labels(other, expert, deals=3, seed=4, margin=0.5))
    assert engine.masks[np.arange(48), labels].all()


def test_the_clairvoyant_teacher_by_contrast_reads_the_hidden_cards():
    engine = positions("standard", 2, 48, 29, stock_size=12)
    expert = engine.scripted_actions(np.full((48, 2), EXPERT, dtype=np.int64)).copy()
    clairvoyant = [rollout_labels(e, expert, margin=0.5) for e in (engine, sampled(engine, 11))]
    assert not np.array_equal(*clairvoyant)


def test_rollout_labels_refuse_a_negative_or_fractional_number_of_deals():
    engine = positions("short", 2, 4, 3)
    expert = engine.scripted_actions(np.full((4, 2), EXPERT, dtype=np.int64)).copy()
    for deals in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="deals must be a non-negative integer"):
            rollout_labels(engine, expert, deals=deals)


def test_a_determinised_label_beats_experts_move_by_the_margin_on_average_over_the_deals():
    engine = positions("standard", 2, 32, 37, stock_size=12)
    expert = engine.scripted_actions(np.full((32, 2), EXPERT, dtype=np.int64)).copy()
    labels = rollout_labels(engine, expert, deals=4, seed=9, margin=1.0)
    changed = np.flatnonzero(labels != expert)
    assert changed.size
    # The same deals, rebuilt: the keys rollout_labels draws from its seed, deal by deal.
    gen = np.random.default_rng(9)
    keys = [gen.integers(1, 2 ** 63, size=32, dtype=np.int64).astype(np.uint64)
            for _ in range(4)]
    for i in changed:
        gains = []
        for k in keys:
            deal = redealt(engine, k).game(i)
            gains.append(reference_score(deal.clone(), int(labels[i]), 10.0)
                         - reference_score(deal, int(expert[i]), 10.0))
        assert np.mean(gains) > 1.0
    # Where the label stayed expert's, no legal move's mean gain beats it by the margin.
    act = engine.static.act
    stock = (act[expert, K.A.kind] == K.K_PLAY) & (act[expert, K.A.src] == K.SRC_STOCK)
    kept = [i for i in range(32) if labels[i] == expert[i] and not stock[i]
            and engine.masks[i].sum() > 1][:4]
    assert kept
    for i in kept:
        deals = [redealt(engine, k).game(i) for k in keys]
        for a in np.flatnonzero(engine.masks[i]):
            gain = np.mean([reference_score(d.clone(), int(a), 10.0)
                            - reference_score(d.clone(), int(expert[i]), 10.0) for d in deals])
            assert gain <= 1.0
    assert np.array_equal(rollout_labels(engine, expert, deals=4, seed=9, margin=1000.0),
                          expert)
