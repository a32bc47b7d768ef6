"""The state dictionary of a game: `Game.to_dict` and `Game.from_dict` (docs/rules.md).

The dictionary holds everything, hidden cards and the generator's state included, and
round-trips exactly; reading one checks every part and raises ValueError naming the first
thing wrong, so a malformed or inconsistent state never becomes a game.
"""

from __future__ import annotations

import json
from functools import partial

import numpy as np

from . import checks
from .engine import ACTIVE, Game, Phase, check_scores
from .rules import COIN, WILD, Rules

FORMAT = "skipbo-state/1"
PHASE_NAMES = tuple(p.value for p in Phase)


def game_to_dict(game: Game) -> dict:
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
             "hand": ([out(s) for s in game.hands[p]] if game.rules.stacked
                      else out(game.hands[p])),
             "discard_piles": [out(d) for d in game.discards[p]]}
            for p in range(game.rules.num_players)],
        "winner": list(game.winner) if isinstance(game.winner, list) else game.winner,
        "first_player": game.first_player,
        "scores": list(game.scores),
        "played_this_turn": game.played_this_turn,
        "stall_turns": game.stall_turns,
        "coins": list(game.coins),
        "pile_coins": list(game.pile_coins),
        "pending": (None if game.pending_pile is None
                    else {"pile": game.pending_pile, "toll": game.pending_toll}),
        "rng": _jsonable(game.rng.bit_generator.state),
    }


def cards_out(rules: Rules, cards) -> list:
    """Cards as the state writes them: a card with a toll as [rank, toll], a coin play's
    place in a building pile as "coin"."""
    r = rules.max_rank + 1
    return [c if 0 <= c < r else "coin" if c == COIN else [c % r, c // r] for c in cards]


def _jsonable(state: dict) -> dict:
    return json.loads(json.dumps(state))


_KEYS = {"format", "rules", "current_player", "turn", "phase", "draw_pile", "set_aside",
         "building_piles", "players", "winner", "first_player", "scores", "played_this_turn",
         "stall_turns", "coins", "pile_coins", "pending", "rng"}


def game_from_dict(d: dict, cls: type[Game] = Game) -> Game:
    """Rebuild a game from `game_to_dict` output; raises ValueError naming what is wrong."""
    if not isinstance(d, dict):
        raise ValueError(f"a game state must be a dictionary, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise ValueError(f"unknown state format {d.get('format')!r}; expected {FORMAT!r}")
    missing, unknown = _KEYS - set(d), set(d) - _KEYS
    if missing:
        raise ValueError(f"state is missing key(s) {sorted(missing)}")
    if unknown:
        raise ValueError(f"state has unknown key(s) {sorted(unknown)}")
    try:
        rules = Rules.from_dict(d["rules"])
    except TypeError as e:
        raise ValueError(f"bad rules in state: {e}") from None
    n, top = rules.num_players, rules.max_rank

    r = top + 1

    def cards(value, where: str, coin_places: bool = False) -> list[int]:
        if not isinstance(value, list):
            raise ValueError(f"{where} must be a list of cards, got {value!r}")
        result = []
        for c in value:
            if isinstance(c, list) and len(c) == 2 and all(
                    checks.is_integer(x) for x in c) \
                    and 0 <= c[0] <= top and 1 <= c[1] <= rules.max_toll:
                result.append(c[0] + r * c[1])  # a card with a toll
            elif c == "coin" and coin_places:
                result.append(COIN)
            elif not checks.is_integer(c) or not 0 <= c <= top:
                tolls = f", or [rank, toll] with toll 1..{rules.max_toll}" if rules.max_toll \
                    else ""
                raise ValueError(f"{where} holds {c!r}; cards are integers 0 (wild) to {top}"
                                 f"{tolls}")
            else:
                result.append(c)
        return result

    def piles(value, count: int, where: str) -> list[list[int]]:
        if not isinstance(value, list) or len(value) != count:
            raise ValueError(f"{where} must be a list of {count} piles, got "
                             f"{len(value) if isinstance(value, list) else value!r}")
        return [cards(v, f"{where}[{i}]") for i, v in enumerate(value)]

    def seat(value, where: str) -> int:
        if not checks.is_integer(value) or not 0 <= value < n:
            raise ValueError(f"{where} must be a seat in 0..{n - 1}, got {value!r}")
        return value

    g = cls.__new__(cls)
    g._init_static(rules)
    g.draw_pile = cards(d["draw_pile"], "draw_pile")
    g.set_aside = cards(d["set_aside"], "set_aside")
    value = d["building_piles"]
    if not isinstance(value, list) or len(value) != rules.building_piles:
        raise ValueError(f"building_piles must be a list of {rules.building_piles} piles")
    g.building = [cards(v, f"building_piles[{i}]", coin_places=rules.coins)
                  for i, v in enumerate(value)]
    for i, pile in enumerate(g.building):
        if len(pile) >= top:
            raise ValueError(f"building_piles[{i}] holds {len(pile)} cards; a pile of {top} is "
                             f"set aside at once")
        for k, c in enumerate(pile):
            if c != WILD and c != COIN and c % r != k + 1:
                raise ValueError(f"building_piles[{i}] has {c} in place {k}, where {k + 1} or a "
                                 f"wild belongs")
            if c == WILD and k > 0 and pile[k - 1] == WILD and not rules.wild_on_wild:
                raise ValueError(f"building_piles[{i}] has a wild on a wild, which these rules "
                                 f"forbid")
    players = d["players"]
    if not isinstance(players, list) or len(players) != n:
        raise ValueError(f"players must be a list of {n} players")
    g.stocks, g.hands, g.discards = [], [], []
    for p, pl in enumerate(players):
        if not isinstance(pl, dict) or set(pl) != {"stock", "hand", "discard_piles"}:
            raise ValueError(f"players[{p}] must have exactly the keys stock, hand, discard_piles")
        g.stocks.append(cards(pl["stock"], f"players[{p}].stock"))
        if rules.stacked:
            g.hands.append(piles(pl["hand"], rules.hand_size, f"players[{p}].hand"))
        else:
            hand = cards(pl["hand"], f"players[{p}].hand")
            if len(hand) > rules.hand_size:
                raise ValueError(f"players[{p}].hand holds {len(hand)} cards; at most "
                                 f"{rules.hand_size}")
            g.hands.append(hand)
        g.discards.append(piles(pl["discard_piles"], rules.discard_piles,
                                f"players[{p}].discard_piles"))
        if len(g.stocks[-1]) > rules.stock_size:
            raise ValueError(f"players[{p}].stock holds {len(g.stocks[-1])} cards; at most "
                             f"{rules.stock_size}")
    counts = [0] * rules.num_card_ids
    everything = [g.draw_pile, g.set_aside, *[[c for c in b if c != COIN] for b in g.building],
                  *g.stocks]
    for p in range(n):
        everything.extend(g.discards[p])
        everything.extend(g.hands[p] if rules.stacked else [g.hands[p]])
    for pile in everything:
        for c in pile:
            counts[c] += 1
    if counts != rules.deck_counts():
        raise ValueError(f"the cards by id (wild first) total {counts}, but the deck holds "
                         f"{rules.deck_counts()}")
    g.current_player = seat(d["current_player"], "current_player")
    g.first_player = seat(d["first_player"], "first_player")
    turn = d["turn"]
    if not checks.is_integer(turn) or turn < 0:
        raise ValueError(f"turn must be a non-negative integer, got {turn!r}")
    g.turn = turn
    if not isinstance(d["phase"], str) or d["phase"] not in PHASE_NAMES:
        raise ValueError(f"phase must be one of {PHASE_NAMES}, got {d['phase']!r}")
    g.phase = Phase(d["phase"])
    w = d["winner"]
    if g.phase == Phase.WON:
        if rules.teams is None:
            seat(w, "winner")
        elif not isinstance(w, list) or tuple(w) not in rules.teams:
            raise ValueError(f"winner must be one of the teams {[list(t) for t in rules.teams]}, "
                             f"got {w!r}")
        winners = w if isinstance(w, list) else [w]
        if any(g.stocks[s] for s in winners):
            raise ValueError(f"winner {w!r} still has stock cards")
        g.winner = list(w) if isinstance(w, list) else w
    elif g.phase == Phase.DRAWN:
        if w != "draw":
            raise ValueError(f"a drawn game has winner 'draw', got {w!r}")
        g.winner = w
    elif w is not None:
        raise ValueError(f"winner must be null while the phase is {g.phase.value!r}, got {w!r}")
    else:
        g.winner = None
    if g.phase in ACTIVE:
        for team in (rules.teams or [(p,) for p in range(n)]):
            if all(not g.stocks[s] for s in team):
                raise ValueError(f"seats {list(team)} have empty stocks, so the game is won, "
                                 f"but the phase is 'play'")
    g.scores = check_scores(d["scores"], n)
    if not isinstance(d["played_this_turn"], bool):
        raise ValueError("played_this_turn must be true or false")
    g.played_this_turn = d["played_this_turn"]
    stall = d["stall_turns"]
    if not checks.is_integer(stall) or stall < 0:
        raise ValueError(f"stall_turns must be a non-negative integer, got {stall!r}")
    g.stall_turns = stall
    _load_coins(g, d, rules)
    g.rng = np.random.Generator(np.random.PCG64())
    try:
        g.rng.bit_generator.state = d["rng"]
    except (TypeError, ValueError, KeyError) as e:
        raise ValueError(f"rng is not a PCG64 generator state: {e}") from None
    return g


def _load_coins(g: Game, d: dict, rules: Rules) -> None:
    """Coins, the coins next to each building pile and the pending coin step, checked."""
    n, b = rules.num_players, rules.building_piles

    def amounts(value, count: int, where: str) -> list[int]:
        if not isinstance(value, list) or len(value) != count or any(
                not checks.is_integer(x) or x < 0 for x in value):
            raise ValueError(f"{where} must be a list of {count} non-negative integers, got "
                             f"{value!r}")
        return list(value)

    g.coins = amounts(d["coins"], n, "coins")
    g.pile_coins = amounts(d["pile_coins"], b, "pile_coins")
    total = rules.coins_per_player * n
    if sum(g.coins) + sum(g.pile_coins) != total:
        raise ValueError(f"coins and pile_coins total {sum(g.coins) + sum(g.pile_coins)}, but "
                         f"the game has {total}")
    pending = d["pending"]
    g.pending_pile, g.pending_toll = None, 0
    if g.phase in (Phase.TOLL, Phase.COIN_FOLLOWUP):
        if not isinstance(pending, dict) or set(pending) != {"pile", "toll"} or any(
                not checks.is_integer(x) for x in pending.values()) \
                or not 0 <= pending["pile"] < b:
            raise ValueError(f"phase {g.phase.value!r} needs pending {{'pile': 0..{b - 1}, 'toll': "
                             f"n}}, got {pending!r}")
        g.pending_pile, g.pending_toll = pending["pile"], pending["toll"]
        if g.phase == Phase.TOLL and not 1 <= g.pending_toll <= rules.max_toll:
            raise ValueError(f"a pending toll must be 1..{rules.max_toll}, got {g.pending_toll}")
        if g.phase == Phase.COIN_FOLLOWUP and (g.pending_toll != 0 or not g.building[g.pending_pile]
                                           or g.building[g.pending_pile][-1] != COIN):
            raise ValueError("a pending follow-up needs toll 0 and a coin play on top of its "
                             "building pile")
    elif pending is not None:
        raise ValueError(f"pending must be null while the phase is {g.phase.value!r}, got "
                         f"{pending!r}")
