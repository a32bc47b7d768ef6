"""Trained policies as players: a checkpoint's network (`players.checkpoints`, loaded without
unpickling anything) in a seat. It encodes the seat's view as the observation it was trained
on (docs/observation.md) and takes the network's action among the legal ones.
"""

from __future__ import annotations

import numpy as np

from ..actions import ActionLayout
from ..observation import PILE_DEPTH, ObservationEncoder
from ..rules import Rules
from ..view import SeatView
from .base import Agent
from .checkpoints import card_depth, card_or_refuse, check_checkpoint, load_model


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

    def choose(self, view: SeatView) -> int:
        obs = self.encoder_for(view.rules).encode_view(view)
        action, _ = self.model.predict(obs, action_masks=legal_mask(view),
                                       deterministic=self.deterministic)
        return int(action)

    def probabilities(self, view: SeatView) -> np.ndarray:
        """The policy's probability of each action for the seat of `view`, the player to act
        (0 where illegal)."""
        import torch

        obs = self.encoder_for(view.rules).encode_view(view)
        mask = legal_mask(view)
        with torch.no_grad():
            dist = self.model.get_distribution(torch.as_tensor(obs[None]),
                                               action_masks=mask[None])
            probs = dist.distribution.probs[0].numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs

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


def legal_mask(view: SeatView) -> np.ndarray:
    """A bool array over the actions, True for the legal ones of `view`'s seat."""
    mask = np.zeros(view.layout.size, dtype=bool)
    mask[list(view.legal_actions)] = True
    return mask


def load_policy_agent(path: str, rules: Rules | None = None, seed: int = 0,
                      deterministic: bool = True) -> PolicyAgent:
    """The checkpoint at `path` as a player (checked against `rules` now if given, else
    against each game's rules when it plays). Raises ValueError for a missing or corrupt
    file, a bad model card, or spaces that do not match. Nothing in the file is unpickled."""
    check_checkpoint(path)
    card = card_or_refuse(path)
    model = load_model(path, card)
    return PolicyAgent(model, rules, path, seed, deterministic, card_depth(card, path))
