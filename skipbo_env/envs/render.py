"""The envs' `render()`: the table as text (``ansi``, ``human``) or as a picture
(``rgb_array``), one dispatcher for the AEC and the Gymnasium env."""

from __future__ import annotations

import gymnasium
import numpy as np

from ..picture import render_picture
from ..state import GameState
from ..text import render_table

RENDER_MODES = ["ansi", "human", "rgb_array"]


def render_env(game: GameState, render_mode: str | None) -> str | np.ndarray | None:
    """An env's `render()`: the table as text for "ansi", printed for "human", drawn as an
    RGB uint8 array for "rgb_array" (`picture.render_picture`); without a render mode, a
    warning and None."""
    if render_mode is None:
        gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', "
                              "'human' or 'rgb_array'")
        return None
    if render_mode == "rgb_array":
        return render_picture(game)
    text = render_table(game)
    if render_mode == "human":
        print(text + "\n")
        return None
    return text
