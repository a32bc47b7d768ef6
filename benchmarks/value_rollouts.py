"""The value player with its best segments checked by rollouts, against `expert`: at each
decision the `--top` segments the network values highest are scored again by the labels'
own procedure (docs/training.md, "The value player": from the position before the segment's
last move, that move, then the batched `expert` in every seat to the end of the acting seat's
next turn, scored as `lookahead` scores, the mean over `--deals` fresh deals of the cards the
seat cannot see) and the best-scored one is played. `--top 1` is the plain value player.
`--bootstrap turn|decision` scores them as a round of TD labels them instead (docs/training.md,
"TD from the shipped network"), bootstrapped from the player's own network: `expert` plays on
to the acting seat's next turn (`decision`: or to its next decision in this turn, after a
card turns up or the hand is refilled), where the value is the network's best segment: a
one-chance-step search on the network. Seat-rotated paired games on one core against
`--against` (`expert` by default), with the time per move.

    python benchmarks/value_rollouts.py [--player value_short_2p] [--top 8] [--deals 8]
        [--bootstrap none|turn|decision] [--against expert] [--games 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from skipbo_env import Game
from skipbo_env.arena.stats import wilson
from skipbo_env.players.checkpoints import card_rules, model_card
from skipbo_env.players.registry import checkpoint_file, make_agent
from skipbo_env.players.value import ValueAgent, load_value_agent, one_blas_thread
from skipbo_env.segments import TooManyPositions, position_key
from skipbo_env.vector.labels import SegmentLabels


class RolloutValueAgent(ValueAgent):
    """A value player that plays, of its `top` best-valued segments, the one the labels'
    rollouts score highest (`deals` deals each; the candidates share their deals)."""

    def __init__(self, *args, top: int = 8, deals: int = 8, bootstrap: str = "none",
                 **kwargs):
        super().__init__(*args, **kwargs)
        self.search_top, self.deals, self.decisions = top, deals, 0
        self.bootstrap = bootstrap
        self.rollouts: SegmentLabels | None = None

    def choose(self, view) -> int:
        if self._plan and self._expect == position_key(view) and \
                self._plan[0] in view.legal_actions:
            return self._next(view)
        try:
            sequences, values = self.evaluate(view)
        except TooManyPositions:
            self._plan, self._expect, self._game = [], None, None
            return self._expert.act(view)
        top = [int(i) for i in np.argsort(-values, kind="stable")[:self.search_top]]
        if len(top) > 1:
            if self.rollouts is None:
                td = {} if self.bootstrap == "none" else {
                    "bootstrap": self.net, "bootstrap_at": self.bootstrap}
                self.rollouts = SegmentLabels(view.rules, self.search_top,
                                              int(self.rng.integers(2**62)), self.deals, **td)
            self.decisions += 1
            assert self._game is not None
            for j, i in enumerate(top):
                game = self._game.clone()  # dealt from the seat's view
                for action in sequences[i][:-1]:
                    game.step(action)
                self.rollouts.add(j, game, sequences[i][-1], self.decisions)
            self.rollouts.flush()
            top = [top[int(np.argmax([self.rollouts.labels[j] for j in range(len(top))]))]]
        self._plan = list(sequences[top[0]])
        return self._next(view)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="value_short_2p")
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--deals", type=int, default=8)
    parser.add_argument("--bootstrap", choices=["none", "turn", "decision"], default="none")
    parser.add_argument("--against", default="expert")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 2 or not 1 <= args.top <= 4096 or not 1 <= args.deals <= 1024:
        parser.error("--games must be at least 2, --top 1 to 4096, --deals 1 to 1024")
    try:
        path = checkpoint_file(args.player)
        rules = card_rules(model_card(path) or {}, path)
        net = load_value_agent(path, rules).net
    except ValueError as e:
        parser.error(str(e))
    one_blas_thread()  # one core: a second BLAS thread only fights other processes
    wins, moves, spent = 0, 0, 0.0
    for k in range(args.games):
        seat = k % 2
        game = Game(rules, seed=args.seed + k // 2)
        me = RolloutValueAgent(net, rules, seed=k, path=path, top=args.top, deals=args.deals,
                               bootstrap=args.bootstrap)
        other = make_agent(args.against, seed=k, rules=rules)
        while not game.is_over:
            mine = game.current_player == seat
            start = time.perf_counter()
            action = (me if mine else other).act(game.view())
            if mine:
                spent += time.perf_counter() - start
                moves += 1
            game.step(action)
        wins += seat in game.winners
    lo, hi = wilson(wins, args.games)
    print(f"{args.player}, top {args.top}, deals {args.deals}, bootstrap {args.bootstrap}, "
          f"against {args.against}: {wins}/{args.games} = "
          f"{100 * wins / args.games:.1f}% ({100 * lo:.1f}-{100 * hi:.1f}), "
          f"{1e3 * spent / moves:.1f} ms a move", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
