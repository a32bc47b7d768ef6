"""Player names, parsed in one place into a `PlayerSpec`: every command, env, config and the web
server asks here, so a name means the same thing everywhere.

A player name is one of
- a scripted player's name (`SCRIPTED`: ``random``, ``naive``, ``greedy``, ``expert``,
  ``expert_tolls``, ``lookahead``);
- a checkpoint path: a ``.zip`` written by the training scripts (or any name with a path
  separator), played by `skipbo_env.players.policy`;
- a shipped checkpoint's name (`SHIPPED`: ``standard_2p``, ``short_2p``,
  ``rllib_standard_2p``): the policy shipped inside the package (``skipbo_env/checkpoints/``,
  found by `shipped_checkpoint` in a checkout and an installed package alike);
- a value player's checkpoint: a shipped one's name (`SHIPPED_VALUE`: ``value_standard_2p``,
  ``value_short_2p``, ``value_ffa_3p``) or a path ending in ``.npz``, played by
  `skipbo_env.players.value`;
- ``lookahead:PATH`` (`SEARCH`): the search player around the policy at checkpoint PATH
  (`lookahead.PolicyLookaheadAgent`), allowed wherever that checkpoint is; around a value
  player (``lookahead:value_short_2p``, ``lookahead:PATH.npz``), that player with its search
  (`value.ValueAgent`'s ``search``: `value.SEARCH_DEALS` deals of its `value.SEARCH_TOP` best
  segments);
- ``self_play`` (`SELF_PLAY`), where the caller allows it: frozen copies of the learner in
  training (the Gymnasium env's `OpponentPool`, the roles env, the training configs).

`parse_player` turns a name into a `PlayerSpec` (what it is and which file it loads), naming
the problem when it is not acceptable where it is used; `parse_players` does the same for a
list or a comma-separated string; `make_agent` builds the player.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib.resources import files

from .. import checks
from ..rules import Rules
from .base import Agent
from .lookahead import LookaheadAgent, PolicyLookaheadAgent
from .policy import load_policy_agent
from .scripted import ExpertAgent, GreedyAgent, NaiveAgent, RandomAgent, TollOnlyExpertAgent
from .value import SEARCH_DEALS, SEARCH_TOP, load_value_agent

SCRIPTED: dict[str, type[Agent]] = {cls.name: cls for cls in (
    RandomAgent, NaiveAgent, GreedyAgent, ExpertAgent, TollOnlyExpertAgent, LookaheadAgent)}
"""The scripted players by name."""
SELF_PLAY = "self_play"
SEARCH = "lookahead:"  # the prefix of a search player around a checkpoint
SHIPPED = ("standard_2p", "short_2p", "rllib_standard_2p")
"""The checkpoints shipped in the package, by name (``skipbo evaluate standard_2p``)."""
SHIPPED_VALUE = ("value_standard_2p", "value_short_2p", "value_ffa_3p")
"""The value players shipped in the package, by name (``skipbo play value_standard_2p``)."""
VALUE_SUFFIX = ".npz"

__all__ = ["SCRIPTED", "SEARCH", "SELF_PLAY", "SHIPPED", "SHIPPED_VALUE", "PlayerKind",
           "PlayerSpec", "checkpoint_file", "is_value_file", "make_agent", "parse_player",
           "parse_players", "shipped_checkpoint", "split_names"]


class PlayerKind(str, Enum):
    """What a player name names (a str, so it also equals its word: "scripted")."""

    SCRIPTED = "scripted"  # a player of SCRIPTED
    CHECKPOINT = "checkpoint"  # a trained policy, from its checkpoint file
    SEARCH = "search"  # lookahead:PATH, the search around a checkpoint (a policy or a value)
    SELF_PLAY = "self_play"  # frozen copies of the learner (training only)
    VALUE = "value"  # a value player, from its checkpoint file (.npz)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class PlayerSpec:
    """A player name, parsed: `name` as given (what results and tables call the player),
    its `kind`, and for a checkpoint or a search around one the checkpoint's file (`path`; a
    shipped checkpoint's name becomes its file in the package)."""

    name: str
    kind: PlayerKind
    path: str | None = None

    @property
    def label(self) -> str:
        """The name at a table: a checkpoint by its file name without the folder and ".zip"
        (``lookahead:`` kept before it for the search around one)."""
        if self.path is None:
            return self.name
        stem = os.path.splitext(os.path.basename(self.path))[0]
        return SEARCH + stem if self.kind is PlayerKind.SEARCH else stem

    def __str__(self) -> str:
        return self.name


def shipped_checkpoint(name: object) -> str | None:
    """The file of the shipped checkpoint called `name` (one of `SHIPPED` or
    `SHIPPED_VALUE`), else None."""
    if not isinstance(name, str):
        return None
    if name in SHIPPED_VALUE:
        return str(files("skipbo_env") / "checkpoints" / f"{name}{VALUE_SUFFIX}")
    if name not in SHIPPED:
        return None
    return str(files("skipbo_env") / "checkpoints" / f"{name}.zip")


def checkpoint_file(name: str) -> str:
    """`name` as a checkpoint file: a shipped checkpoint's name becomes its file in the
    package, anything else is the path it is."""
    return shipped_checkpoint(name) or name


def is_value_file(path: str | None) -> bool:
    """Whether `path` names a value player's checkpoint (an ``.npz``)."""
    return path is not None and path.endswith(VALUE_SUFFIX)


def _checkpoint_file(name: str) -> str | None:
    """The checkpoint file `name` names: a shipped checkpoint's name, a ``.zip`` or any path
    with a separator; else None."""
    shipped = shipped_checkpoint(name)
    if shipped is not None:
        return shipped
    return name if name.endswith((".zip", VALUE_SUFFIX)) or os.path.sep in name else None


def _classify(name: str) -> PlayerSpec | None:
    """What `name` names, unchecked, or None for no player."""
    if name in SCRIPTED:
        return PlayerSpec(name, PlayerKind.SCRIPTED)
    if name == SELF_PLAY:
        return PlayerSpec(name, PlayerKind.SELF_PLAY)
    if name.startswith(SEARCH):
        path = _checkpoint_file(name[len(SEARCH):])
        if path is None:
            return None
        return PlayerSpec(name, PlayerKind.SEARCH, path)
    path = _checkpoint_file(name)
    if path is None:
        return None
    kind = PlayerKind.VALUE if is_value_file(path) else PlayerKind.CHECKPOINT
    return PlayerSpec(name, kind, path)


def parse_player(name: object, where: str | None = None, *, what: str = "player",
                 self_play: bool = False, checkpoints: bool | Collection[str] = True,
                 exists: bool = True) -> PlayerSpec:
    """`name` (or a `PlayerSpec`, checked again) as a `PlayerSpec` if it names a player
    allowed here, else ValueError saying so (prefixed with `where`, the config key or
    argument, when given; `what` is the word for the player: "player", "opponent").

    `self_play` allows ``self_play``; `checkpoints` allows any checkpoint (True), none
    (False) or only the files listed; `exists` requires a checkpoint's file to exist
    (checked cheaply: the file is not loaded)."""
    if isinstance(name, PlayerSpec):
        name = name.name
    spec = _classify(name) if isinstance(name, str) else None
    allowed = spec is not None and (
        spec.kind is PlayerKind.SCRIPTED
        or (spec.kind is PlayerKind.SELF_PLAY and self_play)
        or (spec.path is not None and (checkpoints if isinstance(checkpoints, bool)
                                       else spec.path in checkpoints)))
    if spec is not None and allowed:
        if exists and spec.path is not None and not os.path.isfile(spec.path):
            raise ValueError(f"{where + ': ' if where else ''}checkpoint {spec.path} does not "
                             f"exist")
        return spec
    choices = [*SCRIPTED] + ([SELF_PLAY] if self_play else [])
    also = ""
    if checkpoints is True:
        also = (f", a shipped checkpoint ({', '.join(SHIPPED + SHIPPED_VALUE)}) or a checkpoint "
                f"path (.zip, a policy, or .npz, a value player: {SEARCH}PATH searches around "
                f"it)")
    elif checkpoints:
        choices += [str(c) for c in checkpoints] + [SEARCH + str(c) for c in checkpoints]
    raise ValueError(f"{where + ': ' if where else ''}unknown {what} {checks.shown(name)}; one "
                     f"of {', '.join(choices)}{also}")


def split_names(names: object) -> object:
    """Player names written as one string, separated by commas ("expert, naive"), as a list;
    anything else as it is (the caller checks it)."""
    if isinstance(names, str):
        return [name.strip() for name in names.split(",")]
    return names


def parse_players(names: str | Sequence[object], where: str | None = None,
                  **options) -> list[PlayerSpec]:
    """Player names from a list or a comma-separated string ("expert,naive"), each parsed as
    `parse_player` parses it (with the same `options`)."""
    listed = split_names(names)
    if not isinstance(listed, Sequence):
        raise ValueError(f"{where + ': ' if where else ''}give player names as a list or "
                         f"separated by commas, got {checks.shown(names)}")
    return [parse_player(name, where, **options) for name in listed]


def make_agent(player: str | PlayerSpec, seed: int = 0, rules: Rules | None = None,
               rollouts: int | None = None) -> Agent:
    """The player a name (or a parsed `PlayerSpec`) names, seeded with `seed`: a scripted
    player, the trained policy of a checkpoint (needs the ``train`` extra; checked against
    `rules` now when given) or the search around one (``lookahead:PATH``). `rollouts` caps a
    search player's rollouts per decision (the others ignore it)."""
    seed = checks.integer(seed, "seed", minimum=0)
    spec = parse_player(player, what="agent", exists=False)
    if spec.kind is PlayerKind.VALUE:
        assert spec.path is not None
        return load_value_agent(spec.path, rules=rules, seed=seed)
    if spec.kind is PlayerKind.SEARCH and is_value_file(spec.path):
        assert spec.path is not None
        return load_value_agent(spec.path, rules=rules, seed=seed, search=SEARCH_DEALS,
                                top=SEARCH_TOP)
    if spec.path is not None:
        policy = load_policy_agent(spec.path, rules=rules, seed=seed)
        if spec.kind is PlayerKind.CHECKPOINT:
            return policy
        return PolicyLookaheadAgent(policy, seed, rollouts=rollouts)
    if spec.name == LookaheadAgent.name and rollouts is not None:
        return LookaheadAgent(seed, rollouts=rollouts)
    return SCRIPTED[spec.name](seed)
