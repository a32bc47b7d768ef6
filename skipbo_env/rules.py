"""Rules presets: one frozen dataclass describing every variant of Skip-Bo.

The engine reads a `Rules` and nothing else; a variant is a preset of these fields.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy as np

from . import checks
from .checks import shown, shown_keys

# Cards are small integers: the rank 1..max_rank, 0 for the wild (Skip-Bo card), plus
# (max_rank + 1) * toll for a card with a toll (Skip-Bo Masters).
WILD = 0
COIN = -1  # the place a coin play ("a coin N", Skip-Bo Masters) takes in a building pile

HAND_MODES = ("refill", "stacked")

# How a game ends that nobody can finish: the draw pile and the set-aside cards are gone and a
# full round passes with no card played (docs/rules.md, "Readings the project chose"). The rule
# documents are silent; "draw" ends it drawn, "fewest_stock" gives it to the team with the
# fewest stock cards left (a tie for the fewest is drawn).
STALL_OUTCOMES = ("draw", "fewest_stock")
# The default: random players stall almost every game, which under "draw" leaves a learner
# starting from scratch without a single decided game (measured in docs/rules.md).
DEFAULT_STALL_OUTCOME = "fewest_stock"

# Default turn limit: uniformly random play reaches it in under 0.1% of games (none of 2000
# per preset and player count; benchmarks/turn_limits.py, figures in docs/rules.md).
DEFAULT_MAX_TURNS = 1000

# Default limit on the actions of one turn: a turn can go on for ever once the draw pile holds
# only Skip-Bo cards (play them, complete a pile, reshuffle it, draw them again), so the action
# that reaches the limit within a turn truncates the game. `expert`'s longest turn in 200
# games of each preset took 43 actions (docs/rules.md, "The move limit of a turn").
DEFAULT_MAX_TURN_MOVES = 500

# Size bounds (docs/rules.md, "Size bounds"): generous for every preset and every variant of
# the rule documents, with room for house rules, and small enough that no rules set builds a
# deck, an action layout or an observation too large to play, and that every count fits the
# batched engine's arrays (int8 card ids, int32 counters).
MAX_PLAYERS = 6  # the rule documents allow 2-6 players
MAX_STOCK_SIZE = 100  # 30 in the standard game
MAX_HAND_SIZE = 30  # 5 (refill) or 3-4 stacks (junior)
MAX_RANK = 50  # piles built to 12 (10 in the junior games)
MAX_COPIES_PER_RANK = 100  # 12 of each number (8 in the junior games)
MAX_WILDS = 200  # 18 (24 in Masters, 16 in the junior games)
MAX_DECK_SIZE = 1000  # 162 cards (168 in Masters, 96 in the junior games): six decks
MAX_BUILDING_PILES = 16  # 4
MAX_DISCARD_PILES = 16  # 4 per player
MAX_TURNS = 10**9  # the default is 1000; fits the batched engine's int32 turn counter
MAX_TURN_MOVES = 10**9  # the default is 500; fits the batched engine's int32 counter
MAX_COINS_PER_PLAYER = 1000  # 12 in Masters
MAX_TOLL = 20  # Masters' tolls are 1 or 2 coins
MAX_CARD_IDS = 128  # (max_rank + 1) * (max_toll + 1): a card id fits the batched engine's int8

# Rules dictionaries written before a field existed are read with the value that held then
# (no move limit within a turn: the largest allowed).
FIELDS_ADDED_LATER = {"stall_outcome": "draw", "max_turn_moves": MAX_TURN_MOVES}


def _standard_stock(n: int) -> int:
    return 30 if n <= 4 else 20


def _quick_stock(n: int) -> int:
    return 20 if n <= 4 else 15


def _junior_classic_stock(n: int) -> int:
    return {2: 15, 3: 12}.get(n, 10)


# Skip-Bo Masters: the rulebook gives 168 cards but not how they divide or which carry tolls.
# Assumed (docs/rules.md): 12 of each number and 24 wilds; of each number's 12 copies, two
# carry a 1-coin toll and one a 2-coin toll.
MASTERS_TOLLS = tuple((rank, 1, 2) for rank in range(1, 13)) + \
    tuple((rank, 2, 1) for rank in range(1, 13))


_STANDARD_DECK = dict(max_rank=12, copies_per_rank=12, wilds=18, building_piles=4)
_JUNIOR_DECK = dict(max_rank=10, copies_per_rank=8, wilds=16, building_piles=4)

# name -> (allowed player counts, stock size by player count, other fields)
_PRESETS: dict[str, tuple[tuple[int, ...], Any, dict]] = {
    "standard": ((2, 3, 4, 5, 6), _standard_stock,
                 dict(_STANDARD_DECK, hand_size=5, hand_mode="refill", discard_piles=4)),
    "short": ((2, 3, 4, 5, 6), lambda n: 10,
              dict(_STANDARD_DECK, hand_size=5, hand_mode="refill", discard_piles=4)),
    "quick": ((2, 3, 4, 5, 6), _quick_stock,
              dict(_STANDARD_DECK, hand_size=5, hand_mode="refill", discard_piles=4)),
    "partnership": ((4,), lambda n: 30,
                    dict(_STANDARD_DECK, hand_size=5, hand_mode="refill", discard_piles=4,
                         teams=((0, 2), (1, 3)))),
    "junior": ((2, 3, 4), lambda n: 10,
               dict(_JUNIOR_DECK, hand_size=3, hand_mode="stacked", discard_piles=0)),
    "junior_classic": ((2, 3, 4), _junior_classic_stock,
                       dict(_JUNIOR_DECK, hand_size=4, hand_mode="stacked", discard_piles=0)),
    "masters": ((2, 3, 4, 5, 6), lambda n: 15,
                dict(_STANDARD_DECK, wilds=24, hand_size=5, hand_mode="refill", discard_piles=4,
                     coins_per_player=12, toll_table=MASTERS_TOLLS)),
    "masters_short": ((2, 3, 4, 5, 6), lambda n: 10,
                      dict(_STANDARD_DECK, wilds=24, hand_size=5, hand_mode="refill",
                           discard_piles=4, coins_per_player=12, toll_table=MASTERS_TOLLS)),
}

VARIANTS: tuple[str, ...] = tuple(_PRESETS)
"""Names accepted by `Rules.preset`."""


def allowed_players(variant: str) -> tuple[int, ...]:
    """Player counts the named variant allows."""
    if variant not in _PRESETS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {', '.join(VARIANTS)}")
    return _PRESETS[variant][0]


@dataclass(frozen=True)
class Rules:
    """Every parameter of a game of Skip-Bo; build one with `Rules.preset(name, num_players)`."""

    variant: str = "standard"
    num_players: int = 2
    stock_size: int = 30
    hand_size: int = 5
    hand_mode: str = "refill"
    max_rank: int = 12
    copies_per_rank: int = 12
    wilds: int = 18
    building_piles: int = 4
    discard_piles: int = 4
    teams: tuple[tuple[int, ...], ...] | None = None
    max_turns: int = DEFAULT_MAX_TURNS
    max_turn_moves: int = DEFAULT_MAX_TURN_MOVES
    wild_on_wild: bool = True
    coins_per_player: int = 0
    toll_table: tuple[tuple[int, int, int], ...] = ()
    stall_outcome: str = DEFAULT_STALL_OUTCOME

    def __post_init__(self) -> None:
        # Accept lists (from JSON or YAML) but store tuples so the dataclass stays hashable;
        # every seat and table entry must be an integer already (no float, bool or string).
        if self.teams is not None:
            if not _is_list(self.teams) or not all(
                    _is_list(team) and all(checks.is_integer(s) for s in team)
                    for team in self.teams):
                raise checks.ArgumentTypeError(
                    f"teams must be None or a list of seat lists (integers), got "
                    f"{shown(self.teams)}")
            object.__setattr__(self, "teams",
                               tuple(tuple(int(s) for s in team) for team in self.teams))
        if not _is_list(self.toll_table) or not all(
                _is_list(entry) and all(checks.is_integer(x) for x in entry)
                for entry in self.toll_table):
            raise checks.ArgumentTypeError(
                f"toll_table must be a list of [rank, toll, copies] entries (integers), got "
                f"{shown(self.toll_table)}")
        object.__setattr__(self, "toll_table",
                           tuple(tuple(int(x) for x in entry) for entry in self.toll_table))
        self._validate()

    # -- construction ---------------------------------------------------------------------------
    @classmethod
    def preset(cls, name: str, num_players: int = 2, **overrides: Any) -> Rules:
        """The named variant for `num_players`, with any field overridden."""
        players = allowed_players(name)
        checks.integer(num_players, "num_players")
        if num_players not in players:
            raise ValueError(
                f"variant {name!r} allows {', '.join(map(str, players))} players, "
                f"not {num_players}")
        _, stock, fields = _PRESETS[name]
        unknown = set(overrides) - {f.name for f in dataclasses.fields(cls)}
        if unknown:
            # A TypeError, as Python raises for an unknown keyword: libraries that pass optional
            # keywords (render_mode, frameskip) fall back on it. Also a ValueError, as before.
            # Worded as Python words it ("got an unexpected keyword argument 'x'"): TorchRL's
            # GymEnv matches that text to drop its frameskip.
            names = sorted(map(str, unknown))
            raise checks.ArgumentTypeError(
                f"got an unexpected keyword argument {names[0]!r}: unknown rules field(s) "
                f"{names}; fields are {sorted(cls.field_names())}")
        if "variant" in overrides or "num_players" in overrides:
            raise ValueError("variant and num_players are given as arguments, not overrides")
        values = dict(fields, variant=name, num_players=num_players, stock_size=stock(num_players))
        values.update(overrides)
        return cls(**values)

    @classmethod
    def field_names(cls) -> list[str]:
        """Names of every rules field, in order."""
        return [f.name for f in dataclasses.fields(cls)]

    @classmethod
    def from_dict(cls, data: dict) -> Rules:
        """Rules from the dictionary written by `to_dict` (unknown or missing keys are errors,
        but for a field added since, which a dictionary written before it may lack: it is read
        with the value that held then, so `stall_outcome` with "draw" and `max_turn_moves` with
        no limit)."""
        if not isinstance(data, dict):
            raise ValueError(f"rules must be a dictionary, got {type(data).__name__}")
        data = {**{k: v for k, v in FIELDS_ADDED_LATER.items() if k not in data}, **data}
        names = set(cls.field_names())
        unknown = set(data) - names
        missing = names - set(data)
        if unknown:
            raise ValueError(f"unknown rules field(s) {shown_keys(unknown)}")
        if missing:
            raise ValueError(f"missing rules field(s) {sorted(missing)}")
        return cls(**data)

    def to_dict(self) -> dict:
        """JSON-serialisable dictionary of every field (a new one each time)."""
        # Every field but these two is a str, int or bool: no deep copy needed (asdict's
        # costs a game's whole state dictionary twice over).
        d = {name: getattr(self, name) for name in _FIELD_NAMES}
        d["teams"] = None if self.teams is None else [list(t) for t in self.teams]
        d["toll_table"] = [list(entry) for entry in self.toll_table]
        return d

    # -- derived quantities ---------------------------------------------------------------------
    @property
    def deck_size(self) -> int:
        """Number of cards in the deck."""
        return self.max_rank * self.copies_per_rank + self.wilds

    @property
    def stacked(self) -> bool:
        """True when hands are face-up stacks dealt each turn (the junior games)."""
        return self.hand_mode == "stacked"

    @property
    def coins(self) -> bool:
        """True when the game is played with coins (Skip-Bo Masters)."""
        return self.coins_per_player > 0

    @property
    def max_toll(self) -> int:
        """The largest toll any card carries (0 without tolls)."""
        return max((toll for _, toll, _ in self.toll_table), default=0)

    @property
    def num_card_ids(self) -> int:
        """How many distinct cards there are: a card is ``rank + (max_rank + 1) * toll``."""
        return (self.max_rank + 1) * (self.max_toll + 1)

    def deck_counts(self) -> list[int]:
        """How many cards of each card id the deck holds (id = rank + (max_rank + 1) * toll;
        without tolls the id is the rank, 0 being the wild)."""
        r = self.max_rank + 1
        counts = [self.wilds] + [self.copies_per_rank] * self.max_rank
        counts += [0] * (self.num_card_ids - r)
        for rank, toll, copies in self.toll_table:
            counts[rank] -= copies
            counts[rank + r * toll] += copies
        return counts

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats of `seat`'s team (just the seat itself without teams)."""
        if self.teams is None:
            return (seat,)
        for team in self.teams:
            if seat in team:
                return team
        raise ValueError(f"seat {seat} is in no team")

    # -- validation -----------------------------------------------------------------------------
    def _validate(self) -> None:
        self._check_types()
        self._check_sizes()
        self._check_modes()
        self._check_tolls()
        self._check_deal()

    def _check_types(self) -> None:
        """The variant is known, every count an integer (kept as Python's), the switches
        true or false."""
        if not isinstance(self.variant, str) or self.variant not in _PRESETS:
            raise ValueError(
                f"unknown variant {shown(self.variant)}; expected one of {', '.join(VARIANTS)}")
        ints = ["num_players", "stock_size", "hand_size", "max_rank", "copies_per_rank", "wilds",
                "building_piles", "discard_piles", "max_turns", "max_turn_moves",
                "coins_per_player"]
        for name in ints:
            value = getattr(self, name)
            if not checks.is_integer(value):
                raise checks.ArgumentTypeError(f"{name} must be an integer, got {shown(value)}")
            # Stored as Python ints, so a numpy integer given here still writes as JSON.
            object.__setattr__(self, name, int(value))
        if not isinstance(self.wild_on_wild, (bool, np.bool_)):
            raise checks.ArgumentTypeError(
                f"wild_on_wild must be true or false, got {shown(self.wild_on_wild)}")
        object.__setattr__(self, "wild_on_wild", bool(self.wild_on_wild))

    def _check_sizes(self) -> None:
        """Every count positive (or zero where none is allowed) and within its bound."""
        for name in ["num_players", "stock_size", "hand_size", "max_rank", "copies_per_rank",
                     "building_piles", "max_turns", "max_turn_moves"]:
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {shown(getattr(self, name))}")
        if self.num_players < 2:
            raise ValueError(f"num_players must be at least 2, got {self.num_players}")
        for name in ["wilds", "discard_piles", "coins_per_player"]:
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be zero or more, got {shown(getattr(self, name))}")
        for name, bound, constant in _BOUNDS:
            if getattr(self, name) > bound:
                raise ValueError(f"{name} must be at most {bound} ({constant}), got "
                                 f"{shown(getattr(self, name))}")
        if self.deck_size > MAX_DECK_SIZE:
            raise ValueError(f"the deck (max_rank * copies_per_rank + wilds) must hold at most "
                             f"{MAX_DECK_SIZE} cards (MAX_DECK_SIZE), got {self.deck_size}")

    def _check_modes(self) -> None:
        """The stall outcome and the hand mode are known, and the piles fit the hand mode."""
        if not isinstance(self.stall_outcome, str) or self.stall_outcome not in STALL_OUTCOMES:
            raise ValueError(f"stall_outcome must be one of {STALL_OUTCOMES}, got "
                             f"{shown(self.stall_outcome)}")
        if not isinstance(self.hand_mode, str) or self.hand_mode not in HAND_MODES:
            raise ValueError(f"hand_mode must be one of {HAND_MODES}, got {shown(self.hand_mode)}")
        if self.hand_mode == "refill" and self.discard_piles < 1:
            raise ValueError("hand_mode 'refill' needs at least 1 discard pile to end a turn")
        if self.hand_mode == "stacked" and self.discard_piles != 0:
            raise ValueError("hand_mode 'stacked' has no discard piles; set discard_piles=0")

    def _check_tolls(self) -> None:
        """The toll table (Skip-Bo Masters) fits the deck, and coins go with it."""
        tolled: dict[int, int] = {}
        for entry in self.toll_table:
            if len(entry) != 3:
                raise ValueError(f"toll_table entries are [rank, toll, copies], got "
                                 f"{shown(list(entry))}")
            rank, toll, copies = entry
            if not 1 <= rank <= self.max_rank or not 1 <= toll <= MAX_TOLL or copies < 1:
                raise ValueError(f"toll_table entry {shown(list(entry))}: rank must be "
                                 f"1..{self.max_rank}, toll 1..{MAX_TOLL} (MAX_TOLL) and copies "
                                 f"at least 1")
            tolled[rank] = tolled.get(rank, 0) + copies
            if tolled[rank] > self.copies_per_rank:
                raise ValueError(f"toll_table gives {tolled[rank]} tolled copies of {rank}; the "
                                 f"deck has {self.copies_per_rank}")
        if self.toll_table and not self.coins_per_player:
            raise ValueError("toll_table needs coins: set coins_per_player above 0")
        if self.coins_per_player and (self.teams is not None or self.stacked):
            raise ValueError("coins are played only in refill mode without teams")
        if self.num_card_ids > MAX_CARD_IDS:
            raise ValueError(f"(max_rank + 1) * (largest toll + 1) card ids must be at most "
                             f"{MAX_CARD_IDS} (MAX_CARD_IDS), got {self.num_card_ids}")

    def _check_deal(self) -> None:
        """The deck deals every stock, and the teams split the seats evenly."""
        dealt = self.stock_size * self.num_players
        if dealt > self.deck_size:
            raise ValueError(
                f"a deck of {self.deck_size} cards cannot deal {self.num_players} stocks of "
                f"{self.stock_size}; at most {self.deck_size // self.num_players} cards each")
        if self.teams is not None:
            seats = sorted(s for team in self.teams for s in team)
            if seats != list(range(self.num_players)):
                raise ValueError(
                    f"teams must split seats 0..{self.num_players - 1} with each seat once, "
                    f"got {shown([list(t) for t in self.teams])}")
            sizes = {len(t) for t in self.teams}
            if len(self.teams) < 2 or len(sizes) != 1:
                raise ValueError(f"teams must be at least two teams of equal size, "
                                 f"got {[list(t) for t in self.teams]}")


_FIELD_NAMES = tuple(f.name for f in dataclasses.fields(Rules))

# (field, bound, the constant's name): each refused with a ValueError naming both.
_BOUNDS = (("num_players", MAX_PLAYERS, "MAX_PLAYERS"),
           ("stock_size", MAX_STOCK_SIZE, "MAX_STOCK_SIZE"),
           ("hand_size", MAX_HAND_SIZE, "MAX_HAND_SIZE"),
           ("max_rank", MAX_RANK, "MAX_RANK"),
           ("copies_per_rank", MAX_COPIES_PER_RANK, "MAX_COPIES_PER_RANK"),
           ("wilds", MAX_WILDS, "MAX_WILDS"),
           ("building_piles", MAX_BUILDING_PILES, "MAX_BUILDING_PILES"),
           ("discard_piles", MAX_DISCARD_PILES, "MAX_DISCARD_PILES"),
           ("max_turns", MAX_TURNS, "MAX_TURNS"),
           ("max_turn_moves", MAX_TURN_MOVES, "MAX_TURN_MOVES"),
           ("coins_per_player", MAX_COINS_PER_PLAYER, "MAX_COINS_PER_PLAYER"))


def _is_list(value: Any) -> bool:
    return isinstance(value, (list, tuple))
