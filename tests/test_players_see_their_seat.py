"""Players act on what their seat may see (docs/agents.md): every player, scripted, search,
trained policy and any player registered later, is given its seat's `SeatView` and nothing
else, and nothing it is given reaches another seat's hand, a stock card below the top or the
draw order."""

from __future__ import annotations

import gc
import types

import numpy as np
import pytest
from test_properties import hide_differently

from skipbo_env import VARIANTS, Game, GameState, Rules, SeatView, allowed_players
from skipbo_env.players.base import Agent
from skipbo_env.players.registry import SCRIPTED, SHIPPED, make_agent

ONE_OF_EACH = [(v, allowed_players(v)[-1] if v != "partnership" else 4) for v in VARIANTS]


def _positions(variant: str, players: int, seed: int, count: int):
    """`count` positions of a random game (stock 5), each with the seat to act."""
    game = Game(Rules.preset(variant, players, stock_size=5), seed)
    rng = np.random.default_rng(seed)
    out = []
    while not game.is_over and len(out) < count:
        out.append(game.clone())
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
    return out


def _hidden_lists(game: GameState, seat: int) -> list[list[int]]:
    """The lists that hold what `seat` cannot see: the draw pile, the other seats' refill
    hands and every stock (whose cards below the top are hidden)."""
    hidden = [game.draw_pile, *game.stocks]
    hidden += [game.hands[p] for p in range(game.rules.num_players) if p != seat]
    return hidden


def _reachable(root) -> list:
    """Every object reachable from `root` through the references objects hold, stopping at
    modules, classes and functions (code, not data: a function's globals are its module's)."""
    seen, stack, out = set(), [root], []
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (types.ModuleType, type, types.FunctionType,
                                               types.BuiltinFunctionType)):
            continue
        seen.add(id(obj))
        out.append(obj)
        stack.extend(gc.get_referents(obj))
    return out


def test_a_player_refuses_anything_but_a_seats_view():
    game = Game(Rules.preset("standard", 2), 0)
    for name in SCRIPTED:
        with pytest.raises(TypeError, match="acts on a seat's view"):
            make_agent(name).act(game)  # type: ignore[arg-type]


def test_a_player_registered_later_is_given_the_view_too():
    seen = []

    class Peeker(Agent):
        def choose(self, view):
            seen.append(view)
            return view.legal_actions[0]

    game = Game(Rules.preset("standard", 2), 0)
    Peeker().act(game.view())
    assert len(seen) == 1 and isinstance(seen[0], SeatView)
    with pytest.raises(TypeError):
        Peeker().act(game)  # type: ignore[arg-type]


@pytest.mark.parametrize("variant, players", ONE_OF_EACH)
def test_nothing_reachable_from_a_view_is_a_hidden_pile_the_game_or_its_generator(
        variant, players):
    for game in _positions(variant, players, seed=1, count=30):
        seat = game.current_player
        view = game.view(seat)
        reached = _reachable(view)
        ids = {id(obj) for obj in reached}
        assert not any(isinstance(obj, (GameState, np.random.Generator,
                                        np.random.BitGenerator)) for obj in reached)
        assert not ids & {id(pile) for pile in _hidden_lists(game, seat)}
        # What a view holds of a pile is the public part: sizes, never the hidden cards.
        assert view.draw_pile_size == len(game.draw_pile)
        assert view.stock_tops == tuple(s[-1] if s else None for s in game.stocks)


def test_the_reachability_check_finds_a_game_held_by_a_view():
    # The check above can fail: a view that kept a reference to its game is caught.
    game = Game(Rules.preset("standard", 2), 0)
    view = game.view()
    leaky = (view, {"game": game})
    assert any(isinstance(obj, GameState) for obj in _reachable(leaky))
    assert id(game.draw_pile) in {id(obj) for obj in _reachable(leaky)}


def _players() -> list[str]:
    return [*SCRIPTED, *SHIPPED[:2], f"lookahead:{SHIPPED[1]}", "value_short_2p",
            "lookahead:value_short_2p"]


@pytest.mark.parametrize("name", _players())
def test_every_player_chooses_alike_whatever_the_cards_its_seat_cannot_see(name):
    # The same view, the hidden cards dealt otherwise: the same move, so the player cannot
    # have read them. Shipped policies play their own games; scripted players every variant.
    trained = name not in SCRIPTED
    if trained and "value" not in name:
        pytest.importorskip("sb3_contrib")  # a policy's checkpoint
    # A checkpoint plays its own game.
    cases = [("short" if "short" in name else "standard", 2)] if trained else ONE_OF_EACH
    search = name == "lookahead" or name.startswith("lookahead:")
    rng = np.random.default_rng(0)
    for variant, players in cases:
        for game in _positions(variant, players, seed=2, count=4 if search else 25):
            seat = game.current_player
            other = hide_differently(game, seat, rng)
            assert other.view(seat) == game.view(seat)
            assert other.to_dict() != game.to_dict() or not game.draw_pile
            rollouts = {"rollouts": 8} if search else {}
            mine = make_agent(name, 5, **rollouts).act(game.view(seat))
            assert make_agent(name, 5, **rollouts).act(other.view(seat)) == mine
