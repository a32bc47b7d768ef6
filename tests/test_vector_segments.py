"""The batched engine's turn segments (skipbo_env/vector/segments.py) against the reference
(skipbo_env/segments.py): the same segments, sequences, endings and observations."""

from __future__ import annotations

import numpy as np
import pytest
from positions import expert_positions as positions
from positions import segment_count
from positions import small_stocks as small

from skipbo_env import Game, Rules
from skipbo_env.rules import VARIANTS, allowed_players
from skipbo_env.segments import ENDINGS, SegmentEncoder, turn_segments
from skipbo_env.vector import VectorEngine
from skipbo_env.vector.segments import TABLE_BITS, SegmentLister, TooManyPositions

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]
MAX_COMPARED = 3000  # segments at one position compared with the reference, at most


def assert_same(listing, g: int, segments, encoder) -> None:
    lo, hi = int(listing.offsets[g]), int(listing.offsets[g + 1])
    assert [listing.sequence(i) for i in range(lo, hi)] == [s.actions for s in segments]
    assert [ENDINGS[e] for e in listing.ending[lo:hi]] == [s.ending for s in segments]
    assert np.array_equal(listing.obs[lo:hi], encoder.encode(segments))


@pytest.mark.parametrize("variant,players", CASES)
def test_the_kernel_lists_the_reference_segments(variant, players):
    rules = small(variant, players)
    lister, encoder = SegmentLister.of(rules), SegmentEncoder(rules)
    checked = 0
    heavy = rules.coins > 0  # Masters: fewer, larger positions (coin plays and purchases)
    for game in positions(rules, games=1 if heavy else 2, every=9 if heavy else 4):
        if segment_count(rules, game) > MAX_COMPARED:
            continue  # the reference would take minutes (Masters with four players)
        listing = lister.list_game(game)
        assert_same(listing, 0, turn_segments(game), encoder)
        checked += 1
    assert checked > 3


@pytest.mark.parametrize("variant,players", [("standard", 2), ("partnership", 4)])
def test_the_kernel_lists_the_reference_segments_with_full_stocks(variant, players):
    """The presets' stocks (Masters is left to the small stocks above: at full stocks a
    decision can have a million segments, which the reference would take hours over)."""
    rules = Rules.preset(variant, players)
    lister, encoder = SegmentLister.of(rules), SegmentEncoder(rules)
    checked = 0
    for k, game in enumerate(positions(rules, games=1, every=3, seed=11)):
        if k > 40:
            break
        listing = lister.list_game(game)
        if listing.offsets[1] <= MAX_COMPARED:
            assert_same(listing, 0, turn_segments(game), encoder)
            checked += 1
    assert checked > 20


def test_a_batch_lists_each_game_as_alone():
    """Many games at once, on the engine's threads: each game's segments are its own."""
    rules = Rules.preset("standard", 2, stock_size=10)
    engine = VectorEngine.of(rules, num_games=300, autoreset=False)
    engine.reset(seed=3)
    for _ in range(37):
        engine.step(engine.scripted_actions("expert,expert"))
    want = np.ones(300, dtype=np.uint8)
    want[::7] = 0
    listing = SegmentLister(engine, capacity=50).list(want)  # grows past its capacity
    encoder = SegmentEncoder(rules)
    for g in range(0, 300, 13):
        game = engine.game(g)
        expected = turn_segments(game) if want[g] else []
        assert_same(listing, g, expected, encoder)


def test_observations_give_the_listed_segments_games_and_observations_in_another_order():
    rules = Rules.preset("short", 2)
    engine = VectorEngine.of(rules, num_games=64, autoreset=False)
    engine.reset(seed=4)
    for _ in range(23):
        engine.step(engine.scripted_actions("expert,expert"))
    want = np.arange(64) % 3 != 0
    lister = SegmentLister(engine)
    listing = lister.list(want)
    games, obs = lister.observations(want)
    listed = np.repeat(np.arange(64), np.diff(listing.offsets))
    assert len(games) == len(listed) and set(games.tolist()) == set(np.flatnonzero(want))
    for g in range(64):  # each game's observations, the same rows in another order
        mine = obs[games == g]
        theirs = listing.obs[listed == g]
        assert np.array_equal(mine[np.lexsort(mine.T)], theirs[np.lexsort(theirs.T)])


def test_a_game_over_has_no_segment():
    rules = Rules.preset("standard", 2, stock_size=1)
    game = Game(rules, seed=0)
    from skipbo_env.players.registry import make_agent

    agents = [make_agent("expert", seed=s) for s in range(2)]
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))
    listing = SegmentLister.of(rules).list_game(game)
    assert listing.offsets.tolist() == [0, 0]


def test_the_lister_refuses_what_is_not_an_engine():
    with pytest.raises(TypeError, match="VectorEngine"):
        SegmentLister(Game(Rules.preset("standard", 2)))  # type: ignore[arg-type]


def test_the_lister_refuses_a_want_of_another_shape_or_type():
    lister = SegmentLister(VectorEngine("standard", 2, num_games=3))
    lister.engine.reset(seed=0)
    with pytest.raises(ValueError, match="want must be 3 booleans"):
        lister.list(np.ones(4, dtype=bool))
    with pytest.raises(ValueError, match="want must be 3 booleans"):
        lister.list(np.full(3, 0.5))


def test_the_lister_refuses_a_capacity_past_its_bound():
    engine = VectorEngine("standard", 2, num_games=1)
    with pytest.raises(ValueError, match="capacity"):
        SegmentLister(engine, capacity=10**12)


def test_the_vector_env_lists_the_learners_segments_in_each_game():
    from skipbo_env.vector import SkipBoVectorEnv

    env = SkipBoVectorEnv("standard", 2, num_envs=4, opponents="expert", stock_size=10)
    env.reset(seed=1)
    listing = env.turn_segments()
    encoder = SegmentEncoder(env.rules)
    for i in range(4):
        assert_same(listing, i, turn_segments(env.game(i)), encoder)
    # the sequence of game 0's first segment is legal move by move in the env
    lo = int(listing.offsets[0])
    for action in listing.sequence(lo)[:1]:
        actions = env.action_masks().argmax(axis=1)
        actions[0] = action
        env.step(actions)


def test_a_game_left_out_of_a_later_listing_has_no_segment_there():
    """The lister's buffers are reused: what the last call found for a game is not listed
    again when the game is not wanted."""
    engine = VectorEngine("standard", 2, num_games=6)
    engine.reset(seed=4)
    lister = SegmentLister(engine)
    first = lister.list()
    want = np.zeros(6, dtype=bool)
    want[[1, 4]] = True
    second = lister.list(want)
    counts = np.diff(second.offsets)
    assert counts[[0, 2, 3, 5]].tolist() == [0, 0, 0, 0]
    for g in (1, 4):
        lo, hi = int(first.offsets[g]), int(first.offsets[g + 1])
        assert [first.sequence(i) for i in range(lo, hi)] == \
            [second.sequence(i) for i in range(int(second.offsets[g]),
                                                int(second.offsets[g + 1]))]


def test_a_walk_past_the_listers_bound_is_refused_by_name():
    """A Masters position of many segments, listed with the smallest table: refused, not cut."""
    rules = Rules.preset("masters", 4, stock_size=8)
    lister = SegmentLister(VectorEngine.of(rules, num_games=1, autoreset=False),
                           max_table_bits=TABLE_BITS)
    refused = 0
    for game in positions(rules, games=2, every=5):
        try:
            listing = lister.list_game(game)
        except TooManyPositions as e:
            assert "max_table_bits" in str(e)
            refused += 1
        else:
            assert listing.offsets[1] < 2**TABLE_BITS
    assert refused >= 1


def test_the_lister_refuses_a_table_bound_out_of_range():
    engine = VectorEngine("standard", 2, num_games=1)
    with pytest.raises(ValueError, match="max_table_bits"):
        SegmentLister(engine, max_table_bits=40)
