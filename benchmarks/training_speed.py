"""Learner steps per second of MaskablePPO on the subprocess path and on the batched path, for a
training config's opponent mix (self-play included), measured in the same run.

    python benchmarks/training_speed.py [--config configs/standard_2p.yaml]
        [--batched-steps 327680] [--subproc-steps 32768] [--snapshots 2] [--games N]
        [--net-arch 256,256 [--activation tanh]]

Both paths train the config's network with its PPO settings against its opponents by weight;
self-play draws from `snapshots` frozen copies of a fresh policy saved in a temporary pool
(as the trainer's snapshots are), so the self-play share is played by policies on both
paths. The batched path is the config's `n_envs` games of the batched engine (vec_env
batched: scripted seats in numba, policy seats evaluated once per step on all their games);
the subprocess path is one `SkipBo-v0` process per core (vec_env subproc) with the same
rollout size (n_steps scaled up), so the two do the same PPO updates per learner step
(`--games` sets the batched games instead of the config's, for a quick check; `--net-arch`
and `--activation` another network, which both paths then train). Each
path first trains one rollout untimed (processes started, kernels loaded), then
`--*-steps` learner steps (whole rollouts) timed. The last line is

    training speed: batched B steps/s, subproc S steps/s, ratio R
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env.train.config import (
    ConfigError,
    TrainConfig,
    check_activation,
    load,
    parse_net_arch,
)


def measure(cfg: TrainConfig, n_envs: int, n_steps: int, steps: int, pool_dir: str) -> float:
    """Learner steps per second of `steps` (whole rollouts) after one untimed rollout."""
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env.train.ppo import make_vec_env, policy_kwargs, unchecked_distributions

    batched = cfg.vec_env == "batched"
    torch.set_num_threads((os.cpu_count() or 1) if batched else 1)
    vec = make_vec_env(cfg, n_envs, pool_dir)
    ppo = {**cfg.ppo.algorithm_kwargs(), "n_steps": n_steps}
    kwargs = policy_kwargs(cfg.ppo.net_arch, cfg.ppo.activation)
    model = MaskablePPO("MlpPolicy", vec, seed=cfg.seed, device="cpu", verbose=0,
                        policy_kwargs=kwargs, **ppo)
    rollout = n_envs * n_steps
    with unchecked_distributions():  # as the trainer runs
        model.learn(rollout)
        timed = max(1, -(-steps // rollout)) * rollout
        start = time.perf_counter()
        model.learn(timed, reset_num_timesteps=False)
        seconds = time.perf_counter() - start
    vec.close()
    return timed / seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/standard_2p.yaml")
    parser.add_argument("--batched-steps", type=int, default=327_680)
    parser.add_argument("--subproc-steps", type=int, default=32_768)
    parser.add_argument("--snapshots", type=int, default=2)
    parser.add_argument("--games", type=int, default=0,
                        help="batched games (default: the config's n_envs)")
    parser.add_argument("--net-arch", help="hidden layer widths instead of the config's, "
                        "e.g. 256,256")
    parser.add_argument("--activation", help="the hidden layers' activation instead of the "
                        "config's (tanh or relu)")
    args = parser.parse_args(argv)
    if min(args.batched_steps, args.subproc_steps) < 1 or min(args.snapshots, args.games) < 0:
        parser.error("the step counts must be at least 1, --snapshots and --games at least 0")
    try:
        cfg = load(args.config)
        network = {}
        if args.net_arch is not None:
            network["net_arch"] = parse_net_arch(args.net_arch, "--net-arch")
        if args.activation is not None:
            network["activation"] = check_activation(args.activation, "--activation")
        if network:
            cfg = cfg.with_changes(ppo={**cfg.ppo.to_dict(), **network})
    except ConfigError as e:
        parser.error(str(e))
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env.envs.gym import SkipBoEnv
    from skipbo_env.train.config import BATCHED_GAMES
    from skipbo_env.train.ppo import card_of, policy_kwargs, save_checkpoint

    cores = os.cpu_count() or 1
    torch.set_num_threads(1)  # no thread pool before the subprocess path forks
    batched_envs = args.games or (cfg.n_envs if cfg.vec_env == "batched" and cfg.n_envs
                                  else BATCHED_GAMES)
    n_steps = cfg.ppo.n_steps
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        pool = os.path.join(tmp, "pool")
        os.makedirs(pool)
        env = SkipBoEnv.of(cfg.game_rules)
        net_arch, activation = cfg.ppo.net_arch, cfg.ppo.activation
        fresh = MaskablePPO("MlpPolicy", env, seed=cfg.seed, device="cpu",
                            policy_kwargs=policy_kwargs(net_arch, activation))
        for k in range(args.snapshots):
            save_checkpoint(fresh, os.path.join(pool, f"step_{k:09d}.zip"),
                            card_of(cfg.name, cfg.game_rules, k, net_arch, activation))
        mix = ", ".join(f"{name} {w:g}" for name, w in cfg.opponents.items())
        print(f"{cfg.name}: {cfg.game_rules.variant}, {cfg.num_players} players, stock "
              f"{cfg.game_rules.stock_size}; opponents {mix}, self_play "
              f"{cfg.self_play.weight:g} ({args.snapshots} snapshots); net_arch "
              f"{list(net_arch)} {activation}, batch_size {cfg.ppo.batch_size}, n_epochs "
              f"{cfg.ppo.n_epochs}", flush=True)
        # The subprocess path first: its workers fork from this process, which must not have
        # run torch's thread pools yet (forking after them can hang the children).
        for path, n_envs, steps in (("subproc", cores, args.subproc_steps),
                                    ("batched", batched_envs, args.batched_steps)):
            run = dataclasses.replace(cfg, vec_env=path)
            # The same rollout size on both paths: the same PPO updates per learner step.
            per_env = n_steps if path == "batched" else max(1, n_steps * batched_envs // n_envs)
            rates[path] = measure(run, n_envs, per_env, steps, pool)
            print(f"{path}: {n_envs} {'games' if path == 'batched' else 'processes'} x "
                  f"n_steps {per_env}: {rates[path]:,.0f} learner steps/s", flush=True)
    print(f"training speed: batched {rates['batched']:.0f} steps/s, subproc "
          f"{rates['subproc']:.0f} steps/s, ratio {rates['batched'] / rates['subproc']:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
