"""Write tests/golden/observations.json: encoded observations of fixed positions of every
variant, which tests/test_observation.py compares against the encoder.

    python tests/golden/make_observations.py

Run it only after a deliberate change of the observation, together with a bump of
OBS_VERSION in skipbo_env/observation.py (model cards record the version, and checkpoints
trained on another one are refused).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from skipbo_env import Game, ObservationEncoder, Rules
from skipbo_env.observation import OBS_VERSION

PATH = Path(__file__).with_name("observations.json")
CASES = [("standard", 2), ("standard", 3), ("short", 2), ("quick", 5), ("partnership", 4),
         ("junior", 2), ("junior_classic", 3), ("masters", 2), ("masters_short", 3)]
STEPS = (0, 60)


def position(variant: str, players: int, steps: int) -> Game:
    """A seeded game after `steps` actions chosen by a fixed rule (no player involved)."""
    game = Game(Rules.preset(variant, players), seed=7)
    for i in range(steps):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.step(legal[(i * 7919) % len(legal)])
    return game


def observations() -> dict:
    """Every case's observations for seats 0 and 1, as sparse lists of [index, value]."""
    cases = []
    for variant, players in CASES:
        encoder = ObservationEncoder(Rules.preset(variant, players))
        for steps in STEPS:
            game = position(variant, players, steps)
            for seat in (0, 1):
                obs = encoder.encode(game, seat)
                nonzero = np.flatnonzero(obs)
                cases.append({"variant": variant, "num_players": players, "steps": steps,
                              "seat": seat, "size": int(obs.size),
                              "nonzero": [[int(i), float(obs[i])] for i in nonzero]})
    return {"obs_version": OBS_VERSION, "cases": cases}


if __name__ == "__main__":
    PATH.write_text(json.dumps(observations(), separators=(",", ":")) + "\n")
    print(f"wrote {PATH}")
