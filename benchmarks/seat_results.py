"""One player's win rate by seat (or team) against another on a benchmark task's rules, for
players too slow for the full task (docs/benchmark.md, "Win rates by seat").

    python benchmarks/seat_results.py TASK --player lookahead --against expert [--games 60]
        [--seating exploit]

The player takes one side alone, the other player every other seat (in team tasks the
player's team is two copies of it): the task's first lineup for that pair, with the task's
seed, seat rotation and paired deals (`skipbo_env.arena.benchmark`). With `--seating
exploit` it sits as the exploitability proxy's best response does: alone, the other player in
every other seat, its partner included (`benchmark.exploit_lineup`). Prints the overall win
rate and the win rate from each seat or team, with 95% intervals.
"""

from __future__ import annotations

import argparse

from skipbo_env.arena import benchmark as bench
from skipbo_env.arena.tournament import run_games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=list(bench.TASKS))
    parser.add_argument("--player", required=True)
    parser.add_argument("--against", required=True)
    parser.add_argument("--games", type=int, default=60)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seating", choices=["lineup", "exploit"], default="lineup",
                        help="the task's first lineup for the pair (default), or the "
                             "exploitability proxy's seating")
    args = parser.parse_args()
    if not 1 <= args.games <= bench.MAX_GAMES:
        parser.error(f"--games is 1..{bench.MAX_GAMES}")
    t = bench.task(args.task)
    rules = t.game_rules()
    if args.player == args.against:
        parser.error("--player and --against must differ")
    seats = (bench.exploit_lineup(t, args.player, args.against) if args.seating == "exploit"
             else t.lineups(args.player, args.against)[0])
    try:
        result = run_games(rules, seats, args.games, t.seed, args.workers, progress=False,
                           keep_records=True)
    except ValueError as e:  # an unknown player, a checkpoint for other games, ...
        parser.error(str(e))
    me = result["players"][args.player]
    lo, hi = me["ci95"]
    rows = bench.by_seat(result["records"], [args.player], rules.teams)[args.player]
    word = "team" if rules.teams else "seat"
    print("| player | against | task | games | win rate | "
          + " | ".join(f"{word} {i}" for i in range(len(rows))) + " |")
    print("|---|---|---|---|---|" + "---|" * len(rows))
    # by_seat counts a player only where it is a side on its own: none of its games when
    # its partner is the other player (the exploit seating of a team task).
    cells = [f"{r['win_rate']:.1%} ({r['ci95'][0]:.0%}-{r['ci95'][1]:.0%}) of {r['games']}"
             if r["games"] else "no games alone on its side" for r in rows]
    print(f"| {args.player} | {args.against} | {t.name} | {result['games']} | "
          f"{me['win_rate']:.1%} ({lo:.1%}-{hi:.1%}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
