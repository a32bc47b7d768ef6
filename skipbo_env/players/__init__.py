"""The players: the `Agent` interface (`base`), the scripted players (`scripted`), the search
player (`lookahead`), trained policies (`policy`, needs the train extra), the registry that
resolves every player name (`registry`) and the tournament harness (`tournament`)."""

from .base import Agent
from .registry import SCRIPTED, SELF_PLAY, check_player, is_checkpoint, make_agent

__all__ = ["SCRIPTED", "SELF_PLAY", "Agent", "check_player", "is_checkpoint", "make_agent"]
