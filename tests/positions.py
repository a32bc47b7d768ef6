"""Set-up positions for rule tests: name the cards that matter, the rest go to the draw pile."""

from __future__ import annotations

import copy

from skipbo_env import Game, Rules


def position(rules: Rules, *, current_player: int = 0, building=None, players=None,
             draw_pile=None, set_aside=(), seed: int = 0, phase: str = "play",
             played_this_turn: bool = False, stall_turns: int = 0, turn: int = 0) -> Game:
    """A game in the given position. Unnamed parts start empty; every card not placed goes on
    the draw pile (in `draw_pile` order if given, with the rest beneath it), so the card total
    always matches the deck. `players` is a list of dicts with optional keys stock, hand,
    discard_piles."""
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
    placed = [0] * (rules.max_rank + 1)
    piles = [state["set_aside"], *state["building_piles"]]
    for pl in state["players"]:
        piles.append(pl["stock"])
        piles.extend(pl["discard_piles"])
        piles.extend(pl["hand"] if rules.stacked else [pl["hand"]])
    if draw_pile is not None:
        piles.append(list(draw_pile))
    for pile in piles:
        for c in pile:
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
                 played_this_turn=played_this_turn, stall_turns=stall_turns)
    return Game.from_dict(state)


def play(game: Game, description: str) -> None:
    """Take the legal action whose description is `description` (fails if there is none)."""
    for action in game.legal_actions():
        if game.describe(action) == description:
            game.step(action)
            return
    legal = [game.describe(a) for a in game.legal_actions()]
    raise AssertionError(f"no legal action {description!r}; legal: {legal}")


def described(game: Game) -> list[str]:
    """Descriptions of the legal actions."""
    return [game.describe(a) for a in game.legal_actions()]
