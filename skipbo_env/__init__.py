"""skipbo-env: the card game Skip-Bo as a rules engine and reinforcement-learning environments.

The layers are drawn in docs/architecture.md: the core (checks, extras, rules, actions,
spec, state, view, text, picture, state_io, engine, observation, match), then players/,
vector/, envs/, arena/, integrations/, train/ and apps/, each importing only what lies below
it (tests/test_layout.py).
"""

import gymnasium
import pettingzoo

from .actions import ActionLayout
from .engine import Game
from .envs.aec import env, raw_env
from .match import Match
from .observation import OBS_VERSION, ObservationEncoder
from .players import value as _value
from .rules import VARIANTS, WILD, Rules, allowed_players
from .spec import GameSpec
from .state import GameState, Phase
from .text import card_name
from .version import __version__
from .view import SeatView


def _kernel_lister(rules: Rules):
    """The batched engine's segment lister for value players (numba loads at first use)."""
    from .vector.segments import kernel_lister

    return kernel_lister(rules, max_table_bits=_value.TABLE_BITS)


def _value_searcher(rules: Rules, net, deals: int, rows: int, seed: int):
    """The batched engine's search for value players (numba loads at first use)."""
    from .vector.labels import value_searcher

    return value_searcher(rules, net, deals, rows, seed)


# The composition root (docs/architecture.md): value players (players/value.py) list their
# turn segments, and search, with the batched engine's kernels, a layer above them, wired in
# here.
_value.use_lister(_kernel_lister)
_value.use_searcher(_value_searcher)

if "SkipBo-v0" not in gymnasium.registry:
    gymnasium.register(id="SkipBo-v0", entry_point="skipbo_env.envs.gym:SkipBoEnv",
                       vector_entry_point="skipbo_env.vector.env:make_vector_env")
# PettingZoo's registry: pettingzoo.make("aec", "SkipBo-v0", variant=..., num_players=...) is
# skipbo_env.env(...), the AEC env with PettingZoo's wrappers (skipbo_env.skipbo_v0 too).
if "SkipBo-v0" not in pettingzoo.aec_registry:
    pettingzoo.register("aec", "SkipBo-v0", entry_point="skipbo_env.envs.aec:env")

__all__ = ["OBS_VERSION", "VARIANTS", "WILD", "ActionLayout", "Game", "GameSpec", "GameState",
           "Match", "ObservationEncoder", "Phase", "Rules", "SeatView", "__version__",
           "allowed_players", "card_name", "env", "raw_env"]
