"""Trained policies (sb3-contrib MaskablePPO checkpoints) as players.

A checkpoint is the SB3 ``.zip``; beside it the training scripts write a JSON model card
(same name, ``.json``) whose ``"rules"`` say which game the policy was trained for.
Loading needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import json
import os
import zipfile

from .. import checks
from ..actions import ActionLayout
from ..engine import Game
from ..observation import OBS_VERSION, PILE_DEPTH, ObservationEncoder
from ..rules import Rules
from .base import Agent


class PolicyAgent(Agent):
    """A trained policy in a seat: it encodes the seat's observation (which holds only what
    the seat can see, docs/observation.md) and takes the policy's action among the legal
    ones (deterministically, or sampled with the agent's seed)."""

    name = "policy"

    def __init__(self, model, rules: Rules | None = None, path: str = "", seed: int = 0,
                 deterministic: bool = True, pile_depth: int = PILE_DEPTH):
        super().__init__(seed)
        self.model, self.path = model, path
        self.deterministic = deterministic
        self.pile_depth = pile_depth
        self._encoders: dict[Rules, ObservationEncoder] = {}
        if rules is not None:
            self.encoder_for(rules)  # checks the spaces now
        if not deterministic:
            import torch
            torch.manual_seed(seed)

    def encoder_for(self, rules: Rules) -> ObservationEncoder:
        """The observation encoder for `rules`, once the model's spaces are checked to fit
        them (a policy plays any rules with the same spaces, e.g. another stock size)."""
        encoder = self._encoders.get(rules)
        if encoder is None:
            encoder = ObservationEncoder(rules, self.pile_depth)
            check_spaces(self.model, encoder, rules, self.path)
            self._encoders[rules] = encoder
        return encoder

    def act(self, game: Game) -> int:
        if game.is_over:
            raise ValueError("the game is over: there is no action to choose")
        obs = self.encoder_for(game.rules).encode(game, game.current_player)
        mask = game.action_mask().astype(bool)
        action, _ = self.model.predict(obs, action_masks=mask,
                                       deterministic=self.deterministic)
        return int(action)

    def __repr__(self) -> str:
        return f"PolicyAgent({self.path!r})"


def check_spaces(model, encoder: ObservationEncoder, rules: Rules, path: str = "") -> None:
    """Raise ValueError unless the model's observation and action spaces fit `rules`."""
    obs_shape = getattr(model.observation_space, "shape", None)
    n_actions = getattr(model.action_space, "n", None)
    want_actions = ActionLayout(rules).size
    if obs_shape != (encoder.size,):
        raise ValueError(f"checkpoint {path} observes vectors of shape {obs_shape}, but "
                         f"{rules.variant} with {rules.num_players} players needs "
                         f"({encoder.size},)")
    if n_actions != want_actions:
        raise ValueError(f"checkpoint {path} has {n_actions} actions, but {rules.variant} with "
                         f"{rules.num_players} players has {want_actions}")


def check_obs_version(card: dict, path: str = "") -> None:
    """Raise ValueError unless the model card was written for this package's observation
    (`OBS_VERSION`): the shapes of two versions may agree while their meaning differs."""
    version = card.get("obs_version")
    if version is None:
        raise ValueError(f"model card of {path} has no obs_version; it must say which "
                         f"observation the policy was trained on (this package's is "
                         f"{OBS_VERSION}, docs/observation.md)")
    if version != OBS_VERSION:
        raise ValueError(f"checkpoint {path} was trained on observation version {version!r}; "
                         f"this package encodes version {OBS_VERSION}, which the policy cannot "
                         f"read (docs/observation.md)")


def model_card(path: str) -> dict | None:
    """The JSON model card beside checkpoint `path`, or None if there is none."""
    card = os.path.splitext(path)[0] + ".json"
    if not os.path.exists(card):
        return None
    try:
        with open(card) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"model card {card} is not readable JSON: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"model card {card} must hold a JSON object")
    return data


_MODELS: dict[tuple[str, float], object] = {}  # loaded models by path and file time


def check_checkpoint(path: str) -> None:
    """Raise ValueError unless `path` is an existing SB3 ``.zip`` file (a cheap check that
    loads nothing)."""
    if not os.path.isfile(path):
        raise ValueError(f"checkpoint {path} does not exist")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"checkpoint {path} is not an SB3 .zip file (corrupt or another "
                         f"format)")


def load_model(path: str):
    """The MaskablePPO model in `path` (on the CPU), loaded once per process."""
    check_checkpoint(path)
    key = (os.path.abspath(path), os.path.getmtime(path))
    model = _MODELS.get(key)
    if model is None:
        try:
            import torch
            from sb3_contrib import MaskablePPO
        except ImportError:
            raise ValueError("loading a checkpoint needs the train extra: pip install "
                             "torch==2.13.0 && pip install -e '.[train]'") from None
        torch.set_num_threads(1)  # one move at a time: threads only cost here
        try:
            model = MaskablePPO.load(path, device="cpu")
        except Exception as e:  # SB3 raises many kinds of error for a damaged file
            raise ValueError(f"checkpoint {path} could not be loaded: {type(e).__name__}: "
                             f"{e}") from None
        _MODELS[key] = model
    return model


def load_policy_agent(path: str, rules: Rules | None = None, seed: int = 0,
                      deterministic: bool = True) -> PolicyAgent:
    """The checkpoint at `path` as a player (checked against `rules` now if given, else
    against each game's rules when it plays). Raises ValueError for a missing or corrupt
    file, a bad model card, or spaces that do not match."""
    check_checkpoint(path)
    card = model_card(path)
    if card is None:
        raise ValueError(f"checkpoint {path} has no model card "
                         f"({os.path.splitext(path)[0]}.json): the card records the rules and "
                         f"the observation version (obs_version) the policy was trained on")
    check_obs_version(card, path)
    if rules is None and "rules" in card:
        try:
            Rules.from_dict(card["rules"])
        except (TypeError, ValueError) as e:
            raise ValueError(f"model card of {path} holds bad rules: {e}") from None
    pile_depth = card.get("pile_depth", PILE_DEPTH)
    if not checks.is_integer(pile_depth) or pile_depth < 1:
        raise ValueError(f"model card of {path} holds a bad pile_depth: {pile_depth!r}")
    return PolicyAgent(load_model(path), rules, path, seed, deterministic, pile_depth)

