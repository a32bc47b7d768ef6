"""Player names, resolved in one place: every command, env, config and the web server asks here.

A player spec is one of
- a scripted player's name (`SCRIPTED`: ``random``, ``naive``, ``greedy``, ``expert``,
  ``lookahead``);
- a checkpoint path: a ``.zip`` written by the training scripts (or any name with a path
  separator), played by `skipbo_env.players.policy`;
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
from .lookahead import LookaheadAgent
from .scripted import ExpertAgent, GreedyAgent, NaiveAgent, RandomAgent

SCRIPTED: dict[str, type[Agent]] = {cls.name: cls for cls in (
    RandomAgent, NaiveAgent, GreedyAgent, ExpertAgent, LookaheadAgent)}
"""The scripted players by name."""
AGENTS = SCRIPTED  # the name of earlier releases
SELF_PLAY = "self_play"

__all__ = ["AGENTS", "SCRIPTED", "SELF_PLAY", "Agent", "ExpertAgent", "GreedyAgent",
           "LookaheadAgent", "NaiveAgent", "RandomAgent", "check_player", "is_checkpoint",
           "make_agent"]


def is_checkpoint(name: str) -> bool:
    """Whether `name` names a checkpoint file rather than a scripted player."""
    return isinstance(name, str) and (name.endswith(".zip") or os.path.sep in name)


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
    allowed = checkpoints if isinstance(checkpoints, bool) else name in checkpoints
    if allowed and is_checkpoint(name):
        if exists and not os.path.isfile(name):
            raise ValueError(f"{prefix}checkpoint {name} does not exist")
        return name
    choices = [*SCRIPTED] + ([SELF_PLAY] if self_play else [])
    also = ""
    if checkpoints is True:
        also = " or a checkpoint path (.zip)"
    elif checkpoints:
        choices += list(checkpoints)
    raise ValueError(f"{prefix}unknown {what} {name!r}; one of {', '.join(choices)}{also}")


def make_agent(name: str, seed: int = 0, rules: Rules | None = None) -> Agent:
    """The scripted player called `name`, or the trained policy at checkpoint path `name`
    (a ``.zip`` from the training scripts; needs the ``train`` extra; checked against
    `rules` now when given), seeded with `seed`."""
    seed = checks.integer(seed, "seed", minimum=0)
    if isinstance(name, str) and name not in SCRIPTED and is_checkpoint(name):
        from .policy import load_policy_agent
        return load_policy_agent(name, rules=rules, seed=seed)
    if not isinstance(name, str) or name not in SCRIPTED:
        raise ValueError(f"unknown agent {name!r}; available: {', '.join(SCRIPTED)}, or a "
                         f"checkpoint path (.zip)")
    return SCRIPTED[name](seed)
