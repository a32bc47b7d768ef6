"""Where a checkpoint's policy differs from the teacher it was cloned from, by kind of move.

    python benchmarks/clone_errors.py CHECKPOINT [--config configs/standard_2p.yaml]
        [--samples 100000] [--seed 4242]

Collects `--samples` decisions of the config's batched `pretrain.teacher` from the batched
engine, as its behaviour cloning does (its rules, opponents and stock size; `--seed` picks the
deals, different from the training ones by default), and compares the checkpoint's most
likely legal action with the teacher's in each. It prints the share of decisions where the
two differ, then one line per kind of the teacher's move (play from the hand, the stock or a
discard pile, discard, ...): its share of all decisions and how often the policy chose
otherwise there; then the commonest confusions (teacher's kind -> the policy's kind). The
checkpoint is read with the safe loader and must fit the config's game.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env.train.config import ConfigError, load


def kind_of(layout, action: int) -> str:
    """'play/hand', 'discard', 'end_turn', ...: the kind of a move and, for a play, where from."""
    decoded = layout.decode(int(action))
    return str(decoded.kind) + (f"/{decoded.source.kind}" if decoded.kind == "play" else "")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint")
    parser.add_argument("--config", default="configs/standard_2p.yaml")
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=4242)
    args = parser.parse_args(argv)
    if args.samples < 1 or not 0 <= args.seed < 2**31 - 10**5:
        parser.error("--samples must be at least 1 and --seed from 0 to 2**31 - 100001")
    try:
        cfg = load(args.config)
    except ConfigError as e:
        parser.error(str(e))
    if cfg.vec_env != "batched":
        parser.error(f"{args.config} does not train on the batched engine (vec_env batched)")

    import numpy as np
    import torch

    from skipbo_env.actions import ActionLayout
    from skipbo_env.players.checkpoints import legal_logits
    from skipbo_env.train.pretrain import collect_batched
    from skipbo_env.vector.env import load_opponent_policy

    try:
        policy = load_opponent_policy(args.checkpoint, cfg.game_rules)
    except ValueError as e:
        parser.error(str(e))
    torch.set_num_threads(os.cpu_count() or 1)
    obs, masks, teacher, _ = collect_batched(cfg, cfg.game_rules.stock_size, args.samples,
                                             args.seed)
    policy_moves = np.concatenate([
        legal_logits(policy, obs[i:i + 4096], masks[i:i + 4096]).argmax(1).numpy()
        for i in range(0, len(teacher), 4096)])
    layout = ActionLayout(cfg.game_rules)
    total = len(teacher)
    counts: collections.Counter = collections.Counter()
    differ: collections.Counter = collections.Counter()
    confusions: collections.Counter = collections.Counter()
    for t, p in zip(teacher, policy_moves):
        kind = kind_of(layout, t)
        counts[kind] += 1
        if t != p:
            differ[kind] += 1
            confusions[(kind, kind_of(layout, p))] += 1
    print(f"{args.checkpoint} against {cfg.pretrain.teacher} ({cfg.name}, stock "
          f"{cfg.game_rules.stock_size}): {total} decisions, the policy differs in "
          f"{sum(differ.values()) / total:.1%}")
    for kind, n in sorted(counts.items(), key=lambda kv: -differ[kv[0]]):
        print(f"  teacher {kind:<14} {n / total:6.1%} of decisions, the policy differs "
              f"{differ[kind] / n:6.1%} ({differ[kind] / total:.1%} of all)")
    print("commonest confusions (teacher -> policy):")
    for (a, b), n in confusions.most_common(6):
        print(f"  {a} -> {b}: {n / total:.2%} of all")
    return 0


if __name__ == "__main__":
    sys.exit(main())
