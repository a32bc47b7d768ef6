"""Labels a second of the batched rollout teacher (skipbo_env/vector/rollout.py), and how
often its label differs from `expert`'s move, in games of `expert` against `expert`.

    python benchmarks/rollout_teacher.py [--variant standard] [--stock-size 30]
        [--games 1024] [--steps 20] [--margin 1.0] [--deals 0] [--play]

Every step labels each of `games` decisions (after a warm-up step that loads or compiles the
kernels), then plays `expert`'s moves; the last line reads
``rollout teacher: L labels/s, differs from expert in P% of D decisions``. ``--deals K``
scores each move in K fresh deals of the hidden cards (0: in the true game).

With ``--play`` the teacher plays instead: `games` whole games, the teacher's labels in one
seat (seat g % players in game g) and `expert` in the others, to each game's end (``--steps``
is not used); the last line reads ``rollout teacher: W% (lo-hi) of G games won against
expert, D% drawn or cut at the turn limit, L labels/s``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import numpy as np

from skipbo_env.vector import VectorEngine
from skipbo_env.vector.rollout import rollout_labels, scratch_engine
from skipbo_env.vector.scripted import BATCHED_PLAYERS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--stock-size", type=int, default=30)
    parser.add_argument("--games", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--margin", type=float, default=1.0)
    parser.add_argument("--deals", type=int, default=0)
    parser.add_argument("--play", action="store_true")
    args = parser.parse_args(argv)
    if min(args.games, args.steps, args.stock_size) < 1 or not 0 <= args.margin < 1e6 \
            or not 0 <= args.deals <= 1000:
        parser.error("--games, --steps and --stock-size must be at least 1, --margin in "
                     "[0, 1e6), --deals in 0..1000")
    try:
        engine = VectorEngine(args.variant, args.players, num_games=args.games,
                              stock_size=args.stock_size, autoreset=not args.play)
    except ValueError as e:
        parser.error(str(e))
    engine.reset(seed=0)
    kinds = np.full((args.games, args.players), BATCHED_PLAYERS.index("expert"), dtype=np.int64)
    scratch = scratch_engine(engine)
    if args.play:
        return play(engine, kinds, scratch, args)
    rollout_labels(engine, engine.scripted_actions(kinds).copy(), scratch,
                   deals=args.deals)  # warm-up
    labelled = differ = 0
    seconds = 0.0
    for _ in range(args.steps):
        expert = engine.scripted_actions(kinds).copy()
        start = time.perf_counter()
        labels = rollout_labels(engine, expert, scratch, margin=args.margin,
                                deals=args.deals, seed=labelled)
        seconds += time.perf_counter() - start
        labelled += len(labels)
        differ += int((labels != expert).sum())
        engine.step(expert)
    print(f"rollout teacher: {labelled / seconds:.0f} labels/s, differs from expert in "
          f"{differ / labelled:.1%} of {labelled} decisions")
    return 0


def play(engine, kinds, scratch, args) -> int:
    """The teacher against `expert` in whole games (module docstring)."""
    from skipbo_env.arena.stats import wilson
    from skipbo_env.vector import bundles as K

    games = engine.num_games
    teacher_seat = np.arange(games) % engine.rules.num_players
    labelled, seconds = 0, 0.0
    while True:
        expert = engine.scripted_actions(kinds).copy()
        if (expert < 0).all():
            break
        mine = (expert >= 0) & (engine.seats == teacher_seat)
        start = time.perf_counter()
        labels = rollout_labels(engine, np.where(mine, expert, -1), scratch,
                                margin=args.margin, deals=args.deals, seed=labelled)
        seconds += time.perf_counter() - start
        labelled += int(mine.sum())
        engine.step(np.where(mine, labels, expert))
    scal = engine.state.scal
    won = scal[:, K.S.phase] == K.WON
    teams = engine.static.team_id
    wins = int((won & (teams[scal[:, K.S.win]] == teams[teacher_seat])).sum())
    lo, hi = wilson(wins, games)
    print(f"rollout teacher: {wins / games:.1%} ({lo:.1%}-{hi:.1%}) of {games} games won "
          f"against expert, {(~won).mean():.1%} drawn or cut at the turn limit, "
          f"{labelled / max(seconds, 1e-9):.0f} labels/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
