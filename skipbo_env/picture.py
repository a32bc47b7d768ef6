"""The table as a picture: the envs' ``rgb_array`` render mode (an RGB uint8 array, for
Gymnasium's `RecordVideo`, stable-baselines3's `make_vec_env` and PettingZoo's render tests).

It shows what the text render (`text.render_table`) shows, drawn as cards: the header line,
the building piles (each pile's count, the number it has reached, and coins in Masters), and
for every player the stock top and its size, the hand (or hand stacks), the discard piles
from bottom to top (left to right, the top card last and whole), coins and scores, and the
result line. The picture has one size for a given rules (1040 pixels wide, wider for rules with
more piles than fit; a row per player), so the frames of a game make a video. Drawn with Pillow.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from .rules import COIN, WILD, Rules
from .state import GameState, Phase
from .text import render_table

WIDTH = 1040
HEADER, PILES_ROW, PLAYER_ROW, FOOTER = 34, 96, 84, 30
CARD_W, CARD_H = 44, 62  # a whole card
MINI_W, MINI_H = 26, 36  # a card in a pile or a hand
PILE_SPAN = 150  # the room for one discard pile or hand stack; longer piles overlap

BACKGROUND = (22, 92, 52)  # the felt
INK, PALE = (245, 245, 235), (170, 200, 180)
EMPTY = (38, 112, 70)
HIGHLIGHT = (255, 214, 90)


def _colour(card: int, max_rank: int) -> tuple[int, int, int]:
    """Skip-Bo's colours: the low third of the numbers blue, the middle green, the high red,
    the wild orange; a coin gold."""
    if card == COIN:
        return (212, 175, 55)
    rank = card % (max_rank + 1)
    if rank == WILD:
        return (236, 128, 34)
    third = max(1, -(-max_rank // 3))
    return [(40, 96, 200), (40, 150, 70), (200, 50, 50)][min(2, (rank - 1) // third)]


@lru_cache(maxsize=4)
def _font(size: int):
    from PIL import ImageFont  # Pillow loads on the first picture, not on import

    return ImageFont.load_default(size=size)


def _label(card: int, max_rank: int) -> tuple[str, str]:
    """A card's face: its number or "SB" for the wild, and its Masters toll mark ("t2")."""
    if card == COIN:
        return "c", ""
    rank, toll = card % (max_rank + 1), card // (max_rank + 1)
    return ("SB" if rank == WILD else str(rank)), (f"t{toll}" if toll else "")


def _card(draw, x: int, y: int, card: int | None, max_rank: int, big: bool = False) -> None:
    w, h = (CARD_W, CARD_H) if big else (MINI_W, MINI_H)
    if card is None:
        draw.rounded_rectangle((x, y, x + w, y + h), radius=4, outline=PALE, fill=EMPTY)
        return
    draw.rounded_rectangle((x, y, x + w, y + h), radius=4, outline=INK,
                           fill=_colour(card, max_rank))
    face, toll = _label(card, max_rank)
    # The number sits in the top left corner, so a card half covered in a pile still shows it.
    draw.text((x + 3, y + 2), face, fill=INK, font=_font(18 if big else 12))
    if toll:
        draw.text((x + 3, y + h - 14), toll, fill=INK, font=_font(10))


def _pile(draw, x: int, y: int, cards: list[int], max_rank: int, span: int = PILE_SPAN) -> None:
    """A pile from bottom (left) to top (right, whole); cards overlap once it is long."""
    if not cards:
        _card(draw, x, y, None, max_rank)
        return
    step = MINI_W + 2
    if len(cards) > 1 and (len(cards) - 1) * step + MINI_W > span:
        step = max(3, (span - MINI_W) // (len(cards) - 1))
    for i, card in enumerate(cards):
        _card(draw, x + i * step, y, card, max_rank)


STOCK_X, HAND_X = 150, 215  # where a player's stock and hand start
BUILDING_STEP = CARD_W + 76  # from one building pile to the next
STACK_SPAN = 90  # the room for one junior hand stack


def _columns(rules: Rules) -> dict:
    """Where the parts of a row start, from the rules' pile and hand counts: ``building`` (each
    building pile's x), ``discards`` (each discard pile's x), ``right`` (the last part's right
    edge). Every rules set gets room for all its piles."""
    building = [STOCK_X + i * BUILDING_STEP for i in range(rules.building_piles)]
    if rules.stacked:
        hand_end = HAND_X + rules.hand_size * (STACK_SPAN + 6)
    else:
        hand_end = HAND_X + max(5, rules.hand_size) * (MINI_W + 3) + 12
    discards = [hand_end + d * (PILE_SPAN + 12) for d in range(rules.discard_piles)]
    right = max([hand_end] + [x + CARD_W for x in building] + [x + PILE_SPAN for x in discards])
    return {"building": building, "hand_end": hand_end, "discards": discards, "right": right}


def size(game: GameState) -> tuple[int, int]:
    """(height, width) of the pictures of `game`'s rules: at least WIDTH wide, wider when the
    rules have more piles than fit."""
    rules = game.rules
    return (HEADER + PILES_ROW + PLAYER_ROW * rules.num_players + FOOTER,
            max(WIDTH, _columns(rules)["right"] + 12))


def render_picture(game: GameState) -> np.ndarray:
    """The table of `game` as an RGB image, a uint8 array of shape (height, width, 3)."""
    from PIL import Image, ImageDraw

    rules, top = game.rules, game.rules.max_rank
    height, width = size(game)
    columns = _columns(rules)
    image = Image.new("RGB", (width, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    lines = render_table(game).split("\n")
    draw.text((12, 8), lines[0], fill=INK, font=_font(16))

    y = HEADER
    draw.text((12, y + 4), "building piles", fill=PALE, font=_font(13))
    for i, pile in enumerate(game.building):
        x = columns["building"][i]
        # A building pile shows the number it has reached (a wild counts as the next number).
        card = len(pile) if pile else None
        _card(draw, x, y + 6, card, top, big=True)
        note = f"{i}: {len(pile)} cards" if pile else f"{i}: empty"
        draw.text((x, y + CARD_H + 10), note, fill=PALE, font=_font(11))
        if game.pile_coins[i]:
            draw.text((x + CARD_W + 6, y + 8), f"{game.pile_coins[i]} coins", fill=PALE,
                      font=_font(11))

    for p in range(rules.num_players):
        y = HEADER + PILES_ROW + p * PLAYER_ROW
        acting = p == game.current_player and not game.is_over
        if acting:
            draw.rectangle((4, y - 2, width - 4, y + PLAYER_ROW - 2), outline=HIGHLIGHT, width=2)
        name = f"player {p}" + (f" (team {game.spec.team_index[p]})" if rules.teams else "")
        draw.text((12, y + 6), name, fill=HIGHLIGHT if acting else INK, font=_font(14))
        extra = []
        if rules.coins:
            extra.append(f"coins {game.coins[p]}")
        if any(game.scores):
            extra.append(f"score {game.scores[p]}")
        if extra:
            draw.text((12, y + 26), "  ".join(extra), fill=PALE, font=_font(12))
        stock = game.stocks[p]
        _card(draw, STOCK_X, y + 8, stock[-1] if stock else None, top, big=True)
        draw.text((STOCK_X, y + CARD_H + 10), f"stock {len(stock)}", fill=PALE,
                  font=_font(11))
        hand = game.hands[p]
        draw.text((HAND_X, y + 2), "hand stacks (tops on the right)" if rules.stacked
                  else "hand", fill=PALE, font=_font(11))
        if rules.stacked:
            for k, stack in enumerate(game.stacks[p]):
                _pile(draw, HAND_X + k * (STACK_SPAN + 6), y + 18, stack, top, span=STACK_SPAN)
        else:
            for i, card in enumerate(hand):
                _card(draw, HAND_X + i * (MINI_W + 3), y + 18, card, top)
        if rules.discard_piles:
            draw.text((columns["hand_end"], y + 2), "discard piles (top on the right)",
                      fill=PALE, font=_font(11))
            for x, d in zip(columns["discards"], game.discards[p]):
                _pile(draw, x, y + 18, d, top)
    if game.phase in (Phase.WON, Phase.DRAWN, Phase.TOLL, Phase.COIN_FOLLOWUP,
                      Phase.TRUNCATED):
        draw.text((12, height - FOOTER + 6), lines[-1], fill=HIGHLIGHT, font=_font(14))
    return np.asarray(image, dtype=np.uint8)
