"""Turn segments: every distinct position the player to act can reach with its own moves before
the next chance event, each with one action sequence that reaches it (the reference statement,
over `engine.Game`; the batched engine's kernel is proven equal to it).

A Skip-Bo turn is deterministic until one of these, and a segment ends at the first of them:

- the turn ends (a discard, ending the turn, declining a toll) or the game ends;
- a stock top is taken (played, by the player or from a teammate's stock, or bought in Skip-Bo
  Masters): the card below turns up;
- the hand is refilled from the draw pile (the hand emptied, in refill mode).

A segment's resulting position is shown as the acting seat knew it before the chance resolved
(`Segment.view`): a stock top that turned up is unknown (``stock_tops[s] is None`` while
``stock_sizes[s] > 0``), a refilled hand is empty, and the next player's hand stacks (junior
games, where they are face up) are as they were before its draw. Nothing a segment shows
depends on the hidden cards or on what the engine drew (tests/test_segments.py re-deals them).

Positions that differ only in the order of the building piles or of one seat's discard piles
(or hand stacks) are equivalent: the rules treat those piles alike. Equivalent positions count
once, both where a segment ends and on the way there, which bounds the work (docs/segments.md).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace

import numpy as np

from .actions import HAND, STOCK, ActionKind
from .engine import Game
from .observation import ObservationEncoder
from .state import GameState
from .view import SeatView

__all__ = ["ENDINGS", "Segment", "SegmentEncoder", "position_key", "turn_segments"]

ENDINGS = ("turn_end", "game_end", "stock", "refill")
"""Why a segment ends: the turn ended, the game ended, a stock top was taken, the hand was
refilled from the draw pile."""

_TURN_ENDERS = (ActionKind.DISCARD, ActionKind.END_TURN, ActionKind.DECLINE_TOLL)


@dataclass(frozen=True)
class Segment:
    """One segment: the `actions` that reach it from the position it was listed for (legal
    one after the other), why it ends (`ending`, one of `ENDINGS`), and `view`, the acting
    seat's view of the resulting position with the chance outcome not yet seen (its
    `legal_actions` is empty: the next choice waits for the chance)."""

    actions: tuple[int, ...]
    ending: str
    view: SeatView


def segment_ending(pre: GameState, post: GameState, action: int, p: int) -> str | None:
    """Why the segment ends after `action` took `pre` to `post`, or None when it goes on.
    Mirror: vector.segments.segment_ending"""
    if post.is_over:
        return "game_end"
    decoded = pre.layout.decoded[action]
    if decoded.kind in _TURN_ENDERS or post.current_player != p:
        return "turn_end"
    if decoded.kind in (ActionKind.PLAY, ActionKind.BUY) and decoded.source.kind == STOCK:
        return "stock"
    if not pre.rules.stacked:
        took = decoded.kind is ActionKind.PLAY and decoded.source.kind == HAND
        if len(post.hands[p]) > len(pre.hands[p]) - took:
            return "refill"
    return None


def unseen_outcome(pre: GameState, post: Game, p: int, ending: str) -> SeatView:
    """Seat p's view of `post` with what the chance revealed taken out (module docstring).
    Mirror: vector.segments.unseen_outcome"""
    view = post.view(p)
    tops = list(view.stock_tops)
    for s, stock in enumerate(post.stocks):
        if stock and len(stock) < len(pre.stocks[s]):
            tops[s] = None  # the card that turned up is not seen yet
    changes: dict = {"stock_tops": tuple(tops), "legal_actions": ()}
    if ending == "refill":
        sizes = list(view.hand_sizes)
        sizes[p] = 0
        changes.update(hand=(), hand_sizes=tuple(sizes))
    elif ending == "turn_end" and pre.rules.stacked:
        q = post.current_player  # its turn began with a face-up card onto each stack
        stacks = list(view.stacks)
        stacks[q] = tuple(tuple(s) for s in pre.stacks[q])
        sizes = list(view.hand_sizes)
        sizes[q] = sum(map(len, pre.stacks[q]))
        changes.update(stacks=tuple(stacks), hand_sizes=tuple(sizes))
    return replace(view, **changes)


def _sorted_piles(piles) -> tuple:
    return tuple(sorted(tuple(pile) for pile in piles))


def _table_key(building, pile_coins, pending_pile, discards, stacks) -> tuple:
    """The piles up to the order of the building piles and of each seat's discard piles and
    hand stacks: a building pile goes with its coins and whether a coin step waits on it."""
    piles = sorted((tuple(cards), pile_coins[i], i == pending_pile)
                   for i, cards in enumerate(building))
    return (tuple(piles), tuple(_sorted_piles(d) for d in discards),
            tuple(_sorted_piles(h) for h in stacks))


def position_key(view: SeatView) -> tuple:
    """A key equal for two views exactly when they show equivalent positions: the same in
    everything but the order of the building piles and of each seat's discard piles and hand
    stacks (the own hand counts as a multiset).
    Mirror: vector.segments.position_hash"""
    return (_table_key(view.building_piles, view.pile_coins, view.pending_pile,
                       view.discard_piles, view.stacks),
            view.seat, view.current_player, view.turn, view.phase.value,
            tuple(sorted(view.hand)), view.hand_sizes, view.stock_tops, view.stock_sizes,
            view.draw_pile_size, tuple(sorted(view.set_aside)), view.scores, view.coins,
            view.pending_toll, view.played_this_turn, view.stall_turns)


def _game_key(game: Game) -> tuple:
    """`position_key` of a game on the way to a segment's end (nothing hidden has changed since
    the segment began, so the acting seat's knowledge is the state's)."""
    p = game.current_player
    return (_table_key(game.building, game.pile_coins, game.pending_pile, game.discards,
                       game.stacks),
            game.phase.value, tuple(sorted(game.hands[p])), tuple(map(len, game.stocks)),
            tuple(sorted(game.set_aside)), tuple(game.coins), game.pending_toll,
            game.played_this_turn)


def turn_segments(game: Game) -> list[Segment]:
    """Every segment of the player to act in `game` (module docstring), equivalent positions
    once, in the order a depth-first walk of the legal actions (each position's in increasing
    order) first reaches them, each with the action sequence it first reaches it by. `game` is
    not changed; an empty list when the game is over.
    Mirror: vector.segments.walk"""
    if not isinstance(game, Game):
        raise TypeError(f"turn_segments takes a skipbo_env.Game, got {type(game).__name__}")
    if game.is_over:
        return []
    p = game.current_player
    found: dict[tuple, Segment] = {}
    seen = {_game_key(game)}
    # The walk's path: each position on it, the actions that reach it, its untried actions.
    path: list[tuple[Game, tuple[int, ...], Iterator[int]]] = [
        (game, (), iter(game.legal_actions()))]
    while path:
        pre, actions, untried = path[-1]
        action = next(untried, None)
        if action is None:
            path.pop()
            continue
        post = pre.clone()
        post.step(action)
        reached = (*actions, action)
        ending = segment_ending(pre, post, action, p)
        if ending is None:
            key = _game_key(post)
            if key not in seen:
                seen.add(key)
                path.append((post, reached, iter(post.legal_actions())))
            continue
        view = unseen_outcome(pre, post, p, ending)
        found.setdefault(position_key(view), Segment(reached, ending, view))
    return list(found.values())


class TooManyPositions(RuntimeError):
    """A segment walk passed a lister's bound on positions (the batched kernel's
    `max_table_bits`); `games` are the games (rows) whose walk did."""

    def __init__(self, message: str, games: tuple[int, ...] = ()):
        super().__init__(message)
        self.games = tuple(int(g) for g in games)


def played_segment(game: Game, agent) -> Segment:
    """The segment `agent` (anything with ``act(view)``) plays from `game`: its moves, on a
    copy, until the segment ends, shown as `turn_segments` shows the segment it reaches."""
    g, p, actions = game.clone(), game.current_player, []
    while True:
        action = agent.act(g.view())
        pre = g.clone()
        g.step(action)
        actions.append(action)
        ending = segment_ending(pre, g, action, p)
        if ending is not None:
            return Segment(tuple(actions), ending, unseen_outcome(pre, g, p, ending))


class SegmentEncoder:
    """The observations of segments' resulting positions from the acting seat's view: the
    package's observation (`observation.ObservationEncoder`, docs/observation.md), in which a
    stock top not yet seen shows as no card beside its stock size."""

    def __init__(self, rules, pile_depth: int | None = None):
        self.encoder = (ObservationEncoder(rules) if pile_depth is None
                        else ObservationEncoder(rules, pile_depth))
        self.size = self.encoder.size

    def encode(self, segments: list[Segment]) -> np.ndarray:
        """float32 array (len(segments), size): one observation per segment."""
        out = np.empty((len(segments), self.size), dtype=np.float32)
        for i, segment in enumerate(segments):
            out[i] = self.encoder.encode_view(segment.view)
        return out
