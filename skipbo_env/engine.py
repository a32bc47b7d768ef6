"""The Skip-Bo rules engine: the reference statement of the rules of play.

A `Game` holds one deal: the state record of `state.GameState` (cards are integers, 1..max_rank
for numbers and 0 for the wild; every pile a list with its top card last) and the rules that
change it. It imports nothing above it: the state dictionary (`state_io`) and the words
(`text`) it offers as methods read a `GameState`. The batched engine
(skipbo_env/vector/kernels.py) mirrors each rule method here; each names its mirror
(`Mirror:` in the docstring), and tests/test_mirrors.py checks that the names cited exist.
"""

from __future__ import annotations

from functools import partial
from typing import cast

import numpy as np

from . import checks
from .actions import HAND, STOCK, ActionKind, DecodedAction, Source
from .rules import COIN, WILD, Rules
from .state import ACTIVE, GameState, Phase
from .state_io import game_from_dict, game_to_dict
from .text import card_name, describe_action
from .view import SeatView

__all__ = ["Game", "fits"]

_REDEALS = 1000  # Game.from_view's deals of the unseen cards at most


def fits(rules: Rules, card: int, shows: int, shows_wild: bool = False) -> bool:
    """Whether a building pile showing `shows` (its top a wild if `shows_wild`) takes `card`:
    a pile starts with a 1 or a wild, then takes the next number or a wild; a wild takes the
    number the pile needs, on another wild too unless `wild_on_wild` is off. The engine's
    legal actions and the players' planning both use it.
    Mirror: vector.play_rules.fits_shown"""
    rank = card % (rules.max_rank + 1)
    if rank == WILD:
        return rules.wild_on_wild or not shows_wild
    return rank == shows + 1


def check_scores(scores, n: int) -> list[int]:
    """`scores` checked as a list of `n` non-negative integers (a copy)."""
    if not isinstance(scores, list) or len(scores) != n or not all(
            checks.is_integer(s) and s >= 0 for s in scores):
        raise ValueError(f"scores must be a list of {n} non-negative integers, got {scores!r}")
    return [int(s) for s in scores]


class Game(GameState):
    """One game of Skip-Bo under `rules`, dealt from a generator seeded with `seed`: the state
    record (`state.GameState`) with the rules of play that change it."""

    def __init__(self, rules: Rules, seed: int | None = None, first_player: int = 0,
                 scores: list[int] | None = None):
        """Deal: shuffle the deck, deal each stock from its end, the first player draws.
        Mirror: vector.play_rules.deal"""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a skipbo_env.Rules, got {type(rules).__name__}; "
                            f"use Rules.preset(name, num_players)")
        n = rules.num_players
        self.first_player = checks.seat(first_player, n, "first_player")
        self._init_static(rules)
        self.rng = np.random.default_rng(seed)
        self.scores = [0] * n if scores is None else check_scores(scores, n)
        deck = [card for card, count in enumerate(rules.deck_counts()) for _ in range(count)]
        self.rng.shuffle(deck)
        self.stocks = []
        for _ in range(n):
            self.stocks.append(deck[-rules.stock_size:])
            del deck[-rules.stock_size:]
        self.draw_pile = deck
        self.set_aside = []
        self.building = [[] for _ in range(rules.building_piles)]
        self.hands = [[] for _ in range(n)]
        self.stacks = [[[] for _ in range(rules.hand_size)] if rules.stacked else []
                       for _ in range(n)]
        self.discards = [[[] for _ in range(rules.discard_piles)] for _ in range(n)]
        self.current_player = self.first_player
        self.turn = 0
        self.phase = Phase.PLAY
        self.winners = ()
        self.played_this_turn = False
        self.stall_turns = 0
        self.turn_moves = 0
        self.coins = [rules.coins_per_player] * n
        self.pile_coins = [0] * rules.building_piles
        self.pending_pile = None
        self.pending_toll = 0
        self._start_turn()

    # -- public API -----------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """+1 for the winner (or each member of the winning team), -1 for the others, else 0.
        Mirror: vector.play_rules.write_returns"""
        winners = self.winners
        if not winners:
            return [0.0] * self.rules.num_players
        return [1.0 if p in winners else -1.0 for p in range(self.rules.num_players)]

    def points(self) -> list[int]:
        """Points this game scores: the winner (each member of a winning team) scores 25 plus
        5 for each card left in the opponents' stocks; everyone else scores 0."""
        n, winners = self.rules.num_players, self.winners
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
        """The legal actions, worked out from the rules.
        Mirror: vector.play_rules.legal_mask"""
        phase = self.phase
        if phase is not Phase.PLAY:
            if phase is Phase.TOLL:
                pay = [self.layout.pay_toll] if self.coins[self.current_player] >= \
                    self.pending_toll else []
                return pay + [self.layout.decline_toll]
            if phase is Phase.COIN_FOLLOWUP:
                return self.followups()
            return []
        layout = self.layout
        targets = self._targets()
        hand = self.hands[self.current_player]
        ranks = sorted(set(hand))
        actions = self._plays(targets, ranks)
        if self.rules.stacked:
            if not actions:  # play is compulsory; the turn ends when nothing can be played
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

    def _plays(self, targets: list[list[int]], ranks: list[int]) -> list[int]:
        """The plays of the player to act, whose hand holds the card ids `ranks`: sources are
        numbered as `ActionLayout` lays them out, so they come out in order: hand stacks
        (stacked mode) or hand card ids (refill mode; the other is empty), then the stock and
        discard-pile tops of the player and its teammates.
        Mirror: vector.play_rules.legal_mask"""
        b, p = self.layout.building_piles, self.current_player
        actions: list[int] = []
        for s, stack in enumerate(self.stacks[p]):
            if stack and targets[stack[-1]]:
                actions += [s * b + i for i in targets[stack[-1]]]
        for rank in ranks:
            if targets[rank]:
                actions += [rank * b + i for i in targets[rank]]
        s = self.layout.stock_source
        for owner in self.owners[p]:
            for pile in (self.stocks[owner], *self.discards[owner]):
                if pile and targets[pile[-1]]:
                    actions += [s * b + i for i in targets[pile[-1]]]
                s += 1
        return actions

    def _coin_actions(self, targets: list[list[int]]) -> list[int]:
        """Skip-Bo Masters: coin plays, then purchases.
        Mirror: vector.play_rules._coin_actions"""
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

    def followups(self) -> list[int]:
        """After a coin play: plays from the player's own cards onto that pile only.
        Mirror: vector.play_rules.legal_mask"""
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
        """Apply the current player's `action`; raises ValueError if it is not legal.
        Mirror: vector.play_rules.step_game, vector.play_rules.remove_from_hand"""
        if action.__class__ is not int:  # a quick check first: this is the hot path
            action = checks.integer(action, "action")
        if action not in self._legal_cached():
            if self.is_over:
                raise ValueError(f"the game is over ({self.phase.value}); no action is legal")
            if not 0 <= action < self.layout.size:
                raise ValueError(f"action {action} is outside 0..{self.layout.size - 1}")
            raise ValueError(self._illegal_message(action))
        self._legal = None
        self.turn_moves += 1
        decoded = self.layout.decoded[action]
        kind = decoded.kind
        if kind is ActionKind.PLAY:
            self._play(decoded.source, decoded.pile)
        elif kind is ActionKind.DISCARD:
            hand = self.hands[self.current_player]
            hand.remove(decoded.card)  # the matching card held longest
            self.discards[self.current_player][decoded.pile].append(decoded.card)
            self._end_turn()
        elif kind is ActionKind.END_TURN or kind is ActionKind.DECLINE_TOLL:
            # Declining a toll ends the turn at once, with no further plays and no discard.
            self._end_turn()
        else:
            self._coin_step(decoded)
        if self.turn_moves >= self.rules.max_turn_moves and self.phase in ACTIVE:
            # The move limit of a turn (an ended turn counts from 0 again): the game stops.
            self.phase = Phase.TRUNCATED

    def describe(self, action: int, style: str = "skipbo") -> str:
        """The action in words for the current player and cards, e.g.
        ``"hand 7 -> building pile 2"`` (`skipbo_env.text.describe_action`; `style` names
        the cards as `text.DECK_STYLES` says)."""
        return describe_action(self, action, style)

    def view(self, seat: int | None = None) -> SeatView:
        """What `seat` (the player to act when None) can see: its own hand and everything
        public (docs/agents.md). Players act on it, never on the game."""
        seat = self.current_player if seat is None else checks.seat(seat,
                                                                    self.rules.num_players)
        return SeatView(
            rules=self.rules, layout=self.layout, seat=int(seat),
            owners=tuple(self.owners[seat]), fits=partial(fits, self.rules),
            current_player=self.current_player, turn=self.turn, phase=self.phase,
            hand=tuple(self.hands[seat]),
            hand_sizes=tuple(self.hand_size(p) for p in range(self.rules.num_players)),
            stacks=tuple(tuple(tuple(s) for s in h) for h in self.stacks),
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
            turn_moves=self.turn_moves, first_player=self.first_player)

    @classmethod
    def from_view(cls, view: SeatView, rng: np.random.Generator) -> Game:
        """A game that `view`'s seat cannot tell from the one it sees: everything visible is
        copied, and the cards it cannot see (the draw pile, other players' hands in refill
        mode, every stock below its top) are the unseen rest of the deck dealt at random with
        `rng`, which also seeds the new game's later reshuffles (dealt again while a coin
        play's player to act, another seat, could not follow it: the deal must be one the
        game could have reached). The result depends only on the view and `rng` (search
        players sample hidden information with it)."""
        rules, n = view.rules, view.rules.num_players
        if view.phase not in ACTIVE:
            raise ValueError(f"the game is over (phase {str(view.phase)!r}): nothing to sample")
        g = cls.__new__(cls)
        g._init_static(rules)
        g.scores, g.first_player = list(view.scores), view.first_player
        g.building = [list(b) for b in view.building_piles]
        g.set_aside = list(view.set_aside)
        g.discards = [[list(d) for d in ds] for ds in view.discard_piles]
        g.current_player, g.turn, g.phase, g.winners = (view.current_player, view.turn,
                                                        Phase(view.phase), ())
        g.played_this_turn, g.stall_turns = view.played_this_turn, view.stall_turns
        g.turn_moves = view.turn_moves
        g.coins, g.pile_coins = list(view.coins), list(view.pile_coins)
        g.pending_pile, g.pending_toll = view.pending_pile, view.pending_toll
        unseen = list(rules.deck_counts())
        seen = [*g.set_aside, *(c for b in g.building for c in b if c != COIN),
                *(c for ds in g.discards for d in ds for c in d),
                *(top for top in view.stock_tops if top is not None)]
        g.stacks = [[list(s) for s in h] for h in view.stacks]
        seen += [c for h in g.stacks for s in h for c in s]
        seen += view.hand
        for c in seen:
            unseen[c] -= 1
        pool = [card for card, count in enumerate(unseen) for _ in range(count)]
        for _ in range(_REDEALS):
            hidden = list(pool)
            rng.shuffle(hidden)
            g.stocks = []
            for p in range(n):
                below = max(view.stock_sizes[p] - 1, 0)
                top = view.stock_tops[p]
                g.stocks.append(hidden[len(hidden) - below:] + ([] if top is None else [top]))
                del hidden[len(hidden) - below:]
            g.hands = []
            for p in range(n):
                if p == view.seat or rules.stacked:  # hand stacks are public
                    g.hands.append(list(view.hand) if p == view.seat else [])
                else:
                    g.hands.append(hidden[len(hidden) - view.hand_sizes[p]:])
                    del hidden[len(hidden) - view.hand_sizes[p]:]
            g.draw_pile = hidden
            # A coin play is made only with a card to follow it: when the hand of the player
            # to act is unseen, deal again until it could have made the coin play.
            if g.phase is not Phase.COIN_FOLLOWUP or g.followups():
                break
        else:
            raise ValueError(f"no deal of the unseen cards in {_REDEALS} lets player "
                             f"{g.current_player} follow the coin play")
        g.rng = np.random.default_rng(int(rng.integers(2 ** 63)))
        return g

    def card_name(self, card: int) -> str:
        """A card of these rules in words, e.g. "7", "Skip-Bo" or "7 (toll 1)"."""
        return card_name(card, self.rules.max_rank)

    def clone(self) -> Game:
        """An independent copy, generator state included."""
        g = Game.__new__(Game)
        g.rules, g.spec, g.layout, g.owners = self.rules, self.spec, self.layout, self.owners
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
        g.hands = [list(h) for h in self.hands]
        g.stacks = [[list(s) for s in h] for h in self.stacks]
        g.discards = [[list(d) for d in ds] for ds in self.discards]
        g.current_player, g.turn, g.phase, g.winners = (self.current_player, self.turn,
                                                        self.phase, self.winners)
        g.played_this_turn, g.stall_turns = self.played_this_turn, self.stall_turns
        g.turn_moves = self.turn_moves
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
        """Each card id's target piles for building piles of these sizes (`_building_key`).
        Mirror: vector.play_rules.fits_rank"""
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

    def _play(self, source: Source, pile: int) -> None:
        """Take the card from `source` and put it on building pile `pile`.
        Mirror: vector.play_rules.step_game"""
        p = self.current_player
        if source.kind == HAND:
            if self.rules.stacked:
                card = self.stacks[p][source.index].pop()
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
        from, if any.
        Mirror: vector.play_rules.place"""
        p = self.current_player
        target = self.building[pile]
        target.append(card)
        self.played_this_turn = True
        if self.phase is Phase.COIN_FOLLOWUP:
            self.phase, self.pending_pile = Phase.PLAY, None
        if len(target) == self.rules.max_rank:
            # A completed pile is set aside at once, freeing its place.
            self.set_aside += [c for c in target if c != COIN]
            self.building[pile] = []
            if self.pile_coins[pile]:
                self._hand_out_coins(pile)
        if stock_owner is not None and self._team_stocks_empty(stock_owner):
            self.winners = self.spec.team_of(stock_owner)
            self.phase = Phase.WON
            return
        toll = card // (self.rules.max_rank + 1)
        if toll:
            # The toll is due before anything else, a refill of an empty hand included.
            self.phase, self.pending_pile, self.pending_toll = Phase.TOLL, pile, toll
            return
        if not self.rules.stacked and not self.hands[p]:
            # Playing every hand card without winning draws a full hand at once.
            self._draw(p, self.rules.hand_size)

    def _coin_step(self, decoded: DecodedAction) -> None:
        """Skip-Bo Masters: a coin play, a purchase, or paying a toll.
        Mirror: vector.play_rules.step_game"""
        p, kind = self.current_player, decoded.kind
        if kind is ActionKind.COIN:
            pile = decoded.pile
            need = len(self.building[pile]) + 1
            self.coins[p] -= need
            self.pile_coins[pile] += need
            self.building[pile].append(COIN)
            self.played_this_turn = True
            self.phase, self.pending_pile = Phase.COIN_FOLLOWUP, pile
        elif kind is ActionKind.BUY:
            source, pile = decoded.source, decoded.pile
            seller = (p + source.owner) % self.rules.num_players
            cards = (self.stocks[seller] if source.kind == STOCK
                     else self.discards[seller][source.index])
            self.coins[p] -= 1
            self.coins[seller] += 1
            self._place(cards.pop(), pile, seller if source.kind == STOCK else None)
        else:  # pay_toll: the phase is TOLL, so a pile is pending
            self.coins[p] -= self.pending_toll
            self.pile_coins[cast(int, self.pending_pile)] += self.pending_toll
            self.phase, self.pending_pile, self.pending_toll = Phase.PLAY, None, 0
            if not self.hands[p]:
                self._draw(p, self.rules.hand_size)

    def _hand_out_coins(self, pile: int) -> None:
        """A cleared pile's coins go out one at a time, from the player who completed it round
        in turn order.
        Mirror: vector.play_rules.place"""
        n, p = self.rules.num_players, self.current_player
        for k in range(self.pile_coins[pile]):
            self.coins[(p + k) % n] += 1
        self.pile_coins[pile] = 0

    def stall_winner(self) -> tuple[int, ...] | None:
        """The team a stalled game goes to under `rules.stall_outcome` "fewest_stock": the one
        with the fewest stock cards left, if no other team has as few; else None (a draw, as
        always under "draw").
        Mirror: vector.play_rules.stall_winner"""
        if self.rules.stall_outcome != "fewest_stock":
            return None
        left = [sum(len(self.stocks[s]) for s in team) for team in self.spec.teams]
        fewest = min(left)
        if left.count(fewest) > 1:
            return None
        return self.spec.teams[left.index(fewest)]

    def _team_stocks_empty(self, p: int) -> bool:
        """Whether seat p's team has no stock card left.
        Mirror: vector.play_rules.team_stocks_empty"""
        return self.team_stock_size(p) == 0

    def _draw_card(self) -> int | None:
        """The draw pile's top card (None when nothing is left); an empty draw pile is
        replaced by the shuffled set-aside cards.
        Mirror: vector.play_rules.draw_card"""
        if not self.draw_pile:
            if not self.set_aside:
                return None
            # Only completed piles are reshuffled into a new draw pile.
            self.draw_pile = self.set_aside
            self.set_aside = []
            self.rng.shuffle(self.draw_pile)
        return self.draw_pile.pop()

    def _draw(self, p: int, count: int) -> None:
        """Up to `count` cards from the draw pile into seat p's refill hand.
        Mirror: vector.play_rules.draw"""
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
        """The player to act draws: a full refill hand, or one card onto each hand stack.
        Mirror: vector.play_rules.start_turn"""
        p = self.current_player
        self.played_this_turn = False
        if self.rules.stacked:
            # One face-up card onto each hand stack, stack 0 first.
            for stack in self.stacks[p]:
                card = self._draw_card()
                if card is None:
                    return
                stack.append(card)
        else:
            self._draw(p, self.rules.hand_size - len(self.hands[p]))

    def _end_turn(self) -> None:
        """The turn ends: a round with no card played and nothing to draw ends the game (drawn,
        or won by the fewest stock cards: `rules.stall_outcome`), the turn limit truncates it,
        else the next player starts.
        Mirror: vector.play_rules.end_turn"""
        self.phase, self.pending_pile, self.pending_toll = Phase.PLAY, None, 0
        self.turn += 1
        self.turn_moves = 0
        if not self.played_this_turn and not self.draw_pile and not self.set_aside:
            self.stall_turns += 1
        else:
            self.stall_turns = 0
        if self.stall_turns >= self.rules.num_players:
            team = self.stall_winner()
            self.phase, self.winners = (Phase.DRAWN, ()) if team is None else (Phase.WON, team)
            return
        if self.turn >= self.rules.max_turns:
            self.phase = Phase.TRUNCATED
            return
        self.current_player = (self.current_player + 1) % self.rules.num_players
        self._start_turn()

    def _illegal_message(self, action: int) -> str:
        legal = self.legal_actions()
        listed = "; ".join(f"{a}: {self.describe(a)}" for a in legal)
        return (f"illegal action {action} ({self.describe(action)}) for player "
                f"{self.current_player}; legal actions are {listed}")

    # -- serialisation (skipbo_env/state_io.py) -------------------------------------------------
    def to_dict(self) -> dict:
        """The whole state as a JSON-serialisable dictionary (docs/rules.md)."""
        return game_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Game:
        """Rebuild a game from `to_dict` output; raises ValueError naming what is wrong."""
        return game_from_dict(d, cls)

    def __repr__(self) -> str:
        return (f"Game({self.rules.variant}, {self.rules.num_players} players, turn {self.turn}, "
                f"player {self.current_player} to act, {self.phase.value})")


