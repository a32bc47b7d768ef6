"""Turn segments (skipbo_env/segments.py): the rules of what a segment is, one test per rule."""

from __future__ import annotations

import numpy as np
import pytest
from positions import expert_positions as positions
from positions import listable_positions
from positions import small_stocks as small

from skipbo_env import Game, Rules
from skipbo_env.actions import STOCK, ActionKind
from skipbo_env.players.registry import make_agent
from skipbo_env.rules import VARIANTS, allowed_players
from skipbo_env.segments import ENDINGS, SegmentEncoder, position_key, turn_segments

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]
LIMIT = 250  # segments at a position checked, at most (a Masters one can have a million)


@pytest.mark.parametrize("variant,players", CASES)
def test_each_segment_is_a_legal_sequence_that_reaches_its_position(variant, players):
    rules = small(variant, players)
    checked = 0
    for game in listable_positions(rules, LIMIT, every=5):
        p, checked = game.current_player, checked + 1
        for segment in turn_segments(game):
            g = game.clone()
            for i, action in enumerate(segment.actions):
                assert action in g.legal_actions()
                assert g.current_player == p and not g.is_over, "a segment goes on past its end"
                before = g.clone()
                g.step(action)
                last = i == len(segment.actions) - 1
                decoded = g.layout.decoded[action]
                ends = (g.is_over or g.current_player != p
                        or decoded.kind in (ActionKind.DISCARD, ActionKind.END_TURN,
                                            ActionKind.DECLINE_TOLL)
                        or (decoded.kind in (ActionKind.PLAY, ActionKind.BUY)
                            and decoded.source.kind == STOCK)
                        or (not rules.stacked and len(g.hands[p]) > len(before.hands[p])
                            - (decoded.kind is ActionKind.PLAY
                               and decoded.source.kind == "hand")))
                assert ends == last, f"{segment.actions}: step {i} ends the segment: {ends}"
            assert segment.ending in ENDINGS
    assert checked >= 3


@pytest.mark.parametrize("variant,players", CASES)
def test_equivalent_positions_count_once(variant, players):
    rules = small(variant, players)
    checked = 0
    for game in listable_positions(rules, LIMIT, every=7):
        keys = [position_key(s.view) for s in turn_segments(game)]
        assert len(keys) == len(set(keys))
        checked += 1
    assert checked >= 3


def _every_end(game: Game) -> set:
    """Every position key reachable at a segment's end, walking every sequence (no merging)."""
    from skipbo_env.segments import segment_ending, unseen_outcome

    p, out = game.current_player, set()
    stack = [game]
    while stack:
        pre = stack.pop()
        for action in pre.legal_actions():
            post = pre.clone()
            post.step(action)
            ending = segment_ending(pre, post, action, p)
            if ending is None:
                stack.append(post)
            else:
                out.add(position_key(unseen_outcome(pre, post, p, ending)))
    return out


@pytest.mark.parametrize("variant,players", [(v, allowed_players(v)[0]) for v in VARIANTS])
def test_merging_loses_no_position(variant, players):
    """Every position some action sequence reaches is a segment's (up to equivalence)."""
    rules = small(variant, players)
    checked = 0
    for game in listable_positions(rules, 300, games=1, every=9):
        segments = turn_segments(game)  # the exhaustive walk takes too long past 300
        assert {position_key(s.view) for s in segments} == _every_end(game)
        checked += 1
    assert checked > 3


@pytest.mark.parametrize("variant,players", CASES)
def test_a_segment_shows_nothing_of_the_hidden_outcome(variant, players):
    """Deal the hidden cards again (the draw order, stock cards below the tops, other hands):
    the segments, their action sequences and their observations are the same."""
    rules = small(variant, players)
    encoder = SegmentEncoder(rules)
    rng, checked = np.random.default_rng(5), 0
    for game in listable_positions(rules, LIMIT, every=6):
        segments = turn_segments(game)
        obs = encoder.encode(segments)
        for _ in range(2):
            other = Game.from_view(game.view(), rng)
            again = turn_segments(other)
            assert [s.actions for s in again] == [s.actions for s in segments]
            assert [s.ending for s in again] == [s.ending for s in segments]
            assert np.array_equal(encoder.encode(again), obs)
        checked += 1
    assert checked >= 3


def _ending_in(ending: str, games: int) -> list:
    """A few segments that end in `ending`, from games between `expert`s (stock 5)."""
    found = []
    for game in positions(Rules.preset("standard", 2, stock_size=5), games=games, every=1):
        found += [s for s in turn_segments(game) if s.ending == ending]
        if len(found) > 5:
            break
    assert found
    return found


def test_a_stock_top_that_turns_up_is_unknown():
    for segment in _ending_in("stock", games=1):
        view, p = segment.view, segment.view.seat
        if view.stock_sizes[p]:
            assert view.stock_tops[p] is None


def test_a_refilled_hand_shows_empty():
    for segment in _ending_in("refill", games=2):
        assert segment.view.hand == () and segment.view.hand_sizes[segment.view.seat] == 0


def test_a_segment_view_offers_no_action():
    game = Game(Rules.preset("standard", 2), seed=3)
    assert all(s.view.legal_actions == () for s in turn_segments(game))


def test_segments_of_a_game_over_are_none():
    game = Game(Rules.preset("standard", 2, stock_size=1), seed=0)
    agents = [make_agent("expert", seed=s) for s in range(2)]
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))
    assert turn_segments(game) == []


def test_turn_segments_refuses_what_is_not_a_game():
    with pytest.raises(TypeError, match="takes a skipbo_env.Game"):
        turn_segments(Game(Rules.preset("standard", 2)).view())  # type: ignore[arg-type]


def test_listing_segments_leaves_the_game_as_it_was():
    game = Game(Rules.preset("standard", 2), seed=4)
    before = game.to_dict()
    turn_segments(game)
    assert game.to_dict() == before


def test_the_aec_env_lists_the_segments_of_the_agent_to_act():
    import skipbo_env

    env = skipbo_env.raw_env("standard", 2)
    env.reset(seed=2)
    segments = env.turn_segments()
    assert [s.actions for s in segments] == [s.actions for s in turn_segments(env.game)]
    assert all(s.view.seat == env.possible_agents.index(env.agent_selection) for s in segments)


def test_the_gym_env_lists_the_learners_segments():
    from skipbo_env.envs.gym import SkipBoEnv

    env = SkipBoEnv("standard", 2, opponents="expert")
    env.reset(seed=3)
    segments = env.turn_segments()
    assert segments and segments[0].view.seat == env.game.current_player
    for action in segments[0].actions:  # each sequence steps in the env, move by move
        env.step(action)
