"""Env steps per second of RLlib PPO training on Skip-Bo against the number of env runners.

    python benchmarks/rllib_scaling.py [--config configs/rllib_standard_2p.yaml]
                                       [--runners 0,1,2] [--envs-per-runner 1,8]
                                       [--iterations 4] [--batch 4000]

For each number of env runners and of games per runner, a fresh PPO algorithm (the config's
settings, with ``ray.num_env_runners`` and ``ray.num_envs_per_env_runner`` replaced and a
train batch of ``--batch`` env steps) trains ``--iterations`` iterations on a local Ray
instance (all cores); the first iteration is a warm-up. Printed per setting: env steps
sampled per second of wall-clock time over whole iterations (sampling, then learning on the
batch), the median over the iterations after the warm-up. Needs the ``rllib`` extra.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _find(result: dict, name: str):
    """The first value under a key called `name` anywhere in RLlib's nested result."""
    if isinstance(result, dict):
        if name in result and not isinstance(result[name], dict):
            return result[name]
        for value in result.values():
            found = _find(value, name)
            if found is not None:
                return found
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=os.path.join(ROOT, "configs",
                                                         "rllib_standard_2p.yaml"))
    parser.add_argument("--runners", default="0,1,2",
                        help="comma-separated numbers of env runners")
    parser.add_argument("--envs-per-runner", default="1,8",
                        help="comma-separated numbers of games per env runner")
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per iteration")
    args = parser.parse_args()
    try:
        runners = [int(x) for x in args.runners.split(",")]
        envs = [int(x) for x in args.envs_per_runner.split(",")]
    except ValueError:
        parser.error("--runners and --envs-per-runner take comma-separated integers")
    if any(r < 0 for r in runners) or any(e < 1 for e in envs) or args.iterations < 2 \
            or args.batch < 1:
        parser.error("--runners must be >= 0, --envs-per-runner >= 1, --iterations >= 2 "
                     "and --batch >= 1")
    sys.path.insert(0, ROOT)
    import ray

    from skipbo_env.train.rllib_ppo import build_config, load, validate

    cfg = load(args.config)
    ppo = {**cfg.ppo.to_dict(), "train_batch_size": args.batch,
           "minibatch_size": min(cfg.ppo.minibatch_size, args.batch)}
    ray.init(include_dashboard=False, log_to_driver=False)
    print(f"ray {ray.__version__}, {os.cpu_count()} cores; {cfg.variant} "
          f"{cfg.num_players}p, opponents {cfg.opponents}, {args.batch} env steps per "
          f"iteration, medians of "
          f"{args.iterations - 1} iterations after a warm-up")
    print()
    print("| env runners | games per runner | env steps/s |")
    print("|---|---|---|")
    for n in runners:
        for per in envs:
            ray_cfg = {**cfg.ray.to_dict(), "num_env_runners": n, "num_envs_per_env_runner": per}
            run = validate({**cfg.to_dict(), "ppo": ppo, "ray": ray_cfg})
            algo = build_config(run).build_algo()
            rates = []
            try:
                for i in range(args.iterations):
                    start = time.perf_counter()
                    result = algo.train()
                    elapsed = time.perf_counter() - start
                    steps = _find(result, "num_env_steps_sampled")
                    if i and steps:
                        rates.append(steps / elapsed)
            finally:
                algo.stop()
            print(f"| {n} | {per} | {statistics.median(rates):,.0f} |", flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
