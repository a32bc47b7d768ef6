"""Scripted players: `random`, `naive`, `greedy` and `expert` (docs/agents.md).

Each is given only its seat's view (`Game.view`) and returns a legal action; every player is
seeded and deterministic given its seed, and plays every variant. The batched engine's
copies (skipbo_env/vector/players.py) choose exactly the same moves; each class names its
mirror (`Mirror:`), and tests/test_mirrors.py checks the names.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..state import Phase
from ..view import SeatView
from .base import Agent, first_of, legal_plays, toll_or_none


class RandomAgent(Agent):
    """A uniformly random legal action.
    Mirror: vector.play_rules.pick_random"""

    name = "random"

    def choose(self, view: SeatView) -> int:
        return view.legal_actions[self.rng.integers(len(view.legal_actions))]


class NaiveAgent(Agent):
    """The fixed baseline of public Skip-Bo bot research: if any play is legal, play from the
    stock first, else from a discard-pile top, else from the hand, taking the first such play
    in building-pile order; else end the turn if that is legal; else discard the hand card that
    has been in hand longest onto discard pile 0. (In Skip-Bo Masters it pays every toll it
    can and never spends coins otherwise.)
    Mirror: vector.scripted.naive_action"""

    name = "naive"

    def choose(self, view: SeatView) -> int:
        toll = toll_or_none(view)
        if toll is not None:
            return toll
        plays = legal_plays(view)
        for kind in ("stock", "discard", "hand"):
            chosen = [(pile, source.owner, source.index, action)
                      for action, source, pile in plays if source.kind == kind]
            if chosen:
                return min(chosen)[3]
        layout = view.layout
        if layout.end_turn in view.legal_actions:
            return layout.end_turn
        return layout.discard(view.hand[0], 0)


class GreedyAgent(Agent):
    """Plays the stock whenever possible; otherwise plays cards that bring a building pile
    closer to the stock card (discard-pile tops before hand cards, numbers before wilds);
    then discards onto a pile with the same or next-higher number on top. (In the junior games,
    where play is compulsory, it plays the first legal play when nothing helps; in Skip-Bo
    Masters it pays every toll it can and never spends coins otherwise.)
    Mirror: vector.scripted.greedy_action"""

    name = "greedy"

    def choose(self, view: SeatView) -> int:
        toll = toll_or_none(view)
        if toll is not None:
            return toll
        plays = legal_plays(view)
        stock_plays = [(pile, a) for a, s, pile in plays if s.kind == "stock" and s.owner == 0]
        if stock_plays:
            return min(stock_plays)[1]
        target = self._stock_target(view)
        helpful = []
        for action, source, pile in plays:
            shows = len(view.building_piles[pile])
            card = self._card(view, source)
            if target is not None and shows + 1 < target:
                # Smaller gap first; discard tops, then hand; numbers before wilds.
                order = {"discard": 0, "stock": 1, "hand": 2}[source.kind]
                helpful.append((target - shows - 1, view.rank(card) == 0, order, action))
        if helpful:
            return min(helpful)[3]
        if view.rules.stacked or view.phase == Phase.COIN_FOLLOWUP:
            if plays:
                return plays[0][0]
            return view.legal_actions[0]
        if view.layout.end_turn in view.legal_actions:
            return view.layout.end_turn
        return self._discard(view)

    @staticmethod
    def _card(view: SeatView, source) -> int:
        if source.kind == "hand":
            return view.stacks[view.seat][source.index][-1] if view.rules.stacked \
                else source.index
        owner = view.owners[source.owner]
        if source.kind == "stock":
            return view.stock_tops[owner]
        return view.discard_piles[owner][source.index][-1]

    @staticmethod
    def _stock_target(view: SeatView) -> int | None:
        """The rank of the own stock top (None for a wild or an empty stock)."""
        top = view.stock_tops[view.seat]
        if top is None or view.rank(top) == 0:
            return None
        return view.rank(top)

    def _discard(self, view: SeatView) -> int:
        """The highest number onto the same or the next-higher number, else onto an empty
        pile, else onto the pile whose top is closest above it.
        Mirror: vector.scripted._greedy_discard"""
        layout, rules = view.layout, view.rules
        tops = [pile[-1] if pile else None for pile in view.discard_piles[view.seat]]
        # Numbers high to low, wilds last; among cards of one rank (tolls in Skip-Bo Masters)
        # the smaller id first, so the order never depends on a set's iteration order.
        cards = sorted(set(view.hand), key=lambda c: (view.rank(c) == 0, -view.rank(c), c))
        # The highest number that lands on the same or the next-higher number; keep wilds.
        for card in cards:
            for i, top in enumerate(tops):
                if top is not None and view.rank(top) in (view.rank(card), view.rank(card) + 1):
                    return layout.discard(card, i)
        for i, top in enumerate(tops):
            if top is None:
                return layout.discard(cards[0], i)
        # Otherwise on the pile whose top is closest above the card (or simply highest).
        card = cards[0]
        ranks = [view.rank(top) for top in tops if top is not None]  # no pile is empty now
        best = min(range(rules.discard_piles),
                   key=lambda i: (ranks[i] < view.rank(card), abs(ranks[i] - view.rank(card))))
        return layout.discard(card, best)


class ExpertAgent(GreedyAgent):
    """The strongest scripted player here; each action re-plans the rest of the turn:

    1. play the stock top whenever it fits (a wild stock top goes where it helps most and does
       not set up the next player's stock);
    2. else take the first step of the cheapest chain of plays that lets the stock top be
       played, filling each gap from discard-pile tops first (digging into the piles), then
       hand numbers, then wilds, wilds last (in team games, with no chain to its own stock
       top, a chain to a teammate's);
    3. else, if the whole hand can be played out (discard-pile tops helping), do it, to draw
       five fresh cards;
    4. else play numbers from the hand, then from discard-pile tops, onto building piles that
       stay out of the next player's reach (`_safe`); never spend a wild but on the stock's
       chain;
    5. else, when nothing is left to draw (draw pile and set-aside cards both empty), play
       any number, then any wild, rather than hold back: a round with no card played there
       ends the game as a draw;
    6. else discard: a card the stock's chain does not need, onto a pile whose top is the same
       number or one higher (keeping descending runs and duplicates together), else onto an
       empty pile, else onto the pile it buries least; wilds are never discarded while a
       number can be.

    In Skip-Bo Masters it pays every toll it can, and between steps 2 and 3 it spends coins
    where no chain of cards reaches the stock top (`_coin_step`): it fills one gap of a chain
    with a coin play (N coins as the N) or by buying another player's discard-pile top (or a
    stock top that is not their last card) for 1 coin, the cheapest in coins first.
    `expert_tolls` (`TollOnlyExpertAgent`) is the earlier toll-only player, kept for
    comparison. In the junior games, where play is compulsory, steps 1-4 pick the play and a
    safe play is preferred.
    Mirror: vector.scripted.expert_action"""

    name = "expert"
    SAFE_GAP = 3  # measured best of 0-5 against naive (docs/agents.md)
    COINS = True  # spend coins on coin plays and purchases (Masters); False: tolls only
    COIN_LIMIT = 12  # the most coins one coin play may cost (measured: docs/agents.md)
    BUY_STOCK = True  # whether another team's stock top may be bought (never its last card)

    def choose(self, view: SeatView) -> int:
        toll = toll_or_none(view)
        if toll is not None:
            return toll
        plays = legal_plays(view)
        if plays:
            action = first_of(view, plays, self._stock_play, self._chain_step,
                              self._coin_step, self._hand_out, self._safe_play, self._unstall)
            if action is not None:
                return action
            if view.rules.stacked or view.phase == Phase.COIN_FOLLOWUP:
                return plays[0][0]
        else:  # no card to play, but a coin play or a purchase may still reach the stock
            action = self._coin_step(view, plays)
            if action is not None:
                return action
        if view.layout.end_turn in view.legal_actions:
            return view.layout.end_turn
        return self._discard(view)

    # -- helpers -------------------------------------------------------------------------------
    def _danger(self, view: SeatView) -> int | None:
        """The number a building pile must not be raised to: one below the next player's
        stock top (None when that top is a wild or the stock is empty).
        Mirror: vector.scripted._danger"""
        nxt = (view.seat + 1) % view.rules.num_players
        if nxt in view.rules.team_of(view.seat):
            return None
        top = view.stock_tops[nxt]
        if top is None or view.rank(top) == 0:
            return None
        return view.rank(top) - 1

    def _safe(self, view: SeatView, pile: int) -> bool:
        """Raising `pile` keeps it out of the next player's easy reach: it completes the pile,
        or goes past their stock top, or leaves more than SAFE_GAP numbers between the pile
        and their stock top that their visible discard-pile tops cannot fill.
        Mirror: vector.scripted._safe"""
        new = len(view.building_piles[pile]) + 1
        danger = self._danger(view)
        if danger is None or new == view.rules.max_rank or new > danger:
            return True
        nxt = (view.seat + 1) % view.rules.num_players
        tops = {view.rank(p[-1]) for p in view.discard_piles[nxt] if p}
        missing = sum(1 for need in range(new + 1, danger + 1) if need not in tops)
        if 0 in tops:
            missing -= 1
        return missing > self.SAFE_GAP

    def _stock_play(self, view: SeatView, plays) -> int | None:
        """Mirror: vector.scripted._expert_stock_play"""
        stock = [(a, s, pile) for a, s, pile in plays if s.kind == "stock"]
        if not stock:
            return None
        own = [p for p in stock if p[1].owner == 0] or stock
        if len(own) == 1:
            return own[0][0]
        # A wild stock top: complete a pile if it can, else raise a safe pile as high as possible.
        best = max(own, key=lambda p: (len(view.building_piles[p[2]]) + 1 == view.rules.max_rank,
                                       self._safe(view, p[2]), len(view.building_piles[p[2]])))
        return best[0]

    def _tops(self, view: SeatView) -> list[tuple[tuple, list[int]]]:
        """The discard piles the player may play from: (source key, cards bottom first)."""
        return [(("discard", owner, i), list(pile)) for owner, seat in enumerate(view.owners)
                for i, pile in enumerate(view.discard_piles[seat]) if pile]

    def _hand_ranks(self, view: SeatView) -> list[int]:
        if view.rules.stacked:
            return [stack[-1] for stack in view.stacks[view.seat] if stack]
        return list(view.hand)

    def _chain_step(self, view: SeatView, plays) -> int | None:
        """The first play of the cheapest chain to the own stock top; in team games, when
        there is none (or its first play is not legal), to each teammate's stock top in turn
        (a teammate's stock card counts for the team as one's own; `_stock_play` plays it).
        Mirror: vector.scripted._expert_chain_step"""
        for owner in view.owners:  # itself first, then its teammates
            action = self._chain_to(view, plays, owner)
            if action is not None:
                return action
        return None

    def _chain_to(self, view: SeatView, plays, owner: int) -> int | None:
        """The first play of the cheapest chain that lets seat `owner`'s stock top be played.
        Mirror: vector.scripted._chain_to"""
        top = view.stock_tops[owner]
        m = view.rules.max_rank + 1
        if top is None or top % m == 0:
            return None
        target = top % m
        tops = [(key, [c % m for c in cards]) for key, cards in self._tops(view)]
        hand = [c % m for c in self._hand_ranks(view)]
        best = None
        top_rank = view.rules.max_rank
        for pile, cards in enumerate(view.building_piles):
            if view.pending_pile is not None and pile != view.pending_pile:
                continue  # a coin play's follow-up goes on its pile
            shows = len(cards)
            needs: Sequence[int]
            if shows < target - 1:
                needs = range(shows + 1, target)
            else:  # complete the pile first, then build it again up to the stock
                needs = [*range(shows + 1, top_rank + 1), *range(1, target)]
            plan = self._fill(tops, hand, needs)
            if plan is None:
                continue
            first, wilds, hand_used = plan
            cost = (wilds, len(needs), hand_used)
            if best is None or cost < best[0]:
                best = (cost, first, pile)
        if best is None:
            return None
        return self._first_play(view, plays, best[1], best[2])

    def _first_play(self, view: SeatView, plays, first: tuple, pile: int) -> int | None:
        """The legal play of a plan's first source (`_fill`) onto `pile`; a hand source is the
        hand card of that rank (the first held, with its toll, in Masters).
        Mirror: vector.scripted._first_play"""
        if first[0] == "hand":
            m = view.rules.max_rank + 1
            first = ("hand", next(c for c in self._hand_ranks(view) if c % m == first[1]))
        return self._action_for(view, plays, first, pile)

    def _coin_step(self, view: SeatView, plays) -> int | None:
        """Skip-Bo Masters, when no chain of cards reaches the own stock top (a number): the
        first step of the cheapest chain in which one number comes from coins, either a coin
        play (N coins as the N, at most `COIN_LIMIT`) or a purchase for 1 coin of another
        team's discard-pile top (or stock top, unless it is their last card: that would win
        them the game) showing that number, else a wild. The rest of the chain is cards as
        `_chain_step` finds them. Cheapest: fewest coins, a coin play before a purchase, then
        as `_chain_step`; the first building pile, the lowest number of those. Only in the
        play phase, while coins are spent at all (`COINS`).
        Mirror: vector.scripted._expert_coin_step"""
        if not (self.COINS and view.rules.coins) or view.phase != Phase.PLAY:
            return None
        target = self._stock_target(view)
        if target is None:
            return None
        m, coins = view.rules.max_rank + 1, view.coins[view.seat]
        tops = [(key, [c % m for c in cards]) for key, cards in self._tops(view)]
        hand = [c % m for c in self._hand_ranks(view)]
        best = None
        for pile, cards in enumerate(view.building_piles):
            shows = len(cards)
            if shows >= target - 1:
                continue
            needs = range(shows + 1, target)
            for gap in needs:
                coin = gap <= min(coins, self.COIN_LIMIT)
                buy = coins >= 1 and self._seller(view, gap) is not None
                if not (coin or buy):
                    continue  # no coins can fill this gap: no plan to cost
                plan = self._fill(tops, hand, needs, gap)
                if plan is None:
                    continue
                first, wilds, hand_used = plan
                for spend, kind in ((gap, 0), (1, 1)):
                    if (coin, buy)[kind]:
                        cost = (spend, kind, wilds, len(needs), hand_used)
                        if best is None or cost < best[0]:
                            best = (cost, first, pile, gap)
        if best is None:
            return None
        (_, kind, *_), first, pile, gap = best
        if first != ("gap",):
            return self._first_play(view, plays, first, pile)
        layout = view.layout
        if kind == 0:
            action = layout.coin_play(pile)
        else:
            seller = self._seller(view, gap)
            if seller is None:
                return None
            action = layout.purchase(seller, pile)
        return action if action in view.legal_actions else None

    def _seller(self, view: SeatView, rank: int) -> int | None:
        """The purchase source (`ActionLayout.purchase_sources`, by number) of another team's
        top card showing `rank`, else a wild: discard-pile tops first, then stock tops that
        are not their owner's last card (if `BUY_STOCK`); None when there is none.
        Mirror: vector.scripted._seller"""
        n, mine = view.rules.num_players, view.rules.team_of(view.seat)
        best = None
        for k, source in enumerate(view.layout.purchase_sources):
            seller = (view.seat + source.owner) % n
            if seller in mine:
                continue
            if source.kind == "stock":
                if not self.BUY_STOCK or view.stock_sizes[seller] < 2:
                    continue
                card = view.stock_tops[seller]
            else:
                pile = view.discard_piles[seller][source.index]
                card = pile[-1] if pile else None
            if card is None or view.rank(card) not in (rank, 0):
                continue
            key = (view.rank(card) == 0, source.kind == "stock", k)
            if best is None or key < best:
                best = key
        return None if best is None else best[2]

    @staticmethod
    def _fill(tops, hand, needs, gap: int | None = None) -> tuple | None:
        """Cards for each number in `needs` from discard-pile tops and hand ranks (wild 0):
        discard tops first (digging down), then hand numbers, then wilds from discard tops,
        then hand wilds; the number `gap` (if any) is left to coins, its source ("gap",).
        Returns (first source, wilds used, hand cards used) or None.
        Mirror: vector.scripted._fill"""
        piles = [cards[:] for _, cards in tops]
        hand = hand[:]
        first: tuple | None = None
        wilds = hand_used = 0
        for need in needs:
            if need == gap:
                first = first or ("gap",)
                continue
            source = None
            for i, cards in enumerate(piles):
                if cards and cards[-1] == need:
                    cards.pop()
                    source = tops[i][0]
                    break
            else:
                if need in hand:
                    hand.remove(need)
                    source, hand_used = ("hand", need), hand_used + 1
                else:
                    for i, cards in enumerate(piles):
                        if cards and cards[-1] == 0:
                            cards.pop()
                            source, wilds = tops[i][0], wilds + 1
                            break
                    else:
                        if 0 not in hand:
                            return None
                        hand.remove(0)
                        source, wilds, hand_used = ("hand", 0), wilds + 1, hand_used + 1
            if first is None:
                first = source
        return first, wilds, hand_used

    def _action_for(self, view: SeatView, plays, key: tuple, pile: int) -> int | None:
        """The legal play from source `key` onto `pile`.
        Mirror: vector.scripted._hand_play"""
        for action, source, target in plays:
            if target != pile:
                continue
            if key[0] == "hand":
                card = self._card(view, source) if source.kind == "hand" else None
                if card == key[1]:
                    return action
            elif source.kind == "discard" and (source.owner, source.index) == key[1:]:
                return action
        return None

    def _hand_out(self, view: SeatView, plays) -> int | None:
        """The first play of a sequence that empties the hand, if there is one.
        Mirror: vector.scripted._expert_hand_out"""
        if view.rules.stacked or not view.hand:
            return None
        m, fits = view.rules.max_rank + 1, view.fits
        shows = [len(p) for p in view.building_piles]
        hand, tops = list(view.hand), self._tops(view)
        first = None
        top_rank = view.rules.max_rank
        while hand:
            # Numbers from the hand first, then discard-top numbers that unlock them, wilds last.
            options = [(("hand", c), c) for c in sorted(hand, key=lambda c: c % m) if c % m]
            options += [(key, cards[-1]) for key, cards in tops if cards and cards[-1] % m]
            options += [(("hand", c), c) for c in hand if c % m == 0]
            for key, card in options:
                pile = next((i for i, v in enumerate(shows) if fits(card, v)), None)
                if pile is None:
                    continue
                if first is None:
                    first = (key, pile)
                shows[pile] = 0 if shows[pile] + 1 == top_rank else shows[pile] + 1
                if key[0] == "hand":
                    hand.remove(card)
                else:
                    next(cards for k, cards in tops if k == key).pop()
                break
            else:
                return None
        if first is None:
            return None
        return self._action_for(view, plays, first[0], first[1])

    def _safe_play(self, view: SeatView, plays) -> int | None:
        """Mirror: vector.scripted._expert_safe_play"""
        options = []
        for action, source, pile in plays:
            card = self._card(view, source)
            if view.rank(card) == 0 or not self._safe(view, pile):
                continue
            # Hand numbers first (a smaller hand draws more fresh cards), then discard tops.
            order = {"hand": 0, "discard": 1, "stock": 2}[source.kind]
            options.append((order, -len(view.building_piles[pile]), action))
        return min(options)[2] if options else None

    def _unstall(self, view: SeatView, plays) -> int | None:
        """With nothing left to draw, any play (numbers before wilds, the highest pile
        first) rather than a turn that may end the game as a draw.
        Mirror: vector.scripted._expert_unstall"""
        if view.draw_pile_size or view.set_aside:
            return None
        options = [(view.rank(self._card(view, source)) == 0, -len(view.building_piles[pile]),
                    action) for action, source, pile in plays]
        return min(options)[2] if options else None

    def _discard(self, view: SeatView) -> int:
        """Mirror: vector.scripted._expert_discard"""
        layout = view.layout
        tops = [pile[-1] if pile else None for pile in view.discard_piles[view.seat]]
        keep = self._chain_needs(view)
        best: tuple[tuple, int, int] | None = None
        for card in set(view.hand):
            rank = view.rank(card)
            for i, top in enumerate(tops):
                if top is None:
                    fit = 2
                elif view.rank(top) == rank:
                    fit = 4
                elif view.rank(top) == rank + 1 or (view.rank(top) == 0):
                    fit = 3 if view.rank(top) else -3
                elif view.rank(top) > rank:
                    fit = 1
                else:
                    fit = -2  # burying a lower card
                # Numbers before wilds, cards the chain does not need, the best fit, high first.
                score = (rank != 0, rank not in keep, fit, rank)
                if best is None or score > best[0]:
                    best = (score, card, i)
        assert best is not None, "a discard is legal only with cards in hand"
        return layout.discard(best[1], best[2])

    def _chain_needs(self, view: SeatView) -> set[int]:
        """The numbers between some building pile and the stock top.
        Mirror: vector.scripted._expert_discard"""
        top = view.stock_tops[view.seat]
        if top is None or view.rank(top) == 0:
            return set()
        target = view.rank(top)
        needs: set[int] = set()
        for cards in view.building_piles:
            needs.update(range(len(cards) + 1, target))
        return needs


class TollOnlyExpertAgent(ExpertAgent):
    """`expert_tolls`: `expert` as it played Skip-Bo Masters before it spent coins (it pays
    every toll it can, and never makes a coin play or a purchase); kept to measure the coin
    play against (docs/agents.md). In every other variant it is `expert`.
    Mirror: none (a comparison player; it runs on the reference engine)"""

    name = "expert_tolls"
    COINS = False
