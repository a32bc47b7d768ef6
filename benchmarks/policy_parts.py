"""Which of a policy's decisions cost it games against `expert`: hybrid players that play
`expert`'s move except in one class of decisions, where the policy decides.

    python benchmarks/policy_parts.py checkpoints/standard_2p.zip [--games 1000] [--seed 12345]
                                      [--parts discards,no-discards,no-stock-chain,all]

Each part is a hybrid of `expert` and the checkpoint's policy (its most likely legal action):

- `discards`: where `expert` would discard, the policy picks the discard (among the discard
  actions only); every other move is `expert`'s.
- `no-discards`: the policy decides every move but those where `expert` would discard.
- `no-stock-chain`: the policy decides every move but `expert`'s steps 1 and 2 (playing the
  stock top, and the chain of plays that reaches it; docs/agents.md).
- `all`: the policy alone.

Each hybrid plays `--games` seat-rotated games against `expert` (paired deals: each deal once
from each seat) under the checkpoint's rules, and the table gives its win rate with a 95%
Wilson interval. A part whose hybrid wins about 50% is played as well as `expert` plays it;
the parts where the policy loses games are the ones whose hybrid falls below.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os

import numpy as np

from skipbo_env import Game, Rules, SeatView
from skipbo_env.actions import ActionKind
from skipbo_env.arena.stats import wilson
from skipbo_env.players import make_agent
from skipbo_env.players.base import legal_plays
from skipbo_env.players.checkpoints import check_checkpoint, model_card
from skipbo_env.players.registry import checkpoint_file

PARTS = ("discards", "no-discards", "no-stock-chain", "all")


class Hybrid:
    """`expert`'s move, or the policy's where `part` hands the decision to the policy."""

    def __init__(self, part: str, checkpoint: str, seed: int):
        self.part = part
        self.expert = make_agent("expert", seed)
        self.policy = make_agent(checkpoint, seed)

    def act(self, view: SeatView) -> int:
        """The move in the seat's view (a player is given nothing else)."""
        action = self.expert.act(view)
        discard = view.layout.decode(action).kind == ActionKind.DISCARD
        if self.part == "discards":
            if not discard:
                return action
            scores = self.policy.probabilities(view)
            discards = [a for a in view.legal_actions
                        if view.layout.decode(a).kind == ActionKind.DISCARD]
            return max(discards, key=lambda a: scores[a])
        if self.part == "no-discards" and discard:
            return action
        if self.part == "no-stock-chain":
            plays = legal_plays(view)
            if plays and (self.expert._stock_play(view, plays) is not None
                          or self.expert._chain_step(view, plays) is not None):
                return action
        return self.policy.act(view)


def _deal(job) -> list[int]:
    """Both seat rotations of one deal: 1 for each game the hybrid won."""
    rules, part, checkpoint, seed, deal = job
    import torch
    torch.set_num_threads(1)
    game_seed, *agent_seeds = (int(s) for s in np.random.SeedSequence([seed, deal])
                               .generate_state(5, np.uint64) >> np.uint64(1))
    won = []
    for hybrid_seat in range(2):
        game = Game(rules, game_seed)
        players = [None, None]
        players[hybrid_seat] = Hybrid(part, checkpoint, agent_seeds[2 * hybrid_seat])
        players[1 - hybrid_seat] = make_agent("expert", agent_seeds[2 * hybrid_seat + 1])
        while not game.is_over:
            game.step(players[game.current_player].act(game.view()))
        won.append(int(list(game.winners) == [hybrid_seat]))
    return won


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a checkpoint .zip or a shipped checkpoint's name")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=12345)
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    unknown = [p for p in parts if p not in PARTS]
    if unknown or args.games < 2 or args.workers < 1:
        parser.error(f"--parts must name some of {', '.join(PARTS)} (got {unknown}), --games "
                     f"at least 2 and --workers at least 1")
    checkpoint = checkpoint_file(args.checkpoint)
    check_checkpoint(checkpoint)
    card = model_card(checkpoint) or {}
    if "rules" not in card:
        parser.error(f"{checkpoint} has no model card with its rules")
    rules = Rules.from_dict(card["rules"])
    if rules.num_players != 2:
        parser.error("the hybrids play two-player games against expert")
    print(f"{checkpoint}: {rules.variant}, stock {rules.stock_size}, against expert, "
          f"{args.games // 2 * 2} seat-rotated games per part")
    print(f"{'part':16s} {'win rate':>9s} {'95% interval':>16s}")
    context = multiprocessing.get_context("forkserver")
    for part in parts:
        jobs = [(rules, part, checkpoint, args.seed, deal) for deal in range(args.games // 2)]
        with context.Pool(args.workers) as pool:
            won = [w for pair in pool.map(_deal, jobs) for w in pair]
        lo, hi = wilson(sum(won), len(won))
        print(f"{part:16s} {sum(won) / len(won):9.1%} {f'{lo:.1%} - {hi:.1%}':>16s}",
              flush=True)


if __name__ == "__main__":
    main()
