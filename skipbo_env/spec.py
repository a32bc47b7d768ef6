"""The static side of a game: what every game of one rules set shares.

`GameSpec.of(rules)` is built once per rules set and shared by `Game` (the engine), the
observation encoder and the batched engine's tables (skipbo_env/vector/tables.py), so none of
them needs a dealt game to learn the action layout, who may play whose cards, or the teams.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .actions import ActionLayout
from .rules import Rules


@dataclass(frozen=True, eq=False)
class GameSpec:
    """One rules set's action layout, seats, teams and building-target memo."""

    rules: Rules
    layout: ActionLayout
    # For each seat, the seats whose stock and discard piles it may play: itself first, then
    # its teammates in turn order (the order in which the action layout numbers them).
    owners: tuple[tuple[int, ...], ...]
    # Every team as a tuple of seats (each seat its own team without teams), and each seat's
    # team number.
    teams: tuple[tuple[int, ...], ...]
    team_index: tuple[int, ...]
    # Building-pile sizes -> each card id's target piles (engine.Game._targets_for), shared by
    # every game whose rules place cards alike (see `targets_memo_of`), bounded.
    targets_memo: dict = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, rules: Rules) -> GameSpec:
        """The spec of `rules` (built on first use, then shared)."""
        spec = _SPECS.get(rules)
        if spec is None:
            if not isinstance(rules, Rules):
                raise TypeError(f"rules must be a skipbo_env.Rules, got {type(rules).__name__}; "
                                f"use Rules.preset(name, num_players)")
            n = rules.num_players
            teams = rules.teams if rules.teams is not None else tuple((p,) for p in range(n))
            owners = tuple(_in_turn_order(rules.team_of(p), p, n) for p in range(n))
            team_index = tuple(next(t for t, team in enumerate(teams) if p in team)
                               for p in range(n))
            spec = _SPECS[rules] = cls(rules, ActionLayout(rules), owners, teams, team_index,
                                       targets_memo_of(rules))
        return spec

    def team_of(self, seat: int) -> tuple[int, ...]:
        """The seats of `seat`'s team (just the seat itself without teams)."""
        return self.teams[self.team_index[seat]]

    @property
    def num_actions(self) -> int:
        """Size of the action space."""
        return self.layout.size


def _in_turn_order(seats: tuple[int, ...], first: int, n: int) -> tuple[int, ...]:
    """`seats` in turn order from seat `first` (of `n` seats)."""
    return tuple(sorted(seats, key=lambda s: (s - first) % n))


class BoundedMemo(dict):
    """A dict that keeps at most `limit` entries: storing a new key when full drops the oldest
    (a memo, so a dropped entry is only recomputed). Lookups are a plain dict's."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit

    def __setitem__(self, key, value) -> None:
        if key not in self and len(self) >= self.limit:
            del self[next(iter(self))]
        super().__setitem__(key, value)


# Memory stays flat however many rules sets a process meets (a server hosting tables of every
# stock size, a soak of every variant): specs and target memos are bounded memos. A game keeps
# its own spec, so dropping one from here never affects a game in play.
MAX_SPECS = 256
MAX_TARGET_KEYS = 4096  # building-pile sizes remembered per memo (standard meets ~2,000 often)
_SPECS: BoundedMemo = BoundedMemo(MAX_SPECS)
_TARGET_MEMOS: BoundedMemo = BoundedMemo(64)


def targets_memo_of(rules: Rules) -> BoundedMemo:
    """The target memo for `rules`, shared by every rules set whose cards go on building piles
    alike (same ranks, card ids, piles and wild-on-wild; the stock size, players and teams do
    not matter)."""
    key = (rules.max_rank, rules.num_card_ids, rules.building_piles, rules.wild_on_wild)
    memo = _TARGET_MEMOS.get(key)
    if memo is None:
        memo = _TARGET_MEMOS[key] = BoundedMemo(MAX_TARGET_KEYS)
    return memo
