"""How well networks of a few shapes can clone the teacher: held-out agreement after a few epochs.

    python benchmarks/clone_capacity.py [--config configs/standard_2p.yaml]
        [--samples 300000] [--epochs 4] [--nets 256,256:tanh 512,512,256:relu]

Collects `--samples` teacher decisions from the batched engine as the config's behaviour
cloning does (its opponents, rules and stock size, the batched `pretrain.teacher`), holds out
5% of them, and trains one MaskablePPO policy per `--nets` entry (hidden widths and activation)
`--epochs` passes with the trainer's own cloning step (pretrain.py: the config's
`pretrain.learning_rate` and `batch_size`). It prints, per network, the agreement with the
teacher on 50,000 training samples and on the held-out ones, and the seconds it trained. The
shape with the higher held-out agreement after the same number of epochs carries more of the
teacher into PPO (docs/training.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env.train.config import (
    ConfigError,
    check_activation,
    load,
    parse_net_arch,
)


def parse_net(text: str) -> tuple[list[int], str]:
    """'512,512,256:relu' -> ([512, 512, 256], 'relu'); a ConfigError names a bad entry."""
    widths, _, activation = text.partition(":")
    key = f"--nets {text!r}"
    return parse_net_arch(widths, key), check_activation(activation or "tanh", key)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default="configs/standard_2p.yaml")
    parser.add_argument("--samples", type=int, default=300_000)
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--nets", nargs="+", default=["256,256:tanh", "512,512,256:relu"])
    args = parser.parse_args(argv)
    if args.samples < 40 or args.epochs < 1:
        parser.error("--samples must be at least 40 and --epochs at least 1")
    try:
        cfg = load(args.config)
        nets = [parse_net(n) for n in args.nets]
    except ConfigError as e:
        parser.error(str(e))
    if cfg.vec_env != "batched":
        parser.error(f"{args.config} does not train on the batched engine (vec_env batched)")

    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from skipbo_env.train.ppo import policy_kwargs
    from skipbo_env.train.pretrain import agreement, collect_batched, fit
    from skipbo_env.vector import SkipBoVectorEnv

    torch.set_num_threads(os.cpu_count() or 1)
    stock = cfg.game_rules.stock_size
    start = time.perf_counter()
    data = collect_batched(cfg, stock, args.samples, cfg.seed)
    print(f"{len(data[2])} decisions of {cfg.pretrain.teacher} ({cfg.name}, stock "
          f"{stock}) in {time.perf_counter() - start:.1f} s", flush=True)
    O, M, A, R = (torch.from_numpy(x) for x in data)  # noqa: E741
    gen = torch.Generator().manual_seed(cfg.seed)
    order = torch.randperm(len(A), generator=gen)
    val, train = order[:len(A) // 20], order[len(A) // 20:]
    probe = train[:50_000]
    spaces = SkipBoVectorEnv(cfg.variant, cfg.num_players, num_envs=1, **cfg.rules)
    for arch, activation in nets:
        torch.manual_seed(cfg.seed)
        policy = MaskableActorCriticPolicy(spaces.single_observation_space,
                                           spaces.single_action_space, lambda _: 0.0,
                                           **policy_kwargs(arch, activation))
        t = time.perf_counter()
        fit(policy, (O, M, A, R), train, args.epochs, cfg, gen, lambda *_: None, "")
        print(f"{arch} {activation}, {args.epochs} epochs: agreement train "
              f"{agreement(policy, O[probe], M[probe], A[probe]):.1%}, held out "
              f"{agreement(policy, O[val], M[val], A[val]):.1%} "
              f"({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
