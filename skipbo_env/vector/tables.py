"""The static side of the batched engine: a rules set as the integer tables the kernels read,
and conversion of one game between the kernels' arrays and the reference `Game`."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..actions import DISCARD, HAND, STOCK, ActionKind
from ..engine import PHASES, Game, Phase
from ..observation import ObservationEncoder
from ..rules import Rules
from ..spec import GameSpec
from ..state_io import FORMAT, cards_out
from . import kernels as K

_KINDS = {ActionKind.PLAY: K.K_PLAY, ActionKind.DISCARD: K.K_DISCARD, ActionKind.COIN: K.K_COIN,
          ActionKind.BUY: K.K_BUY, ActionKind.PAY_TOLL: K.K_PAY,
          ActionKind.DECLINE_TOLL: K.K_DECLINE, ActionKind.END_TURN: K.K_END}
_SOURCES = {HAND: K.SRC_HAND, STOCK: K.SRC_STOCK, DISCARD: K.SRC_DISCARD}


@dataclass(frozen=True)
class Tables:
    """Everything the kernels need to know about one rules set."""

    rules: Rules
    # int parameters, indexed by the kernels' P_* and O_* constants: a tuple, so the kernels
    # hold them in registers (an array's entries are read from memory again after every store
    # the compiler cannot tell apart from them: 7% slower)
    prm: tuple[int, ...]
    owners: np.ndarray   # [seat, k]: the k-th seat whose stock and discard tops it may play
    team_id: np.ndarray  # [seat]: its team's number (the seat itself without teams)
    teams: np.ndarray    # [team, member]
    deck: np.ndarray     # cards of each id in the deck
    act: np.ndarray      # [action, column]: the decoded action layout
    scale: np.ndarray    # the observation's scale factors (float32)
    capacity: int        # room per pile

    @property
    def num_actions(self) -> int:
        return int(self.prm[K.P_A])

    @property
    def obs_size(self) -> int:
        return int(self.prm[K.O_SIZE])

    @property
    def num_piles(self) -> int:
        return int(self.prm[K.P_NPILES])

    @property
    def num_scalars(self) -> int:
        return int(self.prm[K.P_SPUB] + self.rules.num_card_ids)

    @property
    def num_public_piles(self) -> int:
        return int(self.prm[K.P_NPUB])


def build_tables(rules: Rules) -> Tables:
    """The kernels' tables for `rules`, from the reference engine's layout and encoder."""
    spec = GameSpec.of(rules)
    layout, encoder = spec.layout, ObservationEncoder(rules)
    n, b, d, hs = rules.num_players, rules.building_piles, rules.discard_piles, rules.hand_size
    prm = np.zeros(K.NPRM, dtype=np.int64)
    prm[K.P_N], prm[K.P_B], prm[K.P_D], prm[K.P_HS] = n, b, d, hs
    prm[K.P_TOP], prm[K.P_R], prm[K.P_STACKED] = rules.max_rank, rules.num_card_ids, rules.stacked
    prm[K.P_COINS], prm[K.P_WOW] = rules.coins_per_player, rules.wild_on_wild
    prm[K.P_STOCK], prm[K.P_MAXT], prm[K.P_DECK] = rules.stock_size, rules.max_turns, \
        rules.deck_size
    prm[K.P_HSRC], prm[K.P_TM], prm[K.P_STOCKSRC] = layout.hand_sources, layout.teammates, \
        layout.stock_source
    prm[K.P_NPLAYS], prm[K.P_DBASE], prm[K.P_CBASE] = layout.num_plays, layout.discard_base, \
        layout.coin_base
    prm[K.P_PBASE], prm[K.P_NPURCH] = layout.purchase_base, layout.num_purchases
    prm[K.P_PAY] = -1 if layout.pay_toll is None else layout.pay_toll
    prm[K.P_DECLINE] = -1 if layout.decline_toll is None else layout.decline_toll
    prm[K.P_END], prm[K.P_A] = layout.end_turn, layout.size
    hands = n * hs if rules.stacked else n
    prm[K.P_DRAW], prm[K.P_ASIDE], prm[K.P_BUILD] = 0, 1, 2
    prm[K.P_STOCKS] = 2 + b
    prm[K.P_HANDS] = 2 + b + n
    prm[K.P_DISCS] = 2 + b + n + hands
    prm[K.P_NPILES] = 2 + b + n + hands + n * d
    off = {name: start for name, start, _ in encoder.sections}
    prm[K.O_TOACT], prm[K.O_DRAW] = off["to_act"], off["draw_pile_size"]
    prm[K.O_BUILD], prm[K.O_BWILD] = off["building_piles"], off["building_pile_wilds"]
    prm[K.O_UNSEEN], prm[K.O_OWN] = off["unseen_by_rank"], off["own_hand_by_rank"]
    prm[K.O_SEATS] = off["seats"]
    prm[K.O_COINS], prm[K.O_PCOINS] = off.get("coins", -1), off.get("pile_coins", -1)
    prm[K.O_PEND] = off.get("pending", -1)
    prm[K.O_DEPTH], prm[K.O_PILEW], prm[K.O_SEATW] = encoder.depth, encoder.pile_width, \
        encoder.seat_width
    prm[K.O_PILEOFF], prm[K.O_SIZE] = encoder._piles_offset, encoder.size
    prm[K.P_TEAMS] = rules.teams is not None
    prm[K.P_PUB0] = prm[K.P_HANDS] if rules.stacked else prm[K.P_DISCS]
    prm[K.P_NPUB] = n * (hs if rules.stacked else d)
    prm[K.P_SDIRTY] = K.S_COINS + 2 * n + b
    prm[K.P_SPUB] = prm[K.P_SDIRTY] + prm[K.P_NPUB]
    # The kernels encode every public pile with the first one's scale factors.
    width, start = encoder.pile_width, off["seats"] + encoder._piles_offset
    per_seat = hs if rules.stacked else d
    for p in range(n):
        for j in range(per_seat):
            o = off["seats"] + p * encoder.seat_width + encoder._piles_offset + j * width
            assert np.array_equal(encoder._scale[o:o + width],
                                  encoder._scale[start:start + width])
    owners = np.array(spec.owners, dtype=np.int64)
    teams = np.array(spec.teams, dtype=np.int64)
    team_id = np.array(spec.team_index, dtype=np.int64)
    act = np.zeros((layout.size, 6), dtype=np.int64)
    for a, (kind, source, pile, card) in enumerate(layout.decoded):
        act[a, K.A_KIND] = _KINDS[kind]
        if kind is ActionKind.PLAY or kind is ActionKind.BUY:
            act[a, K.A_SRC], act[a, K.A_INDEX] = _SOURCES[source.kind], source.index
            act[a, K.A_OWNER], act[a, K.A_PILE] = source.owner, pile
        elif kind is ActionKind.DISCARD:
            act[a, K.A_CARD], act[a, K.A_PILE] = card, pile
        elif kind is ActionKind.COIN:
            act[a, K.A_PILE] = pile
    return Tables(rules=rules, prm=tuple(int(x) for x in prm), owners=owners, team_id=team_id,
                  teams=teams, deck=np.array(rules.deck_counts(), dtype=np.int64), act=act,
                  scale=encoder._scale.copy(), capacity=rules.deck_size)


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


def load_game(t: Tables, game: Game, piles, lens, scal, rng, g: int) -> None:
    """Write `game` into row g of the state arrays."""
    if game.rules != t.rules:
        raise ValueError(f"the game's rules differ from the engine's: {game.rules} vs {t.rules}")
    p = t.prm
    n, b, d, hs = (t.rules.num_players, t.rules.building_piles, t.rules.discard_piles,
                   t.rules.hand_size)
    lens[g] = 0

    def put(k: int, cards) -> None:
        lens[g, k] = len(cards)
        piles[g, k, :len(cards)] = cards

    put(p[K.P_DRAW], game.draw_pile)
    put(p[K.P_ASIDE], game.set_aside)
    for i in range(b):
        put(p[K.P_BUILD] + i, game.building[i])
    for s in range(n):
        put(p[K.P_STOCKS] + s, game.stocks[s])
        if t.rules.stacked:
            for j in range(hs):
                put(p[K.P_HANDS] + s * hs + j, game.hands[s][j])
        else:
            put(p[K.P_HANDS] + s, game.hands[s])
        for j in range(d):
            put(p[K.P_DISCS] + s * d + j, game.discards[s][j])
    row = scal[g]
    row[:] = 0
    row[K.S_CUR], row[K.S_TURN] = game.current_player, game.turn
    row[K.S_PHASE] = PHASES.index(game.phase)
    winners = game.winning_seats()
    row[K.S_WIN] = winners[0] if winners else -1
    row[K.S_PLAYED], row[K.S_STALL] = game.played_this_turn, game.stall_turns
    row[K.S_PPILE] = -1 if game.pending_pile is None else game.pending_pile
    row[K.S_PTOLL], row[K.S_FIRST] = game.pending_toll, game.first_player
    row[K.S_COINS:K.S_COINS + n] = game.coins
    row[K.S_COINS + n:K.S_COINS + n + b] = game.pile_coins
    row[K.S_COINS + n + b:K.S_COINS + 2 * n + b] = game.scores
    row[p[K.P_SDIRTY]:p[K.P_SDIRTY] + p[K.P_NPUB]] = 1  # every cached pile encoding is stale
    public = game.hands if t.rules.stacked else game.discards
    for piles_of_seat in public:
        for cards in piles_of_seat:
            for c in cards:
                row[p[K.P_SPUB] + c] += 1
    rng[g] = _pcg_state(game.rng)


def game_dict(t: Tables, piles, lens, scal, rng, g: int) -> dict:
    """Row g of the state arrays as `Game.to_dict` writes it."""
    rules, p = t.rules, t.prm
    n, b, d, hs = rules.num_players, rules.building_piles, rules.discard_piles, rules.hand_size
    def pile(k: int) -> list:
        return cards_out(rules, [int(c) for c in piles[g, k, :lens[g, k]]])

    row = [int(x) for x in scal[g]]
    phase = PHASES[row[K.S_PHASE]]
    winner = None
    if phase == Phase.WON:
        seat = row[K.S_WIN]
        winner = list(rules.team_of(seat)) if rules.teams is not None else seat
    elif phase == Phase.DRAWN:
        winner = "draw"
    players = []
    for s in range(n):
        hand = ([pile(p[K.P_HANDS] + s * hs + j) for j in range(hs)] if rules.stacked
                else pile(p[K.P_HANDS] + s))
        players.append({"stock": pile(p[K.P_STOCKS] + s), "hand": hand,
                        "discard_piles": [pile(p[K.P_DISCS] + s * d + j) for j in range(d)]})
    st = [int(x) for x in rng[g]]
    return {
        "format": FORMAT, "rules": rules.to_dict(), "current_player": row[K.S_CUR],
        "turn": row[K.S_TURN], "phase": phase.value, "draw_pile": pile(p[K.P_DRAW]),
        "set_aside": pile(p[K.P_ASIDE]),
        "building_piles": [pile(p[K.P_BUILD] + i) for i in range(b)],
        "players": players, "winner": winner, "first_player": row[K.S_FIRST],
        "scores": row[K.S_COINS + n + b:K.S_COINS + 2 * n + b],
        "played_this_turn": bool(row[K.S_PLAYED]), "stall_turns": row[K.S_STALL],
        "coins": row[K.S_COINS:K.S_COINS + n], "pile_coins": row[K.S_COINS + n:K.S_COINS + n + b],
        "pending": (None if row[K.S_PPILE] < 0
                    else {"pile": row[K.S_PPILE], "toll": row[K.S_PTOLL]}),
        "rng": {"bit_generator": "PCG64",
                "state": {"state": (st[0] << 64) | st[1], "inc": (st[2] << 64) | st[3]},
                "has_uint32": st[4], "uinteger": st[5]},
    }
