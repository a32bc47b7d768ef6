"""Training on Ray RLlib (training/rllib_train.py, skipbo_env.rllib). The config tests run
everywhere; the training tests run when the rllib extra is installed (CI installs it)."""

import json
import os

import numpy as np
import pytest

from skipbo_env.train.config import ConfigError
from skipbo_env.train.rllib_ppo import load, validate

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SMOKE = os.path.join(ROOT, "configs", "rllib_smoke.yaml")


def smoke(tmp_path, **changes):
    cfg = load(SMOKE)
    raw = cfg.to_dict()
    raw.update(changes)
    raw["output_dir"] = str(tmp_path)
    return validate(raw)


# -- configs (no Ray needed) -------------------------------------------------------------------
RLLIB_CONFIGS = sorted(name[:-len(".yaml")] for name in os.listdir(os.path.join(ROOT, "configs"))
                       if name.endswith(".yaml") and "rllib" in name)


def test_the_configs_directory_holds_the_rllib_configs():
    assert {"rllib_smoke", "rllib_standard_2p", "ref_rllib_partnership_4p"} <= set(RLLIB_CONFIGS)


@pytest.mark.parametrize("name", RLLIB_CONFIGS)
def test_the_shipped_rllib_configs_validate(name):
    cfg = load(os.path.join(ROOT, "configs", f"{name}.yaml"))
    assert cfg.name == name and cfg.iterations >= 1


def test_a_figure_rllib_reports_as_nan_is_written_to_the_curve_as_null():
    from skipbo_env.train.rllib_ppo import _figure

    result = {"env_runners": {"module_episode_returns_mean": {"learner": float("nan")},
                              "num_episodes_lifetime": 7, "seconds": float("inf")}}
    row = {"learner_return": _figure(result, "env_runners", "module_episode_returns_mean",
                                     "learner"),
           "seconds": _figure(result, "env_runners", "seconds")}
    assert row == {"learner_return": None, "seconds": None}
    assert json.loads(json.dumps(row, allow_nan=False)) == row
    assert _figure(result, "env_runners", "num_episodes_lifetime") == 7
    assert _figure(result, "env_runners", "absent") is None


@pytest.mark.parametrize("change, message", [
    ({"iterations": 0}, "iterations must be at least 1"),
    ({"iterations": None}, "iterations must be an integer"),
    ({"opponents": {"rando": 1}}, "unknown opponent 'rando'"),
    ({"opponents": {"self_play": 0}}, "must not all be zero"),
    ({"num_players": 3, "variant": "partnership"}, "num_players"),
    ({"rules": {"stock_size": -1}}, "rules:"),
    ({"ray": {"num_env_runners": -1}}, "ray.num_env_runners must be at least 0"),
    ({"ray": {"num_envs_per_env_runner": 0}}, "ray.num_envs_per_env_runner"),
    ({"ray": {"workers": 2}}, "unknown key"),
    ({"ppo": {"net_arch": []}}, "ppo.net_arch"),
    ({"ppo": {"minibatch_size": 10_000}}, "ppo.minibatch_size must be at most"),
    ({"self_play": {"frozen_copies": 0}}, "self_play.frozen_copies"),
    ({"eval": {"opponents": ["self_play"]}}, "not a fixed opponent"),
    ({"colour": "red"}, "unknown key"),
    ({"stock_reward": float("inf")}, "stock_reward must be a finite number"),
    ({"stock_reward": "a lot"}, "stock_reward must be a number"),
])
def test_a_bad_rllib_config_is_refused_naming_the_key(tmp_path, change, message):
    raw = load(SMOKE).to_dict()
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(raw.get(key), dict) and key not in (
                "rules", "opponents"):
            raw[key] = {**raw[key], **value}
        else:
            raw[key] = value
    with pytest.raises(ConfigError, match=message):
        validate(raw)


def test_the_training_script_refuses_a_missing_or_bad_config_before_ray_starts(tmp_path,
                                                                                capsys):
    from skipbo_env.train.rllib_ppo import main
    cases = [([str(tmp_path / "nope.yaml")], "cannot read config"),
             ([SMOKE, "--iterations", "0"], "--iterations must be at least 1")]
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\niterations: 0\n")
    cases.append(([str(bad)], "iterations must be at least 1"))
    for argv, message in cases:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        assert message in capsys.readouterr().err


# -- Ray ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.rllib")
    pytest.importorskip("sb3_contrib")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="module")
def trained(ray_local, tmp_path_factory):
    from skipbo_env.train.rllib_ppo import train
    out = tmp_path_factory.mktemp("rllib")
    cfg = smoke(out)
    card = train(cfg, log=lambda line: None)
    return cfg, card, out


def test_one_short_training_iteration_on_a_tiny_stock_writes_all_three_outputs(trained):
    cfg, _, out = trained
    assert os.path.isdir(out / "rllib_smoke_rllib")
    assert os.path.isfile(out / "rllib_smoke.zip")
    with open(out / "rllib_smoke.json") as f:
        written = json.load(f)
    assert written["rules"]["stock_size"] == 3 and written["rules"]["variant"] == "short"
    assert written["curve"][0]["env_steps"] >= cfg.ppo.train_batch_size
    assert written["versions"]["ray"]


def test_the_result_is_evaluated_against_random_by_the_tournament_harness(trained):
    cfg, card, _ = trained
    result = card["evaluation"]["random"]
    assert result["games"] >= cfg.eval.games
    assert 0.0 <= result["win_rate"] <= 1.0


def test_the_exported_policy_is_a_player_for_tournament_evaluate_and_play(trained):
    from skipbo_env import Game
    from skipbo_env.apps.cli import main as cli
    from skipbo_env.apps.session import PlaySession
    from skipbo_env.players.policy import PolicyAgent

    cfg, _, out = trained
    path = str(out / "rllib_smoke.zip")
    bot = PlaySession("short", [path], seed=0, stock_size=3).bots[1]
    assert isinstance(bot, PolicyAgent)
    game = Game(cfg.game_rules, seed=3)
    while not game.is_over:
        game.step(bot.act(game.view()))
    assert not cli(["evaluate", path, "--opponents", "random", "--games", "4", "--quiet"])
    assert not cli(["tournament", "--players", f"{path},random", "--games", "2", "--variant",
                    "short", "--stock-size", "3", "--quiet"])


def test_the_exported_policy_chooses_as_the_rllib_module_does(trained):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    from skipbo_env.envs.roles import RolesEnv
    from skipbo_env.players.checkpoints import load_model

    *_, out = trained
    module = RLModule.from_checkpoint(
        os.path.join(out, "rllib_smoke_rllib", "learner_group", "learner", "rl_module",
                     "learner"))
    model = load_model(str(out / "rllib_smoke.zip"))
    env = RolesEnv("short", 2, stock_size=3, seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for _agent in env.agent_iter(max_iter=400) if env.reset() is None else []:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        batch = {Columns.OBS: {k: torch.as_tensor(v[None]) for k, v in obs.items()}}
        with torch.no_grad():
            logits = module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0]
        mine = int(torch.argmax(logits))
        theirs, _ = model.predict(obs["observations"], action_masks=obs["action_mask"] == 1,
                                  deterministic=True)
        assert mine == int(theirs) and obs["action_mask"][mine] == 1
        checked += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 50


def test_the_export_command_writes_a_policy_from_an_rllib_checkpoint(trained, tmp_path):
    from skipbo_env.players.registry import make_agent
    from skipbo_env.train.rllib_ppo import main

    *_, out = trained
    dest = tmp_path / "again.zip"
    assert main(["export", str(out / "rllib_smoke_rllib"), str(dest)]) == 0
    with open(tmp_path / "again.json") as f:
        assert json.load(f)["rules"]["stock_size"] == 3
    make_agent(str(dest))


def test_exporting_something_that_is_no_rllib_checkpoint_fails_clearly(ray_local, tmp_path):
    from skipbo_env.train.rllib_ppo import main
    with pytest.raises(SystemExit):
        main(["export", str(tmp_path), str(tmp_path / "x.zip")])
    from skipbo_env.train.rllib_ppo import export
    with pytest.raises(ValueError, match="is not an RLlib checkpoint"):
        export(str(tmp_path), str(tmp_path / "x.zip"))


def test_partnership_trains_with_team_members_on_one_policy(ray_local, tmp_path):
    from skipbo_env.integrations.rllib import LEARNER, policy_mapping_fn
    from skipbo_env.train.rllib_ppo import train

    mapping = policy_mapping_fn(2)

    class Episode:
        id_ = "abc"
    assert mapping("learner_0", Episode()) == mapping("learner_1", Episode()) == LEARNER
    assert mapping("opponent_0", Episode()) == mapping("opponent_1", Episode()) != LEARNER
    cfg = smoke(tmp_path, name="team", variant="partnership", num_players=4,
                rules={"stock_size": 2}, opponents={"self_play": 1.0, "greedy": 1.0},
                eval={"games": 4, "opponents": ["random"]})
    card = train(cfg, log=lambda line: None)
    assert card["evaluation"]["random"]["games"] >= 4
    assert card["env_steps"] >= cfg.ppo.train_batch_size
