"""The tournament harness: seat-rotated games with paired deals, measured the same way every
time (docs/agents.md).

Each deal is played once from every seat rotation, so luck of the deal cancels out; every deal
and every agent is seeded from the tournament seed, so a result is exactly reproducible and
does not depend on how many worker processes share the games.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .. import checks
from ..engine import Game
from ..files import check_target
from ..players.checkpoints import check_checkpoint
from ..players.registry import PlayerSpec, make_agent, parse_players
from ..players.value import one_blas_thread
from ..records import GameRecord
from ..records import write as write_record
from ..rules import Rules
from .stats import elo, ratings, wilson


def _seeds(seed: int, deal: int, count: int) -> list[int]:
    """`count` independent 63-bit seeds for one deal of the tournament seeded `seed`."""
    return [int(s) for s in np.random.SeedSequence([seed, deal]).generate_state(count, np.uint64)
            >> np.uint64(1)]


def play_deal(rules: Rules, players: Sequence[str | PlayerSpec], seed: int,
              deal: int, record: bool = False) -> list[dict]:
    """Every seat rotation of deal number `deal`: one record per game. Each player is given
    only the view of its seat. With `record`, each game's record (`records.GameRecord`) is
    kept under "game"."""
    players = parse_players(list(players), exists=False)
    n = rules.num_players
    records = []
    game_seed, *agent_seeds = _seeds(seed, deal, 1 + n * n)
    for rotation in range(n):
        seats = [players[(i + rotation) % n] for i in range(n)]
        agents = [make_agent(spec, agent_seeds[rotation * n + i]) for i, spec in enumerate(seats)]
        game = Game(rules, game_seed)
        actions: list[tuple[int, int]] = []
        while not game.is_over:
            seat = game.current_player
            action = agents[seat].act(game.view())
            game.step(action)
            if record:
                actions.append((seat, action))
        records.append({"seats": [spec.name for spec in seats], "winners": list(game.winners),
                        "turns": game.turn, "phase": game.phase, "deal": deal,
                        "rotation": rotation})
        if record:
            records[-1]["game"] = GameRecord.of(game, game_seed, [spec.name for spec in seats],
                                                actions)
    return records


def _work(args):
    rules, players, seed, deals, record = args
    return [r for deal in deals for r in play_deal(rules, players, seed, deal, record)]


def record_path(folder: str, prefix: str, deal: int, rotation: int) -> str:
    """Where `--record` writes the game of deal `deal`, seat rotation `rotation`."""
    return os.path.join(folder, f"{prefix}deal{deal:06d}-rotation{rotation}.jsonl")


def check_record_folder(folder: str, paths: Sequence[str]) -> None:
    """Make `folder` (for `--record`) and refuse it, before any game, if it is a link (however
    spelt: "link/" too), a file, cannot be written, or any of `paths` is there already
    (`files.check_target`)."""
    if os.path.islink(os.path.normpath(folder)):
        raise ValueError(f"--record {folder} is a symbolic link: give a directory")
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise ValueError(f"--record {folder} is a file: give a new or empty directory")
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot write records under {folder}: {e.strerror}") from None
    for path in paths:
        check_target(path)


def against(rules: Rules, player: str, others: str) -> list[str]:
    """One seating of `player` against copies of `others`: `player` in seat 0 and, in a team
    game, in every seat of seat 0's team (a team of copies); `others` in every other seat.
    `run_games` rotates it through every seat."""
    mine = rules.team_of(0)
    return [player if seat in mine else others for seat in range(rules.num_players)]


def run_games(rules: Rules, players: Sequence[str | PlayerSpec], games: int, seed: int = 0,
              workers: int | None = None, progress: bool = True,
              keep_records: bool = False, record_dir: str | None = None,
              record_prefix: str = "") -> dict:
    """Play at least `games` games (rounded up to whole deals, each played from every seat
    rotation) between `players`, one name per seat; returns the results dictionary (with
    `keep_records`, also "records": one per game, {"seats", "winners", "turns", "phase",
    "deal", "rotation"}, in deal and rotation order whatever the workers' order). With
    `record_dir`, every game is written there as a game record (`records`, `record_path`),
    each file new: one there already is refused before any game."""
    n = rules.num_players
    specs = parse_players(list(players))  # an unknown name fails here, before any game
    if len(specs) != n:
        raise ValueError(f"give one player per seat: {n} names for {n} players, got "
                         f"{len(specs)} ({', '.join(map(str, specs))})")
    for spec in set(specs):
        if spec.path is not None:
            check_checkpoint(spec.path)  # loaded in the workers
    checks.integer(games, "games", minimum=1)
    if workers is not None:
        checks.integer(workers, "workers", minimum=1, maximum=MAX_WORKERS)
    deals = math.ceil(games / n)
    workers = workers or min(os.cpu_count() or 1, MAX_WORKERS)
    chunk = max(1, min(50, deals // (workers * 16)))  # small: slow players balance too
    if record_dir is not None:
        check_record_folder(record_dir, [record_path(record_dir, record_prefix, d, r)
                                         for d in range(deals) for r in range(n)])
    jobs = [(rules, specs, seed, range(i, min(i + chunk, deals)), record_dir is not None)
            for i in range(0, deals, chunk)]
    start = time.perf_counter()
    records: list[dict] = []  # kept only if asked: a long tournament's memory stays flat
    tally = Tally()
    report = _progress(deals * n) if progress else None
    for part in _parts(jobs, 1 if deals * n <= IN_PROCESS_GAMES else workers):
        for r in part:
            if record_dir is not None:
                write_record(record_path(record_dir, record_prefix, r["deal"], r["rotation"]),
                             r.pop("game"))
        tally.add(part)
        if keep_records:
            records += part
        if report is not None:
            report(tally.total)
    if report is not None:
        report(None)
    result = tally.result(time.perf_counter() - start)
    if keep_records:
        result["records"] = sorted(records, key=lambda r: (r["deal"], r["rotation"]))
    return result


MAX_WORKERS = 256  # worker processes a tournament starts, at most
IN_PROCESS_GAMES = 16  # at most this many games play in this process: no pool to start


POOL_TRIES = 2  # pools a tournament starts when a worker dies (its lost deals redone)


class WorkerDied(RuntimeError):
    """A worker process of a tournament died (killed: out of memory, say) in every try."""


def _parts(jobs: list, workers: int,
           work: Callable[[tuple], list[dict]] | None = None) -> Iterator[list[dict]]:
    """Each job's records as it finishes: in worker processes, or in this one for one
    worker (a few games: starting a pool would cost more than playing them). The results do
    not depend on which: every deal and every player is seeded from the tournament's seed.
    A worker that dies (killed by the system) breaks its pool: the jobs not finished are
    played again in a fresh pool, POOL_TRIES pools in all, then `WorkerDied` says so."""
    work = _work if work is None else work
    if workers == 1:
        threads = _torch_threads()
        try:
            for job in jobs:
                yield work(job)
        finally:
            if threads:  # a checkpoint's loader sets one thread; a training run wants its own
                import torch
                torch.set_num_threads(threads)
        return
    pending = list(jobs)
    for _ in range(POOL_TRIES):
        pending = yield from _pool_parts(pending, workers, work)
        if not pending:
            return
    raise WorkerDied(f"a tournament worker process died (killed by the system: out of memory?) "
                     f"in each of {POOL_TRIES} tries; {len(pending)} of {len(jobs)} batches of "
                     f"deals were not played, and no result is given")


def _pool_parts(jobs: list, workers: int, work: Callable):
    """Yield each job's records from a pool of `workers` processes; returns the jobs a dead
    worker left unfinished (none if every job finished)."""
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    # Forking a process whose torch threads have run can hang the children (a trained policy
    # in the parent, or a training run); start clean workers then.
    method = "spawn" if sys.platform == "win32" else (
        "forkserver" if "torch" in sys.modules else "fork")
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context(method),
                               initializer=one_blas_thread)
    futures = {pool.submit(work, job): i for i, job in enumerate(jobs)}
    done: set[int] = set()
    try:
        for future in as_completed(futures):
            try:
                part = future.result()
            except BrokenProcessPool:
                return [job for i, job in enumerate(jobs) if i not in done]
            done.add(futures[future])
            yield part
        return []
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _torch_threads() -> int:
    """torch's thread count if torch is loaded, else 0."""
    torch = sys.modules.get("torch")
    return torch.get_num_threads() if torch is not None else 0


def _progress(total: int) -> Callable[[int | None], None]:
    """A report of games done (None: the end): a bar redrawn in place on a terminal; in a log
    file, a plain line every tenth instead of carriage returns."""
    tty, shown = sys.stderr.isatty(), [0]

    def report(done: int | None) -> None:
        if done is None:
            if tty:
                print(file=sys.stderr)
        elif tty:
            bar = "#" * (30 * done // total)
            print(f"\r[{bar:<30}] {done}/{total} games", end="", file=sys.stderr, flush=True)
        elif 10 * done // total > shown[0]:
            shown[0] = 10 * done // total
            print(f"{done}/{total} games", file=sys.stderr, flush=True)
    return report


class Tally:
    """Win and draw counts, game lengths and truncations, added a batch of records at a
    time (`summarise` of every record added, without keeping them)."""

    def __init__(self) -> None:
        self.total = self.draws = self.turns = self.truncated = 0
        self.wins: Counter[str] = Counter()
        self.names: set[str] = set()

    def add(self, records: list[dict]) -> None:
        for r in records:
            self.total += 1
            self.names.update(r["seats"])
            for name in {r["seats"][s] for s in r["winners"]}:
                self.wins[name] += 1
            self.draws += not r["winners"]
            self.turns += r["turns"]
            self.truncated += r["phase"] == "truncated"

    def result(self, elapsed: float) -> dict:
        total, draws = self.total, self.draws
        players = {}
        for name in sorted(self.names):
            lo, hi = wilson(self.wins[name], total)
            players[name] = {"wins": self.wins[name], "draws": draws,
                             "win_rate": self.wins[name] / total, "ci95": [lo, hi]}
        return {"games": total, "players": players, "draws": draws,
                "draw_rate": draws / total, "mean_turns": self.turns / total,
                "games_per_second": total / elapsed if elapsed > 0 else float("inf"),
                "truncated": self.truncated}


def summarise(records: list[dict], elapsed: float) -> dict:
    """Win and draw counts, rates with 95% intervals, game length and speed."""
    tally = Tally()
    tally.add(records)
    return tally.result(elapsed)


def round_robin(rules: Rules, names: list[str], games: int, seed: int = 0,
                workers: int | None = None, progress: bool = True,
                record_dir: str | None = None) -> dict:
    """Two-player matches between every pair of `names`: the pairwise table, Elo ratings and
    openskill ratings from every game (`stats.ratings`). With `record_dir`, every game is
    written there as a game record, its file name starting with the pair's number."""
    if rules.num_players != 2:
        raise ValueError("a round robin is played between two players at a time")
    pairs, scores, records = {}, {}, []
    for number, (a, b) in enumerate(itertools.combinations(names, 2)):
        result = run_games(rules, [a, b], games, seed, workers, progress, keep_records=True,
                           record_dir=record_dir, record_prefix=f"pair{number:03d}-")
        records += result.pop("records")
        pairs[f"{a} vs {b}"] = result
        half = result["draws"] / 2
        scores[(a, b)] = (result["players"][a]["wins"] + half) / result["games"]
        scores[(b, a)] = (result["players"][b]["wins"] + half) / result["games"]
    return {"pairs": pairs, "scores": {f"{a} vs {b}": s for (a, b), s in scores.items()},
            "elo": elo(scores, names), "ratings": ratings(records, names)}


def format_results(result: dict, labels: dict[str, str] | None = None) -> str:
    """The results as a table; `labels` shows some players under other names (a checkpoint
    under the name it was given by, not its full path)."""
    labels = labels or {}
    speed = result["games_per_second"]
    lines = [f"{result['games']} games, {speed:.{0 if speed >= 10 else 2}f} games/s, mean "
             f"{result['mean_turns']:.1f} turns, draws {result['draw_rate']:.1%}"
             + (f" ({result['truncated']} at the turn limit)" if result["truncated"] else "")]
    shown = {name: labels.get(name, name) for name in result["players"]}
    width = max(12, *map(len, shown.values()))
    lines.append(f"{'player':{width}s} {'wins':>7s} {'win rate':>9s} {'95% interval':>17s}")
    for name, p in result["players"].items():
        lo, hi = p["ci95"]
        lines.append(f"{shown[name]:{width}s} {p['wins']:7d} {p['win_rate']:9.1%} "
                     f"{f'{lo:.1%} - {hi:.1%}':>17s}")
    return "\n".join(lines)
