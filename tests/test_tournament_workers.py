"""The tournament harness when a worker process dies (killed by the system, out of memory):
the lost deals are played again in a fresh pool, and a worker that dies every time stops the
tournament with an error instead of a wait forever, and each worker holds numpy's BLAS to one
thread (skipbo_env/arena/tournament.py; the value collection's shards too)."""

from __future__ import annotations

import operator
import os
import signal

import pytest

from skipbo_env import Rules
from skipbo_env.arena import tournament
from skipbo_env.players.registry import parse_players
from skipbo_env.train import value as value_training

RULES = Rules.preset("short", 2, stock_size=3)


def _jobs(deals: int = 6) -> list:
    specs = parse_players(["greedy", "random"])
    return [(RULES, specs, 11, range(i, i + 1), False) for i in range(deals)]


def die_once(job):
    """Kill this worker the first time any worker runs a job (a marker file says so), then
    play jobs as the harness does."""
    marker, real = job
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return tournament._work(real)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)
    return None


def always_die(job):
    os.kill(os.getpid(), signal.SIGKILL)


def _key(records):
    return sorted((r["deal"], r["rotation"], tuple(r["winners"]), r["turns"]) for r in records)


def test_a_dead_workers_deals_are_played_again_with_the_same_results(tmp_path):
    marker = str(tmp_path / "died")
    jobs = _jobs()
    survived = [r for part in tournament._parts([(marker, j) for j in jobs], 2, die_once)
                for r in part]
    assert os.path.exists(marker)  # a worker did die
    plain = [r for part in tournament._parts(jobs, 1) for r in part]
    assert _key(survived) == _key(plain) and len(plain) == 12


def test_a_worker_that_dies_every_time_stops_the_tournament_with_the_reason():
    with pytest.raises(tournament.WorkerDied, match="worker process died .* no result"):
        list(tournament._parts(_jobs(), 2, always_die))


@pytest.mark.parametrize("command", [
    ["tournament", "--players", "greedy,random", "--games", "4", "--stock-size", "3"],
    ["evaluate", "short_2p", "--opponents", "random", "--games", "4"],
    ["benchmark", "short_2p", "--player", "naive", "--games", "2"]])
def test_tournament_evaluate_and_benchmark_exit_1_naming_the_dead_worker(command, monkeypatch,
                                                                           capsys, tmp_path):
    from skipbo_env.apps import cli

    def dead(*args, **kwargs):
        raise tournament.WorkerDied("a worker process died (signal 9): no result")

    monkeypatch.setattr(tournament, "_parts", dead)
    monkeypatch.chdir(tmp_path)
    assert cli.main([*command, "--workers", "2"]) == 1
    err = capsys.readouterr().err
    assert f"skipbo {command[0]}: error: a worker process died" in err


def blas_threads(infos: list[dict]) -> list[int]:
    return [i["num_threads"] for i in infos if i["user_api"] == "blas"]


def test_each_tournament_worker_holds_numpys_blas_to_one_thread():
    from threadpoolctl import threadpool_info

    parts = list(tournament._parts([threadpool_info] * 2, 2, operator.call))
    assert len(parts) == 2 and all(blas_threads(p) == [1] for p in parts)


def test_each_value_collection_shard_holds_numpys_blas_to_one_thread():
    from threadpoolctl import threadpool_info

    with value_training._pool(2) as pool:
        parts = pool.map(operator.call, [threadpool_info] * 2)
    assert len(parts) == 2 and all(blas_threads(p) == [1] for p in parts)
