"""Your own value-based player on turn segments, with the public API (docs/segments.md).

At each decision the AEC env lists the agent's turn segments (every distinct position it can
reach before the next chance event, each with its action sequence and the observation of the
position it reaches); this player scores each with a value function of your own (here a
hand-written one: stock cards played, then cards kept) and plays the best segment's moves.
The batched env lists the segments of all its games at once (``SkipBoVectorEnv.turn_segments``).

    python examples/segment_search.py [--games 20] [--seed 0]
"""

from __future__ import annotations

import argparse

import numpy as np

import skipbo_env
from skipbo_env.players.registry import make_agent
from skipbo_env.segments import SegmentEncoder


def my_value(view, seat: int) -> float:
    """A value of your own for a resulting position (here: a hand-written heuristic)."""
    others = min(size for s, size in enumerate(view.stock_sizes) if s != seat)
    return 10.0 * (others - view.stock_sizes[seat]) + len(view.hand)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be positive")
    env = skipbo_env.raw_env("standard", 2)
    encoder = None
    wins = 0
    for k in range(args.games):
        env.reset(seed=args.seed + k)
        mine = k % 2  # seats alternate
        expert = make_agent("expert", seed=k)
        encoder = encoder or SegmentEncoder(env.game.rules)
        plan: list[int] = []
        for agent in env.agent_iter():
            _, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            if seat != mine:
                env.step(expert.act(env.game.view()))
                continue
            if not plan:
                segments = env.turn_segments()
                obs = encoder.encode(segments)  # what a learned value network would read
                assert obs.shape == (len(segments), encoder.size)
                values = [my_value(s.view, seat) for s in segments]
                plan = list(segments[int(np.argmax(values))].actions)
            env.step(plan.pop(0))
        wins += env.game.winners == (mine,)
    print(f"won {wins} of {args.games} games against expert")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
