"""The Skip-Bo rules engine: the only place that knows the rules of play.

A `Game` holds one deal. Cards are integers, 1..max_rank for numbers and 0 for the wild
(Skip-Bo card). Every pile is a list with its top card last.
"""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import numpy as np

from .actions import HAND, STOCK, ActionLayout
from .rules import Rules
from .view import SeatView

FORMAT = "skipbo-state/1"
WILD = 0
COIN = -1  # the place a coin play ("a coin N", Skip-Bo Masters) takes in a building pile
# "coin_followup": the card after a coin play is due; "toll": a toll is due (Masters).
PHASES = ("play", "coin_followup", "toll", "won", "drawn", "truncated")
ACTIVE = ("play", "coin_followup", "toll")
# Per rules: the action layout, each seat's playable owners, and the building-target memo,
# shared by every game of those rules.
_STATIC: dict[Rules, tuple] = {}


def fits(rules: Rules, card: int, shows: int, shows_wild: bool = False) -> bool:
    """Whether a building pile showing `shows` (its top a wild if `shows_wild`) takes `card`:
    a pile starts with a 1 or a wild, then takes the next number or a wild; a wild takes the
    number the pile needs, on another wild too unless `wild_on_wild` is off. The only
    statement of this rule: the engine's legal actions and the players' planning use it."""
    rank = card % (rules.max_rank + 1)
    if rank == WILD:
        return rules.wild_on_wild or not shows_wild
    return rank == shows + 1


def card_name(card: int, max_rank: int = 12) -> str:
    """A card in words: its number, or "Skip-Bo" for the wild, with its toll if it has one."""
    rank, toll = card % (max_rank + 1), card // (max_rank + 1)
    name = "Skip-Bo" if rank == WILD else str(rank)
    return f"{name} (toll {toll})" if toll else name


class Game:
    """One game of Skip-Bo under `rules`, dealt from a generator seeded with `seed`."""

    def __init__(self, rules: Rules, seed: int | None = None, first_player: int = 0,
                 scores: list[int] | None = None):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a skipbo_env.Rules, got {type(rules).__name__}; "
                            f"use Rules.preset(name, num_players)")
        n = rules.num_players
        if isinstance(first_player, bool) or not isinstance(first_player, (int, np.integer)) \
                or not 0 <= first_player < n:
            raise ValueError(f"first_player must be a seat in 0..{n - 1}, got {first_player!r}")
        self._init_static(rules)
        self.rng = np.random.default_rng(seed)
        self.scores = [0] * n if scores is None else _check_scores(scores, n)
        self.first_player = int(first_player)
        deck = [card for card, count in enumerate(rules.deck_counts()) for _ in range(count)]
        self.rng.shuffle(deck)
        self.stocks = []
        for _ in range(n):
            self.stocks.append(deck[-rules.stock_size:])
            del deck[-rules.stock_size:]
        self.draw_pile = deck
        self.set_aside: list[int] = []
        self.building = [[] for _ in range(rules.building_piles)]
        if rules.stacked:
            self.hands = [[[] for _ in range(rules.hand_size)] for _ in range(n)]
        else:
            self.hands = [[] for _ in range(n)]
        self.discards = [[[] for _ in range(rules.discard_piles)] for _ in range(n)]
        self.current_player = self.first_player
        self.turn = 0
        self.phase = "play"
        self.winner: Any = None
        self.played_this_turn = False
        self.stall_turns = 0
        self.coins = [rules.coins_per_player] * n
        self.pile_coins = [0] * rules.building_piles
        self.pending_pile: int | None = None
        self.pending_toll = 0
        self._start_turn()

    def _init_static(self, rules: Rules) -> None:
        self._legal: list[int] | None = None
        self.rules = rules
        static = _STATIC.get(rules)
        if static is None:
            n = rules.num_players
            # For each seat, the seats whose stock and discard piles it may play: itself
            # first, then its teammates in turn order.
            owners = [sorted(rules.team_of(p), key=lambda s, p=p: (s - p) % n) for p in range(n)]
            # The memo maps building-pile sizes to each card's target piles.
            static = _STATIC[rules] = (ActionLayout(rules), owners, {})
        self.layout, self.owners, self._targets_memo = static

    # -- public API -----------------------------------------------------------------------------
    @property
    def is_over(self) -> bool:
        """True once the game is won, drawn or truncated."""
        return self.phase not in ACTIVE

    @property
    def truncated(self) -> bool:
        """True when the game stopped at `rules.max_turns` without a result."""
        return self.phase == "truncated"

    @property
    def num_actions(self) -> int:
        """Size of the action space."""
        return self.layout.size

    def team_stock_size(self, seat: int) -> int:
        """Stock cards left to `seat`'s team (the seat's own without teams)."""
        return sum(len(self.stocks[s]) for s in self.rules.team_of(seat))

    def winning_seats(self) -> list[int]:
        """The seats that won (both partners for a team); empty unless the game is won."""
        if self.phase != "won":
            return []
        return list(self.winner) if isinstance(self.winner, list) else [self.winner]

    def returns(self) -> list[float]:
        """+1 for the winner (or each member of the winning team), -1 for the others, else 0."""
        winners = self.winning_seats()
        if not winners:
            return [0.0] * self.rules.num_players
        return [1.0 if p in winners else -1.0 for p in range(self.rules.num_players)]

    def points(self) -> list[int]:
        """Points this game scores: the winner (each member of a winning team) scores 25 plus
        5 for each card left in the opponents' stocks; everyone else scores 0."""
        n, winners = self.rules.num_players, self.winning_seats()
        left = sum(len(self.stocks[p]) for p in range(n) if p not in winners)
        return [25 + 5 * left if p in winners else 0 for p in range(n)]

    def legal_actions(self) -> list[int]:
        """The legal actions of the current player, in increasing order."""
        return list(self._legal_cached())

    def _legal_cached(self) -> list[int]:
        if self._legal is None:
            self._legal = self._compute_legal()
        return self._legal

    def _compute_legal(self) -> list[int]:
        phase = self.phase
        if phase != "play":
            if phase == "toll":
                pay = [self.layout.pay_toll] if self.coins[self.current_player] >= \
                    self.pending_toll else []
                return pay + [self.layout.decline_toll]
            if phase == "coin_followup":
                return self._followups()
            return []
        layout = self.layout
        b = layout.building_piles
        targets = self._targets()
        p = self.current_player
        hand = self.hands[p]
        actions: list[int] = []
        # Sources are numbered as `ActionLayout` lays them out, so plays come out in order.
        if self.rules.stacked:
            for s, stack in enumerate(hand):
                if stack and targets[stack[-1]]:
                    actions += [s * b + i for i in targets[stack[-1]]]
        else:
            ranks = sorted(set(hand))
            for rank in ranks:
                if targets[rank]:
                    actions += [rank * b + i for i in targets[rank]]
        s = layout.stock_source
        for owner in self.owners[p]:
            for pile in (self.stocks[owner], *self.discards[owner]):
                if pile and targets[pile[-1]]:
                    actions += [s * b + i for i in targets[pile[-1]]]
                s += 1
        if self.rules.stacked:
            if not actions:
                actions.append(layout.end_turn)
            return actions
        if hand:
            for rank in ranks:
                actions += layout.discards_of_rank[rank]
        if self.rules.coins:
            actions += self._coin_actions(targets)
        if not hand:
            actions.append(layout.end_turn)
        return actions

    def _coin_actions(self, targets: list[list[int]]) -> list[int]:
        """Skip-Bo Masters: coin plays, then purchases."""
        layout, p, n = self.layout, self.current_player, self.rules.num_players
        coins, actions = self.coins[p], []
        own = self._own_cards(p)
        key = self._building_key()
        for i, cards in enumerate(self.building):
            need = len(cards) + 1
            if need >= self.rules.max_rank or coins < need:
                continue
            # Pay N coins as the N the pile needs, only if the player can follow with the next
            # card from their own hand, stock top or discard-pile tops: the targets of the piles
            # as they would stand with the coin in place.
            after = self._targets_for(key[:i] + (need,) + key[i + 1:])
            if any(i in after[card] for card in own):
                actions.append(layout.coin_base + i)
        if coins >= 1:
            for k, source in enumerate(layout.purchase_sources):
                seller = (p + source.owner) % n
                pile = (self.stocks[seller] if source.kind == STOCK
                        else self.discards[seller][source.index])
                if pile:
                    base = layout.purchase_base + k * layout.building_piles
                    actions += [base + i for i in targets[pile[-1]]]
        return actions

    def _own_cards(self, p: int) -> list[int]:
        """The cards the player may play from their own hand, stock top and discard tops."""
        own = list(self.hands[p])
        own += [pile[-1] for pile in (self.stocks[p], *self.discards[p]) if pile]
        return own

    def _followups(self) -> list[int]:
        """After a coin play: plays from the player's own cards onto that pile only."""
        b, pile, p = self.layout.building_piles, self.pending_pile, self.current_player
        fits = self._targets()
        actions = [card * b + pile for card in sorted(set(self.hands[p])) if pile in fits[card]]
        s = self.layout.stock_source
        for cards in (self.stocks[p], *self.discards[p]):
            if cards and pile in fits[cards[-1]]:
                actions.append(s * b + pile)
            s += 1
        return actions

    def action_mask(self) -> np.ndarray:
        """int8 array over all actions, 1 where the action is legal."""
        mask = bytearray(self.layout.size)  # filled by item: cheaper than numpy fancy indexing
        for action in self._legal_cached():
            mask[action] = 1
        return np.frombuffer(mask, dtype=np.int8)

    def step(self, action: int) -> None:
        """Apply the current player's `action`; raises ValueError if it is not legal."""
        if action.__class__ is not int:  # a quick check first: this is the hot path
            if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
                raise ValueError(f"action must be an integer, got {action!r}")
            action = int(action)
        if action not in self._legal_cached():
            if self.is_over:
                raise ValueError(f"the game is over ({self.phase}); no action is legal")
            if not 0 <= action < self.layout.size:
                raise ValueError(f"action {action} is outside 0..{self.layout.size - 1}")
            raise ValueError(self._illegal_message(action))
        self._legal = None
        decoded = self.layout.decoded[action]
        kind = decoded[0]
        if kind == "play":
            self._play(decoded[1], decoded[2])
        elif kind == "discard":
            hand = self.hands[self.current_player]
            hand.remove(decoded[1])  # the matching card held longest
            self.discards[self.current_player][decoded[2]].append(decoded[1])
            self._end_turn()
        elif kind == "end_turn" or kind == "decline_toll":
            # Declining a toll ends the turn at once, with no further plays and no discard.
            self._end_turn()
        else:
            self._coin_step(decoded)

    def describe(self, action: int) -> str:
        """The action in words for the current player and cards, e.g.
        ``"hand 7 -> building pile 2"``, ``"stock Skip-Bo -> building pile 0 as 4"``,
        ``"discard pile 1 top 9 -> building pile 3"``, ``"discard hand 5 -> discard pile 0"``;
        in Skip-Bo Masters also ``"pay 5 coins as the 5 on building pile 2"``,
        ``"buy player 1's stock 7 -> building pile 0"``, ``"pay the toll of 2 coins"`` and
        ``"decline the toll (ends the turn)"``."""
        kind, *rest = self.layout.decode(int(action))
        name = self.card_name
        if kind == "end_turn":
            return "end turn"
        if kind == "discard":
            card, pile = rest
            return f"discard hand {name(card)} -> discard pile {pile}"
        if kind == "coin":
            need = len(self.building[rest[0]]) + 1
            return f"pay {_coins(need)} as the {need} on building pile {rest[0]}"
        if kind == "pay_toll":
            return f"pay the toll of {_coins(self.pending_toll)}"
        if kind == "decline_toll":
            return "decline the toll (ends the turn)"
        source, pile = rest
        p = self.current_player
        if kind == "buy":
            seller = (p + source.owner) % self.rules.num_players
            cards = (self.stocks[seller] if source.kind == STOCK
                     else self.discards[seller][source.index])
            card = cards[-1] if cards else None
            top = "empty" if card is None else name(card)
            where = (f"buy player {seller}'s stock {top}" if source.kind == STOCK
                     else f"buy player {seller}'s discard pile {source.index} top {top}")
        elif source.kind == HAND and not self.rules.stacked:
            card = source.index
            where = f"hand {name(card)}"
        else:
            owners = self.owners[p]
            owner = f"player {owners[source.owner]}'s " if source.owner else ""
            card = self._source_card(p, source)
            top = "empty" if card is None else name(card)
            if source.kind == HAND:
                where = f"hand stack {source.index} top {top}"
            elif source.kind == STOCK:
                where = f"{owner}stock {top}"
            else:
                where = f"{owner}discard pile {source.index} top {top}"
        text = f"{where} -> building pile {pile}"
        if card == WILD:
            text += f" as {len(self.building[pile]) + 1}"
        return text

    def view(self, seat: int) -> SeatView:
        """What `seat` can see: its own hand and everything public (docs/agents.md)."""
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or \
                not 0 <= seat < self.rules.num_players:
            raise ValueError(f"seat must be in 0..{self.rules.num_players - 1}, got {seat!r}")
        stacked = self.rules.stacked
        hand = tuple(tuple(s) for s in self.hands[seat]) if stacked else tuple(self.hands[seat])
        return SeatView(
            rules=self.rules, layout=self.layout, seat=int(seat),
            owners=tuple(self.owners[seat]), fits=partial(fits, self.rules),
            current_player=self.current_player, turn=self.turn, phase=self.phase, hand=hand,
            hand_sizes=tuple(sum(map(len, h)) if stacked else len(h) for h in self.hands),
            public_hands=(tuple(tuple(tuple(s) for s in h) for h in self.hands)
                          if stacked else None),
            stock_tops=tuple(s[-1] if s else None for s in self.stocks),
            stock_sizes=tuple(map(len, self.stocks)),
            discard_piles=tuple(tuple(tuple(d) for d in ds) for ds in self.discards),
            building_piles=tuple(tuple(b) for b in self.building),
            draw_pile_size=len(self.draw_pile), set_aside=tuple(self.set_aside),
            scores=tuple(self.scores), coins=tuple(self.coins),
            pile_coins=tuple(self.pile_coins), pending_pile=self.pending_pile,
            pending_toll=self.pending_toll,
            legal_actions=tuple(self._legal_cached()) if seat == self.current_player else (),
            played_this_turn=self.played_this_turn, stall_turns=self.stall_turns,
            first_player=self.first_player)

    @classmethod
    def from_view(cls, view: SeatView, rng: np.random.Generator) -> "Game":
        """A game that `view`'s seat cannot tell from the one it sees: everything visible is
        copied, and the cards it cannot see (the draw pile, other players' hands in refill
        mode, every stock below its top) are the unseen rest of the deck dealt at random with
        `rng`, which also seeds the new game's later reshuffles. The result depends only on
        the view and `rng` (search players sample hidden information with it)."""
        rules, n = view.rules, view.rules.num_players
        if view.phase not in ACTIVE:
            raise ValueError(f"the game is over (phase {view.phase!r}): nothing to sample")
        g = cls.__new__(cls)
        g._init_static(rules)
        g.scores, g.first_player = list(view.scores), view.first_player
        g.building = [list(b) for b in view.building_piles]
        g.set_aside = list(view.set_aside)
        g.discards = [[list(d) for d in ds] for ds in view.discard_piles]
        g.current_player, g.turn, g.phase, g.winner = (view.current_player, view.turn,
                                                       view.phase, None)
        g.played_this_turn, g.stall_turns = view.played_this_turn, view.stall_turns
        g.coins, g.pile_coins = list(view.coins), list(view.pile_coins)
        g.pending_pile, g.pending_toll = view.pending_pile, view.pending_toll
        unseen = list(rules.deck_counts())
        seen = [*g.set_aside, *(c for b in g.building for c in b if c != COIN),
                *(c for ds in g.discards for d in ds for c in d),
                *(top for top in view.stock_tops if top is not None)]
        if rules.stacked:
            g.hands = [[list(s) for s in h] for h in view.public_hands]
            seen += [c for h in g.hands for s in h for c in s]
        else:
            seen += view.hand
        for c in seen:
            unseen[c] -= 1
        hidden = [card for card, count in enumerate(unseen) for _ in range(count)]
        rng.shuffle(hidden)
        g.stocks = []
        for p in range(n):
            below = max(view.stock_sizes[p] - 1, 0)
            g.stocks.append(hidden[len(hidden) - below:] + (
                [view.stock_tops[p]] if view.stock_tops[p] is not None else []))
            del hidden[len(hidden) - below:]
        if not rules.stacked:
            g.hands = []
            for p in range(n):
                if p == view.seat:
                    g.hands.append(list(view.hand))
                else:
                    g.hands.append(hidden[len(hidden) - view.hand_sizes[p]:])
                    del hidden[len(hidden) - view.hand_sizes[p]:]
        g.draw_pile = hidden
        g.rng = np.random.default_rng(int(rng.integers(2 ** 63)))
        return g

    def card_name(self, card: int) -> str:
        """A card of these rules in words, e.g. "7", "Skip-Bo" or "7 (toll 1)"."""
        return card_name(card, self.rules.max_rank)

    def clone(self) -> "Game":
        """An independent copy, generator state included."""
        g = Game.__new__(Game)
        g.rules, g.layout, g.owners = self.rules, self.layout, self.owners
        g._targets_memo = self._targets_memo
        g._legal = self._legal
        g.rng = np.random.Generator(np.random.PCG64())
        g.rng.bit_generator.state = self.rng.bit_generator.state
        g.scores = list(self.scores)
        g.first_player = self.first_player
        g.stocks = [list(s) for s in self.stocks]
        g.draw_pile = list(self.draw_pile)
        g.set_aside = list(self.set_aside)
        g.building = [list(b) for b in self.building]
        if self.rules.stacked:
            g.hands = [[list(s) for s in h] for h in self.hands]
        else:
            g.hands = [list(h) for h in self.hands]
        g.discards = [[list(d) for d in ds] for ds in self.discards]
        g.current_player, g.turn, g.phase, g.winner = (
            self.current_player, self.turn, self.phase,
            list(self.winner) if isinstance(self.winner, list) else self.winner)
        g.played_this_turn, g.stall_turns = self.played_this_turn, self.stall_turns
        g.coins, g.pile_coins = list(self.coins), list(self.pile_coins)
        g.pending_pile, g.pending_toll = self.pending_pile, self.pending_toll
        return g

    # -- rules of play --------------------------------------------------------------------------
    def _targets(self) -> list[list[int]]:
        """For each card id (0 = wild, then 1..max_rank, then cards with tolls), the building
        piles it may go on (`fits`), memoised by the piles' sizes."""
        return self._targets_for(self._building_key())

    def _building_key(self) -> tuple:
        """The building piles' sizes; without wild-on-wild, a pile showing a wild is keyed by
        its negated size (no wild goes on it)."""
        if self.rules.wild_on_wild:
            return tuple(map(len, self.building))
        return tuple(-len(c) if c and c[-1] == WILD else len(c) for c in self.building)

    def _targets_for(self, key: tuple) -> list[list[int]]:
        targets = self._targets_memo.get(key)
        if targets is None:
            r = self.rules.max_rank + 1
            targets = [[i for i, size in enumerate(key) if fits(self.rules, card, abs(size),
                                                                   size < 0)]
                       for card in range(r)]
            # A card with a toll goes where its rank goes.
            targets += [targets[card % r] for card in range(r, self.rules.num_card_ids)]
            self._targets_memo[key] = targets
        return targets

    def _source_card(self, p: int, source) -> int | None:
        if source.kind == HAND:
            hand = self.hands[p]
            if self.rules.stacked:
                return hand[source.index][-1] if hand[source.index] else None
            return source.index if source.index in hand else None
        if source.owner >= len(self.owners[p]):
            return None
        owner = self.owners[p][source.owner]
        pile = self.stocks[owner] if source.kind == STOCK else self.discards[owner][source.index]
        return pile[-1] if pile else None

    def _play(self, source, pile: int) -> None:
        p = self.current_player
        if source.kind == HAND:
            if self.rules.stacked:
                card = self.hands[p][source.index].pop()
            else:
                card = source.index
                self.hands[p].remove(card)
        else:
            owner = self.owners[p][source.owner]
            cards = (self.stocks[owner] if source.kind == STOCK
                     else self.discards[owner][source.index])
            card = cards.pop()
        self._place(card, pile, p if source.kind == STOCK else None)

    def _place(self, card: int, pile: int, stock_owner: int | None) -> None:
        """Put `card` on building pile `pile`; `stock_owner` is the seat whose stock it came
        from, if any."""
        p = self.current_player
        target = self.building[pile]
        target.append(card)
        self.played_this_turn = True
        if self.phase == "coin_followup":
            self.phase, self.pending_pile = "play", None
        if len(target) == self.rules.max_rank:
            # A completed pile is set aside at once, freeing its place.
            self.set_aside += [c for c in target if c != COIN]
            self.building[pile] = []
            if self.pile_coins[pile]:
                self._hand_out_coins(pile)
        if stock_owner is not None and self._team_stocks_empty(stock_owner):
            team = self.rules.team_of(stock_owner)
            self.winner = list(team) if self.rules.teams is not None else stock_owner
            self.phase = "won"
            return
        toll = card // (self.rules.max_rank + 1)
        if toll:
            # The toll is due before anything else, a refill of an empty hand included.
            self.phase, self.pending_pile, self.pending_toll = "toll", pile, toll
            return
        if not self.rules.stacked and not self.hands[p]:
            # Playing every hand card without winning draws a full hand at once.
            self._draw(p, self.rules.hand_size)

    def _coin_step(self, decoded: tuple) -> None:
        """Skip-Bo Masters: a coin play, a purchase, or paying a toll."""
        p, kind = self.current_player, decoded[0]
        if kind == "coin":
            pile = decoded[1]
            need = len(self.building[pile]) + 1
            self.coins[p] -= need
            self.pile_coins[pile] += need
            self.building[pile].append(COIN)
            self.played_this_turn = True
            self.phase, self.pending_pile = "coin_followup", pile
        elif kind == "buy":
            source, pile = decoded[1], decoded[2]
            seller = (p + source.owner) % self.rules.num_players
            cards = (self.stocks[seller] if source.kind == STOCK
                     else self.discards[seller][source.index])
            self.coins[p] -= 1
            self.coins[seller] += 1
            self._place(cards.pop(), pile, seller if source.kind == STOCK else None)
        else:  # pay_toll
            self.coins[p] -= self.pending_toll
            self.pile_coins[self.pending_pile] += self.pending_toll
            self.phase, self.pending_pile, self.pending_toll = "play", None, 0
            if not self.hands[p]:
                self._draw(p, self.rules.hand_size)

    def _hand_out_coins(self, pile: int) -> None:
        """A cleared pile's coins go out one at a time, from the player who completed it round
        in turn order."""
        n, p = self.rules.num_players, self.current_player
        for k in range(self.pile_coins[pile]):
            self.coins[(p + k) % n] += 1
        self.pile_coins[pile] = 0

    def _team_stocks_empty(self, p: int) -> bool:
        return self.team_stock_size(p) == 0

    def _draw_card(self) -> int | None:
        if not self.draw_pile:
            if not self.set_aside:
                return None
            # Only completed piles are reshuffled into a new draw pile.
            self.draw_pile = self.set_aside
            self.set_aside = []
            self.rng.shuffle(self.draw_pile)
        return self.draw_pile.pop()

    def _draw(self, p: int, count: int) -> None:
        hand, pile = self.hands[p], self.draw_pile
        if 0 < count <= len(pile):
            # The common case in one step: the top `count` cards, in the order drawn.
            hand += pile[:-count - 1:-1]
            del pile[-count:]
            return
        for _ in range(count):
            card = self._draw_card()
            if card is None:
                return
            hand.append(card)

    def _start_turn(self) -> None:
        p = self.current_player
        self.played_this_turn = False
        if self.rules.stacked:
            # One face-up card onto each hand stack, stack 0 first.
            for stack in self.hands[p]:
                card = self._draw_card()
                if card is None:
                    return
                stack.append(card)
        else:
            self._draw(p, self.rules.hand_size - len(self.hands[p]))

    def _end_turn(self) -> None:
        self.phase, self.pending_pile, self.pending_toll = "play", None, 0
        self.turn += 1
        if not self.played_this_turn and not self.draw_pile and not self.set_aside:
            self.stall_turns += 1
        else:
            self.stall_turns = 0
        if self.stall_turns >= self.rules.num_players:
            self.phase, self.winner = "drawn", "draw"
            return
        if self.turn >= self.rules.max_turns:
            self.phase = "truncated"
            return
        self.current_player = (self.current_player + 1) % self.rules.num_players
        self._start_turn()

    def _illegal_message(self, action: int) -> str:
        legal = self.legal_actions()
        listed = "; ".join(f"{a}: {self.describe(a)}" for a in legal)
        return (f"illegal action {action} ({self.describe(action)}) for player "
                f"{self.current_player}; legal actions are {listed}")

    # -- serialisation --------------------------------------------------------------------------
    def to_dict(self) -> dict:
        """The whole state as a JSON-serialisable dictionary (see docs/rules.md)."""
        out = list if not self.rules.coins else self._cards_out
        return {
            "format": FORMAT,
            "rules": self.rules.to_dict(),
            "current_player": self.current_player,
            "turn": self.turn,
            "phase": self.phase,
            "draw_pile": out(self.draw_pile),
            "set_aside": out(self.set_aside),
            "building_piles": [out(b) for b in self.building],
            "players": [
                {"stock": out(self.stocks[p]),
                 "hand": ([out(s) for s in self.hands[p]] if self.rules.stacked
                          else out(self.hands[p])),
                 "discard_piles": [out(d) for d in self.discards[p]]}
                for p in range(self.rules.num_players)],
            "winner": list(self.winner) if isinstance(self.winner, list) else self.winner,
            "first_player": self.first_player,
            "scores": list(self.scores),
            "played_this_turn": self.played_this_turn,
            "stall_turns": self.stall_turns,
            "coins": list(self.coins),
            "pile_coins": list(self.pile_coins),
            "pending": (None if self.pending_pile is None
                        else {"pile": self.pending_pile, "toll": self.pending_toll}),
            "rng": _jsonable(self.rng.bit_generator.state),
        }

    def _cards_out(self, cards: list[int]) -> list:
        """Cards as the state writes them: a card with a toll as [rank, toll], a coin play's
        place in a building pile as "coin"."""
        r = self.rules.max_rank + 1
        return [c if 0 <= c < r else "coin" if c == COIN else [c % r, c // r] for c in cards]

    @classmethod
    def from_dict(cls, d: dict) -> "Game":
        """Rebuild a game from `to_dict` output; raises ValueError naming what is wrong."""
        return _load(cls, d)

    def __repr__(self) -> str:
        return (f"Game({self.rules.variant}, {self.rules.num_players} players, turn {self.turn}, "
                f"player {self.current_player} to act, {self.phase})")


def _coins(count: int) -> str:
    return "1 coin" if count == 1 else f"{count} coins"


def _jsonable(state: dict) -> dict:
    return json.loads(json.dumps(state))


def _check_scores(scores, n: int) -> list[int]:
    if not isinstance(scores, list) or len(scores) != n or any(
            isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in scores):
        raise ValueError(f"scores must be a list of {n} non-negative integers, got {scores!r}")
    return list(scores)


_KEYS = {"format", "rules", "current_player", "turn", "phase", "draw_pile", "set_aside",
         "building_piles", "players", "winner", "first_player", "scores", "played_this_turn",
         "stall_turns", "coins", "pile_coins", "pending", "rng"}


def _load(cls, d: dict) -> Game:
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
                    isinstance(x, int) and not isinstance(x, bool) for x in c) \
                    and 0 <= c[0] <= top and 1 <= c[1] <= rules.max_toll:
                result.append(c[0] + r * c[1])  # a card with a toll
            elif c == "coin" and coin_places:
                result.append(COIN)
            elif isinstance(c, bool) or not isinstance(c, int) or not 0 <= c <= top:
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
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < n:
            raise ValueError(f"{where} must be a seat in 0..{n - 1}, got {value!r}")
        return value

    g = Game.__new__(cls)
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
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise ValueError(f"turn must be a non-negative integer, got {turn!r}")
    g.turn = turn
    if d["phase"] not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, got {d['phase']!r}")
    g.phase = d["phase"]
    w = d["winner"]
    if g.phase == "won":
        if rules.teams is None:
            seat(w, "winner")
        elif not isinstance(w, list) or tuple(w) not in rules.teams:
            raise ValueError(f"winner must be one of the teams {[list(t) for t in rules.teams]}, "
                             f"got {w!r}")
        winners = w if isinstance(w, list) else [w]
        if any(g.stocks[s] for s in winners):
            raise ValueError(f"winner {w!r} still has stock cards")
        g.winner = list(w) if isinstance(w, list) else w
    elif g.phase == "drawn":
        if w != "draw":
            raise ValueError(f"a drawn game has winner 'draw', got {w!r}")
        g.winner = w
    elif w is not None:
        raise ValueError(f"winner must be null while the phase is {g.phase!r}, got {w!r}")
    else:
        g.winner = None
    if g.phase in ACTIVE:
        for team in (rules.teams or [(p,) for p in range(n)]):
            if all(not g.stocks[s] for s in team):
                raise ValueError(f"seats {list(team)} have empty stocks, so the game is won, "
                                 f"but the phase is 'play'")
    g.scores = _check_scores(d["scores"], n)
    if not isinstance(d["played_this_turn"], bool):
        raise ValueError("played_this_turn must be true or false")
    g.played_this_turn = d["played_this_turn"]
    stall = d["stall_turns"]
    if isinstance(stall, bool) or not isinstance(stall, int) or stall < 0:
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
                isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in value):
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
    if g.phase in ("toll", "coin_followup"):
        if not isinstance(pending, dict) or set(pending) != {"pile", "toll"} or any(
                isinstance(x, bool) or not isinstance(x, int) for x in pending.values()) \
                or not 0 <= pending["pile"] < b:
            raise ValueError(f"phase {g.phase!r} needs pending {{'pile': 0..{b - 1}, 'toll': "
                             f"n}}, got {pending!r}")
        g.pending_pile, g.pending_toll = pending["pile"], pending["toll"]
        if g.phase == "toll" and not 1 <= g.pending_toll <= rules.max_toll:
            raise ValueError(f"a pending toll must be 1..{rules.max_toll}, got {g.pending_toll}")
        if g.phase == "coin_followup" and (g.pending_toll != 0 or not g.building[g.pending_pile]
                                           or g.building[g.pending_pile][-1] != COIN):
            raise ValueError("a pending follow-up needs toll 0 and a coin play on top of its "
                             "building pile")
    elif pending is not None:
        raise ValueError(f"pending must be null while the phase is {g.phase!r}, got {pending!r}")
