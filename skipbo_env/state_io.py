"""The state dictionary of a game: `Game.to_dict` and `Game.from_dict` (docs/rules.md).

The dictionary holds everything, hidden cards and the generator's state included, and
round-trips exactly; reading one checks every part and raises ValueError naming the first
thing wrong, so a malformed or inconsistent state never becomes a game. Reading accepts only
states the engine can reach: its shape and types, the card and coin totals, and the
relations between the phase, the turn, the stalled turns, the stocks, the winner and the
pending coin step (docs/rules.md, "Loading a state").

This module sits below the engine: it reads and writes a `state.GameState`, and the engine's
`Game.from_dict` hands it the class to build, whose rules of play answer what the checks ask
(`legal_actions`, `stall_winner`, `followups`).
"""

from __future__ import annotations

from functools import partial
from typing import TypeVar, cast

import numpy as np

from . import checks
from .checks import shown, shown_keys
from .rules import COIN, WILD, Rules
from .state import ACTIVE, GameState, Phase

G = TypeVar("G", bound=GameState)

FORMAT = "skipbo-state/1"
PHASE_NAMES = tuple(p.value for p in Phase)
MAX_SCORE = 10**9  # a seat's points from earlier games (a match plays to 500); fits int32
_RNG_KEYS = {"bit_generator", "state", "has_uint32", "uinteger"}


def game_to_dict(game: GameState) -> dict:
    """The whole state of `game` as a JSON-serialisable dictionary (docs/rules.md)."""
    out = list if not game.rules.coins else partial(cards_out, game.rules)
    return {
        "format": FORMAT,
        "rules": game.rules.to_dict(),
        "current_player": game.current_player,
        "turn": game.turn,
        "phase": game.phase.value,
        "draw_pile": out(game.draw_pile),
        "set_aside": out(game.set_aside),
        "building_piles": [out(b) for b in game.building],
        "players": [
            {"stock": out(game.stocks[p]),
             "hand": ([out(s) for s in game.stacks[p]] if game.rules.stacked
                      else out(game.hands[p])),
             "discard_piles": [out(d) for d in game.discards[p]]}
            for p in range(game.rules.num_players)],
        "winner": winner_out(game),
        "first_player": game.first_player,
        "scores": list(game.scores),
        "played_this_turn": game.played_this_turn,
        "stall_turns": game.stall_turns,
        "turn_moves": game.turn_moves,
        "coins": list(game.coins),
        "pile_coins": list(game.pile_coins),
        "pending": (None if game.pending_pile is None
                    else {"pile": game.pending_pile, "toll": game.pending_toll}),
        "rng": _jsonable(dict(game.rng.bit_generator.state)),
    }


def winner_out(game: GameState) -> int | list[int] | str | None:
    """The winner as the state dictionary writes it: the seat (without teams) or the team's
    seats that won, "draw" for a drawn game, else null."""
    if game.phase == Phase.DRAWN:
        return "draw"
    if not game.winners:
        return None
    return list(game.winners) if game.rules.teams is not None else game.winners[0]


def cards_out(rules: Rules, cards) -> list:
    """Cards as the state writes them: a card with a toll as [rank, toll], a coin play's
    place in a building pile as "coin"."""
    r = rules.max_rank + 1
    return [c if 0 <= c < r else "coin" if c == COIN else [c % r, c // r] for c in cards]


def _jsonable(state: dict) -> dict:
    """numpy's PCG64 state as plain JSON values (a new dictionary)."""
    inner = state["state"]
    return {"bit_generator": str(state["bit_generator"]),
            "state": {"state": int(inner["state"]), "inc": int(inner["inc"])},
            "has_uint32": int(state["has_uint32"]), "uinteger": int(state["uinteger"])}


_KEYS = {"format", "rules", "current_player", "turn", "phase", "draw_pile", "set_aside",
         "building_piles", "players", "winner", "first_player", "scores", "played_this_turn",
         "stall_turns", "turn_moves", "coins", "pile_coins", "pending", "rng"}
# Keys a state written before they existed may lack, read with the value that held then.
KEYS_ADDED_LATER = {"turn_moves": 0}


def game_from_dict(d: dict, cls: type[G]) -> G:
    """Rebuild a game of class `cls` (the engine's `Game`) from `game_to_dict` output; raises
    ValueError naming what is wrong (docs/rules.md, "Loading a state"). Any JSON-like value
    raises ValueError, never another exception, unless it is a state the engine can reach."""
    if not isinstance(d, dict):
        raise ValueError(f"a game state must be a dictionary, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise ValueError(f"unknown state format {shown(d.get('format'))}; expected {FORMAT!r}")
    d = {**KEYS_ADDED_LATER, **d}
    missing, unknown = _KEYS - set(d), set(d) - _KEYS
    if missing:
        raise ValueError(f"state is missing key(s) {sorted(missing)}")
    if unknown:
        raise ValueError(f"state has unknown key(s) {shown_keys(unknown)}")
    try:
        rules = Rules.from_dict(d["rules"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"bad rules in state: {e}") from None
    g = cls.__new__(cls)
    g._init_static(rules)
    read = _Reader(rules)
    _load_piles(g, d, read)
    _load_players(g, d["players"], read)
    counts = g.card_counts()
    if counts != rules.deck_counts():
        raise ValueError(f"the cards by id (wild first) total {counts}, but the deck holds "
                         f"{rules.deck_counts()}")
    _load_counters(g, d, read)
    _load_winner(g, d["winner"], rules)
    _load_coins(g, d, rules)
    _check_reachable(g, rules)
    g.rng = np.random.Generator(np.random.PCG64())
    g.rng.bit_generator.state = _rng_state(d["rng"])
    if not g.is_over and not g.legal_actions():
        # Every check above should make this impossible; it guards the invariant itself.
        raise ValueError(f"the state has no legal action for player {g.current_player}, but "
                         f"the phase is {g.phase.value!r}")
    return g


class _Reader:
    """The parts of a state dictionary checked as `rules` make them: cards, piles, seats."""

    def __init__(self, rules: Rules):
        self.rules, self.top, self.r = rules, rules.max_rank, rules.max_rank + 1

    def cards(self, value, where: str, coin_places: bool = False) -> list[int]:
        """A list of cards as `cards_out` writes them, else ValueError naming `where`."""
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list of cards, got {shown(value)}")
        top, toll = self.top, self.rules.max_toll
        result = []
        for c in value:
            if isinstance(c, list) and len(c) == 2 and all(checks.is_integer(x) for x in c) \
                    and 0 <= c[0] <= top and 1 <= c[1] <= toll:
                result.append(int(c[0]) + self.r * int(c[1]))  # a card with a toll
            elif isinstance(c, str) and c == "coin" and coin_places:
                result.append(COIN)
            elif not checks.is_integer(c) or not 0 <= c <= top:
                tolls = f", or [rank, toll] with toll 1..{toll}" if toll else ""
                raise ValueError(f"{where} holds {shown(c)}; cards are integers 0 (wild) to "
                                 f"{top}{tolls}")
            else:
                result.append(int(c))
        return result

    def piles(self, value, count: int, where: str) -> list[list[int]]:
        """A list of `count` piles of cards, else ValueError naming `where`."""
        if not isinstance(value, list) or len(value) != count:
            raise ValueError(f"{where} must be a list of {count} piles, got "
                             f"{len(value) if isinstance(value, list) else shown(value)}")
        return [self.cards(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def seat(self, value, where: str) -> int:
        """A seat of these rules, else ValueError naming `where`."""
        n = self.rules.num_players
        if not checks.is_integer(value) or not 0 <= value < n:
            raise ValueError(f"{where} must be a seat in 0..{n - 1}, got {shown(value)}")
        return int(value)

    def count(self, value, where: str) -> int:
        """A non-negative integer, else ValueError naming `where`."""
        if not checks.is_integer(value) or value < 0:
            raise ValueError(f"{where} must be a non-negative integer, got {shown(value)}")
        return int(value)


def _load_piles(g: GameState, d: dict, read: _Reader) -> None:
    """The draw pile, the set-aside cards and the building piles, each pile built as play
    builds it (a wild or the next number in each place)."""
    rules, top = read.rules, read.top
    g.draw_pile = read.cards(d["draw_pile"], "draw_pile")
    g.set_aside = read.cards(d["set_aside"], "set_aside")
    value = d["building_piles"]
    if not isinstance(value, list) or len(value) != rules.building_piles:
        raise ValueError(f"building_piles must be a list of {rules.building_piles} piles")
    g.building = [read.cards(v, f"building_piles[{i}]", coin_places=rules.coins)
                  for i, v in enumerate(value)]
    for i, pile in enumerate(g.building):
        if len(pile) >= top:
            raise ValueError(f"building_piles[{i}] holds {len(pile)} cards; a pile of {top} is "
                             f"set aside at once")
        for k, c in enumerate(pile):
            if c not in (WILD, COIN) and c % read.r != k + 1:
                raise ValueError(f"building_piles[{i}] has {c} in place {k}, where {k + 1} or a "
                                 f"wild belongs")
            if c == WILD and k > 0 and pile[k - 1] == WILD and not rules.wild_on_wild:
                raise ValueError(f"building_piles[{i}] has a wild on a wild, which these rules "
                                 f"forbid")


def _load_players(g: GameState, players, read: _Reader) -> None:
    """Each seat's stock, hand (its hand stacks in stacked mode) and discard piles."""
    rules, n = read.rules, read.rules.num_players
    if not isinstance(players, list) or len(players) != n:
        raise ValueError(f"players must be a list of {n} players")
    g.stocks, g.hands, g.stacks, g.discards = [], [], [], []
    for p, pl in enumerate(players):
        if not isinstance(pl, dict) or set(pl) != {"stock", "hand", "discard_piles"}:
            raise ValueError(f"players[{p}] must have exactly the keys stock, hand, discard_piles")
        g.stocks.append(read.cards(pl["stock"], f"players[{p}].stock"))
        if rules.stacked:
            g.hands.append([])
            g.stacks.append(read.piles(pl["hand"], rules.hand_size, f"players[{p}].hand"))
        else:
            hand = read.cards(pl["hand"], f"players[{p}].hand")
            if len(hand) > rules.hand_size:
                raise ValueError(f"players[{p}].hand holds {len(hand)} cards; at most "
                                 f"{rules.hand_size}")
            g.hands.append(hand)
            g.stacks.append([])
        g.discards.append(read.piles(pl["discard_piles"], rules.discard_piles,
                                     f"players[{p}].discard_piles"))
        if len(g.stocks[-1]) > rules.stock_size:
            raise ValueError(f"players[{p}].stock holds {len(g.stocks[-1])} cards; at most "
                             f"{rules.stock_size}")


def _load_counters(g: GameState, d: dict, read: _Reader) -> None:
    """Whose turn, which turn, the phase, the stalled turns and the scores."""
    rules, n = read.rules, read.rules.num_players
    g.current_player = read.seat(d["current_player"], "current_player")
    g.first_player = read.seat(d["first_player"], "first_player")
    g.turn = read.count(d["turn"], "turn")
    if g.turn > rules.max_turns:
        raise ValueError(f"turn is {shown(g.turn)}, past max_turns {rules.max_turns}, where a "
                         f"game ends")
    if not isinstance(d["phase"], str) or d["phase"] not in PHASE_NAMES:
        raise ValueError(f"phase must be one of {PHASE_NAMES}, got {shown(d['phase'])}")
    g.phase = Phase(d["phase"])
    if not isinstance(d["played_this_turn"], bool):
        raise ValueError(f"played_this_turn must be true or false, got "
                         f"{shown(d['played_this_turn'])}")
    g.played_this_turn = d["played_this_turn"]
    g.stall_turns = read.count(d["stall_turns"], "stall_turns")
    g.turn_moves = read.count(d["turn_moves"], "turn_moves")
    if g.turn_moves > rules.max_turn_moves:
        raise ValueError(f"turn_moves is {shown(g.turn_moves)}, past max_turn_moves "
                         f"{rules.max_turn_moves}, where a game ends")
    scores = d["scores"]
    if not isinstance(scores, list) or len(scores) != n or not all(
            checks.is_integer(s) and 0 <= s <= MAX_SCORE for s in scores):
        raise ValueError(f"scores must be a list of {n} integers in 0..{MAX_SCORE} "
                         f"(MAX_SCORE), got {shown(scores)}")
    g.scores = [int(s) for s in scores]


def _load_winner(g: GameState, w, rules: Rules) -> None:
    """The winner, checked against the phase: a seat (a team's seats with teams) in a won
    game, "draw" in a drawn one, else null; kept as the seats that won (`winners`)."""
    n = rules.num_players
    g.winners = ()
    if g.phase == Phase.WON:
        if rules.teams is None:
            if not checks.is_integer(w) or not 0 <= w < n:
                raise ValueError(f"winner must be a seat in 0..{n - 1}, got {shown(w)}")
            g.winners = (int(w),)
        else:
            if not isinstance(w, list) or not all(checks.is_integer(s) for s in w) \
                    or tuple(w) not in rules.teams:
                raise ValueError(f"winner must be one of the teams "
                                 f"{[list(t) for t in rules.teams]}, got {shown(w)}")
            g.winners = tuple(int(s) for s in w)
    elif g.phase == Phase.DRAWN:
        if not isinstance(w, str) or w != "draw":
            raise ValueError(f"a drawn game has winner 'draw', got {shown(w)}")
    elif w is not None:
        raise ValueError(f"winner must be null while the phase is {g.phase.value!r}, got "
                         f"{shown(w)}")


def _check_reachable(g: GameState, rules: Rules) -> None:
    """The relations every state the engine reaches keeps between the phase, the turn, the
    stalled turns, the stocks, the winner and the coins (docs/rules.md, "Loading a state")."""
    stall_won = _check_stall_won(g, rules)
    _check_turn_limit(g, rules, stall_won)
    _check_stalled_turns(g, rules, stall_won)
    _check_winner(g, rules, stall_won)
    _check_move_limit(g, rules, stall_won)
    _check_coin_step(g, rules)


def _check_turn_limit(g: GameState, rules: Rules, stall_won: bool) -> None:
    """The turn that reaches max_turns truncates the game, unless that turn completed a
    stalled round: then the round ended it first (drawn, or won by a stalled round: the engine
    checks the round before the limit)."""
    phase, turn, moves = g.phase, g.turn, g.turn_moves
    if phase in ACTIVE or (phase == Phase.WON and not stall_won):
        if turn >= rules.max_turns:
            raise ValueError(f"turn is {turn}: a game that reaches max_turns {rules.max_turns} "
                             f"is over, but the phase is {phase.value!r}")
    elif phase == Phase.TRUNCATED and turn != rules.max_turns and (
            moves != rules.max_turn_moves):
        raise ValueError(f"turn is {turn} and turn_moves {moves}: a game is truncated when its "
                         f"turn reaches max_turns {rules.max_turns} or the actions of a turn "
                         f"reach max_turn_moves {rules.max_turn_moves}, not before")


def _check_move_limit(g: GameState, rules: Rules, stall_won: bool) -> None:
    """The action that reaches max_turn_moves within a turn truncates the game, unless it won
    it; a turn that ended (a drawn game, one won by a stalled round, the turn limit) counts
    from 0 again."""
    phase, moves = g.phase, g.turn_moves
    if phase in ACTIVE and moves >= rules.max_turn_moves:
        raise ValueError(f"turn_moves is {moves}: a turn whose actions reach max_turn_moves "
                         f"{rules.max_turn_moves} ends the game, but the phase is "
                         f"{phase.value!r}")
    ended = phase == Phase.DRAWN or stall_won or (
        phase == Phase.TRUNCATED and g.turn == rules.max_turns)
    if ended and moves:
        raise ValueError(f"turn_moves is {moves}, but the game ended with the turn that ended "
                         f"it ({phase.value}), which counts the actions from 0 again")


def _check_stall_won(g: GameState, rules: Rules) -> bool:
    """Whether the game was won by a stalled round (a winner with stock cards left), which
    only stall_outcome "fewest_stock" allows, for the one team with the fewest stock cards."""
    if g.stall_turns > g.turn:
        raise ValueError(f"stall_turns is {shown(g.stall_turns)}, more than the {g.turn} turns "
                         f"played")
    stall_won = g.phase == Phase.WON and any(g.stocks[s] for s in g.winners)
    if stall_won:
        why = f"winner {winner_out(g)} still has stock cards, so the game was won by "
        if rules.stall_outcome != "fewest_stock":
            raise ValueError(why + "a stalled round, which only stall_outcome 'fewest_stock' "
                             f"allows (it is {rules.stall_outcome!r})")
        team = g.stall_winner()
        if team is None or set(team) != set(g.winners):
            who = ("no team: two or more tie for the fewest stock cards" if team is None
                   else f"seats {list(team)}, with the fewest stock cards")
            raise ValueError(why + f"a stalled round, which here goes to {who}")
    return stall_won


def _check_stalled_turns(g: GameState, rules: Rules, stall_won: bool) -> None:
    """A full round of stalled turns (one per seat) ends the game, drawn or won by a stalled
    round; fewer are counted only while nothing is left to draw."""
    n, phase, stall = rules.num_players, g.phase, g.stall_turns
    left = len(g.draw_pile) + len(g.set_aside)
    if phase == Phase.DRAWN or stall_won:
        ended = "drawn" if phase == Phase.DRAWN else "won with stock cards left"
        but = "" if phase == Phase.DRAWN else (
            f"winner {winner_out(g)} still has stock cards, so a stalled round ended the "
            f"game, but ")
        if stall != n:
            raise ValueError(f"{but}stall_turns is {stall}: a game is {ended} only after {n} "
                             f"turns in a row with no card played and nothing to draw")
        if left:
            raise ValueError(f"{but}draw_pile and set_aside hold {left} cards: a game is "
                             f"{ended} only when nothing is left to draw")
        if g.played_this_turn:
            raise ValueError(f"{but}played_this_turn is true: a game is {ended} by a turn with "
                             f"no card played")
        team = g.stall_winner()
        if phase == Phase.DRAWN and team is not None:
            raise ValueError(f"stall_outcome is 'fewest_stock' and seats {list(team)} have the "
                             f"fewest stock cards, so the stalled game is theirs, not drawn")
    elif stall >= n:
        raise ValueError(f"stall_turns is {stall}: {n} turns in a row with no card played and "
                         f"nothing to draw end the game, but the phase is {phase.value!r}")
    elif stall and not g.played_this_turn and left:
        raise ValueError(f"stall_turns is {stall}, counting turns with nothing to draw, but "
                         f"draw_pile and set_aside hold {left} cards and no card was played "
                         f"this turn")
    elif stall and phase == Phase.TRUNCATED and g.played_this_turn:
        raise ValueError(f"stall_turns is {stall}, but the last turn played a card, which "
                         f"restarts the count")


def _check_winner(g: GameState, rules: Rules, stall_won: bool) -> None:
    """The game is won the moment a team's stocks are all empty, by a card that team played
    (a stalled game's winner is checked by `_check_stall_won`)."""
    phase = g.phase
    empty = [team for team in g.spec.teams if all(not g.stocks[s] for s in team)]
    if phase == Phase.WON and not stall_won:
        if len(empty) > 1:
            raise ValueError(f"seats {[list(t) for t in empty]} all have empty stocks; the game "
                             f"ends when the first team's stock runs out")
        if not g.played_this_turn:
            raise ValueError("played_this_turn is false, but a game is won by a card played "
                             "this turn")
        if not rules.coins and g.current_player not in g.winners:
            # Without purchases, the last stock card is played by its team, on its turn.
            raise ValueError(f"winner {winner_out(g)}: the winning card is played by the "
                             f"winner's team, but current_player is {g.current_player}")
    elif empty:
        raise ValueError(f"seats {list(empty[0])} have empty stocks, so the game is won, but "
                         f"the phase is {phase.value!r}")


def _check_coin_step(g: GameState, rules: Rules) -> None:
    """Skip-Bo Masters: coin plays in the building piles and the pending coin step."""
    phase, r = g.phase, rules.max_rank + 1
    for i, pile in enumerate(g.building):
        due = sum(k + 1 for k, c in enumerate(pile) if c == COIN)
        if g.pile_coins[i] < due:
            raise ValueError(f"pile_coins[{i}] is {g.pile_coins[i]}, but the coin plays in "
                             f"building_piles[{i}] paid {due}")
        if pile and pile[-1] == COIN and (phase != Phase.COIN_FOLLOWUP or g.pending_pile != i):
            raise ValueError(f"building_piles[{i}] shows a coin play, which must be followed "
                             f"by a card at once, but the phase is {phase.value!r}")
    if phase == Phase.COIN_FOLLOWUP and not g.followups():
        raise ValueError(f"pending: player {g.current_player} has no card to follow the coin "
                         f"play on building pile {g.pending_pile} (a coin play is made only "
                         f"with one)")
    if phase == Phase.TOLL:
        pile, toll = g.building[cast(int, g.pending_pile)], g.pending_toll  # pending: loaded
        completed = top_card = rules.max_rank + r * toll  # the tolled card that completes a pile
        if pile:
            top_card = pile[-1]
        if top_card // r != toll or (not pile and completed not in g.set_aside):
            raise ValueError(f"pending: a toll of {toll} is due for the card just played on "
                             f"building pile {g.pending_pile}, but no such card is there")


def _rng_state(value) -> dict:
    """A PCG64 state as numpy writes it, checked (every value in range, no coercion)."""
    def bad(why: str) -> ValueError:
        return ValueError(f"rng is not a PCG64 generator state: {why}")

    if not isinstance(value, dict) or set(value) != _RNG_KEYS:
        raise bad(f"it must be a dictionary with the keys {sorted(_RNG_KEYS)}, got "
                  f"{shown(value)}")
    if not isinstance(value["bit_generator"], str) or value["bit_generator"] != "PCG64":
        raise bad(f"rng.bit_generator must be 'PCG64', got {shown(value['bit_generator'])}")
    inner = value["state"]
    if not isinstance(inner, dict) or set(inner) != {"state", "inc"}:
        raise bad(f"rng.state must be a dictionary with the keys ['inc', 'state'], got "
                  f"{shown(inner)}")
    for key in ("state", "inc"):
        x = inner[key]
        if not checks.is_integer(x) or not 0 <= x < 2**128:
            raise bad(f"rng.state.{key} must be an integer in 0..2**128-1, got {shown(x)}")
    if inner["inc"] % 2 != 1:
        raise bad(f"rng.state.inc must be odd (PCG64 makes it so), got {shown(inner['inc'])}")
    has = value["has_uint32"]
    if not checks.is_integer(has) or has not in (0, 1):
        raise bad(f"rng.has_uint32 must be 0 or 1, got {shown(has)}")
    word = value["uinteger"]
    if not checks.is_integer(word) or not 0 <= word < 2**32:
        raise bad(f"rng.uinteger must be an integer in 0..2**32-1, got {shown(word)}")
    return {"bit_generator": "PCG64",
            "state": {"state": int(inner["state"]), "inc": int(inner["inc"])},
            "has_uint32": int(has), "uinteger": int(word)}


def _load_coins(g: GameState, d: dict, rules: Rules) -> None:
    """Coins, the coins next to each building pile and the pending coin step, checked."""
    n, b = rules.num_players, rules.building_piles

    def amounts(value, count: int, where: str) -> list[int]:
        if not isinstance(value, list) or len(value) != count or any(
                not checks.is_integer(x) or x < 0 for x in value):
            raise ValueError(f"{where} must be a list of {count} non-negative integers, got "
                             f"{shown(value)}")
        return [int(x) for x in value]

    g.coins = amounts(d["coins"], n, "coins")
    g.pile_coins = amounts(d["pile_coins"], b, "pile_coins")
    total = rules.coins_per_player * n
    if sum(g.coins) + sum(g.pile_coins) != total:
        raise ValueError(f"coins and pile_coins total {shown(sum(g.coins) + sum(g.pile_coins))}"
                         f", but the game has {total}")
    pending = d["pending"]
    g.pending_pile, g.pending_toll = None, 0
    if g.phase in (Phase.TOLL, Phase.COIN_FOLLOWUP) and not rules.coins:
        raise ValueError(f"phase {g.phase.value!r} needs coins (Skip-Bo Masters); these rules "
                         f"have none")
    if g.phase in (Phase.TOLL, Phase.COIN_FOLLOWUP):
        if not isinstance(pending, dict) or set(pending) != {"pile", "toll"} or any(
                not checks.is_integer(x) for x in pending.values()) \
                or not 0 <= pending["pile"] < b:
            raise ValueError(f"phase {g.phase.value!r} needs pending {{'pile': 0..{b - 1}, 'toll': "
                             f"n}}, got {shown(pending)}")
        g.pending_pile, g.pending_toll = int(pending["pile"]), int(pending["toll"])
        if g.phase == Phase.TOLL and not 1 <= g.pending_toll <= rules.max_toll:
            raise ValueError(f"a pending toll must be 1..{rules.max_toll}, got "
                             f"{shown(g.pending_toll)}")
        if g.phase == Phase.COIN_FOLLOWUP and (g.pending_toll != 0 or not g.building[g.pending_pile]
                                           or g.building[g.pending_pile][-1] != COIN):
            raise ValueError("a pending follow-up needs toll 0 and a coin play on top of its "
                             "building pile")
    elif pending is not None:
        raise ValueError(f"pending must be null while the phase is {g.phase.value!r}, got "
                         f"{shown(pending)}")
