"""Numba kernels of the batched scripted players: `random`, `naive`, `greedy` and `expert`, the
reference players of skipbo_env/players/scripted.py on arrays. tests/test_vector.py proves
they choose the reference players' moves, and each names its reference (`Mirror:`). Like the
reference players they read only what the seat to act may see: its own hand and the public
piles. The kernels take the bundles of `bundles` (`State`, `Static`, `Buffers`).
"""

from __future__ import annotations

import numpy as np

from .bundles import (
    FOLLOWUP,
    PLAY,
    SRC_DISCARD,
    SRC_HAND,
    SRC_STOCK,
    TOLL,
    WON,
    A,
    S,
    entry,
    jit,
    next_chunk,
)
from .play_rules import deal, is_over, legal_mask_inline, pick_random, step_game

RANDOM, NAIVE, GREEDY, EXPERT = range(4)
BATCHED_PLAYERS = ("random", "naive", "greedy", "expert")
"""The scripted players the batched engine plays, in the order of their kind numbers."""


@jit(inline="always")
def _toll(tb, masks, g):
    """While a toll is due: pay it when possible, else decline."""
    prm = tb.prm
    return prm.pay if masks[g, prm.pay] else prm.decline


@jit(inline="always")
def _source_card(st, tb, g, p, a):
    """The card play action a would play for player p."""
    piles, lens, prm, owners, act = st.piles, st.lens, tb.prm, tb.owners, tb.act
    src, index = act[a, A.src], act[a, A.index]
    if src == SRC_HAND:
        if prm.stacked:
            k = prm.hands + p * prm.hs + index
            return piles[g, k, lens[g, k] - 1]
        return index
    owner = owners[p, act[a, A.owner]]
    if src == SRC_STOCK:
        k = prm.stocks + owner
    else:
        k = prm.discs + owner * prm.d + index
    return piles[g, k, lens[g, k] - 1]


@jit(inline="always")
def naive_action(st, tb, masks, g):
    """The first play from the stock, else a discard-pile top, else the hand (by building
    pile, owner, index); else end the turn; else discard the card held longest onto discard
    pile 0.
    Mirror: players.scripted.NaiveAgent"""
    piles, scal, prm, act = st.piles, st.scal, tb.prm, tb.act
    if scal[g, S.phase] == TOLL:
        return _toll(tb, masks, g)
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if masks[g, a]:
            src = act[a, A.src]
            rank = 0 if src == SRC_STOCK else (1 if src == SRC_DISCARD else 2)
            key = (((rank * 16 + act[a, A.pile]) * 16 + act[a, A.owner]) * 64
                   + act[a, A.index]) * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if masks[g, prm.end]:
        return prm.end
    p = scal[g, S.cur]
    return prm.dbase + piles[g, prm.hands + p, 0] * prm.d


@jit
def greedy_action(st, tb, masks, g):
    """The own stock whenever it plays; else the play that brings a building pile closest
    below the stock card (discard tops, then teammates' stocks, then hand; numbers before
    wilds); junior games and coin follow-ups play the first play; else end the turn; else
    discard (`_greedy_discard`).
    Mirror: players.scripted.GreedyAgent"""
    piles, lens, scal, prm, act = st.piles, st.lens, st.scal, tb.prm, tb.act
    if scal[g, S.phase] == TOLL:
        return _toll(tb, masks, g)
    p = scal[g, S.cur]
    b, top = prm.b, prm.top
    for i in range(b):  # the own stock, onto the lowest building pile it fits
        a = prm.stocksrc * b + i
        if masks[g, a]:
            return a
    first_play = -1
    sk = prm.stocks + p
    target = -1
    if lens[g, sk]:
        target = piles[g, sk, lens[g, sk] - 1] % (top + 1)
        if target == 0:
            target = -1
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if not masks[g, a]:
            continue
        if first_play < 0:
            first_play = a
        if target < 0:
            continue
        shows = lens[g, prm.build + act[a, A.pile]]
        if shows + 1 < target:
            card = _source_card(st, tb, g, p, a)
            src = act[a, A.src]
            order = 0 if src == SRC_DISCARD else (1 if src == SRC_STOCK else 2)
            wild = 1 if card % (top + 1) == 0 else 0
            key = ((target - shows - 1) * 2 + wild) * 4 * 100000 + order * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    if best >= 0:
        return best
    if prm.stacked or scal[g, S.phase] == FOLLOWUP:
        if first_play >= 0:
            return first_play
        for a in range(masks.shape[1]):
            if masks[g, a]:
                return a
    if masks[g, prm.end]:
        return prm.end
    return _greedy_discard(st, tb, g, p)


@jit
def _greedy_discard(st, tb, g, p):
    """The highest number that lands on the same or the next-higher number, else onto an
    empty pile, else onto the pile whose top is closest above it.
    Mirror: players.scripted.GreedyAgent._discard"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    top, d, r = prm.top, prm.d, prm.r
    hk = prm.hands + p
    dk = prm.discs + p * d
    first = -1
    # The hand's cards in the reference order: numbers high to low, wilds last, ids ascending.
    for rank_step in range(top + 1):
        rank = top - rank_step if rank_step < top else 0
        card = rank
        while card < r:
            held = False
            for j in range(lens[g, hk]):
                if piles[g, hk, j] == card:
                    held = True
            if held:
                if first < 0:
                    first = card
                for i in range(d):
                    size = lens[g, dk + i]
                    if size:
                        shown = piles[g, dk + i, size - 1] % (top + 1)
                        if shown == rank or shown == rank + 1:
                            return prm.dbase + card * d + i
            card += top + 1
    for i in range(d):
        if lens[g, dk + i] == 0:
            return prm.dbase + first * d + i
    rank = first % (top + 1)
    best, best_key = 0, 0
    for i in range(d):
        shown = piles[g, dk + i, lens[g, dk + i] - 1] % (top + 1)
        key = (1 if shown < rank else 0) * 1000 + abs(shown - rank)
        if i == 0 or key < best_key:
            best, best_key = i, key
    return prm.dbase + first * d + best


# -- expert ----------------------------------------------------------------------------------
# The expert plans over simulated plays: a discard pile "pops" its top by marking the card
# (stored as -1 - id; discard piles and hands hold no negative ids) and shortening the pile,
# a hand card is taken by marking it in place, and every mark is undone before the kernel
# returns, so the row reads as it did. (Kernels allocate nothing; the discard's tie-break
# writes buf.seen, the observation's scratch row, which every observation clears first.)
EXPERT_SAFE_GAP = 3  # players.scripted.ExpertAgent.SAFE_GAP
EXPERT_COIN_LIMIT = 12  # players.scripted.ExpertAgent.COIN_LIMIT
EXPERT_BUY_STOCK = True  # players.scripted.ExpertAgent.BUY_STOCK
_NONE = -(1 << 20)  # no source yet
_GAP = -(1 << 21)  # the number a plan leaves to coins


@jit(inline="always")
def _pop(piles, lens, g, k):
    """Take pile k's top for a plan: mark it and shorten the pile."""
    lens[g, k] -= 1
    piles[g, k, lens[g, k]] = -1 - piles[g, k, lens[g, k]]


@jit(inline="always")
def _unpop(piles, lens, g, k):
    """Put back the cards `_pop` took from pile k (marked slots just past its end)."""
    cap = piles.shape[2]
    while lens[g, k] < cap and piles[g, k, lens[g, k]] < 0:
        piles[g, k, lens[g, k]] = -1 - piles[g, k, lens[g, k]]
        lens[g, k] += 1


@jit(inline="always")
def _unpop_discards(st, tb, g, p):
    """Undo every `_pop` on the discard piles seat p may play from."""
    piles, lens, prm, owners = st.piles, st.lens, tb.prm, tb.owners
    d = prm.d
    for t in range(prm.tm + 1):
        for j in range(d):
            _unpop(piles, lens, g, prm.discs + owners[p, t] * d + j)


@jit
def _danger(st, tb, g, p):
    """One below the next player's stock top: the number a building pile must not be raised
    to (-1 when that top is a wild, the stock is empty or the next player is a teammate).
    Mirror: players.scripted.ExpertAgent._danger"""
    piles, lens, prm, team_id = st.piles, st.lens, tb.prm, tb.team_id
    nxt = (p + 1) % prm.n
    if team_id[nxt] == team_id[p]:
        return -1
    sk = prm.stocks + nxt
    if lens[g, sk] == 0:
        return -1
    rank = piles[g, sk, lens[g, sk] - 1] % (prm.top + 1)
    if rank == 0:
        return -1
    return rank - 1


@jit
def _safe(st, tb, g, p, danger, pile):
    """Whether raising building pile `pile` keeps it out of the next player's easy reach.
    Mirror: players.scripted.ExpertAgent._safe"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    top, d = prm.top, prm.d
    new = lens[g, prm.build + pile] + 1
    if danger < 0 or new == top or new > danger:
        return True
    dk = prm.discs + ((p + 1) % prm.n) * d
    missing = 0
    for need in range(new + 1, danger + 1):
        found = False
        for j in range(d):
            size = lens[g, dk + j]
            if size and piles[g, dk + j, size - 1] % (top + 1) == need:
                found = True
        if not found:
            missing += 1
    for j in range(d):
        size = lens[g, dk + j]
        if size and piles[g, dk + j, size - 1] % (top + 1) == 0:
            missing -= 1
            break
    return missing > EXPERT_SAFE_GAP


@jit
def _expert_stock_play(st, tb, masks, g, p):
    """The own stock top onto a building pile (a teammate's when the own does not play); of
    several piles, one it completes, else a safe one, else the highest (-1: none).
    Mirror: players.scripted.ExpertAgent._stock_play"""
    lens, prm = st.lens, tb.prm
    b, d, top = prm.b, prm.d, prm.top
    danger = _danger(st, tb, g, p)
    for owners_too in range(2):
        count, best, best_key = 0, -1, -1
        for t in range(prm.tm + 1 if owners_too else 1):
            s = prm.stocksrc + t * (d + 1)
            for i in range(b):
                a = s * b + i
                if masks[g, a]:
                    count += 1
                    shows = lens[g, prm.build + i]
                    key = (((1 if shows + 1 == top else 0) * 2
                            + (1 if _safe(st, tb, g, p, danger, i) else 0)) * 64 + shows)
                    if key > best_key:
                        best, best_key = a, key
        if count:
            return best
    return -1


@jit
def _fill(st, tb, g, p, shows, target, hand_wilds, gap):
    """The cheapest way to raise a building pile showing `shows` to one below `target` (past
    the top and round again when it shows that or more): each number from discard-pile tops
    (digging), else hand numbers, else discard-top wilds, else hand wilds; the number `gap`
    (-1: none) is left to coins. Returns (cost, first source): the cost packs (wilds, numbers
    needed, hand cards) (-1: no way); the first source is a play source number, -1 - rank for
    a hand card of that rank, or _GAP.
    Mirror: players.scripted.ExpertAgent._fill"""
    piles, lens, prm, owners = st.piles, st.lens, tb.prm, tb.owners
    top, d = prm.top, prm.d
    hk = prm.hands + p * (prm.hs if prm.stacked else 1)
    m = top + 1
    first, wilds, hand_used, hand_wilds_used, count = _NONE, 0, 0, 0, 0
    ok = True
    for part in range(2):
        if part == 0:
            lo, hi = shows + 1, (target - 1 if shows < target - 1 else top)
        else:
            lo, hi = 1, (0 if shows < target - 1 else target - 1)
        for need in range(lo, hi + 1):
            count += 1
            if need == gap:
                if first == _NONE:
                    first = _GAP
                continue
            source = _NONE
            # The numbers needed are all different: a hand number is never needed twice.
            for t in range(prm.tm + 1):
                for j in range(d):
                    k = prm.discs + owners[p, t] * d + j
                    if source == _NONE and lens[g, k] \
                            and piles[g, k, lens[g, k] - 1] % m == need:
                        _pop(piles, lens, g, k)
                        source = prm.stocksrc + t * (d + 1) + 1 + j
            if source == _NONE:
                if prm.stacked:
                    for s in range(prm.hs):
                        k = hk + s
                        if lens[g, k] and piles[g, k, lens[g, k] - 1] % m == need:
                            source = -1 - need
                else:
                    for j in range(lens[g, hk]):
                        if piles[g, hk, j] % m == need:
                            source = -1 - need
                if source != _NONE:
                    hand_used += 1
            if source == _NONE:
                for t in range(prm.tm + 1):
                    for j in range(d):
                        k = prm.discs + owners[p, t] * d + j
                        if source == _NONE and lens[g, k] \
                                and piles[g, k, lens[g, k] - 1] % m == 0:
                            _pop(piles, lens, g, k)
                            source = prm.stocksrc + t * (d + 1) + 1 + j
                if source != _NONE:
                    wilds += 1
            if source == _NONE:
                if hand_wilds_used == hand_wilds:
                    ok = False
                    break
                hand_wilds_used += 1
                source = -1
                wilds += 1
                hand_used += 1
            if first == _NONE:
                first = source
        if not ok:
            break
    _unpop_discards(st, tb, g, p)
    if not ok:
        return -1, first
    return (wilds * 128 + count) * 128 + hand_used, first


@jit
def _hand_play(st, tb, masks, g, p, card, pile):
    """The legal play of hand card `card` (by id) onto `pile` (-1: none): the card's source
    in refill mode, the first hand stack showing it in stacked mode.
    Mirror: players.scripted.ExpertAgent._action_for"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    b = prm.b
    if not prm.stacked:
        a = card * b + pile
        return a if masks[g, a] else -1
    for s in range(prm.hs):
        k = prm.hands + p * prm.hs + s
        a = s * b + pile
        if masks[g, a] and lens[g, k] and piles[g, k, lens[g, k] - 1] == card:
            return a
    return -1


@jit
def _expert_chain_step(st, tb, masks, g, p):
    """The first play of the cheapest chain (fewest wilds, then fewest numbers, then fewest
    hand cards; the first building pile of those) that lets the stock top be played; in team
    games, failing that, a teammate's stock top, in owner order (-1: none, or no chain's
    first play is legal).
    Mirror: players.scripted.ExpertAgent._chain_step"""
    for t in range(tb.prm.tm + 1):
        a = _chain_to(st, tb, masks, g, p, tb.owners[p, t])
        if a >= 0:
            return a
    return -1


@jit
def _chain_to(st, tb, masks, g, p, owner):
    """The first play of seat p's cheapest chain to seat `owner`'s stock top (-1: none).
    Mirror: players.scripted.ExpertAgent._chain_to"""
    lens, prm = st.lens, tb.prm
    b = prm.b
    target = _stock_target(st, tb, g, owner)
    if target <= 0:
        return -1
    hand_wilds = _hand_wilds(st, tb, g, p)
    pending = st.scal[g, S.ppile]  # a coin play's follow-up goes on its pile
    best_cost, best_first, best_pile = -1, 0, -1
    for pile in range(b):
        if pending >= 0 and pile != pending:
            continue
        cost, first = _fill(st, tb, g, p, lens[g, prm.build + pile], target, hand_wilds,
                           np.int64(-1))
        if cost >= 0 and (best_cost < 0 or cost < best_cost):
            best_cost, best_first, best_pile = cost, first, pile
    if best_pile < 0:
        return -1
    # int64 arguments, never literals: the callee compiles for one type of each.
    return _first_play(st, tb, masks, g, p, np.int64(best_first), np.int64(best_pile))


@jit(inline="always")
def _stock_target(st, tb, g, seat):
    """The number on seat's stock top (0 for a wild, -1 for an empty stock)."""
    piles, lens, prm = st.piles, st.lens, tb.prm
    sk = prm.stocks + seat
    if lens[g, sk] == 0:
        return -1
    return piles[g, sk, lens[g, sk] - 1] % (prm.top + 1)


@jit
def _hand_wilds(st, tb, g, p):
    """How many wilds seat p holds (showing on a hand stack, in stacked mode)."""
    piles, lens, prm = st.piles, st.lens, tb.prm
    m = prm.top + 1
    hk = prm.hands + p * (prm.hs if prm.stacked else 1)
    count = 0
    if prm.stacked:
        for s in range(prm.hs):
            k = hk + s
            if lens[g, k] and piles[g, k, lens[g, k] - 1] % m == 0:
                count += 1
    else:
        for j in range(lens[g, hk]):
            if piles[g, hk, j] % m == 0:
                count += 1
    return count


@jit
def _first_play(st, tb, masks, g, p, first, pile):
    """The legal play of a plan's first source (`_fill`) onto `pile` (-1: not legal); a hand
    source is the first hand card of that rank.
    Mirror: players.scripted.ExpertAgent._first_play"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    b, m = prm.b, prm.top + 1
    hk = prm.hands + p * (prm.hs if prm.stacked else 1)
    if first >= 0:
        a = first * b + pile
        return a if masks[g, a] else -1
    rank = -1 - first
    card = np.int64(-1)
    if prm.stacked:
        for s in range(prm.hs):
            k = hk + s
            if card < 0 and lens[g, k] and piles[g, k, lens[g, k] - 1] % m == rank:
                card = piles[g, k, lens[g, k] - 1]
    else:
        for j in range(lens[g, hk]):
            if card < 0 and piles[g, hk, j] % m == rank:
                card = piles[g, hk, j]
    return _hand_play(st, tb, masks, g, p, card, pile)


@jit
def _seller(st, tb, g, p, rank):
    """The purchase source number of another team's top card showing `rank`, else a wild:
    discard-pile tops first, then stock tops that are not their owner's last card (-1: none).
    Mirror: players.scripted.ExpertAgent._seller"""
    piles, lens, prm, team_id = st.piles, st.lens, tb.prm, tb.team_id
    n, d, m = prm.n, prm.d, prm.top + 1
    best, best_key = -1, 0
    src = 0
    for offset in range(1, n):
        seller = (p + offset) % n
        for j in range(d + 1):
            k = prm.stocks + seller if j == 0 else prm.discs + seller * d + j - 1
            ok = team_id[seller] != team_id[p] and lens[g, k] > 0
            if j == 0 and (not EXPERT_BUY_STOCK or lens[g, k] < 2):
                ok = False
            if ok:
                r = piles[g, k, lens[g, k] - 1] % m
                if r == rank or r == 0:
                    key = ((1 if r == 0 else 0) * 2 + (1 if j == 0 else 0)) * 4096 + src
                    if best < 0 or key < best_key:
                        best, best_key = src, key
            src += 1
    return best


@jit
def _expert_coin_step(st, tb, masks, g, p):
    """Skip-Bo Masters, when no chain of cards reaches the own stock top (a number): the first
    step of the cheapest chain with one number from coins, a coin play (at most
    EXPERT_COIN_LIMIT coins) or a 1-coin purchase (`_seller`) (-1: none, or not legal).
    Mirror: players.scripted.ExpertAgent._coin_step"""
    lens, scal, prm = st.lens, st.scal, tb.prm
    if not prm.coins or scal[g, S.phase] != PLAY:
        return -1
    b = prm.b
    target = _stock_target(st, tb, g, p)
    if target <= 0:
        return -1
    coins = scal[g, S.coins + p]
    hand_wilds = _hand_wilds(st, tb, g, p)
    best_key, best_first, best_pile, best_gap, best_kind = -1, 0, -1, 0, 0
    for pile in range(b):
        shows = lens[g, prm.build + pile]
        if shows >= target - 1:
            continue
        for gap in range(shows + 1, target):
            coin = gap <= min(coins, EXPERT_COIN_LIMIT)
            buy = coins >= 1 and _seller(st, tb, g, p, gap) >= 0
            if not (coin or buy):
                continue  # no coins can fill this gap: no plan to cost
            cost, first = _fill(st, tb, g, p, shows, target, hand_wilds, gap)
            if cost < 0:
                continue
            for kind in range(2):
                if (buy if kind else coin):
                    spend = 1 if kind else gap
                    key = (spend * 2 + kind) * (1 << 21) + cost
                    if best_key < 0 or key < best_key:
                        best_key, best_first, best_pile = key, first, pile
                        best_gap, best_kind = gap, kind
    if best_key < 0:
        return -1
    if best_first != _GAP:
        return _first_play(st, tb, masks, g, p, np.int64(best_first), np.int64(best_pile))
    if best_kind == 0:
        a = prm.cbase + best_pile
    else:
        a = prm.pbase + _seller(st, tb, g, p, np.int64(best_gap)) * b + best_pile
    return a if masks[g, a] else -1


@jit(inline="always")
def _shows(lo, hi, i):
    """Building pile i's simulated size from its packed words (8 bits a pile)."""
    w = lo if i < 8 else hi
    return (w >> ((i & 7) * 8)) & 255


@jit
def _next_hand_out(st, tb, g, p, lo, hi):
    """The next play of a hand-out sequence with the building piles at the simulated sizes
    (`lo`, `hi`): (source, building pile, hand cards taken), the source _NONE when there is
    none. A hand card taken is marked (-1 - card) in the hand; a source below 0 is the hand
    card -1 - source; a discard-pile top is popped."""
    piles, lens, prm, owners = st.piles, st.lens, tb.prm, tb.owners
    b, d, m = prm.b, prm.d, prm.top + 1
    hk = prm.hands + p
    size = lens[g, hk]
    src, pile = _NONE, -1
    best_rank = m
    for j in range(size):  # the lowest hand number that fits (the first of its rank)
        c = piles[g, hk, j]
        if c >= 0:
            rank = c % m
            if 0 < rank < best_rank:
                for i in range(b):
                    if _shows(lo, hi, i) + 1 == rank:
                        src, pile, best_rank = j, i, rank
                        break
    if src != _NONE:
        c = piles[g, hk, src]
        piles[g, hk, src] = -1 - c
        return -1 - c, pile, 1
    for t in range(prm.tm + 1):  # a discard-pile top number that fits
        for j in range(d):
            k = prm.discs + owners[p, t] * d + j
            if src == _NONE and lens[g, k]:
                rank = piles[g, k, lens[g, k] - 1] % m
                if rank:
                    for i in range(b):
                        if src == _NONE and _shows(lo, hi, i) + 1 == rank:
                            src, pile = prm.stocksrc + t * (d + 1) + 1 + j, i
                    if src != _NONE:
                        _pop(piles, lens, g, k)
    if src != _NONE:
        return src, pile, 0
    for j in range(size):  # a hand wild, onto building pile 0
        c = piles[g, hk, j]
        if c >= 0 and c % m == 0:
            piles[g, hk, j] = -1 - c
            return -1 - c, 0, 1
    return _NONE, -1, 0


@jit
def _expert_hand_out(st, tb, masks, g, p):
    """The first play of a sequence that empties the hand (refill mode; -1: none): each step
    the lowest hand number that fits, else a discard-pile top number (digging), else a hand
    wild onto building pile 0 (`_next_hand_out`).
    Mirror: players.scripted.ExpertAgent._hand_out"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    top, b = prm.top, prm.b
    if prm.stacked:
        return -1
    hk = prm.hands + p
    size = lens[g, hk]
    if size == 0:
        return -1
    lo, hi = np.int64(0), np.int64(0)  # the building piles' simulated sizes, 8 bits each
    for i in range(b):
        if i < 8:
            lo |= np.int64(lens[g, prm.build + i]) << (i * 8)
        else:
            hi |= np.int64(lens[g, prm.build + i]) << ((i - 8) * 8)
    first_src, first_pile = _NONE, -1
    left = size
    ok = True
    while left > 0:
        src, pile, took = _next_hand_out(st, tb, g, p, lo, hi)
        if src == _NONE:
            ok = False
            break
        left -= took
        if first_pile < 0:
            first_src, first_pile = src, pile
        v = _shows(lo, hi, pile)
        new = 0 if v + 1 == top else v + 1
        shift = (pile & 7) * 8
        if pile < 8:
            lo = (lo & ~(np.int64(255) << shift)) | (np.int64(new) << shift)
        else:
            hi = (hi & ~(np.int64(255) << shift)) | (np.int64(new) << shift)
    for j in range(size):
        if piles[g, hk, j] < 0:
            piles[g, hk, j] = -1 - piles[g, hk, j]
    _unpop_discards(st, tb, g, p)
    if not ok:
        return -1
    if first_src < 0:
        return _hand_play(st, tb, masks, g, p, np.int64(-1 - first_src), np.int64(first_pile))
    a = first_src * b + first_pile
    return a if masks[g, a] else -1


@jit
def _expert_safe_play(st, tb, masks, g, p):
    """A number onto a safe building pile: hand numbers, then discard tops, then stocks;
    the highest pile first (-1: none).
    Mirror: players.scripted.ExpertAgent._safe_play"""
    lens, prm, act = st.lens, tb.prm, tb.act
    top = prm.top
    danger = _danger(st, tb, g, p)
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if masks[g, a]:
            pile = act[a, A.pile]
            if _source_card(st, tb, g, p, a) % (top + 1) == 0 \
                    or not _safe(st, tb, g, p, danger, pile):
                continue
            src = act[a, A.src]
            order = 0 if src == SRC_HAND else (1 if src == SRC_DISCARD else 2)
            key = (order * 64 + 63 - lens[g, prm.build + pile]) * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    return best


@jit
def _expert_unstall(st, tb, masks, g, p):
    """With nothing left to draw, any play: numbers before wilds, the highest pile first
    (-1: none, or something is left to draw).
    Mirror: players.scripted.ExpertAgent._unstall"""
    lens, prm, act = st.lens, tb.prm, tb.act
    if lens[g, prm.draw] or lens[g, prm.aside]:
        return -1
    best, best_key = -1, 0
    for a in range(prm.nplays):
        if masks[g, a]:
            wild = 1 if _source_card(st, tb, g, p, a) % (prm.top + 1) == 0 else 0
            key = (wild * 64 + 63 - lens[g, prm.build + act[a, A.pile]]) * 100000 + a
            if best < 0 or key < best_key:
                best, best_key = a, key
    return best


@jit(inline="always")
def _first_in_hand(piles, g, hk, j):
    """Whether hand position j holds the first card of its id."""
    for i in range(j):
        if piles[g, hk, i] == piles[g, hk, j]:
            return False
    return True


@jit
def _set_probe(piles, seen, g, hk, upto, c, mask, offset):
    """The slot CPython's set insertion gives id c in a table of mask + 1 slots, where slot
    s is taken by a distinct hand id at a position below `upto` with seen == offset + s.
    (setobject.c: the home slot, 9 linear probes when they fit, then perturbed jumps.)"""
    c = np.int64(c)
    i = c & mask
    perturb = c
    while True:
        for step in range(10 if i + 9 <= mask else 1):
            taken = False
            for j in range(upto):
                if seen[g, piles[g, hk, j]] == offset + i + step \
                        and _first_in_hand(piles, g, hk, j):
                    taken = True
                    break
            if not taken:
                return i + step
        perturb >>= 5
        i = (i * 5 + 1 + perturb) & mask


@jit
def _set_slots(st, seen, g, hk):
    """seen[g, c] = the slot of each distinct hand id c in CPython's ``set(hand)`` (ids are
    small ints, their own hashes): iterating the set visits them by slot. Tables of 8 slots,
    grown to four times the ids when three fifths are filled, as CPython 3 grows them."""
    piles, lens = st.piles, st.lens
    mask, fill = 7, 0
    for j in range(lens[g, hk]):
        c = piles[g, hk, j]
        if not _first_in_hand(piles, g, hk, j):
            continue
        seen[g, c] = _set_probe(piles, seen, g, hk, j, c, np.int64(mask), np.int64(0))
        fill += 1
        if fill * 5 >= mask * 3:
            size = 8
            while size <= fill * 4:
                size <<= 1
            for s in range(mask + 1):  # re-inserted in the old table's slot order
                for i in range(j + 1):
                    ci = piles[g, hk, i]
                    if seen[g, ci] == s and _first_in_hand(piles, g, hk, i):
                        seen[g, ci] = 1024 + _set_probe(piles, seen, g, hk, j + 1, ci,
                                                        np.int64(size - 1), np.int64(1024))
                        break
            for i in range(j + 1):
                if _first_in_hand(piles, g, hk, i):
                    seen[g, piles[g, hk, i]] -= 1024
            mask = size - 1


@jit
def _expert_discard(st, tb, seen, g, p):
    """A number the stock's chain does not need onto the pile it fits best (the same number,
    then one higher, then an empty pile, then a higher number), high numbers first, wilds
    last. Among cards of one rank (tolls, in Skip-Bo Masters) the reference takes the first
    in ``set(hand)`` order: `_set_slots` works that order out in seen[g].
    Mirror: players.scripted.ExpertAgent._discard, players.scripted.ExpertAgent._chain_needs"""
    piles, lens, prm = st.piles, st.lens, tb.prm
    top, d, b = prm.top, prm.d, prm.b
    m = top + 1
    hk = prm.hands + p
    dk = prm.discs + p * d
    sk = prm.stocks + p
    keep_lo, keep_hi = 1, 0  # the numbers between some building pile and the stock top
    if lens[g, sk] and piles[g, sk, lens[g, sk] - 1] % m:
        low = lens[g, prm.build]
        for i in range(1, b):
            low = min(low, lens[g, prm.build + i])
        keep_lo, keep_hi = low + 1, piles[g, sk, lens[g, sk] - 1] % m - 1
    best_score, best_card, best_pile, tie = -1, -1, -1, False
    for j in range(lens[g, hk]):
        c = piles[g, hk, j]
        if not _first_in_hand(piles, g, hk, j):
            continue
        rank = c % m
        for i in range(d):
            size = lens[g, dk + i]
            if size == 0:
                fit = 2
            else:
                shown = piles[g, dk + i, size - 1] % m
                if shown == rank:
                    fit = 4
                elif shown == rank + 1:
                    fit = 3
                elif shown == 0:
                    fit = -3
                elif shown > rank:
                    fit = 1
                else:
                    fit = -2
            kept = 1 if keep_lo <= rank <= keep_hi else 0
            score = (((1 if rank else 0) * 2 + 1 - kept) * 8 + fit + 3) * 64 + rank
            if score > best_score:
                best_score, best_card, best_pile, tie = score, c, i, False
            elif score == best_score and c != best_card:
                tie = True
    if tie:  # ids of one rank score alike: the first in set(hand) order wins
        _set_slots(st, seen, g, hk)
        rank = best_card % m
        for j in range(lens[g, hk]):
            c = piles[g, hk, j]
            if c % m == rank and seen[g, c] < seen[g, best_card]:
                best_card = c
    return prm.dbase + best_card * d + best_pile


@jit
def expert_action(st, tb, masks, seen, g):
    """Pay a toll when it can; else the first of: the stock top, the first play of the
    cheapest chain to the stock, the first step of a chain with coins (Masters), the first
    play of a hand-emptying sequence, a safe number,
    any play when nothing is left to draw; junior games and coin follow-ups then play the
    first play; else end the turn; else discard (`_expert_discard`). seen[g] is scratch.
    Mirror: players.scripted.ExpertAgent"""
    scal, prm = st.scal, tb.prm
    if scal[g, S.phase] == TOLL:
        return _toll(tb, masks, g)
    p = scal[g, S.cur]
    first_play = -1
    for a in range(prm.nplays):
        if masks[g, a]:
            first_play = a
            break
    if first_play >= 0:
        a = _expert_stock_play(st, tb, masks, g, p)
        if a < 0:
            a = _expert_chain_step(st, tb, masks, g, p)
        if a < 0:
            a = _expert_coin_step(st, tb, masks, g, p)
        if a < 0:
            a = _expert_hand_out(st, tb, masks, g, p)
        if a < 0:
            a = _expert_safe_play(st, tb, masks, g, p)
        if a < 0:
            a = _expert_unstall(st, tb, masks, g, p)
        if a >= 0:
            return a
        if prm.stacked or scal[g, S.phase] == FOLLOWUP:
            return first_play
    else:  # no card to play, but a coin play or a purchase may still reach the stock
        a = _expert_coin_step(st, tb, masks, g, p)
        if a >= 0:
            return a
    if masks[g, prm.end]:
        return prm.end
    return _expert_discard(st, tb, seen, g, p)


@jit(inline="always")
def agent_action(kind, st, tb, masks, nlegal, seen, g):
    """The action of scripted player `kind` (RANDOM, NAIVE, GREEDY or EXPERT) in game g, from
    its row of masks (and nlegal, its count of legal actions; seen, buf.seen, is the
    expert's scratch row)."""
    if kind == NAIVE:
        return naive_action(st, tb, masks, g)
    if kind == GREEDY:
        return greedy_action(st, tb, masks, g)
    if kind == EXPERT:
        return expert_action(st, tb, masks, seen, g)
    return pick_random(st.arng, masks, nlegal, g)


# In the loops that play scripted moves, the mask and the players' choice are inlined: a call
# passes the bundles' arrays by value, and two calls fewer per move are 30% more games a second.
@jit
def _choose(kinds, st, tb, buf, g):
    """Game g's action by its scripted player into buf.actions (-1 if it is over)."""
    if is_over(st, g):
        buf.actions[g] = -1
    else:
        buf.actions[g] = agent_action(kinds[g, st.scal[g, S.cur]], st, tb, buf.masks,
                                      buf.nlegal, buf.seen, g)


@entry
def choose_all(work, kinds, st, tb, buf):
    """Every game's action by the scripted player kinds[g, seat to act], into buf.actions
    (-1 where the game is over)."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _choose(kinds, st, tb, buf, g)
        lo, hi = next_chunk(work)


@jit
def _play_row(kinds, st, tb, buf, games, wins, actions, g):
    """`games` whole games in row g (`play_games`)."""
    scal = st.scal
    done = 0
    while done < games:
        buf.nlegal[g] = legal_mask_inline(st, tb, buf.masks, g)
        a = agent_action(kinds[g, scal[g, S.cur]], st, tb, buf.masks, buf.nlegal, buf.seen, g)
        step_game(st, tb, g, a)
        actions[g] += 1
        if is_over(st, g):
            if scal[g, S.phase] == WON:
                wins[g, scal[g, S.win]] += 1
            done += 1
            deal(st, tb, g)


@entry
def play_games(work, kinds, st, tb, buf, games, wins, actions):
    """Play `games` whole games in every row, seat by seat with kinds[g, seat], dealing each
    next game from the row's generator; counts wins per seat (draws and truncated games count
    for no one) and actions taken."""
    lo, hi = next_chunk(work)
    while lo < hi:
        for g in range(lo, hi):
            _play_row(kinds, st, tb, buf, games, wins, actions, g)
        lo, hi = next_chunk(work)
