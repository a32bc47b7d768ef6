"""Cards, actions and tables in words: card names, action descriptions and the text render
(the envs' ``ansi`` render mode). It reads a `state.GameState`, below the engine, whose
`Game.describe` is `describe_action`."""

from __future__ import annotations

from .actions import HAND, STOCK, ActionKind
from .rules import COIN, WILD, Rules
from .state import GameState, Phase

DECK_STYLES = ("skipbo", "playing-cards")
"""How cards are named: ``skipbo`` (1 to 12 and Skip-Bo) or ``playing-cards`` (the rule
documents' stand-in deck: three standard decks with their jokers, ace to queen as 1 to 12 and
the twelve kings and six jokers as the wilds; shown A, 2..10, J, Q and K)."""
STALLED = {"draw": "drawn", "fewest_stock": "to the fewest stock cards"}
"""How a stalled game ends under each `Rules.stall_outcome`, as "stalled games ..."."""
_COURT = {1: "A", 11: "J", 12: "Q"}


def check_deck_style(style, rules: Rules | None = None) -> str:
    """`style`, one of `DECK_STYLES`, that can show `rules`' deck when rules are given:
    ``playing-cards`` needs the standard deck (ranks 1 to 12, at most 12 of each and 18
    wilds, as three decks hold)."""
    if not (isinstance(style, str) and style in DECK_STYLES):
        shown = repr(style) if isinstance(style, (str, int, float, type(None))) \
            else type(style).__name__
        raise ValueError(f"deck style must be one of {', '.join(DECK_STYLES)}, got {shown}")
    if rules is not None and style == "playing-cards" and (
            rules.max_rank != 12 or rules.copies_per_rank > 12 or rules.wilds > 18):
        raise ValueError(f"the playing-cards deck style needs cards 1 to 12 with at most 12 of "
                         f"each and 18 wilds (three standard decks with their jokers); "
                         f"{rules.variant} has 1 to {rules.max_rank}, {rules.copies_per_rank} "
                         f"of each and {rules.wilds} wilds")
    return style


def rank_name(rank: int, style: str = "skipbo") -> str:
    """A number as the deck style shows it (``playing-cards``: 1 is A, 11 J, 12 Q)."""
    return _COURT.get(rank, str(rank)) if style == "playing-cards" else str(rank)


def card_name(card: int, max_rank: int = 12, style: str = "skipbo") -> str:
    """A card in words: its number, or "Skip-Bo" for the wild, with its toll if it has one;
    in the ``playing-cards`` style A, 2..10, J, Q, and K for a wild (a king or a joker)."""
    rank, toll = card % (max_rank + 1), card // (max_rank + 1)
    if style == "playing-cards":
        name = "K" if rank == WILD else rank_name(rank, style)
    else:
        name = "Skip-Bo" if rank == WILD else str(rank)
    return f"{name} (toll {toll})" if toll else name


def _coins(count: int) -> str:
    return "1 coin" if count == 1 else f"{count} coins"


def describe_action(game: GameState, action: int, style: str = "skipbo") -> str:
    """`action` in words for `game`'s current player and cards, e.g.
    ``"hand 7 -> building pile 2"``, ``"stock Skip-Bo -> building pile 0 as 4"``,
    ``"discard pile 1 top 9 -> building pile 3"``, ``"discard hand 5 -> discard pile 0"``;
    in Skip-Bo Masters also ``"pay 5 coins as the 5 on building pile 2"``,
    ``"buy player 1's stock 7 -> building pile 0"``, ``"pay the toll of 2 coins"`` and
    ``"decline the toll (ends the turn)"``."""
    kind, source, pile, hand_card = game.layout.decode(int(action))
    max_rank = game.rules.max_rank

    def name(c: int) -> str:
        return card_name(c, max_rank, style)

    if kind is ActionKind.END_TURN:
        return "end turn"
    if kind is ActionKind.DISCARD:
        return f"discard hand {name(hand_card)} -> discard pile {pile}"
    if kind is ActionKind.COIN:
        need = len(game.building[pile]) + 1
        return f"pay {_coins(need)} as the {need} on building pile {pile}"
    if kind is ActionKind.PAY_TOLL:
        return f"pay the toll of {_coins(game.pending_toll)}"
    if kind is ActionKind.DECLINE_TOLL:
        return "decline the toll (ends the turn)"
    p = game.current_player
    card: int | None
    if kind is ActionKind.BUY:
        seller = (p + source.owner) % game.rules.num_players
        cards = (game.stocks[seller] if source.kind == STOCK
                 else game.discards[seller][source.index])
        card = cards[-1] if cards else None
        top = "empty" if card is None else name(card)
        where = (f"buy player {seller}'s stock {top}" if source.kind == STOCK
                 else f"buy player {seller}'s discard pile {source.index} top {top}")
    elif source.kind == HAND and not game.rules.stacked:
        card = source.index
        where = f"hand {name(card)}"
    else:
        owners = game.owners[p]
        owner = f"player {owners[source.owner]}'s " if source.owner else ""
        card = game.source_card(p, source)
        top = "empty" if card is None else name(card)
        if source.kind == HAND:
            where = f"hand stack {source.index} top {top}"
        elif source.kind == STOCK:
            where = f"{owner}stock {top}"
        else:
            where = f"{owner}discard pile {source.index} top {top}"
    text = f"{where} -> building pile {pile}"
    if card == WILD:
        text += f" as {rank_name(len(game.building[pile]) + 1, style)}"
    return text


def _pile(game: GameState, cards: list[int]) -> str:
    return "[" + " ".join(_card(game, c) for c in cards) + "]" if cards else "[ ]"


def _card(game: GameState, card: int) -> str:
    return "coin" if card == COIN else card_name(card, game.rules.max_rank)


def render_table(game: GameState, seat: int | None = None) -> str:
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
            team = f" team {game.spec.team_index[p]}"
        stock = game.stocks[p]
        top = _card(game, stock[-1]) if stock else "-"
        line = f"{marker} player {p}{team}: stock {top} ({len(stock)} cards)"
        hand = game.hands[p]
        if rules.stacked:
            line += "  hand stacks " + " ".join(_pile(game, s) for s in game.stacks[p])
        elif seat is None or seat == p:
            line += "  hand " + (" ".join(_card(game, c) for c in hand) or "-")
        else:
            line += f"  hand {len(hand)} cards"
        if rules.discard_piles:
            line += "  discard piles " + " ".join(_pile(game, d) for d in game.discards[p])
        if rules.coins:
            line += f"  coins {game.coins[p]}"
        if any(game.scores):
            line += f"  score {game.scores[p]}"
        lines.append(line)
    if game.phase == Phase.WON:
        lines.append(f"winner: {_winner(game)}")
    elif game.phase == Phase.DRAWN:
        lines.append("the game is drawn: a full round passed with no card played and "
                     "nothing to draw")
    elif game.phase == Phase.TOLL:
        lines.append(f"player {game.current_player} owes a toll (coins: {game.pending_toll})")
    elif game.phase == Phase.COIN_FOLLOWUP:
        lines.append(f"player {game.current_player} must follow the coin play on building pile "
                     f"{game.pending_pile}")
    elif game.phase == Phase.TRUNCATED:
        limit, value, _ = truncated_by(game)
        lines.append(f"stopped at {limit} ({value})")
    return "\n".join(lines)


def truncated_by(game: GameState) -> tuple[str, int, str]:
    """The limit that stopped a truncated game, its value and what it counts: ("the turn
    limit", max_turns, "turns") or ("the move limit of a turn", max_turn_moves, "actions")."""
    if game.turn >= game.rules.max_turns:
        return "the turn limit", game.rules.max_turns, "turns"
    return "the move limit of a turn", game.rules.max_turn_moves, "actions"


def _winner(game: GameState) -> str:
    """The seat that won ("1"), or the winning team's seats ("[0, 2]")."""
    return str(list(game.winners)) if game.rules.teams is not None else str(game.winners[0])
