"""The static side of the batched engine: a rules set as the integer tables the kernels read,
and conversion of one game between the kernels' arrays and the reference `Game`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..actions import DISCARD, HAND, STOCK, ActionKind
from ..engine import Game
from ..observation import ObservationEncoder
from ..rules import Rules
from ..spec import GameSpec
from ..state import PHASES, Phase
from ..state_io import FORMAT, cards_out
from . import bundles as K

_KINDS = {ActionKind.PLAY: K.K_PLAY, ActionKind.DISCARD: K.K_DISCARD, ActionKind.COIN: K.K_COIN,
          ActionKind.BUY: K.K_BUY, ActionKind.PAY_TOLL: K.K_PAY,
          ActionKind.DECLINE_TOLL: K.K_DECLINE, ActionKind.END_TURN: K.K_END}
_SOURCES = {HAND: K.SRC_HAND, STOCK: K.SRC_STOCK, DISCARD: K.SRC_DISCARD}


@dataclass(frozen=True)
class Tables:
    """Everything the kernels need to know about one rules set: `static` is the kernels'
    `Static` bundle (its ``prm``, a named tuple of ints, is held in registers: an array's
    entries are read from memory again after every store the compiler cannot tell apart from
    them, 7% slower)."""

    rules: Rules
    static: K.Static
    capacity: int  # room per pile

    @property
    def prm(self) -> Any:
        """The parameters, a `bundles.Params` (``tables.prm.n``)."""
        return self.static.prm

    def param(self, name: str) -> int:
        """One parameter by its name in `bundles.PARAMS`."""
        return int(getattr(self.static.prm, name))

    @property
    def num_actions(self) -> int:
        return self.param("a")

    @property
    def obs_size(self) -> int:
        return self.param("o_size")

    @property
    def num_piles(self) -> int:
        return self.param("npiles")

    @property
    def num_scalars(self) -> int:
        return self.param("spub") + self.rules.num_card_ids

    @property
    def num_public_piles(self) -> int:
        return self.param("npub")


def parameters(rules: Rules, spec: GameSpec, encoder: ObservationEncoder):
    """The kernels' parameters of `rules`, a `bundles.Params`."""
    layout = spec.layout
    n, b, d, hs = rules.num_players, rules.building_piles, rules.discard_piles, rules.hand_size
    hands = n * hs if rules.stacked else n
    off = {name: start for name, start, _ in encoder.sections}
    npub = n * (hs if rules.stacked else d)
    sdirty = K.S.coins + 2 * n + b
    values = dict(
        n=n, b=b, d=d, hs=hs, top=rules.max_rank, r=rules.num_card_ids, stacked=rules.stacked,
        coins=rules.coins_per_player, wow=rules.wild_on_wild, stock=rules.stock_size,
        maxt=rules.max_turns, maxm=rules.max_turn_moves, deck=rules.deck_size,
        teams=rules.teams is not None, fewest=rules.stall_outcome == "fewest_stock",
        hsrc=layout.hand_sources, tm=layout.teammates, stocksrc=layout.stock_source,
        nplays=layout.num_plays, dbase=layout.discard_base, cbase=layout.coin_base,
        pbase=layout.purchase_base, npurch=layout.num_purchases,
        pay=layout.pay_toll, decline=layout.decline_toll,
        end=layout.end_turn, a=layout.size,
        draw=0, aside=1, build=2, stocks=2 + b, hands=2 + b + n, discs=2 + b + n + hands,
        npiles=2 + b + n + hands + n * d,
        pub0=2 + b + n if rules.stacked else 2 + b + n + hands, npub=npub, sdirty=sdirty,
        spub=sdirty + npub,
        o_toact=off["to_act"], o_draw=off["draw_pile_size"], o_build=off["building_piles"],
        o_bwild=off["building_pile_wilds"], o_unseen=off["unseen_by_rank"],
        o_own=off["own_hand_by_rank"], o_seats=off["seats"], o_coins=off.get("coins", -1),
        o_pcoins=off.get("pile_coins", -1), o_pend=off.get("pending", -1),
        o_depth=encoder.depth, o_pilew=encoder.pile_width, o_seatw=encoder.seat_width,
        o_pileoff=encoder.piles_offset, o_size=encoder.size)
    if set(values) != set(K.PARAMS):
        raise AssertionError(f"parameters and kernels.PARAMS differ: "
                             f"{sorted(set(values) ^ set(K.PARAMS))}")
    return K.Params(*(int(values[name]) for name in K.PARAMS))


CARD_MAX = int(np.iinfo(np.int8).max)  # piles hold card ids as int8
SCALAR_MAX = int(np.iinfo(np.int32).max)  # counters (turn, scores, coins) are int32


def check_representable(rules: Rules) -> None:
    """Raise ValueError unless the batched engine's storage holds every game of `rules`:
    card ids in int8 piles, the turn limit, deck and coins in int32 scalars. (Rules it cannot
    hold are refused, never dealt with wrapped values.)"""
    top = rules.num_card_ids - 1
    if top > CARD_MAX:
        raise ValueError(f"the batched engine stores cards as int8 ids up to {CARD_MAX}; these "
                         f"rules have card ids up to {top} (max_rank {rules.max_rank}, "
                         f"{len(rules.toll_table)} toll table rows): play them on the reference "
                         f"engine (skipbo_env.Game)")
    for name, value in (("max_turns", rules.max_turns),
                        ("max_turn_moves", rules.max_turn_moves), ("deck size", rules.deck_size),
                        ("coins in play", rules.coins_per_player * rules.num_players)):
        if value > SCALAR_MAX:
            raise ValueError(f"the batched engine counts in int32: {name} {value} is over "
                             f"{SCALAR_MAX}")


def _check_scalars(game: Game) -> None:
    """ValueError unless the game's counters fit the batched engine's int32 scalars."""
    fields: list[tuple[str, list]] = [
              ("turn", [game.turn]), ("stall_turns", [game.stall_turns]),
              ("played_this_turn", [game.played_this_turn]),
              ("turn_moves", [game.turn_moves]), ("scores", game.scores),
              ("coins", game.coins), ("pile_coins", game.pile_coins),
              ("pending_toll", [game.pending_toll])]
    for name, values in fields:
        for v in values:
            if v is not None and not -SCALAR_MAX <= v <= SCALAR_MAX:
                raise ValueError(f"the batched engine counts in int32: the game's {name} "
                                 f"holds {v}, out of range")


def build_tables(rules: Rules) -> Tables:
    """The kernels' tables for `rules`, from its `GameSpec` and observation encoder; rules the
    engine's storage cannot hold raise ValueError (`check_representable`)."""
    check_representable(rules)
    spec = GameSpec.of(rules)
    layout, encoder = spec.layout, ObservationEncoder(rules)
    n, d, hs = rules.num_players, rules.discard_piles, rules.hand_size
    off = {name: start for name, start, _ in encoder.sections}
    scale = encoder.scale_factors
    # The kernels encode every public pile with the first one's scale factors.
    width, start = encoder.pile_width, off["seats"] + encoder.piles_offset
    per_seat = hs if rules.stacked else d
    for p in range(n):
        for j in range(per_seat):
            o = off["seats"] + p * encoder.seat_width + encoder.piles_offset + j * width
            assert np.array_equal(scale[o:o + width], scale[start:start + width])
    owners = np.array(spec.owners, dtype=np.int64)
    teams = np.array(spec.teams, dtype=np.int64)
    team_id = np.array(spec.team_index, dtype=np.int64)
    act = np.zeros((layout.size, 6), dtype=np.int64)
    for a, (kind, source, pile, card) in enumerate(layout.decoded):
        act[a, K.A.kind] = _KINDS[kind]
        if kind is ActionKind.PLAY or kind is ActionKind.BUY:
            act[a, K.A.src], act[a, K.A.index] = _SOURCES[source.kind], source.index
            act[a, K.A.owner], act[a, K.A.pile] = source.owner, pile
        elif kind is ActionKind.DISCARD:
            act[a, K.A.card], act[a, K.A.pile] = card, pile
        elif kind is ActionKind.COIN:
            act[a, K.A.pile] = pile
    static = K.Static(prm=parameters(rules, spec, encoder), owners=owners, team_id=team_id,
                      teams=teams, act=act, deck=np.array(rules.deck_counts(), dtype=np.int64),
                      scale=scale.copy())
    return Tables(rules=rules, static=static, capacity=rules.deck_size)


# -- one game between the arrays and the reference engine -----------------------------------------
def _pcg_state(generator: np.random.Generator) -> np.ndarray:
    """A generator's PCG64 state as the kernels hold it."""
    state = generator.bit_generator.state
    if state.get("bit_generator") != "PCG64":
        raise ValueError(f"the batched engine needs a PCG64 generator, got "
                         f"{state.get('bit_generator')!r}")
    mask = (1 << 64) - 1
    s, inc = state["state"]["state"], state["state"]["inc"]
    return np.array([s >> 64, s & mask, inc >> 64, inc & mask, state["has_uint32"],
                     state["uinteger"]], dtype=np.uint64)


def seed_states(seeds) -> np.ndarray:
    """[len(seeds), 6] PCG64 states: row i is the generator of `Game(rules, seed=seeds[i])`."""
    return np.stack([_pcg_state(np.random.default_rng(int(s))) for s in seeds])


def load_game(t: Tables, game: Game, st: K.State, g: int) -> None:
    """Write `game` into row g of the games' state."""
    piles, lens, scal, rng = st.piles, st.lens, st.scal, st.rng
    if game.rules != t.rules:
        raise ValueError(f"the game's rules differ from the engine's: {game.rules} vs {t.rules}")
    _check_scalars(game)
    p = t.prm
    n, b, d, hs = (t.rules.num_players, t.rules.building_piles, t.rules.discard_piles,
                   t.rules.hand_size)
    lens[g] = 0

    def put(k: int, cards) -> None:
        lens[g, k] = len(cards)
        piles[g, k, :len(cards)] = cards

    put(p.draw, game.draw_pile)
    put(p.aside, game.set_aside)
    for i in range(b):
        put(p.build + i, game.building[i])
    for s in range(n):
        put(p.stocks + s, game.stocks[s])
        if t.rules.stacked:
            for j in range(hs):
                put(p.hands + s * hs + j, game.stacks[s][j])
        else:
            put(p.hands + s, game.hands[s])
        for j in range(d):
            put(p.discs + s * d + j, game.discards[s][j])
    row = scal[g]
    row[:] = 0
    row[K.S.cur], row[K.S.turn] = game.current_player, game.turn
    row[K.S.phase] = PHASES.index(game.phase)
    row[K.S.win] = game.winners[0] if game.winners else -1
    row[K.S.played], row[K.S.stall] = game.played_this_turn, game.stall_turns
    row[K.S.ppile] = -1 if game.pending_pile is None else game.pending_pile
    row[K.S.ptoll], row[K.S.first] = game.pending_toll, game.first_player
    row[K.S.moves] = game.turn_moves
    row[K.S.coins:K.S.coins + n] = game.coins
    row[K.S.coins + n:K.S.coins + n + b] = game.pile_coins
    row[K.S.coins + n + b:K.S.coins + 2 * n + b] = game.scores
    row[p.sdirty:p.sdirty + p.npub] = 1  # every cached pile encoding is stale
    public = game.stacks if t.rules.stacked else game.discards
    for piles_of_seat in public:
        for cards in piles_of_seat:
            for c in cards:
                row[p.spub + c] += 1
    rng[g] = _pcg_state(game.rng)


def game_dict(t: Tables, st: K.State, g: int) -> dict:
    """Row g of the games' state as `Game.to_dict` writes it."""
    rules, p = t.rules, t.prm
    piles, lens, scal, rng = st.piles, st.lens, st.scal, st.rng
    n, b, d, hs = rules.num_players, rules.building_piles, rules.discard_piles, rules.hand_size

    def pile(k: int) -> list:
        return cards_out(rules, [int(c) for c in piles[g, k, :lens[g, k]]])

    row = [int(x) for x in scal[g]]
    phase = PHASES[row[K.S.phase]]
    winner = None
    if phase == Phase.WON:
        seat = row[K.S.win]
        winner = list(GameSpec.of(rules).team_of(seat)) if rules.teams is not None else seat
    elif phase == Phase.DRAWN:
        winner = "draw"
    players = []
    for s in range(n):
        hand = ([pile(p.hands + s * hs + j) for j in range(hs)] if rules.stacked
                else pile(p.hands + s))
        players.append({"stock": pile(p.stocks + s), "hand": hand,
                        "discard_piles": [pile(p.discs + s * d + j) for j in range(d)]})
    words = [int(x) for x in rng[g]]
    return {
        "format": FORMAT, "rules": rules.to_dict(), "current_player": row[K.S.cur],
        "turn": row[K.S.turn], "phase": phase.value, "draw_pile": pile(p.draw),
        "set_aside": pile(p.aside),
        "building_piles": [pile(p.build + i) for i in range(b)],
        "players": players, "winner": winner, "first_player": row[K.S.first],
        "scores": row[K.S.coins + n + b:K.S.coins + 2 * n + b],
        "played_this_turn": bool(row[K.S.played]), "stall_turns": row[K.S.stall],
        "turn_moves": row[K.S.moves],
        "coins": row[K.S.coins:K.S.coins + n], "pile_coins": row[K.S.coins + n:K.S.coins + n + b],
        "pending": (None if row[K.S.ppile] < 0
                    else {"pile": row[K.S.ppile], "toll": row[K.S.ptoll]}),
        "rng": {"bit_generator": "PCG64",
                "state": {"state": (words[0] << 64) | words[1],
                          "inc": (words[2] << 64) | words[3]},
                "has_uint32": words[4], "uinteger": words[5]},
    }
