"""Train a MaskablePPO policy from a YAML config (docs/training.md).

    skipbo train --config configs/standard_2p.yaml      (or: python -m training.train ...)

Writes <output_dir>/<name>.zip (the SB3 model) and <name>.json (its model card), TensorBoard
logs and the learning curve (<log_dir>/<name>/curve.json) as it goes.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import sys
import time

from ..arena.tournament import against, run_games
from ..envs.gym import OpponentPool, SkipBoEnv
from ..extras import missing_train_extra
from ..integrations.sb3 import sb3_vec_env
from ..observation import OBS_VERSION, PILE_DEPTH
from ..players.checkpoints import (
    ACTIVATIONS,
    checkpoints_in,
    load_model,
    model_card,
    policy_card,
    write_card,
)
from ..rules import Rules
from ..vector import SkipBoVectorEnv
from .config import BATCHED_GAMES, ConfigError, TrainConfig, load
from .pretrain import behaviour_clone
from .report import summary, versions

PROGRESS_LINES = 20  # progress lines in a run's log when stderr is no terminal


def make_env_fn(cfg: TrainConfig, rank: int, pool_dir: str | None):
    """A function that builds environment number `rank` (for the vectorised env)."""
    def build():
        from stable_baselines3.common.monitor import Monitor

        sp = cfg.self_play
        pool = OpponentPool(cfg.opponents, directory=pool_dir, self_play=sp.weight,
                            refresh=sp.refresh)
        env = SkipBoEnv(cfg.variant, cfg.num_players, opponents=pool, seat="random",
                        stock_reward=cfg.stock_reward,
                        opponent_stock_reward=cfg.opponent_stock_reward, **cfg.rules)
        env.reset(seed=cfg.seed * 1000 + rank)
        return Monitor(env)
    return build


def make_vec_env(cfg: TrainConfig, n_envs: int, pool_dir: str):
    """The training environments: `n_envs` SkipBoEnv in processes (or this process), or
    `n_envs` games of the batched engine (vec_env batched), with episode statistics."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if cfg.vec_env == "batched":
        opponents = {name: w for name, w in cfg.opponents.items() if w > 0}
        sp = cfg.self_play
        rules = {**cfg.rules, "stock_size": stock_size_at(cfg, 0)}  # the curriculum's first
        env = SkipBoVectorEnv(cfg.variant, cfg.num_players, num_envs=n_envs,
                              opponents=opponents, seat="random",
                              stock_reward=cfg.stock_reward,
                              opponent_stock_reward=cfg.opponent_stock_reward,
                              self_play=sp.weight,
                              pool=pool_dir, pool_size=sp.pool_size, **rules)
        vec = VecMonitor(sb3_vec_env(env))
        vec.seed(cfg.seed)
        return vec
    fns = [make_env_fn(cfg, rank, pool_dir) for rank in range(n_envs)]
    if cfg.vec_env == "subproc" and n_envs > 1:
        return SubprocVecEnv(fns, start_method="fork")
    return DummyVecEnv(fns)


def stock_size_at(cfg: TrainConfig, steps: int) -> int:
    """The curriculum's stock size after `steps` steps (the config's own size once past)."""
    for stage in cfg.curriculum:
        if steps < stage.until:
            return stage.stock_size
    return cfg.game_rules.stock_size


def evaluate_model(path: str, rules: Rules, opponents: list[str], games: int, seed: int,
                   workers: int | None = None, progress: bool = False) -> dict:
    """Seat-rotated games of the checkpoint at `path` against each opponent, under `rules`
    (the tournament harness): {opponent: results}. With more than two players
    the checkpoint plays against copies of the opponent (`tournament.against`: in a team game
    a team of copies of it against teams of copies of the opponent), and its win rate is its
    seat's or its team's."""
    return {name: run_games(rules, against(rules, path, name), games, seed, workers, progress)
            for name in opponents}


@contextlib.contextmanager
def unchecked_distributions():
    """torch.distributions without their argument checks while it lasts (then as before).
    MaskablePPO builds a masked Categorical twice for every rollout step and minibatch, and
    checking each time that its logits are numbers and its probabilities sum to one costs
    about a twentieth of a batched learner step. A NaN still stops training: sampling from
    NaN probabilities raises."""
    from torch.distributions import Distribution

    before = Distribution._validate_args
    Distribution.set_default_validate_args(False)
    try:
        yield
    finally:
        Distribution.set_default_validate_args(before)


def policy_kwargs(net_arch, activation: str) -> dict:
    """SB3's policy_kwargs for the config's hidden layers and their activation."""
    import torch

    return {"net_arch": list(net_arch), "activation_fn": getattr(torch.nn, ACTIVATIONS[activation])}


def card_of(name: str, rules, steps: int, net_arch, activation: str = "tanh") -> dict:
    """The part of a model card every checkpoint of a run carries, so that it loads as a
    player (the rules, the observation and its version, the network for the safe loader)."""
    return {"name": name, "format": "skipbo-model-card/1", "algorithm": "MaskablePPO",
            "rules": rules.to_dict(), "pile_depth": PILE_DEPTH, "obs_version": OBS_VERSION,
            "policy": policy_card(net_arch, activation), "steps": int(steps)}


def stages(pretrained: dict | None, steps: int) -> list[str]:
    """What trained the policy, in order (the model card's ``stages``): ``behaviour
    cloning`` and ``DAgger`` from the pretraining record, ``MaskablePPO`` if PPO took any
    steps. ``algorithm`` stays ``MaskablePPO``, the model's class, whichever ran."""
    out = []
    if pretrained:
        out.append("behaviour cloning")
        if pretrained.get("dagger"):
            out.append("DAgger")
    if steps:
        out.append("MaskablePPO")
    return out


def save_checkpoint(model, path: str, card: dict) -> None:
    """`model` at `path` (``.zip``) with `card` beside it (``.json``)."""
    model.save(path)
    write_card(os.path.splitext(path)[0] + ".json", card)


def start_from(model, path: str) -> dict:
    """Fill `model`'s policy and value networks with checkpoint `path`'s weights (the safe
    loader: never unpickled; the config check has matched its network and spaces); returns
    what the model card records of it."""
    import torch


    threads = torch.get_num_threads()
    try:
        model.policy.load_state_dict(load_model(path).state_dict(), strict=True)
    except RuntimeError as e:  # the file changed since the config was checked
        raise ValueError(f"init: checkpoint {path} does not fit this run's network: "
                         f"{str(e).splitlines()[0]}") from None
    finally:
        torch.set_num_threads(threads)  # the loader sets one thread for single moves
    card = model_card(path) or {}
    name, steps = card.get("name"), card.get("steps")
    return {"checkpoint": path, "name": name if isinstance(name, str) else None,
            "steps": steps if isinstance(steps, int) else None}


def peak_rss_mib() -> dict:
    """The peak resident memory of this process and of its largest child process (the
    evaluation and environment workers), in MiB."""
    import resource

    kib = [resource.getrusage(who).ru_maxrss for who in (resource.RUSAGE_SELF,
                                                          resource.RUSAGE_CHILDREN)]
    return {"trainer": round(kib[0] / 1024), "largest_child": round(kib[1] / 1024)}


RUN_MARK = ".skipbo-run"  # the file that marks a run directory `train` made itself


def fresh_run_dir(path: str) -> None:
    """Make `path` an empty run directory, marked as the trainer's. An existing one is removed
    only if the trainer made it (it holds RUN_MARK); an empty directory is reused; anything else
    (another directory, a file, a link) is refused with ConfigError and left as it is."""
    mark = os.path.join(path, RUN_MARK)
    if os.path.islink(path) or (os.path.exists(path) and not os.path.isdir(path)):
        raise ConfigError(f"the run directory {path} is a link or a file, not a directory "
                          f"this trainer made; remove it or choose another name or log_dir")
    if os.path.isdir(path) and os.listdir(path):
        if not os.path.isfile(mark) or os.path.islink(mark):
            raise ConfigError(f"the run directory {path} exists and was not made by skipbo "
                              f"train (it has no {RUN_MARK} file); nothing was removed: move "
                              f"it, or choose another name or log_dir")
        shutil.rmtree(path)
    os.makedirs(path, exist_ok=True)
    with open(mark, "w") as f:
        json.dump({"made_by": "skipbo train", "run": os.path.basename(path)}, f)
        f.write("\n")


class Run:
    """One training run: its directories, environments, model, learning curve and the
    evaluations and snapshots made while it trains (`train` drives it)."""

    def __init__(self, cfg: TrainConfig, progress: bool):
        import torch
        from sb3_contrib import MaskablePPO

        self.cfg, self.progress = cfg, progress
        cores = os.cpu_count() or 1
        self.batched = cfg.vec_env == "batched"
        self.n_envs = cfg.n_envs or (BATCHED_GAMES if self.batched else cores)
        # Processes for the evaluations and the cloning data: one per environment, or per core
        # when the environments are games of the batched engine.
        self.workers = cores if self.batched else self.n_envs
        self.log_dir = os.path.join(cfg.log_dir, cfg.name)
        self.pool_dir = os.path.join(self.log_dir, "pool")
        fresh_run_dir(self.log_dir)  # a rerun of the config starts afresh
        os.makedirs(self.pool_dir, exist_ok=True)
        os.makedirs(cfg.output_dir, exist_ok=True)
        torch.manual_seed(cfg.seed)
        # Batched games step in this process between the policy's batches: both use every core.
        torch.set_num_threads(cores if self.batched or self.n_envs == 1 else 1)
        self.vec = make_vec_env(cfg, self.n_envs, self.pool_dir)
        self.model = MaskablePPO(
            "MlpPolicy", self.vec, seed=cfg.seed, device="cpu", verbose=0,
            tensorboard_log=self.log_dir,
            policy_kwargs=policy_kwargs(cfg.ppo.net_arch, cfg.ppo.activation),
            **cfg.ppo.algorithm_kwargs())
        self.curve: list[dict] = []
        self.start = time.perf_counter()

    def card_of(self, steps: int) -> dict:
        """The card part every checkpoint of this run carries (`card_of`)."""
        cfg = self.cfg
        return card_of(cfg.name, cfg.game_rules, steps, cfg.ppo.net_arch, cfg.ppo.activation)

    def evaluate(self, steps: int, stock: int, logger=None) -> None:
        """A point of the learning curve: the current policy against the eval opponents."""
        cfg, ev = self.cfg, self.cfg.eval
        path = os.path.join(self.log_dir, "latest.zip")
        save_checkpoint(self.model, path, self.card_of(steps))
        results = summary(evaluate_model(path, cfg.game_rules, list(ev.opponents), ev.games,
                                         cfg.seed + steps, workers=self.workers), path)
        rates = {opp: r["win_rate"] for opp, r in results.items()}
        if logger is not None:
            for opp, rate in rates.items():
                logger.record(f"eval/win_rate_vs_{opp}", rate)
        point = {"steps": steps, "seconds": round(time.perf_counter() - self.start, 1),
                 "stock_size": stock, "win_rate": rates}
        self.curve.append(point)
        write_card(os.path.join(self.log_dir, "curve.json"), self.curve)
        if self.progress:
            print(f"\n[{steps} steps] " + ", ".join(
                f"vs {o} {r['win_rate']:.1%}" for o, r in results.items()), flush=True)

    def snapshot(self, steps: int) -> None:
        """A frozen copy of the learner in the self-play pool; the oldest beyond the pool's
        size are removed (with their cards)."""
        save_checkpoint(self.model, os.path.join(self.pool_dir, f"step_{steps:09d}.zip"),
                        self.card_of(steps))
        for old in checkpoints_in(self.pool_dir)[:-self.cfg.self_play.pool_size]:
            os.remove(old)
            card = os.path.splitext(old)[0] + ".json"
            if os.path.exists(card):
                os.remove(card)

    def final_card(self, pretrained: dict | None, initial: dict | None, wall: float,
                   learning: float, final: dict) -> dict:
        """The model card of the finished run."""
        cfg, model, rules = self.cfg, self.model, self.cfg.game_rules
        return {
            **self.card_of(model.num_timesteps),
            "config": cfg.to_dict(), "seed": cfg.seed,
            "stages": stages(pretrained, model.num_timesteps),
            "wall_time_s": round(wall, 1), "pretrain": pretrained, "init": initial,
            "n_envs": self.n_envs,
            # PPO's steps over its own time (rollouts and updates, evaluations not counted).
            "learner_steps_per_s": round(model.num_timesteps / max(learning, 1e-9)),
            "peak_rss_mib": peak_rss_mib(),
            "machine": f"{os.cpu_count()} cores",
            "versions": versions(), "learning_curve": self.curve,
            "evaluation": {"games_per_opponent": cfg.eval.final_games,
                           "rules": f"{rules.variant}, {rules.num_players} players, stock "
                                    f"{rules.stock_size}", "seat_rotated": True,
                           "results": final},
        }


def _hooks(run: Run):
    """The callback that steps the curriculum, saves self-play snapshots and evaluates."""
    from stable_baselines3.common.callbacks import BaseCallback

    cfg = run.cfg

    class Hooks(BaseCallback):
        """Curriculum steps, self-play snapshots and periodic evaluation."""

        def __init__(self):
            super().__init__()
            self.stock: int | None = None
            self.next_eval = cfg.eval.every
            self.next_save = cfg.self_play.save_every
            self.eval_seconds = 0.0
            # Progress as plain lines when stderr is no terminal (a log file): SB3's bar
            # would write carriage returns, one giant line.
            self.lines = run.progress and not sys.stderr.isatty()
            self.next_line, self.started = 0, time.perf_counter()

        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if self.lines and steps >= self.next_line:
                total = cfg.total_timesteps
                self.next_line += max(1, total // PROGRESS_LINES)
                rate = steps / max(time.perf_counter() - self.started, 1e-9)
                print(f"{cfg.name}: {steps}/{total} steps ({100 * steps // total}%), "
                      f"{rate:.0f} steps/s", file=sys.stderr, flush=True)
            stock = stock_size_at(cfg, steps)
            if stock != self.stock:
                if cfg.curriculum:
                    self.training_env.env_method("set_stock_size", stock)
                self.logger.record("curriculum/stock_size", stock)
                self.stock = stock
            if cfg.self_play.weight > 0 and steps >= self.next_save:
                self.next_save += cfg.self_play.save_every
                run.snapshot(steps)
                if run.batched:  # the env processes list the pool as they draw; this one is told
                    self.training_env.env_method("refresh_pool")
            if cfg.eval.games and steps >= self.next_eval:
                self.next_eval += cfg.eval.every
                t = time.perf_counter()
                run.evaluate(steps, stock, self.logger)
                self.eval_seconds += time.perf_counter() - t
            return True

    return Hooks()


def train(cfg: TrainConfig, progress: bool = True) -> dict:
    """Train as `cfg` says; returns the model card (also written beside the checkpoint)."""
    run = Run(cfg, progress)
    model, ev = run.model, cfg.eval
    pretrained = initial = None
    if cfg.init:
        initial = start_from(model, cfg.init)
    if cfg.pretrain.samples:
        pretrained = behaviour_clone(model, cfg, stock_size_at(cfg, 0), workers=run.workers,
                                     log=print if progress else (lambda *_: None))
    if (pretrained is not None or initial is not None) and ev.games:
        run.evaluate(0, stock_size_at(cfg, 0))  # where PPO starts from
    hooks = _hooks(run)
    learn_start = time.perf_counter()
    if cfg.total_timesteps:  # 0: behaviour cloning alone
        with unchecked_distributions():
            model.learn(total_timesteps=cfg.total_timesteps, callback=hooks,
                        progress_bar=progress and sys.stderr.isatty())
    wall = time.perf_counter() - run.start
    learning = time.perf_counter() - learn_start - hooks.eval_seconds
    run.vec.close()
    if ev.games and (not run.curve or run.curve[-1]["steps"] != model.num_timesteps):
        run.evaluate(model.num_timesteps, stock_size_at(cfg, model.num_timesteps))
    path = os.path.join(cfg.output_dir, f"{cfg.name}.zip")
    # The full card is written below, after the final evaluation.
    save_checkpoint(model, path, run.card_of(model.num_timesteps))
    final = {}
    if ev.final_games:
        final = summary(evaluate_model(path, cfg.game_rules, list(ev.final_opponents),
                                       ev.final_games,
                                       10_000 + cfg.seed, workers=run.workers,
                                       progress=progress), path)
    card = run.final_card(pretrained, initial, wall, learning, final)
    write_card(os.path.join(cfg.output_dir, f"{cfg.name}.json"), card)
    return card


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="skipbo train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", required=True, help="a YAML file from configs/")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)
    def fail(e: ConfigError):
        message = str(e)  # naming the file the error is in
        parser.error(message if args.config in message else f"{args.config}: {message}")

    missing = missing_train_extra("training")
    if missing:
        parser.error(missing)
    try:
        cfg = load(args.config)
    except ConfigError as e:
        fail(e)
    try:
        card = train(cfg, progress=not args.quiet)
    except ConfigError as e:  # the run directory is not the trainer's to replace
        fail(e)
    print(json.dumps({"checkpoint": os.path.join(cfg.output_dir, cfg.name + ".zip"),
                      "steps": card["steps"], "wall_time_s": card["wall_time_s"],
                      "evaluation": card["evaluation"]["results"]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
