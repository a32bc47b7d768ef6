"""The training pipeline, proved by a smoke run: a few hundred steps on a tiny stock, saved,
loaded, evaluated and seated in a tournament. Needs the train extra (installed by .ci/run)."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")

from skipbo_env import Game, ObservationEncoder, Rules
from skipbo_env.envs.gym import OpponentPool, SkipBoEnv
from skipbo_env.observation import OBS_VERSION
from skipbo_env.players import checkpoints as checkpoints_module
from skipbo_env.players.checkpoints import checkpoints_in, write_card
from skipbo_env.players.policy import check_spaces, load_policy_agent
from skipbo_env.players.registry import make_agent
from skipbo_env.train import config as cfgmod
from skipbo_env.train.ppo import stock_size_at, train, unchecked_distributions

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def smoke(tmp_path_factory):
    """The smoke config trained once, into a temporary directory."""
    out = tmp_path_factory.mktemp("smoke")
    cfg = cfgmod.load(str(ROOT / "configs" / "smoke.yaml")).with_changes(
        output_dir=str(out / "checkpoints"), log_dir=str(out / "runs"))
    card = train(cfg, progress=False)
    return cfg, card, out / "checkpoints" / "smoke.zip"


def test_total_timesteps_0_trains_by_behaviour_cloning_alone(tmp_path):
    raw = cfgmod.read_yaml(str(ROOT / "configs" / "smoke.yaml"))
    raw.update(total_timesteps=0, output_dir=str(tmp_path / "checkpoints"),
               log_dir=str(tmp_path / "runs"), self_play={"weight": 0.0}, curriculum=[])
    card = train(cfgmod.validate(raw), progress=False)
    assert card["steps"] == 0 and card["pretrain"]["samples"] > 0
    assert card["stages"] == ["behaviour cloning"]
    assert zipfile.is_zipfile(tmp_path / "checkpoints" / "smoke.zip")
    assert set(card["evaluation"]["results"]) == {"random", "naive"}


def test_training_writes_the_checkpoint_and_its_model_card(smoke):
    cfg, card, path = smoke
    assert zipfile.is_zipfile(path)
    written = json.loads(path.with_suffix(".json").read_text())
    assert written == json.loads(json.dumps(card))
    assert written["steps"] >= cfg.total_timesteps and written["seed"] == 0
    assert written["rules"] == Rules.preset("short", 2, stock_size=3).to_dict()
    assert {"torch", "stable_baselines3", "sb3_contrib"} <= set(written["versions"])
    assert written["wall_time_s"] > 0
    assert written["stages"] == ["behaviour cloning", "MaskablePPO"]
    results = written["evaluation"]["results"]
    assert set(results) == {"random", "naive"}
    for r in results.values():
        assert r["games"] == 4 and 0 <= r["ci95"][0] <= r["win_rate"] <= r["ci95"][1] <= 1
    # Step 0 is the policy cloned from expert, before any PPO step.
    assert [p["steps"] for p in written["learning_curve"]] == [0, 256, 512]
    assert written["pretrain"]["samples"] >= 200 and written["pretrain"]["stock_size"] == 2



def test_a_model_card_is_strict_json_with_null_for_a_figure_that_is_not_finite(tmp_path):
    card = {"pretrain": {"loss": float("nan"), "agreement": 0.9},
            "learning_curve": [{"steps": 0, "win_rate": {"naive": float("inf")}}],
            "rules": (2, -float("inf"))}
    write_card(str(tmp_path / "card.json"), card)

    def refuse(constant):
        raise AssertionError(f"{constant} in a model card")

    written = json.loads((tmp_path / "card.json").read_text(), parse_constant=refuse)
    assert written == {"pretrain": {"loss": None, "agreement": 0.9},
                       "learning_curve": [{"steps": 0, "win_rate": {"naive": None}}],
                       "rules": [2, None]}
    numpy = {"loss": np.float32("nan"), "steps": np.int64(7), "curve": np.array([0.5, np.inf])}
    write_card(str(tmp_path / "card.json"), numpy)
    assert json.loads((tmp_path / "card.json").read_text(), parse_constant=refuse) == {
        "loss": None, "steps": 7, "curve": [0.5, None]}


def test_a_model_card_that_cannot_be_written_leaves_the_one_before_it_whole(tmp_path):
    path = tmp_path / "card.json"
    write_card(str(path), {"steps": 1})
    with pytest.raises(TypeError):
        write_card(str(path), {"steps": 2, "policy": object()})
    assert json.loads(path.read_text()) == {"steps": 1}
    assert [p.name for p in tmp_path.iterdir()] == ["card.json"]


def test_snapshots_are_listed_oldest_first_past_any_number_of_digits(tmp_path):
    for name in ("step_1000000000.zip", "step_999999999.zip", "step_000000256.zip",
                 "step_000000256.json", "notes.txt", ".zip"):
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "folder.zip").mkdir()  # neither a directory nor a dangling link is one
    (tmp_path / "gone.zip").symlink_to(tmp_path / "nowhere.zip")
    assert [os.path.basename(p) for p in checkpoints_in(str(tmp_path))] == [
        "step_000000256.zip", "step_999999999.zip", "step_1000000000.zip"]
    assert checkpoints_in(str(tmp_path / "not yet")) == []


def test_at_most_max_models_policies_stay_loaded(smoke, tmp_path, monkeypatch):
    _, _, path = smoke
    monkeypatch.setattr(checkpoints_module, "MAX_MODELS", 2)
    monkeypatch.setattr(checkpoints_module, "_MODELS", type(checkpoints_module._MODELS)())
    copies = []
    for i in range(3):
        for suffix in (".zip", ".json"):
            (tmp_path / f"copy{i}{suffix}").write_bytes(path.with_suffix(suffix).read_bytes())
        copies.append(str(tmp_path / f"copy{i}.zip"))
    first = checkpoints_module.load_model(copies[0])
    assert checkpoints_module.load_model(copies[0]) is first  # kept: loaded once
    checkpoints_module.load_model(copies[1])
    checkpoints_module.load_model(copies[0])  # used last: copy 1 is now the oldest
    checkpoints_module.load_model(copies[2])
    kept = [key[0] for key in checkpoints_module._MODELS]
    assert kept == [os.path.abspath(copies[0]), os.path.abspath(copies[2])]
    assert checkpoints_module.load_model(copies[0]) is first


def test_evaluations_of_more_than_two_players_seat_copies_of_the_opponent():
    from skipbo_env.arena.tournament import against
    from skipbo_env.train.ppo import evaluate_model

    ffa = Rules.preset("standard", 3, stock_size=2)
    assert against(ffa, "me", "naive") == ["me", "naive", "naive"]
    teams = Rules.preset("partnership", 4)
    assert against(teams, "me", "naive") == ["me", "naive", "me", "naive"]
    six = Rules.preset("standard", 6, teams=[[0, 3], [1, 4], [2, 5]])
    assert against(six, "me", "naive") == ["me", "naive", "naive", "me", "naive", "naive"]
    # A training run's evaluation of a three-player checkpoint (here a scripted stand-in).
    results = evaluate_model("greedy", ffa, ["random", "naive"], games=6, seed=0, workers=1)
    for name, result in results.items():
        assert result["games"] == 6 and set(result["players"]) == {"greedy", name}

def test_self_play_snapshots_join_the_pool_during_training(smoke):
    cfg, _, _ = smoke
    pool = Path(cfg.log_dir) / "smoke" / "pool"
    assert sorted(p.name for p in pool.glob("*.zip")) == ["step_000000256.zip",
                                                         "step_000000512.zip"]


def test_a_loaded_checkpoint_plays_legal_moves_in_every_seat(smoke):
    _, _, path = smoke
    agent = make_agent(str(path))
    for seat in range(2):
        game = Game(Rules.preset("short", 2, stock_size=3), seat)
        others = make_agent("naive")
        while not game.is_over:
            action = (agent if game.current_player == seat else others).act(game.view())
            assert action in game.legal_actions()
            game.step(action)


def test_skipbo_evaluate_reports_the_tournament_table(smoke, tmp_path):
    _, _, path = smoke
    out = tmp_path / "eval.json"
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "evaluate", str(path),
                             "--opponents", "random,naive", "--games", "4", "--quiet",
                             "--workers", "1", "--json", str(out)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "against random" in result.stdout and "95% interval" in result.stdout
    data = json.loads(out.read_text())
    assert set(data["opponents"]) == {"random", "naive"}
    assert data["opponents"]["naive"]["games"] == 4


def test_a_checkpoint_takes_a_seat_in_the_tournament(smoke):
    _, _, path = smoke
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "tournament", "--players",
                             f"{path},random", "--games", "2", "--stock-size", "3", "--quiet",
                             "--workers", "1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert str(path) in result.stdout


def test_a_checkpoint_training_writes_loads_with_sb3s_own_loader_and_the_safe_one_alike(smoke):
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env.players.checkpoints import load_model

    cfg, _, path = smoke
    sb3 = MaskablePPO.load(str(path), device="cpu")
    safe = load_model(str(path))
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["policy"]["net_arch"] == list(cfg.ppo.net_arch)
    for name, tensor in sb3.policy.state_dict().items():
        assert torch.equal(tensor, safe.state_dict()[name]), name


def test_the_gym_env_takes_a_checkpoint_as_opponent(smoke):
    _, _, path = smoke
    env = SkipBoEnv("short", 2, opponents=str(path), stock_size=3)
    env.reset(seed=0)
    assert env.action_masks().any()


def test_a_checkpoint_whose_spaces_do_not_match_the_game_is_refused(smoke):
    _, _, path = smoke
    with pytest.raises(ValueError, match=r"shape \(471,\), but masters with 2 players needs"):
        load_policy_agent(str(path), rules=Rules.preset("masters", 2))
    with pytest.raises(ValueError, match="but standard with 3 players needs"):
        load_policy_agent(str(path), rules=Rules.preset("standard", 3))
    # Same observation size, another action count:
    rules = Rules.preset("standard", 2)
    fake = SimpleNamespace(observation_space=SimpleNamespace(shape=(471,)),
                           action_space=SimpleNamespace(n=7))
    with pytest.raises(ValueError, match="has 7 actions, but standard with 2 players has 125"):
        check_spaces(fake, ObservationEncoder(rules), rules, "x.zip")


def test_a_corrupt_or_missing_checkpoint_is_refused_saying_so(tmp_path):
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip at all")
    with pytest.raises(ValueError, match="is not an SB3 .zip file"):
        make_agent(str(bad))
    broken = tmp_path / "broken.zip"
    with zipfile.ZipFile(broken, "w") as z:
        z.writestr("policy.pth", b"not a torch file")
    card = json.loads((ROOT / "checkpoints" / "short_2p.json").read_text())
    (tmp_path / "broken.json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match="policy.pth is not a plain state dict"):
        make_agent(str(broken))
    with pytest.raises(ValueError, match="does not exist"):
        make_agent(str(tmp_path / "none.zip"))


def test_a_checkpoint_of_another_observation_version_or_without_one_is_refused(smoke, tmp_path):
    import shutil

    path = smoke[2]
    card = json.loads(path.with_suffix(".json").read_text())
    assert card["obs_version"] == OBS_VERSION
    copy = tmp_path / "old.zip"
    shutil.copy(path, copy)
    with pytest.raises(ValueError, match="has no model card"):
        make_agent(str(copy))
    for version, message in ((None, "has no obs_version"),
                             (OBS_VERSION + 1, f"observation version {OBS_VERSION + 1}")):
        written = dict(card)
        if version is None:
            del written["obs_version"]
        else:
            written["obs_version"] = version
        (tmp_path / "old.json").write_text(json.dumps(written))
        with pytest.raises(ValueError, match=message):
            make_agent(str(copy))


def test_maskable_ppo_tools_work_with_the_env_in_subprocesses():
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from sb3_contrib.common.maskable.evaluation import evaluate_policy
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import SubprocVecEnv

    def make():
        return Monitor(SkipBoEnv("short", 2, opponents="naive", stock_size=2))

    vec = SubprocVecEnv([make] * 2)
    evaluation = SubprocVecEnv([make])
    try:
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, vec.action_space.n) and masks.any(axis=1).all()
        model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=32, n_epochs=1,
                            policy_kwargs={"net_arch": [16]}, device="cpu", seed=0)
        model.learn(64, callback=MaskableEvalCallback(evaluation, eval_freq=16,
                                                      n_eval_episodes=2, verbose=0))
        mean, _ = evaluate_policy(model, vec, n_eval_episodes=4, use_masking=True)
        assert -1.0 <= mean <= 1.0
    finally:
        vec.close()
        evaluation.close()


def test_stable_baselines_env_checker_passes():
    from stable_baselines3.common.env_checker import check_env
    check_env(SkipBoEnv("standard", 2, opponents="greedy", stock_size=3), warn=False)


def test_the_opponent_pool_draws_by_weight_and_adds_saved_policies(smoke, tmp_path):
    _, _, path = smoke
    rules = Rules.preset("short", 2, stock_size=3)
    rng = np.random.default_rng(0)
    pool = OpponentPool({"naive": 1.0}, directory=str(tmp_path), self_play=1.0, refresh=1)
    assert all(pool.draw(rng, rules).__self__.name == "naive" for _ in range(5))
    (tmp_path / "step_1.zip").write_bytes(path.read_bytes())
    (tmp_path / "step_1.json").write_bytes(path.with_suffix(".json").read_bytes())
    kinds = {pool.draw(rng, rules).__self__.name for _ in range(40)}
    assert kinds == {"naive", "policy"}


@pytest.mark.parametrize("change,message", [
    ({"speed": 3}, "unknown key(s) speed"),
    ({"ppo": {"lr": 1}}, "unknown key(s) ppo.lr"),
    ({"total_timesteps": 0}, "total_timesteps is 0 (no PPO) but pretrain.samples is 0 too"),
    ({"total_timesteps": -1}, "total_timesteps must be at least 0"),
    ({"total_timesteps": "many"}, "total_timesteps must be an integer"),
    ({"variant": "poker"}, "variant/num_players/rules"),
    ({"rules": {"stock_size": -1}}, "stock_size"),
    ({"opponents": {"wizard": 1}}, "unknown player 'wizard'"),
    ({"opponents": {"naive": 0}}, "at least one weight must be positive"),
    ({"curriculum": [{"until": 10, "stock_size": 2}, {"until": 5, "stock_size": 3}]},
     "curriculum[1].until must be above 10"),
    ({"curriculum": [{"until": 10}]}, "curriculum[0].stock_size is required"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma must be at most 1"),
    ({"ppo": {"net_arch": [64, 0]}}, "ppo.net_arch must be a list of 1 to 16 layer widths"),
    ({"eval": {"opponents": ["gm"]}}, "eval.opponents must be a list of player names"),
    ({"vec_env": "ray"}, "vec_env must be one of subproc, dummy, batched"),
    ({"vec_env": "batched", "opponents": {"naive": 1, "lookahead": 1}},
     "vec_env batched plays random, naive, greedy, expert, checkpoints and value players as "
     "opponents, not 'lookahead'"),
    ({"vec_env": "batched", "pretrain": {"samples": 10, "teacher": "lookahead"}},
     "pretrain.teacher: vec_env batched clones one of random, naive, greedy, expert"),
    ({"pretrain": {"samples": 10, "dagger": {"rounds": 2}}},
     "pretrain.dagger.rounds needs vec_env batched"),
    ({"vec_env": "batched", "pretrain": {"dagger": {"rounds": 2}}},
     "pretrain.dagger.rounds needs vec_env batched and pretrain.samples above 0"),
    ({"pretrain": {"dagger": {"rounds": -1}}}, "pretrain.dagger.rounds must be"),
    ({"pretrain": {"dagger": {"epochs": 0}}}, "pretrain.dagger.epochs must be"),
    ({"pretrain": {"dagger": {"turns": 1}}}, "unknown key(s) pretrain.dagger.turns"),
])
def test_a_bad_config_stops_before_training_naming_the_key(change, message):
    raw = {"name": "x", "total_timesteps": 100, **change}
    with pytest.raises(cfgmod.ConfigError) as err:
        cfgmod.validate(raw)
    assert message in str(err.value)


def test_the_train_command_names_a_bad_config_and_trains_nothing(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntotal_timesteps: 100\nlearning_rate: 3\n")
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "train", "--config",
                             str(bad)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "unknown key(s) learning_rate" in result.stderr
    missing = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "train", "--config",
                              str(tmp_path / "none.yaml")], capture_output=True, text=True,
                             timeout=120)
    assert missing.returncode == 2 and "cannot read config" in missing.stderr


def test_training_on_the_batched_engine_writes_a_checkpoint_that_plays(tmp_path):
    raw = {"name": "batched", "variant": "short", "rules": {"stock_size": 3},
           "total_timesteps": 1024, "n_envs": 32, "vec_env": "batched",
           "opponents": {"random": 1.0, "naive": 1.0, "expert": 1.0,
                         "checkpoints/short_2p.zip": 1.0, "value_short_2p": 1.0},
           "self_play": {"weight": 1.0, "save_every": 256, "pool_size": 2},
           "curriculum": [{"until": 512, "stock_size": 2}],
           "pretrain": {"samples": 300, "epochs": 1, "dagger": {"rounds": 1, "samples": 200,
                                                                "epochs": 1}},
           "ppo": {"n_steps": 16, "batch_size": 128, "n_epochs": 1, "net_arch": [32],
                   "activation": "relu"},
           "eval": {"every": 512, "games": 4, "opponents": ["naive"], "final_games": 4,
                    "final_opponents": ["random"]},
           "output_dir": str(tmp_path / "checkpoints"), "log_dir": str(tmp_path / "runs")}
    card = train(cfgmod.validate(raw), progress=False)
    assert card["policy"]["activation"] == "relu"
    assert card["steps"] >= 1024 and card["config"]["vec_env"] == "batched"
    assert card["n_envs"] == 32
    assert [p["steps"] for p in card["learning_curve"]] == [0, 512, 1024]
    assert [p["stock_size"] for p in card["learning_curve"]] == [2, 3, 3]
    assert card["evaluation"]["results"]["random"]["games"] == 4
    assert card["pretrain"]["samples"] >= 300 and card["pretrain"]["dagger"]["rounds"] == 1
    assert card["stages"] == ["behaviour cloning", "DAgger", "MaskablePPO"]
    assert card["pretrain"]["dagger"]["per_round"][0]["samples"] >= 200
    assert card["learner_steps_per_s"] > 0 and card["peak_rss_mib"]["trainer"] > 0
    pool = sorted(os.listdir(tmp_path / "runs" / "batched" / "pool"))
    assert [f for f in pool if f.endswith(".zip")] == ["step_000000768.zip",
                                                       "step_000001024.zip"]
    agent = load_policy_agent(str(tmp_path / "checkpoints" / "batched.zip"), seed=0)
    game = Game(Rules.preset("short", 2, stock_size=3), seed=1)
    while not game.is_over:
        action = agent.act(game.view())
        assert action in game.legal_actions()
        game.step(action)


def test_a_relu_policy_loads_safely_with_the_activation_it_was_trained_with(tmp_path):
    """ppo.activation reaches the network and the card: the safe loader's policy gives the
    same action probabilities as SB3's own loader (tanh in its place would not)."""
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env.players.checkpoints import load_model

    cfg = _tiny_cfg(ppo={"n_steps": 32, "batch_size": 32, "n_epochs": 1, "net_arch": [16],
                         "activation": "relu"}, total_timesteps=32,
                    eval={"games": 0, "final_games": 0},
                    output_dir=str(tmp_path / "checkpoints"), log_dir=str(tmp_path / "runs"))
    card = train(cfg, progress=False)
    assert card["policy"]["activation"] == "relu"
    path = str(tmp_path / "checkpoints" / "x.zip")
    sb3, safe = MaskablePPO.load(path, device="cpu").policy, load_model(path)
    assert isinstance(sb3.mlp_extractor.policy_net[1], torch.nn.ReLU)
    env = SkipBoEnv("short", 2, opponents="naive", stock_size=3)
    obs = torch.as_tensor(np.stack([env.reset(seed=s)[0] for s in range(8)]))
    with torch.no_grad():
        want = sb3.get_distribution(obs).distribution.probs
        got = safe.get_distribution(obs).distribution.probs
    assert torch.allclose(want, got)


def test_training_skips_distribution_checks_only_while_it_lasts_and_nan_still_stops_it():
    import torch
    from torch.distributions import Categorical, Distribution

    outside = Distribution._validate_args
    Distribution.set_default_validate_args(True)  # as torch starts (TorchRL turns it off)
    try:
        with unchecked_distributions():
            assert Distribution._validate_args is False
            nan = Categorical(logits=torch.tensor([[0.0, float("nan")]]))  # not checked here,
            with pytest.raises(RuntimeError):
                nan.sample()  # ... but sampling from it fails
        assert Distribution._validate_args is True
        with pytest.raises(ValueError):
            Categorical(logits=torch.tensor([[0.0, float("nan")]]))
    finally:
        Distribution.set_default_validate_args(outside)


def test_a_run_started_from_a_checkpoint_starts_from_its_weights(smoke, tmp_path):
    import torch

    from skipbo_env.players.checkpoints import load_model

    _, _, path = smoke
    raw = cfgmod.read_yaml(str(ROOT / "configs" / "smoke.yaml"))

    def run(name, **change):
        cfg = cfgmod.validate({**raw, "name": name, "total_timesteps": 256,
                               "pretrain": {"samples": 0}, "self_play": {"weight": 0.0},
                               "ppo": {**raw["ppo"], "learning_rate": 1e-12},
                               "eval": {"games": 0, "final_games": 0},
                               "output_dir": str(tmp_path / "out"),
                               "log_dir": str(tmp_path / "runs"), **change})
        return train(cfg, progress=False), str(tmp_path / "out" / f"{name}.zip")

    def same(a, b):
        wa, wb = load_model(a).state_dict(), load_model(b).state_dict()
        return all(torch.allclose(wa[k], wb[k], atol=1e-6) for k in wa)

    card, started = run("from_smoke", init=str(path))
    assert card["init"] == {"checkpoint": str(path), "name": "smoke", "steps": 512}
    assert same(started, str(path))  # a learning rate of 1e-12 leaves the weights as loaded
    # Cloning after a checkpoint goes on from its weights (here a step too small to move them).
    card, cloned = run("cloned_on", init=str(path),
                       pretrain={"samples": 64, "epochs": 1, "learning_rate": 1e-12})
    assert card["init"]["checkpoint"] == str(path) and card["pretrain"]["samples"] >= 64
    assert same(cloned, str(path))
    card, fresh = run("fresh")
    assert card["init"] is None and not same(fresh, str(path))


def test_the_curriculum_grows_the_stock_then_keeps_the_configs_size():
    cfg = cfgmod.validate({"name": "x", "total_timesteps": 10, "rules": {"stock_size": 20},
                           "curriculum": [{"until": 100, "stock_size": 5},
                                          {"until": 200, "stock_size": 10}]})
    assert [stock_size_at(cfg, s) for s in (0, 99, 100, 199, 200, 10**6)] == [5, 5, 10, 10, 20,
                                                                               20]


SB3_CONFIGS = sorted(p.stem for p in (ROOT / "configs").glob("*.yaml")
                     if "rllib" not in p.stem and not p.stem.startswith("value_"))


def test_the_configs_directory_holds_the_shipped_configs():
    for name in ("standard_2p", "short_2p", "smoke", "ref_bc_short_2p", "ref_selfplay_short_2p",
                 "ref_selfplay_short_2p_4m"):
        assert name in SB3_CONFIGS


@pytest.mark.parametrize("name", SB3_CONFIGS)
def test_the_shipped_configs_are_valid(name):
    cfg = cfgmod.load(str(ROOT / "configs" / f"{name}.yaml"))
    assert cfg.name == name


def test_the_plot_script_draws_the_learning_curves_of_model_cards(smoke, tmp_path):
    _, _, path = smoke
    out = tmp_path / "curves.png"
    result = subprocess.run([sys.executable, "-m", "training.plot",
                             str(path.with_suffix(".json")), "--out", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    result = subprocess.run([sys.executable, "-m", "training.plot", str(bad)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "holds no learning curve" in result.stderr


def _tiny_cfg(**change):
    return cfgmod.validate({"name": "x", "total_timesteps": 100, "variant": "short",
                            "rules": {"stock_size": 3}, "opponents": {"naive": 1.0},
                            "stock_reward": 0.1,
                            "ppo": {"net_arch": [64, 64]}, **change})


def test_pretraining_samples_are_the_teachers_legal_moves_with_their_returns():
    from skipbo_env.train.pretrain import collect

    cfg = _tiny_cfg(pretrain={"samples": 300})
    obs, masks, actions, returns = collect(cfg, 3, 300, seed=4)
    assert len(obs) == len(masks) == len(actions) == len(returns) >= 300
    assert obs.shape[1] == ObservationEncoder(cfg.game_rules).size
    assert masks[np.arange(len(actions)), actions].all()  # every move was legal
    # A return is the discounted sum of what follows: at most a win plus every stock card.
    assert (np.abs(returns) <= 1 + 0.1 * 3 + 1e-6).all() and (returns != 0).any()
    again = collect(cfg, 3, 300, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip((obs, masks, actions, returns), again))
    # The first sample of a game is the teacher's own choice in that position.
    game = Game(cfg.game_rules, 0)
    teacher = make_agent("expert", 0)
    assert game.action_mask()[teacher.act(game.view())]


def test_batched_pretraining_samples_are_the_batched_teachers_moves_there_and_their_returns():
    from skipbo_env.players.scripted import ExpertAgent
    from skipbo_env.train.pretrain import collect

    cfg = _tiny_cfg(vec_env="batched", n_envs=16, opponents={"naive": 1.0, "expert": 1.0},
                    pretrain={"samples": 400})
    obs, masks, actions, returns = collect(cfg, 3, 400, seed=4)
    assert len(obs) == len(masks) == len(actions) == len(returns) >= 400
    assert masks[np.arange(len(actions)), actions].all()
    assert (np.abs(returns) <= 1 + 0.1 * 3 + 1e-6).all() and (returns != 0).any()
    again = collect(cfg, 3, 400, seed=4)
    assert all(np.array_equal(a, b) for a, b in zip((obs, masks, actions, returns), again))
    # Game 0's first decision, replayed in the reference engine, is the reference expert's.
    from skipbo_env.vector import SkipBoVectorEnv

    env = SkipBoVectorEnv("short", 2, num_envs=16, opponents={"naive": 1.0, "expert": 1.0},
                          stock_reward=0.1, stock_size=3)
    env.reset(seed=4)
    assert np.array_equal(env.engine.obs[0], obs[0])
    assert actions[0] == ExpertAgent(0).act(env.game(0).view())


def test_determinised_rollout_labels_are_the_teachers_labels_of_each_collected_state():
    from skipbo_env.train.pretrain import collect_batched
    from skipbo_env.vector import SkipBoVectorEnv
    from skipbo_env.vector.rollout import rollout_labels
    from skipbo_env.vector.scripted import BATCHED_PLAYERS

    rollout = {"enabled": True, "margin": 0.0, "win_bonus": 10.0, "deals": 2}
    cfg = _tiny_cfg(vec_env="batched", n_envs=8, opponents={"expert": 1.0},
                    pretrain={"samples": 100, "rollout": rollout})
    obs, masks, labels, _ = collect_batched(cfg, 3, 100, seed=2)
    assert masks[np.arange(len(labels)), labels].all()
    again = collect_batched(cfg, 3, 100, seed=2)
    assert np.array_equal(labels, again[2])
    # The first step's labels, rebuilt: the env as collect_batched deals it, and the keys of
    # step 0 of seed 2.
    env = SkipBoVectorEnv("short", 2, num_envs=8, opponents={"expert": 1.0}, stock_reward=0.1,
                          seat="random", stock_size=3)
    env.reset(seed=2)
    expert = env.engine.scripted_actions(np.full((8, 2), BATCHED_PLAYERS.index("expert"))).copy()
    first = rollout_labels(env.engine, expert, margin=0.0, deals=2, seed=[2, 0])
    assert np.array_equal(obs[:8], env.engine.obs) and np.array_equal(labels[:8], first)


def test_dagger_labels_the_learners_own_states_with_the_teachers_moves():
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env.players.scripted import ExpertAgent
    from skipbo_env.train.pretrain import collect_batched
    from skipbo_env.vector import SkipBoVectorEnv

    cfg = _tiny_cfg(vec_env="batched", n_envs=8, pretrain={"samples": 100})
    env = SkipBoVectorEnv("short", 2, num_envs=8, opponents="naive", stock_size=3)
    model = MaskablePPO("MlpPolicy", SkipBoEnv("short", 2, opponents="naive", stock_size=3),
                        seed=0, policy_kwargs={"net_arch": [16]})
    obs, masks, labels, _ = collect_batched(cfg, 3, 200, seed=1, policy=model.policy)
    assert masks[np.arange(len(labels)), labels].all()
    # Replay the learner's own play (the same seeds): each state it reached is labelled with
    # the reference expert's move there.
    env.reset(seed=1)
    torch.manual_seed(1)
    rows = []
    for _ in range(4):
        rows += [(env.engine.obs[i].copy(), ExpertAgent(0).act(env.game(i).view()))
                 for i in range(8)]
        actions, _ = model.policy.predict(env.engine.obs.copy(),
                                          action_masks=env.action_masks(),
                                          deterministic=False)
        env.step(actions)
    replayed = {o.tobytes(): a for o, a in rows}
    assert all(replayed[o.tobytes()] == a for o, a in zip(obs, labels)
               if o.tobytes() in replayed)
    assert sum(o.tobytes() in replayed for o in obs) >= 24


def _spy_on_cloning(monkeypatch):
    """Records every batched collection's (samples asked, seed, policy given) and every fit's
    training-set size and epochs, running both for real."""
    from skipbo_env.train import pretrain

    calls = {"collect": [], "fit": []}
    collect, fit = pretrain.collect_batched, pretrain.fit

    def spy_collect(cfg, stock, samples, seed, policy=None):
        calls["collect"].append((samples, seed, policy is not None))
        return collect(cfg, stock, samples, seed, policy)

    def spy_fit(policy, data, train, epochs, *args):
        calls["fit"].append((len(data[2]), len(train), epochs))
        return fit(policy, data, train, epochs, *args)

    monkeypatch.setattr(pretrain, "collect_batched", spy_collect)
    monkeypatch.setattr(pretrain, "fit", spy_fit)
    return calls


def _tiny_model():
    from sb3_contrib import MaskablePPO

    return MaskablePPO("MlpPolicy", SkipBoEnv("short", 2, opponents="naive", stock_size=3),
                       seed=0, device="cpu", policy_kwargs={"net_arch": [32]})


def test_fresh_cloning_trains_every_pass_once_on_decisions_it_has_not_seen(monkeypatch):
    from skipbo_env.train.pretrain import behaviour_clone

    calls = _spy_on_cloning(monkeypatch)
    cfg = _tiny_cfg(vec_env="batched", n_envs=8,
                    pretrain={"samples": 300, "epochs": 3, "fresh": True})
    summary = behaviour_clone(_tiny_model(), cfg, 3, log=lambda *_: None)
    held_out, *passes = calls["collect"]
    assert held_out[0] == 15 and len(passes) == 3 and all(n == 300 for n, _, _ in passes)
    seeds = [seed for _, seed, _ in calls["collect"]]
    assert len(set(seeds)) == 4  # the held-out set and every pass: different deals
    assert [epochs for _, _, epochs in calls["fit"]] == [1, 1, 1]
    assert all(size == trained >= 300 for size, trained, _ in calls["fit"])
    assert summary["fresh"] and summary["samples"] == sum(n for n, _, _ in calls["fit"])
    assert 0 <= summary["validation_accuracy"] <= 1


def test_dagger_without_aggregation_trains_each_round_on_its_own_states_only(monkeypatch):
    from skipbo_env.train.pretrain import behaviour_clone

    calls = _spy_on_cloning(monkeypatch)
    cfg = _tiny_cfg(vec_env="batched", n_envs=8, pretrain={
        "samples": 200, "epochs": 1, "dagger": {"rounds": 2, "samples": 100, "epochs": 2,
                                                "aggregate": False}})
    summary = behaviour_clone(_tiny_model(), cfg, 3, log=lambda *_: None)
    rounds = calls["collect"][1:]
    assert [(n, learner) for n, _, learner in rounds] == [(100, True), (100, True)]
    cloning, *dagger = calls["fit"]
    assert cloning[0] >= 200 and len(dagger) == 2
    for size, trained, epochs in dagger:  # only that round's states, not the cloning set's
        assert 100 <= size == trained < cloning[0] and epochs == 2
    assert [r["samples"] for r in summary["dagger"]["per_round"]] == [s for s, _, _ in dagger]


def test_dagger_with_aggregation_trains_on_everything_so_far(monkeypatch):
    from skipbo_env.train.pretrain import behaviour_clone

    calls = _spy_on_cloning(monkeypatch)
    cfg = _tiny_cfg(vec_env="batched", n_envs=8, pretrain={
        "samples": 200, "epochs": 1, "dagger": {"rounds": 2, "samples": 100, "epochs": 1}})
    behaviour_clone(_tiny_model(), cfg, 3, log=lambda *_: None)
    sizes = [size for size, _, _ in calls["fit"]]
    assert sizes[0] < sizes[1] < sizes[2]


def test_pretraining_teaches_the_policy_the_teachers_moves():
    from sb3_contrib import MaskablePPO

    from skipbo_env.train.pretrain import agreement, behaviour_clone, collect

    cfg = _tiny_cfg(pretrain={"samples": 4000, "epochs": 8, "batch_size": 256})
    env = SkipBoEnv("short", 2, opponents="naive", stock_size=3)
    model = MaskablePPO("MlpPolicy", env, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [64, 64]})
    obs, masks, actions, _ = collect(cfg, 3, 1000, seed=99)  # games not trained on
    before = agreement(model.policy, obs, masks, actions)
    summary = behaviour_clone(model, cfg, 3, log=lambda *_: None)
    assert summary["samples"] >= 4000 and summary["teacher"] == "expert"
    after = agreement(model.policy, obs, masks, actions)
    # Untrained, it agrees with the expert on about 6% of these decisions; cloned, on over half
    assert before < 0.2 and after > 0.45 and summary["validation_accuracy"] > 0.45


def test_progress_into_a_log_file_is_plain_lines_not_carriage_returns(tmp_path):
    import yaml

    raw = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    raw.update(output_dir=str(tmp_path / "checkpoints"), log_dir=str(tmp_path / "runs"))
    config = tmp_path / "smoke.yaml"
    config.write_text(yaml.safe_dump(raw))
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "train", "--config",
                             str(config)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "\r" not in result.stderr and "\r" not in result.stdout
    lines = [line for line in result.stderr.splitlines() if " steps (" in line]
    assert len(lines) >= 2 and lines[0].startswith("smoke: ") and "steps/s" in lines[-1]
    games = [line for line in result.stderr.splitlines() if line.endswith(" games")]
    assert games  # the evaluations' progress, as lines too
