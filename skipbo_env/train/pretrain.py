"""Behaviour cloning and DAgger: warm-start a MaskablePPO policy from a scripted teacher
(docs/training.md).

The teacher (a scripted player, `expert` by default) plays the learner's seat of the training
environment (same rules, the config's opponents by weight, random seat); each of its
decisions gives a sample (observation, legal mask, teacher's action, discounted return of the
environment's reward from there on, shaping included). The policy head is trained to the
teacher's actions (masked cross-entropy) and the value head to the returns, for a number of
epochs, before PPO takes over. With ``vec_env: batched`` the samples come from the batched
engine, the teacher being the batched player of the same name (vector/scripted.py).

DAgger (``pretrain.dagger.rounds``): after cloning, the learner plays the learner's seat
itself (sampling its policy), every state it reaches is labelled with the teacher's move
there, the samples join the training set and the policy is trained on all of it again; once
per round (``dagger.aggregate: false``: on that round's samples only, so memory stays flat).
``pretrain.fresh`` (batched): every one of the ``epochs`` passes clones newly collected
decisions instead of the same ones again. Everything is seeded from the config's seed.
"""

from __future__ import annotations

import multiprocessing
import os
import time

import numpy as np

from ..envs.gym import OpponentPool, SkipBoEnv
from ..players.registry import make_agent
from ..vector import SkipBoVectorEnv
from ..vector.rollout import rollout_labels, scratch_engine
from ..vector.scripted import BATCHED_PLAYERS
from .config import TrainConfig


def _collect_part(args) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    cfg, stock, samples, seed = args
    env = SkipBoEnv(cfg.variant, cfg.num_players, opponents=OpponentPool(cfg.opponents),
                    seat="random", stock_reward=cfg.stock_reward,
                    opponent_stock_reward=cfg.opponent_stock_reward,
                    **{**cfg.rules, "stock_size": stock})
    teacher = make_agent(cfg.pretrain.teacher, seed)
    gamma = cfg.ppo.gamma
    obs_l: list[np.ndarray] = []
    mask_l: list[np.ndarray] = []
    act_l: list[int] = []
    ret_l: list[float] = []
    obs, _ = env.reset(seed=seed)
    rewards: list[float] = []
    # Whole games only, so that every sample's return is known.
    while len(ret_l) < samples:
        if env.game.is_over:  # the opponents won before the learner's first turn: no decision
            obs, _ = env.reset()
            continue
        action = teacher.act(env.game.view())
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


def collect_batched(cfg: TrainConfig, stock: int, samples: int, seed: int, policy=None):
    """`samples` (or a few more) learner decisions from the batched engine (vec_env batched),
    each labelled with the batched teacher's move: (observations, masks, teacher's actions,
    returns). The teacher plays them unless `policy` is given (DAgger: the policy plays,
    sampling its distribution, and the teacher only labels). Only whole games count, so that
    every return is known."""
    import torch

    from .config import BATCHED_GAMES

    opponents = {name: w for name, w in cfg.opponents.items() if w > 0}
    env = SkipBoVectorEnv(cfg.variant, cfg.num_players, num_envs=cfg.n_envs or
                          BATCHED_GAMES, opponents=opponents, seat="random",
                          stock_reward=cfg.stock_reward,
                          opponent_stock_reward=cfg.opponent_stock_reward,
                          **{**cfg.rules, "stock_size": stock})
    teacher = np.full((env.num_envs, env.rules.num_players),
                      BATCHED_PLAYERS.index(cfg.pretrain.teacher), dtype=np.int64)
    gamma = cfg.ppo.gamma
    rollout = cfg.pretrain.rollout
    scratch = scratch_engine(env.engine) if rollout.enabled else None
    obs, _ = env.reset(seed=seed)
    if policy is not None:
        torch.manual_seed(seed)
    steps: list[tuple] = []
    last = np.full(env.num_envs, -1)  # each row's last step that ended a game
    while int((last + 1).sum()) < samples:
        masks = env.action_masks()
        labels = env.engine.scripted_actions(teacher).copy()
        if scratch is not None:
            labels = rollout_labels(env.engine, labels, scratch, margin=rollout.margin,
                                    win_bonus=rollout.win_bonus, deals=rollout.deals,
                                    seed=[seed, len(steps)])
        if policy is None:
            actions = labels
        else:
            actions, _ = policy.predict(obs, action_masks=masks, deterministic=False)
        next_obs, rewards, terminated, truncated, _ = env.step(actions)
        done = terminated | truncated
        steps.append((obs, masks, labels, rewards, done))
        obs = next_obs
        last[done] = len(steps) - 1
    # Returns backwards through each row's games; only the steps of whole games are kept (up
    # to and including each row's last end), gathered step by step into one copy.
    returns = []
    g = np.zeros(env.num_envs, dtype=np.float32)
    for _, _, _, rewards, done in reversed(steps):
        g = rewards.astype(np.float32) + gamma * g * ~done
        returns.append(g)
    returns.reverse()
    keep = [last >= t for t in range(len(steps))]
    out = [np.concatenate([step[k][kept] for step, kept in zip(steps, keep)])
           for k in range(3)]
    return (out[0].astype(np.float32, copy=False), out[1].astype(bool, copy=False),
            out[2].astype(np.int64, copy=False),
            np.concatenate([r[kept] for r, kept in zip(returns, keep)]))


def collect(cfg: TrainConfig, stock: int, samples: int, seed: int, workers: int = 1):
    """`samples` (or a few more: whole games) teacher decisions as arrays
    (observations, masks, actions, returns), collected by `workers` processes (or by the
    batched engine with vec_env batched)."""
    if cfg.vec_env == "batched":
        return collect_batched(cfg, stock, samples, seed)
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


def fit(policy, data, train, epochs: int, cfg: TrainConfig, gen, log, label: str) -> None:
    """`epochs` passes of masked cross-entropy (to the teacher's actions) plus the value loss
    (to the returns) over the samples `train` (indices into `data`)."""
    import torch

    O, M, A, R = data  # noqa: E741
    pt = cfg.pretrain
    optimizer = torch.optim.Adam(policy.parameters(), lr=pt.learning_rate)
    vf_coef = cfg.ppo.vf_coef
    policy.set_training_mode(True)
    for epoch in range(epochs):
        perm = train[torch.randperm(len(train), generator=gen)]
        total = 0.0
        for i in range(0, len(perm), pt.batch_size):
            b = perm[i:i + pt.batch_size]
            values, log_prob, _ = policy.evaluate_actions(O[b], A[b], action_masks=M[b].numpy())
            loss = -log_prob.mean() + vf_coef * ((values.flatten() - R[b]) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), cfg.ppo.max_grad_norm)
            optimizer.step()
            total += loss.item() * len(b)
        log(f"{label} epoch {epoch + 1}/{epochs}: loss {total / len(train):.4f}")
    policy.set_training_mode(False)


FRESH_SEED = 10_000  # cloning pass e >= 1 of `pretrain.fresh` collects with seed + this + e
HELD_OUT_SEED = 9_999  # ... and its held-out decisions with seed + this


def behaviour_clone(model, cfg: TrainConfig, stock: int, workers: int = 1, log=print) -> dict:
    """Train `model`'s policy and value heads on the teacher's samples as the config's
    ``pretrain`` section says (then the DAgger rounds); returns a summary for the model
    card."""
    import torch

    pt = cfg.pretrain
    start = time.perf_counter()
    gen = torch.Generator().manual_seed(cfg.seed)
    policy = model.policy
    if pt.fresh:
        # Every pass trains on decisions it has never seen; memory holds one pass's.
        t = time.perf_counter()
        held_out = [torch.from_numpy(x) for x in
                    collect_batched(cfg, stock, max(1, pt.samples // 20),
                                    cfg.seed + HELD_OUT_SEED)]
        collected = time.perf_counter() - t
        val_set = held_out[:3]
    else:
        obs, masks, actions, returns = collect(cfg, stock, pt.samples, cfg.seed, workers)
        collected = time.perf_counter() - start
        n = len(actions)
        order = torch.randperm(n, generator=gen)
        n_val = max(1, n // 20)  # 5% held out to report accuracy on decisions not trained on
        val, train = order[:n_val], order[n_val:]
        data = [torch.from_numpy(x) for x in (obs, masks, actions, returns)]
        val_set = [x[val] for x in data[:3]]

    threads = torch.get_num_threads()
    torch.set_num_threads(os.cpu_count() or 1)  # the environments are not running yet
    if pt.fresh:
        seen = 0
        for e in range(pt.epochs):
            t = time.perf_counter()
            seed = cfg.seed + (FRESH_SEED + e if e else 0)
            data = []  # the last pass's samples go before the next pass's are collected
            data = [torch.from_numpy(x) for x in collect_batched(cfg, stock, pt.samples,
                                                                  seed)]
            collected += time.perf_counter() - t
            train = torch.arange(len(data[2]))
            seen += len(train)
            fit(policy, data, train, 1, cfg, gen, log, f"pretrain pass {e + 1}/{pt.epochs}")
        n = seen
    else:
        fit(policy, data, train, pt.epochs, cfg, gen, log, "pretrain")
    O, M, A, _ = data  # noqa: E741
    summary = {"teacher": pt.teacher, "samples": int(n), "epochs": pt.epochs,
               "fresh": pt.fresh, "stock_size": stock, "rollout": pt.rollout.to_dict(),
               "train_accuracy": round(agreement(policy, O[train], M[train], A[train]), 4),
               "validation_accuracy": round(agreement(policy, *val_set), 4)}
    log(f"pretrain: {n} samples, agreement with {pt.teacher} on held-out decisions "
        f"{summary['validation_accuracy']:.1%}")
    dagger = pt.dagger
    rounds = []
    for r in range(dagger.rounds):
        t = time.perf_counter()
        new = collect_batched(cfg, stock, dagger.samples, cfg.seed + 1 + r, policy)
        collected += time.perf_counter() - t
        new_t = [torch.from_numpy(x) for x in new]
        # Agreement on the states the learner reached itself, before it trains on them.
        on_policy = agreement(policy, *new_t[:3])
        if dagger.aggregate:
            old = len(data[2])
            data = [torch.cat([a, b]) for a, b in zip(data, new_t)]
            train = torch.cat([train, torch.arange(old, len(data[2]))])
        else:  # this round's states only: memory stays flat however many rounds
            data, train = new_t, torch.arange(len(new_t[2]))
        fit(policy, data, train, dagger.epochs, cfg, gen, log, f"dagger round {r + 1}")
        rounds.append({"samples": len(new_t[2]), "on_policy_accuracy": round(on_policy, 4)})
        log(f"dagger round {r + 1}/{dagger.rounds}: {len(new_t[2])} states of the learner's "
            f"own play, agreement with {pt.teacher} there {on_policy:.1%}")
    torch.set_num_threads(threads)
    if rounds:
        summary["dagger"] = {**dagger.to_dict(), "per_round": rounds,
                             "validation_accuracy": round(agreement(policy, *val_set), 4)}
    summary["collect_seconds"] = round(collected, 1)
    summary["seconds"] = round(time.perf_counter() - start, 1)
    return summary
