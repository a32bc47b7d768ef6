"""skipbo-env: the card game Skip-Bo as a rules engine and reinforcement-learning environments.

The layers are drawn in docs/architecture.md: the core (rules, actions, spec, engine,
state_io, view, observation, match, text) and around it envs/, players/, vector/,
integrations/, apps/ and train/.
"""

import gymnasium
import pettingzoo

from .actions import ActionLayout
from .engine import WILD, Game, Phase, card_name
from .envs.aec import env, raw_env
from .match import Match
from .observation import OBS_VERSION, ObservationEncoder
from .rules import VARIANTS, Rules, allowed_players
from .spec import GameSpec

__version__ = "0.1.0"

if "SkipBo-v0" not in gymnasium.registry:
    gymnasium.register(id="SkipBo-v0", entry_point="skipbo_env.envs.gym:SkipBoEnv",
                       vector_entry_point="skipbo_env.vector.env:make_vector_env")
# PettingZoo's registry: pettingzoo.make("aec", "SkipBo-v0", variant=..., num_players=...) is
# skipbo_env.env(...), the AEC env with PettingZoo's wrappers (skipbo_env.skipbo_v0 too).
if "SkipBo-v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "SkipBo-v0", entry_point="skipbo_env.envs.aec:env")

__all__ = ["OBS_VERSION", "VARIANTS", "WILD", "ActionLayout", "Game", "GameSpec", "Match",
           "ObservationEncoder", "Phase", "Rules", "__version__", "allowed_players",
           "card_name", "env", "raw_env"]
