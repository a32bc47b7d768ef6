"""Game records as a Minari dataset (the ``minari`` extra; docs/records.md).

One episode per seat of each recorded game: the seat's decisions from its own view, as the
Gymnasium env (`SkipBo-v0`) would have shown them to it. Observations are a dictionary of
the env's observation vector and the action mask (offline RL for Skip-Bo needs the mask);
each episode ends with the seat's observation of the finished game (its mask all zeros). The
reward is the seat's return (+1, -1, 0) on its last decision, 0 before; a game won or drawn
is terminated, one stopped at the turn limit or left unfinished truncated.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gymnasium import spaces

from ..observation import PILE_DEPTH, ObservationEncoder
from ..records import GameRecord, finished, training_data


def spaces_of(encoder: ObservationEncoder) -> tuple[spaces.Dict, spaces.Discrete]:
    """The observation and action spaces of a dataset of `encoder`'s rules."""
    actions = encoder.spec.layout.size
    return (spaces.Dict({"observation": spaces.Box(0.0, 1.0, (encoder.size,), np.float32),
                         "action_mask": spaces.MultiBinary(actions)}),
            spaces.Discrete(actions))


def episodes(records: Sequence[GameRecord], pile_depth: int = PILE_DEPTH) -> list:
    """Minari `EpisodeBuffer`s of `records`: one per seat of each game (module docstring)."""
    from minari.data_collector import EpisodeBuffer

    data = training_data(records, None, pile_depth)
    encoder = ObservationEncoder(records[0].rules, pile_depth)
    out: list = []
    for index, record in enumerate(records):
        final = record.replay()
        truncated = not finished(record)
        for seat in range(record.rules.num_players):
            rows = np.flatnonzero((data["game"] == index) & (data["seat"] == seat))
            if not len(rows):
                continue
            last_obs = encoder.encode(final, seat)[None].astype(np.float32)
            done = np.zeros(len(rows), dtype=np.bool_)
            done[-1] = True
            out.append(EpisodeBuffer(
                id=len(out), seed=None,
                observations={
                    "observation": np.concatenate([data["obs"][rows], last_obs]),
                    "action_mask": np.concatenate(
                        [data["mask"][rows], np.zeros((1, data["mask"].shape[1]), np.int8)])},
                actions=data["action"][rows], rewards=data["reward"][rows].tolist(),
                terminations=(done & (not truncated)).tolist(),
                truncations=(done & truncated).tolist(), infos={}))
    return out


def to_minari(records: Sequence[GameRecord], dataset_id: str, pile_depth: int = PILE_DEPTH,
              **metadata):
    """Write `records` (one rules set) as the Minari dataset `dataset_id` (under Minari's
    datasets folder, ``MINARI_DATASETS_PATH``) and return it; `metadata` goes to
    `minari.create_dataset_from_buffers` (author, description, ...)."""
    import minari

    if not records:
        raise ValueError("no records to export")
    metadata.setdefault("description", "Skip-Bo game records (skipbo-env): one episode per "
                        "seat of each game, that seat's decisions from its own view, "
                        "observations with the action mask, the return at the end")
    observation_space, action_space = spaces_of(ObservationEncoder(records[0].rules,
                                                                   pile_depth))
    return minari.create_dataset_from_buffers(
        dataset_id, episodes(records, pile_depth), observation_space=observation_space,
        action_space=action_space, algorithm_name="game records (skipbo_env.records)",
        **metadata)
