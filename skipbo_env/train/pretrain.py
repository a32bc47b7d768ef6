"""Behaviour cloning: warm-start a MaskablePPO policy from a scripted teacher (docs/training.md).

The teacher (a scripted player, `expert` by default) plays the learner's seat of the training
environment (same rules, the config's scripted opponents by weight, random seat); each of its
decisions gives a sample (observation, legal mask, teacher's action, discounted return of the
environment's reward from there on, shaping included). The policy head is trained to the
teacher's actions (masked cross-entropy) and the value head to the returns, for a number of
epochs, before PPO takes over. Everything is seeded from the config's seed.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import numpy as np

from ..envs.gym import OpponentPool, SkipBoEnv
from ..players.registry import make_agent


def _collect_part(args) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cfg, stock, samples, seed = args
    env = SkipBoEnv(cfg["variant"], cfg["num_players"], opponents=OpponentPool(cfg["opponents"]),
                    seat="random", stock_reward=cfg["stock_reward"],
                    **{**cfg["rules"], "stock_size": stock})
    teacher = make_agent(cfg["pretrain"]["teacher"], seed)
    gamma = cfg["ppo"]["gamma"]
    obs_l, mask_l, act_l, ret_l = [], [], [], []
    obs, _ = env.reset(seed=seed)
    rewards: list[float] = []
    # Whole games only, so that every sample's return is known.
    while len(ret_l) < samples:
        if env.game.is_over:  # the opponents won before the learner's first turn: no decision
            obs, _ = env.reset()
            continue
        action = teacher.act(env.game)
        obs_l.append(obs)
        mask_l.append(env.action_masks())
        act_l.append(action)
        obs, reward, terminated, truncated, _ = env.step(action)
        rewards.append(reward)
        if terminated or truncated:
            returns, g = [], 0.0
            for r in reversed(rewards):
                g = r + gamma * g
                returns.append(g)
            ret_l.extend(reversed(returns))
            rewards = []
            obs, _ = env.reset()
    n = len(ret_l)
    return (np.array(obs_l[:n], dtype=np.float32), np.array(mask_l[:n], dtype=bool),
            np.array(act_l[:n], dtype=np.int64), np.array(ret_l, dtype=np.float32))


def collect(cfg: dict, stock: int, samples: int, seed: int, workers: int = 1):
    """`samples` (or a few more: whole games) teacher decisions as arrays
    (observations, masks, actions, returns), collected by `workers` processes."""
    workers = max(1, min(workers, samples))
    parts = [(cfg, stock, samples // workers + (i < samples % workers), seed * 1000 + i)
             for i in range(workers)]
    if workers == 1:
        results = [_collect_part(parts[0])]
    else:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = pool.map(_collect_part, parts)
    return tuple(np.concatenate(arrays) for arrays in zip(*results))


def agreement(policy, obs, masks, actions) -> float:
    """The share of decisions where `policy`'s most likely legal action is the teacher's."""
    import torch

    obs, masks, actions = (torch.as_tensor(x) for x in (obs, masks, actions))
    hits = 0
    with torch.no_grad():
        for i in range(0, len(actions), 4096):
            dist = policy.get_distribution(obs[i:i + 4096],
                                           action_masks=masks[i:i + 4096].numpy())
            hits += (dist.distribution.logits.argmax(-1) == actions[i:i + 4096]).sum().item()
    return hits / len(actions)


def behaviour_clone(model, cfg: dict, stock: int, workers: int = 1, log=print) -> dict:
    """Train `model`'s policy and value heads on the teacher's samples as the config's
    ``pretrain`` section says; returns a summary for the model card."""
    import torch

    pt = cfg["pretrain"]
    start = time.perf_counter()
    obs, masks, actions, returns = collect(cfg, stock, pt["samples"], cfg["seed"], workers)
    collected = time.perf_counter() - start
    n = len(actions)
    gen = torch.Generator().manual_seed(cfg["seed"])
    order = torch.randperm(n, generator=gen)
    n_val = max(1, n // 20)  # 5% held out to report accuracy on decisions not trained on
    val, train = order[:n_val], order[n_val:]
    O, M = torch.from_numpy(obs), torch.from_numpy(masks)  # noqa: E741
    A, R = torch.from_numpy(actions), torch.from_numpy(returns)
    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=pt["learning_rate"])
    vf_coef = cfg["ppo"]["vf_coef"]

    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)  # the environments are not running yet
    policy.set_training_mode(True)
    for epoch in range(pt["epochs"]):
        perm = train[torch.randperm(len(train), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), pt["batch_size"]):
            b = perm[i:i + pt["batch_size"]]
            values, log_prob, _ = policy.evaluate_actions(O[b], A[b], action_masks=M[b].numpy())
            loss = -log_prob.mean() + vf_coef * ((values.flatten() - R[b]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg["ppo"]["max_grad_norm"])
            optimizer.step()
            total += loss.item() * len(b)
        log(f"pretrain epoch {epoch + 1}/{pt['epochs']}: loss {total / len(train):.4f}")
    policy.set_training_mode(False)
    torch.set_num_threads(threads)
    summary = {"teacher": pt["teacher"], "samples": int(n), "epochs": pt["epochs"],
               "stock_size": stock,
               "train_accuracy": round(agreement(policy, O[train], M[train], A[train]), 4),
               "validation_accuracy": round(agreement(policy, O[val], M[val], A[val]), 4),
               "collect_seconds": round(collected, 1),
               "seconds": round(time.perf_counter() - start, 1)}
    log(f"pretrain: {n} samples, agreement with {pt['teacher']} on held-out decisions "
        f"{summary['validation_accuracy']:.1%}")
    return summary
