"""A CleanRL-style single-file PPO with invalid-action masking on Skip-Bo's batched engine.

The envs come from Gymnasium's own `make_vec` (``vectorization_mode="vector_entry_point"``:
`SkipBoVectorEnv`, many games in numba kernels), the legal-action mask from
``info["action_mask"]``; nothing Skip-Bo-specific beyond the env id. Illegal actions get a
logit of -1e8, so they are never sampled and carry no gradient.

    python examples/cleanrl_masked_ppo.py --total-timesteps 200000
    python examples/cleanrl_masked_ppo.py --total-timesteps 2048 --num-envs 8 --num-steps 32

Prints, per update, the steps per second and the games won of those finished, and at the end
the win rate over the games finished against the opponent in the last updates.
"""

from __future__ import annotations

import argparse
import sys
import time

import gymnasium as gym
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import skipbo_env  # noqa: F401  (registers SkipBo-v0)


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--total-timesteps", type=int, default=200_000)
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=64)
    p.add_argument("--learning-rate", type=float, default=2.5e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--num-minibatches", type=int, default=4)
    p.add_argument("--update-epochs", type=int, default=4)
    p.add_argument("--clip-coef", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument("--opponents", default="random")
    p.add_argument("--variant", default="short")
    p.add_argument("--stock-size", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    for name in ("total_timesteps", "num_envs", "num_steps", "num_minibatches", "update_epochs"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    return args


SQRT2 = float(np.sqrt(2))


def layer(n_in, n_out, std=SQRT2):
    lin = nn.Linear(n_in, n_out)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.constant_(lin.bias, 0.0)
    return lin


class Agent(nn.Module):
    def __init__(self, n_obs: int, n_actions: int):
        super().__init__()
        self.critic = nn.Sequential(layer(n_obs, 256), nn.Tanh(), layer(256, 256), nn.Tanh(),
                                    layer(256, 1, std=1.0))
        self.actor = nn.Sequential(layer(n_obs, 256), nn.Tanh(), layer(256, 256), nn.Tanh(),
                                   layer(256, n_actions, std=0.01))

    def get_value(self, x):
        return self.critic(x)

    def get_action_and_value(self, x, mask, action=None):
        logits = torch.where(mask, self.actor(x), torch.tensor(-1e8))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def advantages_of(rewards, values, dones, next_value, next_done, args):
    """Generalized advantage estimation, as CleanRL's ppo.py: (advantages, returns)."""
    with torch.no_grad():
        advantages = torch.zeros_like(rewards)
        last = 0
        for t in reversed(range(args.num_steps)):
            if t == args.num_steps - 1:
                not_done, next_v = 1.0 - next_done, next_value
            else:
                not_done, next_v = 1.0 - dones[t + 1], values[t + 1]
            delta = rewards[t] + args.gamma * next_v * not_done - values[t]
            advantages[t] = last = delta + args.gamma * args.gae_lambda * not_done * last
        return advantages, advantages + values


def ppo_update(agent, optimizer, rollout, args, minibatch: int) -> None:
    """`update_epochs` passes of clipped PPO over the rollout (flattened), in minibatches."""
    b_obs, b_masks, b_actions, b_logprobs, b_adv, b_returns = rollout
    batch = len(b_actions)
    for _ in range(args.update_epochs):
        order = np.random.permutation(batch)
        for i in range(0, batch, minibatch):
            mb = order[i:i + minibatch]
            _, newlog, entropy, newvalue = agent.get_action_and_value(
                b_obs[mb], b_masks[mb], b_actions[mb])
            ratio = (newlog - b_logprobs[mb]).exp()
            adv = b_adv[mb]
            adv = (adv - adv.mean()) / (adv.std() + 1e-8)
            pg = torch.max(-adv * ratio,
                           -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_loss = 0.5 * ((newvalue.flatten() - b_returns[mb]) ** 2).mean()
            loss = pg - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
            optimizer.step()


def main(argv=None) -> int:
    args = parse(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    envs = gym.make_vec("SkipBo-v0", num_envs=args.num_envs,
                        vectorization_mode="vector_entry_point", autoreset_mode="same_step",
                        variant=args.variant, stock_size=args.stock_size,
                        opponents=args.opponents)
    n_obs, n_actions = envs.single_observation_space.shape[0], envs.single_action_space.n
    agent = Agent(n_obs, n_actions)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    shape = (args.num_steps, args.num_envs)
    obs = torch.zeros(shape + (n_obs,))
    masks = torch.zeros(shape + (n_actions,), dtype=torch.bool)
    actions, logprobs = torch.zeros(shape, dtype=torch.long), torch.zeros(shape)
    rewards, dones, values = torch.zeros(shape), torch.zeros(shape), torch.zeros(shape)

    next_obs, info = envs.reset(seed=args.seed)
    next_obs = torch.tensor(next_obs)
    next_mask = torch.tensor(info["action_mask"], dtype=torch.bool)
    next_done = torch.zeros(args.num_envs)
    batch = args.num_envs * args.num_steps
    updates = max(1, args.total_timesteps // batch)
    minibatch = max(1, batch // args.num_minibatches)
    results: list[list[float]] = []
    start, step = time.perf_counter(), 0
    for update in range(1, updates + 1):
        finished: list[float] = []
        for t in range(args.num_steps):
            step += args.num_envs
            obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[t], actions[t], logprobs[t] = value.flatten(), action, logprob
            next_obs, reward, term, trunc, info = envs.step(action.numpy())
            done = np.logical_or(term, trunc)
            rewards[t] = torch.tensor(reward, dtype=torch.float32)
            next_obs = torch.tensor(next_obs)
            next_mask = torch.tensor(info["action_mask"], dtype=torch.bool)
            next_done = torch.tensor(done, dtype=torch.float32)
            finished += [float(r) for r in reward[done]]  # +1 won, -1 lost, 0 drawn
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
        advantages, returns = advantages_of(rewards, values, dones, next_value, next_done, args)
        ppo_update(agent, optimizer, (obs.reshape(-1, n_obs), masks.reshape(-1, n_actions),
                                  actions.reshape(-1), logprobs.reshape(-1),
                                  advantages.reshape(-1), returns.reshape(-1)), args, minibatch)
        results.append(finished)
        won = sum(r > 0.5 for r in finished)
        print(f"update {update}/{updates}: {step} steps, "
              f"{step / (time.perf_counter() - start):.0f} steps/s, "
              f"{won}/{len(finished)} finished games won", flush=True)
    last = [r for part in results[-max(1, updates // 5):] for r in part]
    rate = sum(r > 0.5 for r in last) / max(1, len(last))
    print(f"win rate against {args.opponents} over the last updates' {len(last)} games: "
          f"{rate:.1%}")
    envs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
