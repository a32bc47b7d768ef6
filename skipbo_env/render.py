"""Text rendering of a game table (the env's ``ansi`` render mode)."""

from __future__ import annotations

from .engine import COIN, Game


def _pile(game: Game, cards: list[int]) -> str:
    return "[" + " ".join(_card(game, c) for c in cards) + "]" if cards else "[ ]"


def _card(game: Game, card: int) -> str:
    return "coin" if card == COIN else game.card_name(card)


def render_table(game: Game, seat: int | None = None) -> str:
    """The table as text; with `seat` given, other players' hands and every stock below its top
    are hidden, as that seat sees them."""
    rules = game.rules
    lines = [f"Skip-Bo ({rules.variant}, {rules.num_players} players)  turn {game.turn}  "
             f"draw pile {len(game.draw_pile)}  set aside {len(game.set_aside)}"]
    lines.append("building piles: " + "  ".join(
        f"{i}:{len(p) if p else '-'}" + (f" (coins {game.pile_coins[i]})" if game.pile_coins[i]
                                         else "")
        for i, p in enumerate(game.building)))
    for p in range(rules.num_players):
        marker = ">" if p == game.current_player and not game.is_over else " "
        team = ""
        if rules.teams is not None:
            team = f" team {[list(t) for t in rules.teams].index(list(rules.team_of(p)))}"
        stock = game.stocks[p]
        top = game.card_name(stock[-1]) if stock else "-"
        line = f"{marker} player {p}{team}: stock {top} ({len(stock)} cards)"
        hand = game.hands[p]
        if rules.stacked:
            line += "  hand stacks " + " ".join(_pile(game, s) for s in hand)
        elif seat is None or seat == p:
            line += "  hand " + (" ".join(game.card_name(c) for c in hand) or "-")
        else:
            line += f"  hand {len(hand)} cards"
        if rules.discard_piles:
            line += "  discard piles " + " ".join(_pile(game, d) for d in game.discards[p])
        if rules.coins:
            line += f"  coins {game.coins[p]}"
        if any(game.scores):
            line += f"  score {game.scores[p]}"
        lines.append(line)
    if game.phase == "won":
        lines.append(f"winner: {game.winner}")
    elif game.phase == "drawn":
        lines.append("the game is drawn: a full round passed with no card played and "
                     "nothing to draw")
    elif game.phase == "toll":
        lines.append(f"player {game.current_player} owes a toll (coins: {game.pending_toll})")
    elif game.phase == "coin_followup":
        lines.append(f"player {game.current_player} must follow the coin play on building pile "
                     f"{game.pending_pile}")
    elif game.phase == "truncated":
        lines.append(f"stopped at the turn limit ({rules.max_turns})")
    return "\n".join(lines)


def render_env(game: Game, render_mode: str | None) -> str | None:
    """An env's `render()`: the table as text for "ansi", printed for "human"; without a
    render mode, a warning and None."""
    if render_mode is None:
        import gymnasium
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi' "
                              "or 'human'")
        return None
    text = render_table(game)
    if render_mode == "human":
        print(text + "\n")
        return None
    return text
