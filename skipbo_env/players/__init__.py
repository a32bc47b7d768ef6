"""The players: the `Agent` interface (`base`: a player is given one seat's view), the scripted
players (`scripted`), the search players (`lookahead`), checkpoints and their model cards
(`checkpoints`), trained policies as players (`policy`, needs the train extra) and the
registry that parses every player name (`registry`)."""

from .base import Agent
from .registry import SCRIPTED, SELF_PLAY, PlayerKind, PlayerSpec, make_agent, parse_player

__all__ = ["SCRIPTED", "SELF_PLAY", "Agent", "PlayerKind", "PlayerSpec", "make_agent",
           "parse_player"]
