"""Set-up positions for rule tests: name the cards that matter, the rest go to the draw pile.

Every position is a `BatchedCheckedGame`: each action a rule test takes in it is also taken
by the batched engine (skipbo_env.vector) from the same position, which must show the same
legal actions and observation before it and reach the same state after it, and each list of
legal actions a test reads through `described` is checked against the batched engine's. So
the rule tests are differential tests of the batched engine too.
"""

from __future__ import annotations

import copy

import numpy as np

from skipbo_env import Game, ObservationEncoder, Rules
from skipbo_env.players.registry import make_agent

_ENGINES: dict = {}
STEPS_CHECKED = [0]  # actions checked against the batched engine in this test session


def _engine(rules: Rules):
    """A one-game batched engine of `rules` (kept per rules set), without autoreset."""
    engine = _ENGINES.get(rules)
    if engine is None:
        from skipbo_env.vector import VectorEngine

        overrides = {k: v for k, v in rules.to_dict().items() if k not in ("variant",
                                                                              "num_players")}
        engine = _ENGINES[rules] = VectorEngine(rules.variant, rules.num_players, num_games=1,
                                                autoreset=False, **overrides)
    return engine


class BatchedCheckedGame(Game):
    """A reference game whose every step is checked against the batched engine."""

    def check_batched(self, where: str = ""):
        """Load this position into the batched engine, which must hold the same state and,
        while the game is on, offer the same legal actions and observation. The engine."""
        engine = _engine(self.rules)
        engine.set_game(0, self)
        where = where or repr(self)
        assert engine.state_dict(0) == self.to_dict(), f"the batched engine loads {where}"
        if not self.is_over:
            assert np.array_equal(engine.masks[0], self.action_mask()), f"mask, {where}"
            assert np.array_equal(engine.obs[0], ObservationEncoder(self.rules).encode(
                self, self.current_player)), f"observation, {where}"
        return engine

    def step(self, action: int) -> None:
        where = f"{self!r}, action {action}"
        engine = self.check_batched(where)
        legal = not self.is_over and isinstance(action, (int, np.integer)) \
            and not isinstance(action, bool) and action in self.legal_actions()
        super().step(action)  # raises for an illegal action, as before
        assert legal
        engine.step(np.array([action], dtype=np.int64))
        assert engine.state_dict(0) == self.to_dict(), f"state after {where}"
        if self.is_over:
            assert np.array_equal(engine.rewards[0], np.array(self.returns(), np.float32))
        STEPS_CHECKED[0] += 1


def toll(rank: int, coins: int, rules: Rules) -> int:
    """The id of a card of `rank` that carries a toll of `coins` (Skip-Bo Masters)."""
    return rank + (rules.max_rank + 1) * coins


def position(rules: Rules, *, current_player: int = 0, building=None, players=None,
             draw_pile=None, set_aside=(), seed: int = 0, phase: str = "play",
             played_this_turn: bool = False, stall_turns: int = 0, turn: int = 0,
             coins=None, pile_coins=None, pending=None) -> Game:
    """A game in the given position. Unnamed parts start empty; every card not placed goes on
    the draw pile (in `draw_pile` order if given, with the rest beneath it), so the card total
    always matches the deck. `players` is a list of dicts with optional keys stock, hand,
    discard_piles. Cards are ids (see `toll`); -1 in a building pile is a coin play's place."""
    base = Game(rules, seed).to_dict()
    n = rules.num_players
    state = copy.deepcopy(base)
    state["building_piles"] = [list(p) for p in (building or [[]] * rules.building_piles)]
    missing = rules.building_piles - len(state["building_piles"])
    state["building_piles"] += [[] for _ in range(missing)]
    given = list(players or [])
    given += [{} for _ in range(n - len(given))]
    empty_hand = [[] for _ in range(rules.hand_size)] if rules.stacked else []
    state["players"] = [
        {"stock": list(pl.get("stock", [])),
         "hand": copy.deepcopy(pl.get("hand", empty_hand)),
         "discard_piles": copy.deepcopy(pl.get("discard_piles",
                                               [[] for _ in range(rules.discard_piles)]))}
        for pl in given]
    state["set_aside"] = list(set_aside)
    piles = [state["set_aside"], *state["building_piles"]]
    for pl in state["players"]:
        piles.append(pl["stock"])
        piles.extend(pl["discard_piles"])
        piles.extend(pl["hand"] if rules.stacked else [pl["hand"]])
    if draw_pile is not None:
        piles.append(list(draw_pile))
    placed = [0] * rules.num_card_ids
    for pile in piles:
        for c in pile:
            if c >= 0:
                placed[c] += 1
    rest = []
    for rank, count in enumerate(rules.deck_counts()):
        if placed[rank] > count:
            raise ValueError(f"position uses {placed[rank]} cards of rank {rank}; the deck has "
                             f"{count}")
        rest += [rank] * (count - placed[rank])
    # The draw pile's last card is drawn next: the named draw order goes on top.
    state["draw_pile"] = rest + list(draw_pile or [])
    state.update(current_player=current_player, phase=phase, winner=None, turn=turn,
                 played_this_turn=played_this_turn, stall_turns=stall_turns, pending=pending)
    if rules.coins:
        n, b = rules.num_players, rules.building_piles
        state["coins"] = list(coins) if coins is not None else [rules.coins_per_player] * n
        state["pile_coins"] = list(pile_coins) if pile_coins is not None else [0] * b
        _write_ids(state, rules)
    return BatchedCheckedGame.from_dict(state)


def coin_gap_position(gap: int) -> Game:
    """Skip-Bo Masters past the presets (16 numbers, 30 coins each): the player to move has
    the stock top `gap + 1` on a pile showing `gap - 1`, and no card anywhere it could play or
    buy as the `gap`: only coins can fill it."""
    rules = Rules.preset("masters", 2, max_rank=16, coins_per_player=30)
    return position(rules, building=[list(range(1, gap))],
                    players=[{"hand": [1, 2, 3, 4, 5], "stock": [2, gap + 1]},
                             {"stock": [7, 7]}])

def _write_ids(state: dict, rules: Rules) -> None:
    """Write card ids as the state does: [rank, toll] for a card with a toll, "coin" for a
    coin play's place."""
    r = rules.max_rank + 1

    def out(cards):
        return [c if 0 <= c < r else "coin" if c == -1 else [c % r, c // r] for c in cards]

    for key in ("draw_pile", "set_aside"):
        state[key] = out(state[key])
    state["building_piles"] = [out(p) for p in state["building_piles"]]
    for pl in state["players"]:
        pl["stock"], pl["hand"] = out(pl["stock"]), out(pl["hand"])
        pl["discard_piles"] = [out(p) for p in pl["discard_piles"]]


def play(game: Game, description: str) -> None:
    """Take the legal action whose description is `description` (fails if there is none)."""
    for action in game.legal_actions():
        if game.describe(action) == description:
            game.step(action)
            return
    legal = [game.describe(a) for a in game.legal_actions()]
    raise AssertionError(f"no legal action {description!r}; legal: {legal}")


def described(game: Game) -> list[str]:
    """Descriptions of the legal actions (in a set-up position, the batched engine must offer
    the same ones)."""
    if isinstance(game, BatchedCheckedGame):
        game.check_batched()
    return [game.describe(a) for a in game.legal_actions()]


def expert_positions(rules: Rules, games: int = 2, every: int = 3, seed: int = 0):
    """Games between `expert`s (short stocks: they end soon), every `every`-th decision."""
    for k in range(games):
        game = Game(rules, seed=seed + k)
        agents = [make_agent("expert", seed=s, rules=rules) for s in range(rules.num_players)]
        i = 0
        while not game.is_over:
            if i % every == 0:
                yield game
            game.step(agents[game.current_player].act(game.view()))
            i += 1


def small_stocks(variant: str, players: int) -> Rules:
    """The preset with stocks of at most 8 cards."""
    return Rules.preset(variant, players, stock_size=min(8, Rules.preset(variant,
                                                                         players).stock_size))


def listable_positions(rules: Rules, limit: int, games: int = 2, every: int = 3,
                       seed: int = 0):
    """`expert_positions` with at most `limit` turn segments (counted by the batched kernel,
    proven equal to the reference in tests/test_vector_segments.py): the reference walks these
    in well under a second, where a Masters position can have a million segments (the
    kernel gives up past 2**15 positions walked)."""
    for game in expert_positions(rules, games=games, every=every, seed=seed):
        if segment_count(rules, game) <= limit:
            yield game


_listers: dict = {}


def segment_count(rules: Rules, game: Game) -> float:
    """The number of `game`'s turn segments (the kernel's count; inf past 2**15 positions)."""
    from skipbo_env.vector import VectorEngine
    from skipbo_env.vector.segments import TABLE_BITS, SegmentLister, TooManyPositions

    lister = _listers.get(rules)
    if lister is None:
        engine = VectorEngine.of(rules, num_games=1, autoreset=False)
        lister = _listers[rules] = SegmentLister(engine, max_table_bits=TABLE_BITS)
    try:
        return int(lister.list_game(game).offsets[1])
    except TooManyPositions:
        return float("inf")
