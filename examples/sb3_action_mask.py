"""Train MaskablePPO on Skip-Bo from scratch, in the style of PettingZoo's SB3 action-masking
tutorial (tutorials/SB3/connect_four there), then play it against a uniformly random player.

The PettingZoo AEC env is made from PettingZoo's own registry (``pettingzoo.make("aec",
"SkipBo-v0")``), wrapped so that SB3 sees a Gymnasium env whose observation is the acting
agent's and whose mask comes from ``action_mask()``; one model plays every seat (self-play
through the wrapper). Skip-Bo's acting agent keeps acting until its turn ends, which the
wrapper passes through as it is.

    python examples/sb3_action_mask.py                       # the documented run (docs/training.md)
    python examples/sb3_action_mask.py --steps 2048 --games 10

Prints the win rate of the trained model against `random` (seat-rotated), beside the win rate
of an untrained model of the same shape, so "learns" is measured against the same games.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

import gymnasium as gym
import numpy as np
import pettingzoo
from pettingzoo.utils import BaseWrapper
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.common.wrappers import ActionMasker

import skipbo_env  # noqa: F401  (registers SkipBo-v0 with PettingZoo and Gymnasium)

ENV_ID = "SkipBo-v0"


class SB3ActionMaskWrapper(BaseWrapper, gym.Env):
    """The AEC env as a Gymnasium env for SB3: `step` returns the next acting agent's
    observation and the reward, termination and truncation of the agent that just acted."""

    def reset(self, seed=None, options=None):
        super().reset(seed, options)
        agent = self.possible_agents[0]
        self.observation_space = super().observation_space(agent)["observation"]
        self.action_space = super().action_space(agent)
        return self.observe(self.agent_selection), {}

    def step(self, action):
        acting = self.agent_selection
        super().step(action)
        return (self.observe(self.agent_selection), self._cumulative_rewards[acting],
                self.terminations[acting], self.truncations[acting], self.infos[acting])

    def observe(self, agent):
        return super().observe(agent)["observation"]

    def action_mask(self):
        return super().observe(self.agent_selection)["action_mask"]


def train(steps: int, seed: int, path: str, **env_kwargs) -> MaskablePPO:
    env = SB3ActionMaskWrapper(pettingzoo.make("aec", ENV_ID, **env_kwargs))
    env.reset(seed=seed)  # defines the spaces
    env = ActionMasker(env, lambda e: e.action_mask())
    model = MaskablePPO(MaskableActorCriticPolicy, env, seed=seed, verbose=0, device="cpu")
    model.learn(total_timesteps=steps)
    model.save(path)
    return model


def play_random(model: MaskablePPO, games: int, seed: int, **env_kwargs) -> dict:
    """`games` games of the model against a uniformly random player, the model in seat 0 and
    seat 1 in turn; wins, losses and draws from the model's side (the env's rewards)."""
    env = pettingzoo.make("aec", ENV_ID, **env_kwargs)
    result = {"wins": 0, "losses": 0, "draws": 0}
    for i in range(games):
        env.reset(seed=seed + i)
        env.action_space(env.possible_agents[0]).seed(seed + i)
        mine = env.possible_agents[i % 2]
        for agent in env.agent_iter():
            obs, _, termination, truncation, _ = env.last()
            if termination or truncation:
                reward = env.rewards[mine]
                result["wins" if reward > 0 else "losses" if reward < 0 else "draws"] += 1
                break
            observation, mask = obs["observation"], obs["action_mask"]
            if agent == mine:
                action = int(model.predict(observation, action_masks=mask,
                                           deterministic=True)[0])
            else:
                action = int(env.action_space(agent).sample(mask))
            env.step(action)
    env.close()
    result["win_rate"] = result["wins"] / games
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000, help="learner steps")
    parser.add_argument("--games", type=int, default=200, help="games against random")
    parser.add_argument("--variant", default="short")
    parser.add_argument("--stock-size", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="where to save the model (.zip)")
    args = parser.parse_args(argv)
    if args.steps < 1 or args.games < 1:
        parser.error("--steps and --games must be positive")
    kwargs = {"variant": args.variant, "stock_size": args.stock_size}
    out = args.out or os.path.join(tempfile.mkdtemp(), "skipbo_sb3_action_mask.zip")
    untrained = MaskablePPO(MaskableActorCriticPolicy, ActionMasker(
        _spaces_only(**kwargs), lambda e: e.action_mask()), seed=args.seed, device="cpu")
    before = play_random(untrained, args.games, 10_000, **kwargs)
    start = time.perf_counter()
    model = train(args.steps, args.seed, out, **kwargs)
    minutes = (time.perf_counter() - start) / 60
    after = play_random(model, args.games, 10_000, **kwargs)
    print(f"untrained: {before}")
    print(f"trained {args.steps} steps in {minutes:.1f} min: {after}")
    print(f"win rate against random: {before['win_rate']:.1%} untrained, "
          f"{after['win_rate']:.1%} trained ({args.games} games each, {args.variant}, "
          f"stock {args.stock_size}); model saved to {out}")
    return 0


def _spaces_only(**env_kwargs) -> gym.Env:
    env = SB3ActionMaskWrapper(pettingzoo.make("aec", ENV_ID, **env_kwargs))
    env.reset(seed=0)
    return env


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    sys.exit(main())
