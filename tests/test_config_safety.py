"""Training configs are checked whole before anything is built, and the trainer removes only
run directories it made itself."""

import copy
import math
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("yaml", reason="the train extra is not installed")

from spoilt import spoilt_checkpoint

from skipbo_env.train import config as cfgmod
from skipbo_env.train import rllib_ppo
from skipbo_env.train.config import ConfigError
from skipbo_env.train.ppo import RUN_MARK, fresh_run_dir

ROOT = Path(__file__).resolve().parent.parent
SMOKE = cfgmod.read_yaml(str(ROOT / "configs" / "smoke.yaml"))
RLLIB_SMOKE = cfgmod.read_yaml(str(ROOT / "configs" / "rllib_smoke.yaml"))


def _with(raw: dict, key: str, value) -> dict:
    """A deep copy of `raw` with the dotted `key` set to `value`."""
    out = copy.deepcopy(raw)
    *parents, last = key.split(".")
    node = out
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = value
    return out


@pytest.mark.parametrize("name", ["..", ".", "a/b", "a\\b", "../up", "x\0y", "", "a" * 101,
                                  ".hidden", 5, ["smoke"]])
def test_a_run_name_must_be_a_plain_file_name(name):
    with pytest.raises(ConfigError, match="name must be a plain file name"):
        cfgmod.validate(_with(SMOKE, "name", name))
    with pytest.raises(ConfigError, match="name must be a plain file name"):
        rllib_ppo.validate(_with(RLLIB_SMOKE, "name", name))


def test_the_trainer_never_removes_a_directory_it_did_not_make(tmp_path):
    other = tmp_path / "someone_elses"
    other.mkdir()
    (other / "keep.txt").write_text("precious")
    with pytest.raises(ConfigError, match="was not made by skipbo train"):
        fresh_run_dir(str(other))
    assert (other / "keep.txt").read_text() == "precious"
    link = tmp_path / "link"
    link.symlink_to(other, target_is_directory=True)
    (other / RUN_MARK).write_text("{}")  # even a marked directory behind a link stays
    with pytest.raises(ConfigError, match="is a link or a file"):
        fresh_run_dir(str(link))
    assert (other / "keep.txt").exists()
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(ConfigError, match="is a link or a file"):
        fresh_run_dir(str(afile))
    assert afile.read_text() == "x"


def test_a_rerun_replaces_the_run_directory_the_trainer_made(tmp_path):
    run = tmp_path / "run"
    fresh_run_dir(str(run))
    assert (run / RUN_MARK).is_file()
    (run / "old_curve.json").write_text("[]")
    fresh_run_dir(str(run))
    assert sorted(os.listdir(run)) == [RUN_MARK]
    empty = tmp_path / "empty"
    empty.mkdir()
    fresh_run_dir(str(empty))  # an empty directory is taken over
    assert (empty / RUN_MARK).is_file()


def test_train_refuses_a_foreign_run_directory_before_building_anything(tmp_path):
    from skipbo_env.train.ppo import train

    (tmp_path / "runs" / "smoke").mkdir(parents=True)
    (tmp_path / "runs" / "smoke" / "notes.txt").write_text("mine")
    cfg = cfgmod.validate({**SMOKE, "log_dir": str(tmp_path / "runs"),
                           "output_dir": str(tmp_path / "out")})
    with pytest.raises(ConfigError, match="was not made by skipbo train"):
        train(cfg, progress=False)
    assert (tmp_path / "runs" / "smoke" / "notes.txt").read_text() == "mine"
    assert not (tmp_path / "out").exists()


BAD_VALUES = [
    ("seed", 10**30, "seed must be at most"),
    ("seed", -1, "seed must be at least 0"),
    ("seed", 1.5, "seed must be an integer"),
    ("total_timesteps", math.inf, "total_timesteps must be an integer"),
    ("stock_reward", math.nan, "stock_reward must be a finite number"),
    ("stock_reward", math.inf, "stock_reward must be a finite number"),
    ("opponent_stock_reward", math.nan, "opponent_stock_reward must be a finite number"),
    ("opponent_stock_reward", 1e9, "opponent_stock_reward must be at most 100"),
    ("opponent_stock_reward", "-0.1", "opponent_stock_reward must be a number"),
    ("ppo.learning_rate", 0.0, "ppo.learning_rate must be above 0"),
    ("ppo.learning_rate", -1e-3, "ppo.learning_rate must be above 0"),
    ("ppo.learning_rate", math.nan, "ppo.learning_rate must be a finite number"),
    ("ppo.batch_size", 1, "ppo.batch_size must be at least 2"),
    ("ppo.gamma", 1.5, "ppo.gamma must be at most 1"),
    ("ppo.net_arch", [10**9], "ppo.net_arch must be a list"),
    ("ppo.net_arch", ["64"], "ppo.net_arch must be a list"),
    ("ppo.net_arch", [], "ppo.net_arch must be a list"),
    ("ppo.activation", "os.system", "ppo.activation must be one of tanh, relu"),
    ("ppo.activation", ["relu"], "ppo.activation must be one of tanh, relu"),
    ("pretrain.teacher", ["expert"], "pretrain.teacher must be a player name"),
    ("pretrain.batch_size", 1, "pretrain.batch_size must be at least 2"),
    ("pretrain.learning_rate", math.inf, "pretrain.learning_rate must be a finite number"),
    ("pretrain.fresh", "yes", "pretrain.fresh must be true or false"),
    ("pretrain.samples", 10**9, "behaviour cloning would hold about .* GiB of samples"),
    ("pretrain.fresh", True, "pretrain.fresh needs vec_env batched"),
    ("pretrain.dagger.aggregate", 1, "pretrain.dagger.aggregate must be true or false"),
    ("opponents", {"random": -1.0}, "opponents.random must be at least 0"),
    ("opponents", {"random": math.nan}, "opponents.random must be a finite number"),
    ("opponents", {"random": 0.0}, "at least one weight must be positive"),
    ("opponents", {"random": 10**30}, "opponents.random must be at most"),
    ("opponents", ["random"], "opponents must map player names to weights"),
    ("self_play.weight", -0.5, "self_play.weight must be at least 0"),
    ("eval.opponents", [["random"]], "eval.opponents must be a list of player names"),
    ("eval.games", 10**30, "eval.games must be at most"),
    ("n_envs", 10**9, "n_envs must be at most"),
    ("rules", {"stock_size": math.inf}, "variant/num_players/rules"),
    ("rules", ["stock_size"], "rules must map rule names to values"),
    ("rules", {"copies_per_rank": 10**30}, "variant/num_players/rules"),
    ("curriculum", [{"until": 10**30, "stock_size": 2}], "curriculum\\[0\\].until must be at"),
    ("curriculum", "fast", "curriculum must be a list"),
    ("pretrain.rollout", "on", "pretrain.rollout must be a mapping, got 'on'"),
    ("pretrain.rollout.enabled", "yes", "pretrain.rollout.enabled must be true or false"),
    ("pretrain.rollout.margin", -1, "pretrain.rollout.margin must be at least 0"),
    ("pretrain.rollout.win_bonus", math.nan, "pretrain.rollout.win_bonus must be a finite"),
    ("pretrain.rollout.enabled", True, "pretrain.rollout.enabled needs vec_env batched"),
    ("pretrain.rollout.deals", -1, "pretrain.rollout.deals must be at least 0"),
    ("pretrain.rollout.deals", 2.5, "pretrain.rollout.deals must be an integer"),
    ("pretrain.rollout.deals", 10**6, "pretrain.rollout.deals must be at most 1000"),
    ("pretrain.rollout.deals", 4, "pretrain.rollout.deals needs pretrain.rollout.enabled"),
    ("log_dir", "runs\0x", "log_dir must be a directory path"),
    ("output_dir", 7, "output_dir must be a directory path"),
]


@pytest.mark.parametrize("key, value, message", BAD_VALUES,
                         ids=[f"{k}={v!r}"[:40] for k, v, _ in BAD_VALUES])
def test_every_bad_value_stops_with_the_config_error_naming_its_key(key, value, message):
    with pytest.raises(ConfigError, match=message):
        cfgmod.validate(_with(SMOKE, key, value))


def test_rollout_labels_need_the_batched_expert_as_teacher():
    base = {**SMOKE, "vec_env": "batched", "n_envs": 64}
    base["pretrain"] = {"samples": 200, "teacher": "greedy", "rollout": {"enabled": True}}
    with pytest.raises(ConfigError, match="rollout.enabled needs vec_env batched and "
                                          "pretrain.teacher expert"):
        cfgmod.validate(base)
    base["pretrain"]["teacher"] = "expert"
    assert cfgmod.validate(base).pretrain.rollout.to_dict() == {"enabled": True, "margin": 1.0,
                                                           "win_bonus": 10.0, "deals": 0}


def test_the_cloning_memory_estimate_counts_only_the_samples_held_at_once():
    base = {**SMOKE, "vec_env": "batched", "n_envs": 64}
    base["pretrain"] = {"samples": 200_000, "dagger": {"rounds": 4, "samples": 200_000}}

    def gib(**change):
        raw = copy.deepcopy(base)
        raw["pretrain"].update({k: v for k, v in change.items() if k != "aggregate"})
        if "aggregate" in change:
            raw["pretrain"]["dagger"]["aggregate"] = change["aggregate"]
        return cfgmod.cloning_bytes(cfgmod.validate(raw)) / 2**30

    everything = gib()  # 200k cloned + 4 x 200k DAgger states, all kept
    assert gib(aggregate=False) < everything / 4  # one round's states at a time
    assert gib(fresh=True, aggregate=False) < everything / 4
    assert gib(samples=400_000) > everything  # more cloned samples, more memory
    base["pretrain"] = {"samples": 0}
    assert gib() == 0


SHORT_CKPT = str(ROOT / "checkpoints" / "short_2p.zip")  # short, 2 players, [512, 512, 256] relu
FROM_SHORT = {"init": SHORT_CKPT, "pretrain": {"samples": 0},
              "ppo": {**SMOKE["ppo"], "net_arch": [512, 512, 256], "activation": "relu"}}


@pytest.mark.parametrize("change, message", [
    ({"init": "nope.zip"}, "init: checkpoint nope.zip does not exist"),
    ({"init": 5}, "init must be a checkpoint path"),
    ({"init": ["a.zip"]}, "init must be a checkpoint path"),
    ({"init": "x\0.zip"}, "init must be a checkpoint path"),
    ({"ppo": {**SMOKE["ppo"], "net_arch": [32, 32]}}, "ppo.net_arch and ppo.activation must "
                                                      "be the same"),
    ({"ppo": {**SMOKE["ppo"], "net_arch": [512, 512, 256], "activation": "tanh"}},
     "has net_arch \\[512, 512, 256\\] with relu"),
    ({"variant": "standard", "num_players": 3, "rules": {}}, "do not fit this config's standard"),
])
def test_a_run_started_from_a_checkpoint_must_fit_it(change, message):
    raw = {**SMOKE, **FROM_SHORT, **change}
    with pytest.raises(ConfigError, match=message):
        cfgmod.validate(raw)


def test_a_checkpoint_of_the_same_game_and_network_may_start_a_run_at_another_stock_size():
    cfg = cfgmod.validate({**SMOKE, **FROM_SHORT})  # the checkpoint was trained at stock 10
    assert cfg.init == SHORT_CKPT and cfg.game_rules.stock_size == 3
    assert cfgmod.validate({**SMOKE, "init": None}).init == ""


def test_cloning_after_a_checkpoint_goes_on_from_its_weights():
    raw = {**SMOKE, **FROM_SHORT, "vec_env": "batched", "n_envs": 64,
           "pretrain": {"samples": 200, "dagger": {"rounds": 1, "samples": 100}}}
    cfg = cfgmod.validate(raw)
    assert cfg.init == SHORT_CKPT and cfg.pretrain.samples == 200


RLLIB_BAD = [
    ("seed", 10**30, "seed must be at most"),
    ("ppo.lr", math.nan, "ppo.lr must be a finite number"),
    ("ppo.train_batch_size", 1, "ppo.train_batch_size must be at least 2"),
    ("ppo.net_arch", [0], "ppo.net_arch must be a list"),
    ("stock_reward", math.inf, "stock_reward must be a finite number"),
    ("opponent_stock_reward", math.inf, "opponent_stock_reward must be a finite number"),
    ("opponents", {"random": math.inf}, "opponents.random must be a finite non-negative"),
    ("eval.opponents", [["random"]], "eval.opponents must be a list of player names"),
    ("ray.num_env_runners", 10**12, "ray.num_env_runners must be at most"),
    ("output_dir", "", "output_dir must be a directory path"),
]


@pytest.mark.parametrize("key, value, message", RLLIB_BAD,
                         ids=[f"{k}={v!r}"[:40] for k, v, _ in RLLIB_BAD])
def test_every_bad_value_of_an_rllib_config_stops_with_the_config_error(key, value, message):
    with pytest.raises(ConfigError, match=message):
        rllib_ppo.validate(_with(RLLIB_SMOKE, key, value))


def _paths(raw: dict, prefix: str = "") -> list[str]:
    out = []
    for key, value in raw.items():
        path = f"{prefix}{key}"
        out.append(path)
        if isinstance(value, dict):
            out += _paths(value, path + ".")
    return out


ODD = st.sampled_from([10**30, -(10**30), 2**63, -1, 0, 1, 0.5, math.nan, math.inf, -math.inf,
                       "", ".", "..", "../x", "a/b", "x\0", "expert", "self_play", "a.zip",
                       True, None, [], {}])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8) | ODD,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.text(max_size=6) | st.sampled_from(["random", "expert", "until", "stock_size"]),
        inner, max_size=3),
    max_leaves=6)


def _finite_leaves(value) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite_leaves(v) for v in value.values())
    if isinstance(value, list):
        return all(_finite_leaves(v) for v in value)
    return True


@pytest.mark.parametrize("validate, base", [(cfgmod.validate, SMOKE),
                                            (rllib_ppo.validate, RLLIB_SMOKE)],
                         ids=["sb3", "rllib"])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_config_is_accepted_whole_or_refused_with_a_config_error(validate, base,
                                                                          data):
    raw = copy.deepcopy(base)
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(_paths(raw) + ["unknown_key"]))
        raw = _with(raw, key, data.draw(JSONISH))
    try:
        cfg = validate(raw)
    except ConfigError:
        return
    assert cfgmod.RUN_NAME.fullmatch(cfg.name)
    assert _finite_leaves(cfg.to_dict())
    assert 0 <= cfg.seed <= cfgmod.SEED_MAX


def test_a_config_nested_too_deeply_is_a_config_error(tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text("name: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(ConfigError, match="nested too deeply"):
        cfgmod.load(str(path))


def test_batched_games_that_would_not_fit_in_memory_are_refused_naming_n_envs():
    raw = {**SMOKE, "vec_env": "batched", "opponents": {"random": 1.0},
           "self_play": {"weight": 0.0}, "curriculum": [], "n_envs": 2**20,
           "variant": "standard", "num_players": 6, "rules": {}}
    with pytest.raises(ConfigError, match="n_envs: 1048576 games of these rules need about"):
        cfgmod.validate(raw)
    cfgmod.validate({**raw, "n_envs": 4096})  # a large but sane batch


def _laughs(levels: int = 9) -> str:
    """A "billion laughs": each anchor a list of nine aliases of the one before."""
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, levels):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + f"\nname: lol\nppo: *{chr(ord('a') + levels - 1)}\n"


@pytest.mark.parametrize("reader", ["ppo", "rllib", "value"])
def test_a_config_of_nested_aliases_is_refused_before_it_is_expanded(tmp_path, reader):
    from skipbo_env.train.value import load_value_config

    path = tmp_path / "laughs.yaml"
    path.write_text(_laughs())  # 400 bytes standing for 9**9 strings
    read = {"ppo": cfgmod.load, "rllib": rllib_ppo.load,
            "value": load_value_config}[reader]
    with pytest.raises(ConfigError, match="expands to more than 100,000 values"):
        read(str(path))


def test_a_config_may_use_a_few_aliases(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text(_laughs(3))  # 9**3 strings: a config's size
    assert len(cfgmod.read_yaml(str(path))["c"]) == 9


def test_an_error_quoting_a_huge_value_stays_short():
    with pytest.raises(ConfigError) as e:
        cfgmod.validate(_with(SMOKE, "ppo", list(range(10**6))))
    assert len(str(e.value)) < 1000


def test_a_checkpoint_opponent_is_loaded_by_the_check_not_first_by_the_run(tmp_path):
    pytest.importorskip("sb3_contrib")
    path = spoilt_checkpoint(tmp_path)
    with pytest.raises(ConfigError, match=r"opponents\..*spoilt.zip.*not finite"):
        cfgmod.validate(_with(SMOKE, "opponents", {"random": 1.0, path: 1.0}))
    assert cfgmod.validate(_with(SMOKE, "opponents", {"short_2p": 1.0}))  # a good one loads


def test_init_weights_are_read_by_the_check_not_first_by_the_run(tmp_path):
    pytest.importorskip("sb3_contrib")
    raw = _with(_with(SMOKE, "init", spoilt_checkpoint(tmp_path)), "ppo.net_arch",
                [512, 512, 256])
    raw = _with(raw, "ppo.activation", "relu")
    with pytest.raises(ConfigError, match="init: .*not finite"):
        cfgmod.validate(raw)


def test_a_rollout_buffer_that_would_not_fit_in_memory_is_refused_naming_n_steps():
    raw = _with(_with(SMOKE, "ppo.n_steps", 10**6), "n_envs", 512)  # 477 GiB once
    with pytest.raises(ConfigError, match="ppo.n_steps x n_envs: the rollout buffer"):
        cfgmod.validate(raw)
    from skipbo_env import Rules

    assert cfgmod.rollout_bytes(cfgmod.validate(SMOKE).to_dict(), Rules.preset("short", 2)) < 2**20
