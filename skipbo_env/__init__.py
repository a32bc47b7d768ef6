"""skipbo-env: the card game Skip-Bo as a rules engine and reinforcement-learning environments."""

import gymnasium

from .actions import ActionLayout
from .engine import WILD, Game, card_name
from .envs.aec import env, raw_env
from .match import Match
from .observation import ObservationEncoder
from .rules import VARIANTS, Rules, allowed_players

__version__ = "0.1.0"

if "SkipBo-v0" not in gymnasium.registry:
    gymnasium.register(id="SkipBo-v0", entry_point="skipbo_env.envs.gym:SkipBoEnv")

__all__ = ["ActionLayout", "Game", "Match", "ObservationEncoder", "Rules", "VARIANTS", "WILD",
           "allowed_players", "card_name", "env", "raw_env", "__version__"]
