"""Game records as a Minari dataset (skipbo_env/integrations/minari.py, docs/records.md)."""

from __future__ import annotations

import numpy as np
import pytest

minari = pytest.importorskip("minari")

from skipbo_env import Game, Rules
from skipbo_env.integrations.minari import to_minari
from skipbo_env.observation import ObservationEncoder
from skipbo_env.players.registry import make_agent
from skipbo_env.records import GameRecord


def _record(rules, seed):
    game, actions = Game(rules, seed), []
    agents = [make_agent("expert", 0, rules=rules), make_agent("greedy", 1, rules=rules)]
    while not game.is_over:
        seat = game.current_player
        action = agents[seat].act(game.view())
        game.step(action)
        actions.append((seat, action))
    return GameRecord.of(game, seed, ["expert", "greedy"], actions)


def test_records_export_as_a_minari_dataset_of_one_episode_per_seat(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    rules = Rules.preset("short", 2, stock_size=4)
    records = [_record(rules, seed) for seed in (1, 2)]
    dataset = to_minari(records, "skipbo/records-v0", author="tests")
    assert dataset.total_episodes == 4
    again = minari.load_dataset("skipbo/records-v0")
    episodes = list(again.iterate_episodes())
    first = episodes[0]
    mine = [(g.clone(), a) for g, s, a in records[0].positions() if s == 0]
    encoder = ObservationEncoder(rules)
    assert len(first.actions) == len(mine)
    assert np.allclose(first.observations["observation"][0], encoder.encode(mine[0][0], 0))
    assert first.observations["action_mask"][0][first.actions[0]] == 1
    assert first.rewards[-1] == records[0].result["returns"][0] and not any(first.rewards[:-1])
    assert first.terminations[-1] and not first.truncations.any()
