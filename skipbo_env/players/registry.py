"""Player names, resolved in one place: every command, env, config and the web server asks here.

A player spec is one of
- a scripted player's name (`SCRIPTED`: ``random``, ``naive``, ``greedy``, ``expert``,
  ``lookahead``);
- a checkpoint path: a ``.zip`` written by the training scripts (or any name with a path
  separator), played by `skipbo_env.players.policy`;
- a shipped checkpoint's name (`SHIPPED`: ``standard_2p``, ``short_2p``,
  ``rllib_standard_2p``): the policy shipped inside the package (``skipbo_env/checkpoints/``,
  found by `shipped_checkpoint` in a checkout and an installed package alike);
- ``lookahead:PATH`` (`SEARCH`): the search player around the policy at checkpoint PATH
  (`lookahead.PolicyLookaheadAgent`), allowed wherever that checkpoint is;
- ``self_play`` (`SELF_PLAY`), where the caller allows it: frozen copies of the learner in
  training (the Gymnasium env's `OpponentPool`, the roles env, the training configs).

`check_player` says whether a spec is acceptable where it is used, naming the problem;
`make_agent` builds the player. The old module `skipbo_env.agents` is this one.
"""

from __future__ import annotations

import os
from collections.abc import Collection

from .. import checks
from ..rules import Rules
from .base import Agent
from .lookahead import LookaheadAgent, PolicyLookaheadAgent
from .scripted import ExpertAgent, GreedyAgent, NaiveAgent, RandomAgent, TollOnlyExpertAgent

SCRIPTED: dict[str, type[Agent]] = {cls.name: cls for cls in (
    RandomAgent, NaiveAgent, GreedyAgent, ExpertAgent, TollOnlyExpertAgent, LookaheadAgent)}
"""The scripted players by name."""
AGENTS = SCRIPTED  # the name of earlier releases
SELF_PLAY = "self_play"
SEARCH = "lookahead:"  # the prefix of a search player around a checkpoint
SHIPPED = ("standard_2p", "short_2p", "rllib_standard_2p")
"""The checkpoints shipped in the package, by name (``skipbo evaluate standard_2p``)."""

__all__ = ["AGENTS", "SCRIPTED", "SEARCH", "SELF_PLAY", "SHIPPED", "Agent", "ExpertAgent",
           "GreedyAgent", "LookaheadAgent", "NaiveAgent", "PolicyLookaheadAgent", "RandomAgent",
           "check_player", "checkpoint_of", "is_checkpoint", "make_agent", "resolve_checkpoint",
           "searched_checkpoint", "shipped_checkpoint"]


def shipped_checkpoint(name) -> str | None:
    """The file of the shipped checkpoint called `name` (one of `SHIPPED`), else None."""
    if not (isinstance(name, str) and name in SHIPPED):
        return None
    from importlib.resources import files

    return str(files("skipbo_env") / "checkpoints" / f"{name}.zip")


def resolve_checkpoint(name):
    """`name` as a checkpoint file: a shipped checkpoint's name becomes its file; anything
    else is returned as it is."""
    return shipped_checkpoint(name) or name


def is_checkpoint(name: str) -> bool:
    """Whether `name` names a checkpoint (a file, or a shipped checkpoint's name) rather than
    a scripted player (or a search around one: `searched_checkpoint`)."""
    return isinstance(name, str) and not name.startswith(SEARCH) and (
        name.endswith(".zip") or os.path.sep in name or name in SHIPPED)


def searched_checkpoint(name) -> str | None:
    """The checkpoint file of a ``lookahead:PATH`` player, else None."""
    if isinstance(name, str) and name.startswith(SEARCH) and is_checkpoint(name[len(SEARCH):]):
        return resolve_checkpoint(name[len(SEARCH):])
    return None


def checkpoint_of(name) -> str | None:
    """The checkpoint file a player spec loads (a checkpoint path or a shipped checkpoint's
    name, or the one a ``lookahead:PATH`` searches around), else None."""
    return resolve_checkpoint(name) if is_checkpoint(name) else searched_checkpoint(name)


def check_player(name, where: str | None = None, *, what: str = "player",
                 self_play: bool = False, checkpoints: bool | Collection[str] = True,
                 exists: bool = True) -> str:
    """`name` if it is a player spec allowed here, else ValueError saying so (prefixed with
    `where`, the config key or argument, when given; `what` is the word for the player:
    "player", "opponent").

    `self_play` allows ``self_play``; `checkpoints` allows any checkpoint path (True), none
    (False) or only those listed; `exists` requires a checkpoint's file to exist (checked
    cheaply: the file is not loaded)."""
    prefix = f"{where}: " if where else ""
    if isinstance(name, str) and name in SCRIPTED:
        return name
    if self_play and name == SELF_PLAY:
        return name
    path = checkpoint_of(name)
    allowed = checkpoints if isinstance(checkpoints, bool) else path in checkpoints
    if allowed and path is not None:
        if exists and not os.path.isfile(path):
            raise ValueError(f"{prefix}checkpoint {path} does not exist")
        return name
    choices = [*SCRIPTED] + ([SELF_PLAY] if self_play else [])
    also = ""
    if checkpoints is True:
        also = (f", a shipped checkpoint ({', '.join(SHIPPED)}) or a checkpoint path (.zip; "
                f"{SEARCH}PATH searches around it)")
    elif checkpoints:
        choices += [str(c) for c in checkpoints] + [SEARCH + str(c) for c in checkpoints]
    raise ValueError(f"{prefix}unknown {what} {checks.shown(name)}; one of {', '.join(choices)}"
                     f"{also}")


def make_agent(name: str, seed: int = 0, rules: Rules | None = None,
               rollouts: int | None = None) -> Agent:
    """The scripted player called `name`, the trained policy at checkpoint path `name`
    (a ``.zip`` from the training scripts; needs the ``train`` extra; checked against
    `rules` now when given) or the search around one (``lookahead:PATH``), seeded with
    `seed`. `rollouts` caps a search player's rollouts per decision (the others ignore it)."""
    seed = checks.integer(seed, "seed", minimum=0)
    path = checkpoint_of(name)
    if path is not None:
        from .policy import load_policy_agent
        policy = load_policy_agent(path, rules=rules, seed=seed)
        if searched_checkpoint(name) is None:
            return policy
        return PolicyLookaheadAgent(policy, seed, rollouts=rollouts)
    if not isinstance(name, str) or name not in SCRIPTED:
        raise ValueError(f"unknown agent {checks.shown(name)}; available: "
                         f"{', '.join(SCRIPTED)}, a shipped checkpoint ({', '.join(SHIPPED)}) "
                         f"or a checkpoint path (.zip; {SEARCH}PATH searches around it)")
    if name == LookaheadAgent.name and rollouts is not None:
        return LookaheadAgent(seed, rollouts=rollouts)
    return SCRIPTED[name](seed)
