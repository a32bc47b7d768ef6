"""Multi-agent PPO on Ray RLlib from a YAML config (the ``rllib`` extra; docs/distributed.md).

    python training/rllib_train.py configs/rllib_standard_2p.yaml [--address auto]
    python training/rllib_train.py export RLLIB_CHECKPOINT_DIR OUT.zip

Training runs RLlib's PPO on its new API stack over the PettingZoo AEC env (through
``PettingZooEnv``, `skipbo_env.rllib`): one ``learner`` module shared by every seat of the
learner's team, frozen copies of it (refreshed every ``self_play.snapshot_every``
iterations, round robin) for the self-play seats, and scripted players or checkpoints
inside the env for the others, drawn per game by ``opponents`` weights. Without
``--address`` Ray starts locally (a laptop); with ``--address auto`` (or ``ray://...``) it
joins a running cluster, and ``ray.num_env_runners`` / ``ray.num_envs_per_env_runner`` say
how many sampling workers and games per worker to use.

At the end the learner is written three ways under ``output_dir``: the RLlib checkpoint
(``<name>_rllib/``), the exported MaskablePPO policy (``<name>.zip``, which ``skipbo
tournament``, ``skipbo evaluate`` and ``skipbo play`` take as a player) and its model card
(``<name>.json``: config, rules, figures, versions, and the evaluation of the exported policy
against ``eval.opponents`` by the tournament harness).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any

from .. import checks
from ..arena.tournament import against, run_games
from ..envs.roles import check_opponents
from ..players.registry import SELF_PLAY
from ..rules import Rules
from .config import (
    ConfigError,
    Section,
    check_dir,
    check_game,
    check_net_arch,
    merge,
    number,
    read_yaml,
)
from .report import summary
from .report import versions as stack_versions

SKIPBO_FILE = "skipbo.json"  # the game settings, written into the RLlib checkpoint

DEFAULTS: dict[str, Any] = {
    "name": None,  # output_dir/<name>.zip, .json and <name>_rllib/
    "variant": "standard",
    "num_players": 2,
    "rules": {},  # overrides of the preset, e.g. {stock_size: 30}
    "seed": 0,
    "iterations": None,  # PPO training iterations (each samples train_batch_size env steps)
    # What plays each opponent team, drawn per game by weight: self_play (frozen copies of the
    # learner), a scripted player's name or a checkpoint path.
    "opponents": {SELF_PLAY: 1.0},
    "self_play": {"frozen_copies": 3, "snapshot_every": 5},
    "stock_reward": 0.0,  # shaping: reward per card the learner's team plays from its stocks
    "opponent_stock_reward": 0.0,  # shaping: per card the other teams play from their stocks
    "ray": {"num_env_runners": 0, "num_envs_per_env_runner": 1,
            "num_cpus_per_env_runner": 1, "num_learners": 0},
    "ppo": {"lr": 3e-4, "train_batch_size": 4000, "minibatch_size": 256, "num_epochs": 5,
            "gamma": 0.995, "lambda": 0.95, "clip_param": 0.2, "entropy_coeff": 0.01,
            "vf_loss_coeff": 0.5, "grad_clip": 0.5, "net_arch": [256, 256]},
    "eval": {"games": 200, "opponents": ["random", "naive", "greedy"]},
    "output_dir": "checkpoints",
}


@dataclass(frozen=True)
class RLlibSelfPlay(Section):
    """``self_play``: the frozen copies of the learner and how often they are refreshed."""

    frozen_copies: int
    snapshot_every: int


@dataclass(frozen=True)
class Ray(Section):
    """``ray``: env runners and learners."""

    num_env_runners: int
    num_envs_per_env_runner: int
    num_cpus_per_env_runner: float
    num_learners: int


@dataclass(frozen=True)
class RLlibPPO(Section):
    """``ppo``: RLlib's PPO settings (``lambda`` is the field `lambda_`) and the network."""

    lr: float
    train_batch_size: int
    minibatch_size: int
    num_epochs: int
    gamma: float
    lambda_: float
    clip_param: float
    entropy_coeff: float
    vf_loss_coeff: float
    grad_clip: float
    net_arch: tuple[int, ...]


@dataclass(frozen=True)
class RLlibEval(Section):
    """``eval``: the exported policy's games against fixed opponents."""

    games: int
    opponents: tuple[str, ...]


@dataclass(frozen=True)
class RLlibConfig(Section):
    """A checked RLlib training config (`validate`): every key of `DEFAULTS` as a typed field,
    and `game_rules`, the `Rules` of its game."""

    name: str
    variant: str
    num_players: int
    rules: dict[str, Any]
    seed: int
    iterations: int
    opponents: dict[str, float]
    self_play: RLlibSelfPlay
    stock_reward: float
    opponent_stock_reward: float
    ray: Ray
    ppo: RLlibPPO
    eval: RLlibEval
    output_dir: str
    game_rules: Rules = field(metadata={"derived": True}, repr=False)


def validate(raw: dict) -> RLlibConfig:
    """The config with defaults filled in, as an `RLlibConfig`, or ConfigError naming the bad
    key."""
    cfg = merge(DEFAULTS, raw, "")
    rules = check_game(cfg)
    number(cfg["iterations"], "iterations", integer=True, minimum=1, maximum=10**7)
    try:
        cfg["opponents"] = check_opponents(cfg["opponents"])
    except ValueError as e:
        raise ConfigError(str(e)) from None
    number(cfg["stock_reward"], "stock_reward", minimum=-100, maximum=100)
    number(cfg["opponent_stock_reward"], "opponent_stock_reward", minimum=-100, maximum=100)
    sp = cfg["self_play"]
    number(sp["frozen_copies"], "self_play.frozen_copies", integer=True, minimum=1,
           maximum=100)
    number(sp["snapshot_every"], "self_play.snapshot_every", integer=True, minimum=1)
    r = cfg["ray"]
    number(r["num_env_runners"], "ray.num_env_runners", integer=True, minimum=0, maximum=4096)
    number(r["num_envs_per_env_runner"], "ray.num_envs_per_env_runner", integer=True,
           minimum=1, maximum=4096)
    number(r["num_cpus_per_env_runner"], "ray.num_cpus_per_env_runner", minimum=0,
           maximum=1024)
    number(r["num_learners"], "ray.num_learners", integer=True, minimum=0, maximum=1024)
    p = cfg["ppo"]
    number(p["lr"], "ppo.lr", above=0, maximum=1)
    number(p["train_batch_size"], "ppo.train_batch_size", integer=True, minimum=2,
           maximum=10**8)
    number(p["minibatch_size"], "ppo.minibatch_size", integer=True, minimum=2,
           maximum=p["train_batch_size"])
    number(p["num_epochs"], "ppo.num_epochs", integer=True, minimum=1, maximum=1000)
    number(p["gamma"], "ppo.gamma", minimum=0, maximum=1)
    number(p["lambda"], "ppo.lambda", minimum=0, maximum=1)
    number(p["clip_param"], "ppo.clip_param", above=0, maximum=10)
    number(p["entropy_coeff"], "ppo.entropy_coeff", minimum=0, maximum=100)
    number(p["vf_loss_coeff"], "ppo.vf_loss_coeff", minimum=0, maximum=100)
    number(p["grad_clip"], "ppo.grad_clip", above=0, maximum=10**6)
    check_net_arch(p["net_arch"])
    ev = cfg["eval"]
    number(ev["games"], "eval.games", integer=True, minimum=0, maximum=10**7)
    if not isinstance(ev["opponents"], list):
        raise ConfigError(f"eval.opponents must be a list, got {checks.shown(ev['opponents'])}")
    for name in ev["opponents"]:
        if not isinstance(name, str):
            raise ConfigError(f"eval.opponents must be a list of player names, got "
                              f"{checks.shown(name)}")
        try:
            check_opponents({name: 1.0}, "eval.opponents")
        except ValueError as e:
            raise ConfigError(str(e)) from None
        if name == SELF_PLAY:
            raise ConfigError("eval.opponents: self_play is not a fixed opponent")
    check_dir(cfg["output_dir"], "output_dir")
    return RLlibConfig.build(cfg, game_rules=rules)


def load(path: str) -> RLlibConfig:
    """Read and validate the YAML config at `path`."""
    return validate(read_yaml(path))


def self_play(cfg: RLlibConfig) -> bool:
    return cfg.opponents.get(SELF_PLAY, 0.0) > 0


def env_config(cfg: RLlibConfig) -> dict:
    return {"variant": cfg.variant, "num_players": cfg.num_players,
            "opponents": cfg.opponents, "stock_reward": cfg.stock_reward,
            "opponent_stock_reward": cfg.opponent_stock_reward, **cfg.rules}


def build_config(cfg: RLlibConfig):
    """The RLlib PPOConfig of a validated config."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from ..integrations.rllib import (
        ENV_NAME,
        LEARNER,
        MaskedActorCritic,
        policy_mapping_fn,
        register_env,
    )

    register_env()
    p, r = cfg.ppo, cfg.ray
    copies = cfg.self_play.frozen_copies if self_play(cfg) else 0
    modules = [LEARNER] + [f"frozen_{i}" for i in range(copies)]
    spec = RLModuleSpec(module_class=MaskedActorCritic,
                        model_config={"net_arch": list(p.net_arch)})
    return (
        PPOConfig()
        # RLlib's env check steps random actions: an illegal one ends the game as a loss for
        # the agent that played it (RolesEnv's illegal_action "lose"), so the check passes.
        .environment(ENV_NAME, env_config=env_config(cfg))
        .framework("torch")
        .env_runners(num_env_runners=r.num_env_runners,
                     num_envs_per_env_runner=r.num_envs_per_env_runner,
                     # Ray takes a fraction of a CPU here, though its hint says int.
                     num_cpus_per_env_runner=r.num_cpus_per_env_runner)  # type: ignore[arg-type]
        .learners(num_learners=r.num_learners)
        .multi_agent(policies=set(modules), policy_mapping_fn=policy_mapping_fn(max(copies, 1)),
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs=dict.fromkeys(modules, spec)))
        .training(lr=p.lr, train_batch_size_per_learner=p.train_batch_size,
                  minibatch_size=p.minibatch_size, num_epochs=p.num_epochs,
                  gamma=p.gamma, lambda_=p.lambda_, clip_param=p.clip_param,
                  entropy_coeff=p.entropy_coeff, vf_loss_coeff=p.vf_loss_coeff,
                  grad_clip=p.grad_clip)
        .debugging(seed=cfg.seed)
    )


def snapshot(algo, cfg: RLlibConfig, slot: int | None = None) -> None:
    """Copy the learner's current weights into frozen copy `slot` (all copies if None)."""
    from ..integrations.rllib import LEARNER

    copies = cfg.self_play.frozen_copies
    state = algo.get_module(LEARNER).get_state()
    slots = range(copies) if slot is None else [slot % copies]
    algo.set_state({"learner_group": {"learner": {"rl_module": {
        f"frozen_{i}": state for i in slots}}}})


def _figure(result: dict, *keys, default=None):
    """``result[keys[0]][keys[1]]...``, or `default` where a key is missing or the figure is
    not a finite number (RLlib reports NaN for an iteration that sampled no episode; the
    model card is strict JSON, which has no NaN)."""
    for key in keys:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    if isinstance(result, float) and not math.isfinite(result):
        return default
    return result


def versions() -> dict:
    """The versions the run used, Ray's included."""
    return stack_versions("ray")


def evaluate(path: str, cfg: RLlibConfig, games: int, opponents: list[str], seed: int) -> dict:
    """Win rates of the exported policy at `path` (on the learner's team, seat-rotated)
    against each opponent, by the tournament harness."""

    rules = cfg.game_rules
    results = {}
    for name in opponents:
        seats = against(rules, path, name)
        results[name] = run_games(rules, seats, games, seed, progress=False)  # every core
    return summary(results, path)


def train(cfg: RLlibConfig, address: str | None = None, log=print) -> dict:
    """Train by `cfg` (validated); returns the model card written beside the export."""
    import ray

    from ..integrations.rllib import LEARNER, export_policy

    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(include_dashboard=False, log_to_driver=False)
    algo = build_config(cfg).build_algo()
    try:
        sp = self_play(cfg)
        if sp:
            snapshot(algo, cfg)  # every copy starts as the (untrained) learner
        curve = []
        start = time.perf_counter()
        for it in range(1, cfg.iterations + 1):
            result = algo.train()
            row = {"iteration": it,
                   "env_steps": _figure(result, "env_runners",
                                        "num_env_steps_sampled_lifetime"),
                   "episodes": _figure(result, "env_runners", "num_episodes_lifetime"),
                   "learner_return": _figure(result, "env_runners", "module_episode_returns_mean",
                                             "learner"),
                   "seconds": round(time.perf_counter() - start, 2)}
            curve.append(row)
            log(json.dumps(row))
            if sp and it % cfg.self_play.snapshot_every == 0:
                snapshot(algo, cfg, it // cfg.self_play.snapshot_every)
        out = cfg.output_dir
        os.makedirs(out, exist_ok=True)
        rllib_dir = os.path.abspath(os.path.join(out, f"{cfg.name}_rllib"))
        algo.save_to_path(rllib_dir)
        with open(os.path.join(rllib_dir, SKIPBO_FILE), "w") as f:
            json.dump({"env_config": env_config(cfg), "name": cfg.name}, f, indent=1)
        state = algo.get_module(LEARNER).get_state()
    finally:
        algo.stop()
    elapsed = time.perf_counter() - start
    path = os.path.join(out, f"{cfg.name}.zip")
    card = {"name": cfg.name, "config": cfg.to_dict(),
            "rllib_checkpoint": os.path.join(out, f"{cfg.name}_rllib"),
            "iterations": cfg.iterations,
            "env_steps": curve[-1]["env_steps"], "seconds": round(elapsed, 1),
            "curve": curve, "versions": versions()}
    export_policy(state, list(cfg.ppo.net_arch), cfg.game_rules, path, card)
    if cfg.eval.games and cfg.eval.opponents:
        card["evaluation"] = evaluate(path, cfg, cfg.eval.games,
                                      list(cfg.eval.opponents), cfg.seed + 1)
        for name, r in card["evaluation"].items():
            log(f"vs {name}: win rate {r['win_rate']:.3f} over {r['games']} games")
        export_policy(state, list(cfg.ppo.net_arch), cfg.game_rules, path, card)
    return card


def export(checkpoint: str, path: str) -> str:
    """Export the learner of RLlib checkpoint directory `checkpoint` (written by `train`) to a
    MaskablePPO ``.zip`` at `path`; the game's settings are read from the file that `train`
    wrote into it (``skipbo.json``)."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    from ..integrations.rllib import LEARNER, export_policy

    module_dir = os.path.join(checkpoint, "learner_group", "learner", "rl_module", LEARNER)
    if not os.path.isdir(module_dir):
        raise ValueError(f"{checkpoint} is not an RLlib checkpoint of skipbo training: "
                         f"{module_dir} does not exist")
    try:
        module = RLModule.from_checkpoint(module_dir)
    except Exception as e:
        raise ValueError(f"RLlib checkpoint {checkpoint} could not be loaded: "
                         f"{type(e).__name__}: {e}") from None
    env_cfg = _checkpoint_env_config(checkpoint)
    rules = Rules.preset(env_cfg.pop("variant", "standard"), env_cfg.pop("num_players", 2),
                         **{k: v for k, v in env_cfg.items()
                            if k not in ("opponents", "stock_reward",
                                         "opponent_stock_reward")})
    model_config = module.model_config if isinstance(module.model_config, dict) else {}
    arch = list(model_config.get("net_arch", [256, 256]))
    return export_policy(module.get_state(), arch, rules, path,
                         {"rllib_checkpoint": checkpoint})


def _checkpoint_env_config(checkpoint: str) -> dict:
    """The env config that `train` wrote into the checkpoint (``skipbo.json``)."""
    path = os.path.join(checkpoint, SKIPBO_FILE)
    try:
        with open(path) as f:
            data = json.load(f)
        env = data["env_config"]
        if not isinstance(env, dict):
            raise TypeError("env_config is not a mapping")
        return dict(env)
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"cannot read the skipbo settings of {checkpoint} ({path}): "
                         f"{type(e).__name__}: {e}") from None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "export":
        p = argparse.ArgumentParser(prog="rllib_train.py export",
                                    description="export an RLlib checkpoint to a .zip policy")
        p.add_argument("checkpoint", help="the <name>_rllib directory written by training")
        p.add_argument("out", help="the .zip to write (its model card goes beside it)")
        args = p.parse_args(argv[1:])
        try:
            print(export(args.checkpoint, args.out))
        except ValueError as e:
            p.error(str(e))
        return 0
    p = argparse.ArgumentParser(prog="rllib_train.py", description=__doc__.splitlines()[0])
    p.add_argument("config", help="a YAML config (configs/rllib_*.yaml)")
    p.add_argument("--address", default=None,
                   help="join a running Ray cluster: 'auto' or ray://host:port (default: start "
                        "Ray locally)")
    p.add_argument("--iterations", type=int, default=None,
                   help="override the config's iterations")
    args = p.parse_args(argv)
    try:
        cfg = load(args.config)
        if args.iterations is not None:
            cfg = validate({**cfg.to_dict(), "iterations": number(
                args.iterations, "--iterations", integer=True, minimum=1)})
    except ConfigError as e:
        p.error(str(e))
    try:
        import ray  # noqa: F401
    except ImportError:
        p.error("Ray is not installed: pip install torch==2.13.0 && pip install -e '.[rllib]'")
    card = train(cfg, args.address)
    print(f"wrote {os.path.join(cfg.output_dir, cfg.name)}.zip")
    return 0 if card else 1


if __name__ == "__main__":
    sys.exit(main())
