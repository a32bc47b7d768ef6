"""Averaging value networks (skipbo_env/train/value_average.py): the joined network values a
position as tanh of the mean of its networks' values before their tanh, loads and plays as any
value checkpoint, names what it averages, and refuses networks that do not fit together."""

from __future__ import annotations

import hashlib
import itertools
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from skipbo_env import Game, Rules
from skipbo_env.players.registry import make_agent
from skipbo_env.players.value import ValueNet, load_value_agent
from skipbo_env.train.value_average import average_value_nets, averaged_layers
from training.value_average import main

ROOT = Path(__file__).parents[1]
SHORT = str(ROOT / "networks" / "value_probe_short_td2.npz")
SHORT_TD = str(ROOT / "networks" / "value_probe_short_td.npz")
STANDARD = str(ROOT / "skipbo_env" / "checkpoints" / "value_standard_2p.npz")


def before_tanh(layers, x: np.ndarray) -> np.ndarray:
    h = x
    for w, b in layers[:-1]:
        h = np.maximum(h @ w.T + b, 0.0)
    w, b = layers[-1]
    return (h @ w.T + b)[:, 0]


def random_net(rng, sizes):
    return [(rng.normal(0, 0.3, (o, i)).astype(np.float32), rng.normal(0, 0.1, o).astype(
        np.float32)) for i, o in itertools.pairwise(sizes)]


@pytest.mark.parametrize("hidden", [[], [6], [6, 5], [7, 4, 3]])
def test_the_averaged_network_is_tanh_of_the_mean_of_its_networks_values_before_tanh(hidden):
    rng = np.random.default_rng(0)
    nets = [random_net(rng, [9, *[h + k for h in hidden], 1]) for k in range(3)]
    x = rng.random((20, 9)).astype(np.float32)
    want = np.tanh(np.mean([before_tanh(n, x) for n in nets], axis=0))
    assert np.allclose(ValueNet(averaged_layers(nets))(x), want, atol=1e-5)


def test_the_averaged_checkpoint_values_positions_as_its_networks_do_on_average(tmp_path):
    out = average_value_nets([SHORT, SHORT_TD], str(tmp_path / "avg.npz"))
    rules = Rules.preset("short", 2)
    nets = [load_value_agent(p, rules).net for p in (SHORT, SHORT_TD)]
    x = np.random.default_rng(1).random((50, nets[0].inputs)).astype(np.float32)
    raw = [[(w.T, b) for w, b in n.layers] for n in nets]
    want = np.tanh(np.mean([before_tanh(r, x) for r in raw], axis=0))
    assert np.allclose(load_value_agent(out, rules).net(x), want, atol=1e-4)


def test_the_averaged_checkpoint_plays_a_game_by_its_path(tmp_path):
    out = average_value_nets([SHORT, SHORT_TD], str(tmp_path / "avg.npz"))
    rules = Rules.preset("short", 2, stock_size=5)
    agents = [make_agent(out, rules=rules), make_agent("expert", rules=rules)]
    game = Game(rules, seed=0)
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))


def test_its_card_names_each_network_averaged_with_its_sha256(tmp_path):
    average_value_nets([SHORT, SHORT_TD], str(tmp_path / "avg.npz"))
    card = json.loads((tmp_path / "avg.json").read_text())
    assert card["kind"] == "value" and card["network"]["hidden"] == [512, 512]
    assert [a["sha256"] for a in card["averaged"]] == [
        hashlib.sha256(Path(p).read_bytes()).hexdigest() for p in (SHORT, SHORT_TD)]
    behind = json.loads(Path(SHORT).with_suffix(".json").read_text())["decisions_total"]
    assert card["averaged"][0]["decisions_total"] == behind


def test_networks_of_other_depths_are_refused_naming_the_one_that_differs():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="network 2 has 3 layers"):
        averaged_layers([random_net(rng, [4, 3, 1]), random_net(rng, [4, 3, 3, 1])])


def test_networks_for_other_rules_are_refused_naming_the_network(tmp_path):
    with pytest.raises(ValueError, match="value_standard_2p"):
        average_value_nets([SHORT, STANDARD], str(tmp_path / "avg.npz"))
    assert not (tmp_path / "avg.npz").exists()


def test_networks_for_rules_with_one_observation_size_but_other_settings_are_refused(tmp_path):
    other = tmp_path / "other.npz"
    shutil.copy(SHORT_TD, other)
    card = json.loads(Path(SHORT_TD).with_suffix(".json").read_text())
    card["rules"]["stock_size"] = 7
    other.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match="other rules"):
        average_value_nets([SHORT, str(other)], str(tmp_path / "avg.npz"))


@pytest.mark.parametrize("networks, out, message", [
    ([SHORT], "avg.npz", "at least two"),
    ([SHORT, SHORT_TD], "avg.zip", "ending in .npz"),
    ([SHORT, SHORT_TD], "bad name!.npz", "plain file name"),
])
def test_bad_arguments_are_refused_naming_the_problem(tmp_path, networks, out, message):
    with pytest.raises(ValueError, match=message):
        average_value_nets(networks, str(tmp_path / out))


def test_the_output_may_not_overwrite_a_network_averaged(tmp_path):
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    for src, dst in ((SHORT, a), (SHORT_TD, b)):
        shutil.copy(src, dst)
        shutil.copy(Path(src).with_suffix(".json"), dst.with_suffix(".json"))
    before = a.read_bytes()
    with pytest.raises(ValueError, match="one of the networks"):
        average_value_nets([str(a), str(b)], str(a))
    assert a.read_bytes() == before


def test_the_command_writes_the_network_and_answers_bad_input_with_an_error(tmp_path, capsys):
    assert main(["--networks", SHORT, SHORT_TD, "--out", str(tmp_path / "x" / "avg.npz")]) == 0
    assert (tmp_path / "x" / "avg.json").exists()
    assert main(["--networks", SHORT, str(tmp_path / "missing.npz"), "--out",
                 str(tmp_path / "y.npz")]) == 2
    assert "missing.npz" in capsys.readouterr().err


@pytest.mark.parametrize("rules", [None, "standard", {"variant": "nonesuch"}])
def test_a_card_without_readable_rules_is_refused_naming_its_network(tmp_path, rules):
    other = tmp_path / "other.npz"
    shutil.copy(SHORT_TD, other)
    card = json.loads(Path(SHORT_TD).with_suffix(".json").read_text())
    card["rules"] = rules
    other.with_suffix(".json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match="other.npz"):
        average_value_nets([str(other), SHORT], str(tmp_path / "avg.npz"))


def test_its_card_counts_the_runs_behind_it_once_where_one_network_started_from_the_other(
        tmp_path):
    """networks/value_probe_short_td.npz started from value_probe_short1920k (its card's init):
    the runs behind the average are the later network's."""
    first = str(ROOT / "networks" / "value_probe_short1920k.npz")
    average_value_nets([first, SHORT_TD], str(tmp_path / "chain.npz"))
    later = json.loads(Path(SHORT_TD).with_suffix(".json").read_text())
    card = json.loads((tmp_path / "chain.json").read_text())
    assert card["decisions_total"] == later["decisions_total"]
    assert card["seconds_total"] == later["seconds_total"]
    other = tmp_path / "apart.npz"  # the same network, but not started from the first
    shutil.copy(SHORT_TD, other)
    apart = dict(later, init=None)
    other.with_suffix(".json").write_text(json.dumps(apart))
    average_value_nets([first, str(other)], str(tmp_path / "both.npz"))
    both = json.loads((tmp_path / "both.json").read_text())
    behind = json.loads(Path(first).with_suffix(".json").read_text())
    assert both["decisions_total"] == later["decisions_total"] + behind.get(
        "decisions_total", behind["decisions"])
