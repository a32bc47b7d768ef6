"""Skip-Bo on Ray RLlib's new API stack (the ``rllib`` extra; docs/distributed.md).

- `SkipBoPettingZooEnv`: RLlib's ``PettingZooEnv`` over `skipbo_env.roles.RolesEnv` (agents are
  roles: ``learner_*`` and the self-play ``opponent_*``; scripted opponents play inside the
  env), registered with Ray Tune as ``"skipbo"``;
- `MaskedActorCritic`: a torch RLModule for PPO that applies the action mask (illegal
  actions get the lowest logit) and has separate policy and value MLPs, shaped like
  stable-baselines3's ``MlpPolicy`` so that `export_policy` can copy it into a MaskablePPO
  ``.zip`` that ``skipbo tournament``, ``skipbo evaluate`` and ``skipbo play`` accept;
- `policy_mapping_fn`: the learner's seats share the ``learner`` module; the self-play seats
  of one game play one frozen copy (``frozen_<i>``), picked by the episode's id.
"""

from __future__ import annotations

import os
import zlib
from typing import Any

import gymnasium as gym
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from torch import nn

from ..envs.roles import RolesEnv
from ..observation import OBS_VERSION
from ..players.checkpoints import policy_card, write_card

ENV_NAME = "skipbo"
LEARNER = "learner"
MASKED_LOGIT = -1e9  # an illegal action's logit: exp() of it is 0 next to any legal one


class SkipBoPettingZooEnv(PettingZooEnv):
    """RLlib's PettingZoo wrapper over `RolesEnv(**config)`. PettingZooEnv takes its agents
    from the first game; here every role is declared up front, since scripted opponents hide
    some roles in some games."""

    def __init__(self, config: dict | None = None):
        super().__init__(RolesEnv(**dict(config or {})))
        self.possible_agents = list(self.env.possible_agents)
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)
        self.observation_spaces = {a: self.env.observation_space(a) for a in self.agents}
        self.action_spaces = {a: self.env.action_space(a) for a in self.agents}
        # gymnasium's Dict takes str keys; the agents are named player_0, ... (str).
        self.observation_space = gym.spaces.Dict(dict(self.observation_spaces))  # type: ignore[arg-type]
        self.action_space = gym.spaces.Dict(dict(self.action_spaces))  # type: ignore[arg-type]


def register_env() -> None:
    """Register `SkipBoPettingZooEnv` with Ray Tune under the name ``"skipbo"``."""
    from ray.tune.registry import register_env as register
    register(ENV_NAME, SkipBoPettingZooEnv)


def frozen_module(episode_id: str, copies: int) -> str:
    """The frozen copy that plays the self-play seats of episode `episode_id`."""
    return f"frozen_{zlib.crc32(str(episode_id).encode()) % copies}"


def policy_mapping_fn(copies: int):
    """The agent-to-module mapping: ``learner_*`` to the learner, ``opponent_*`` to one of
    `copies` frozen copies per episode."""
    def mapping(agent_id, episode, **kwargs):
        if agent_id.startswith("learner"):
            return LEARNER
        return frozen_module(getattr(episode, "id_", episode), copies)
    return mapping


def _mlp(size: int, hidden: list[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(size, width), nn.Tanh()]
        size = width
    return nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """PPO's actor-critic over ``{"observations", "action_mask"}``: policy MLP -> action
    logits, masked; value MLP -> value. ``model_config``: ``{"net_arch": [256, 256]}``
    (tanh between layers, as stable-baselines3's MlpPolicy)."""

    def setup(self):
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or set(space.spaces) != {"observations",
                                                                            "action_mask"}:
            raise ValueError("MaskedActorCritic needs a Dict observation space with the keys "
                             f"'observations' and 'action_mask', got {space}")
        observations, actions = space["observations"], self.action_space
        if observations.shape is None or not isinstance(actions, gym.spaces.Discrete):
            raise ValueError(f"MaskedActorCritic needs a Box of observations and Discrete "
                             f"actions, got {observations} and {actions}")
        size = observations.shape[0]
        config = self.model_config if isinstance(self.model_config, dict) else {}
        hidden = [int(h) for h in config.get("net_arch", [256, 256])]
        last = hidden[-1] if hidden else size
        self.policy_net = _mlp(size, hidden)
        self.action_net = nn.Linear(last, int(actions.n))
        self.value_mlp = _mlp(size, hidden)
        self.value_net = nn.Linear(last, 1)

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        logits = self.action_net(self.policy_net(obs["observations"]))
        logits = logits.masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def compute_values(self, batch: dict, embeddings: Any = None):
        obs = batch[Columns.OBS]["observations"]
        return self.value_net(self.value_mlp(obs)).squeeze(-1)


# -- export to a stable-baselines3 checkpoint ------------------------------------------------------
def sb3_state_dict(module_state: dict) -> dict:
    """`MaskedActorCritic` weights under the names of SB3's MaskableActorCriticPolicy."""
    rename = {"policy_net.": "mlp_extractor.policy_net.",
              "value_mlp.": "mlp_extractor.value_net.",
              "action_net.": "action_net.", "value_net.": "value_net."}
    out = {}
    for key, value in module_state.items():
        prefix = next((p for p in rename if key.startswith(p)), None)
        if prefix is None:
            raise ValueError(f"unexpected weight {key!r} in the RLlib module")
        out[rename[prefix] + key[len(prefix):]] = torch.as_tensor(value)
    return out


def export_policy(module_state: dict, net_arch: list[int], rules, path: str,
                  card: dict | None = None) -> str:
    """Write the learner's weights as a MaskablePPO checkpoint at `path` (``.zip``) with its
    model card beside it (``.json``: the rules, so the players check them, plus `card`).
    Needs the ``train`` extra. Returns the path."""
    from sb3_contrib import MaskablePPO

    from ..envs.gym import SkipBoEnv

    if not path.endswith(".zip"):
        raise ValueError(f"the exported policy's path must end in .zip, got {path!r}")
    env = SkipBoEnv.of(rules, opponents="random")
    model = MaskablePPO("MlpPolicy", env, device="cpu",
                        policy_kwargs={"net_arch": list(net_arch)})
    weights = sb3_state_dict(module_state)
    missing = set(model.policy.state_dict()) - set(weights)
    if missing:
        raise ValueError(f"the RLlib module lacks weights for {sorted(missing)}")
    try:
        model.policy.load_state_dict(weights, strict=True)
    except RuntimeError as e:
        raise ValueError(f"the RLlib module does not fit net_arch {net_arch}: {e}") from None
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    model.save(path)
    info = {"format": "skipbo-model-card/1", "algorithm": "PPO (Ray RLlib), exported",
            "rules": rules.to_dict(), "pile_depth": env.encoder.depth,
            "obs_version": OBS_VERSION, "policy": policy_card(net_arch)}
    info.update(card or {})
    write_card(os.path.splitext(path)[0] + ".json", info)
    return path
