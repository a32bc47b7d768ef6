"""How the batched engine shares the cores (skipbo_env/vector/threads.py) and says that it
compiles (skipbo_env/vector/_cache.py): one test per rule."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from skipbo_env.vector import VectorEngine, threads
from skipbo_env.vector.env import SkipBoVectorEnv


def _python(code: str, **env: str) -> subprocess.CompletedProcess:
    """`code` in a fresh interpreter whose environment has no NUMBA_ or OMP_ variable but
    those in `env`."""
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("NUMBA_", "OMP_", "PYTEST_XDIST"))}
    clean.update(env)
    return subprocess.run([sys.executable, "-c", code], env=clean, capture_output=True,
                          text=True, check=True, timeout=600)


def _two_threads(monkeypatch) -> None:
    """Run the engine's kernels on two threads whatever numba's setting (test workers run
    numba on one thread each)."""
    monkeypatch.setattr(threads, "thread_count", lambda: 2)


def _python_kernel():
    """A kernel in Python with the chunk loop of bundles.next_chunk (a lock for the atomic
    count), recording which thread took each chunk."""
    lock, seen = threading.Lock(), []

    def kernel(work, rows_done):
        while True:
            with lock:
                chunk = work[0]
                work[0] += 1
            lo, hi = chunk * work[1], min(chunk * work[1] + work[1], work[2])
            if lo >= hi:
                return
            rows_done[lo:hi] += 1
            seen.append(threading.get_ident())
            threading.Event().wait(0.005)  # long enough for the other thread to take some

    return kernel, seen


def test_a_kernel_runs_on_numbas_number_of_threads_sharing_the_chunks(monkeypatch):
    _two_threads(monkeypatch)
    kernel, seen = _python_kernel()
    rows = np.zeros(4096, dtype=np.int64)
    threads.run(kernel, rows.size, (rows,))
    assert (rows == 1).all()  # every game once
    assert len(seen) == 2 * threads.CHUNKS_PER_THREAD
    assert threading.get_ident() in seen
    assert len(set(seen)) == 2  # the caller and one helper


def test_a_kernel_over_few_games_runs_on_the_calling_thread_alone(monkeypatch):
    _two_threads(monkeypatch)
    kernel, seen = _python_kernel()
    rows = np.zeros(threads.MIN_PARALLEL_ROWS - 1, dtype=np.int64)
    threads.run(kernel, rows.size, (rows,))
    assert (rows == 1).all()
    assert seen == [threading.get_ident()]  # one chunk, on this thread
    assert threads.plan(4096, threads=2) == (2, 4096 // (2 * threads.CHUNKS_PER_THREAD))


def test_an_error_is_raised_only_once_every_thread_is_done_with_the_arrays(monkeypatch):
    _two_threads(monkeypatch)
    done = []

    def kernel(work, _):
        if threading.get_ident() == threading.main_thread().ident:
            raise ValueError("the caller's share failed")
        threading.Event().wait(0.05)
        done.append("helper")

    with pytest.raises(ValueError, match="caller's share"):
        threads.run(kernel, 4096, (None,))
    assert done == ["helper"]  # not still writing when the error reaches the caller

    def failing_helper(work, _):
        if threading.get_ident() != threading.main_thread().ident:
            raise ValueError("helper failed")

    with pytest.raises(ValueError, match="helper failed"):
        threads.run(failing_helper, 4096, (None,))


def test_the_engine_on_two_threads_plays_what_it_plays_on_one(monkeypatch):
    def play(count: int):
        monkeypatch.setattr(threads, "thread_count", lambda: count)
        engine = VectorEngine("masters", 2, num_games=600)
        engine.reset(seed=5)
        for _ in range(120):
            engine.step_random()
        engine.step(engine.random_actions())
        wins = engine.play(["expert", "greedy"], 1)
        env = SkipBoVectorEnv("standard", 2, num_envs=600, opponents="expert,naive")
        env.reset(seed=6)
        for _ in range(40):
            env.step(env.action_masks().argmax(axis=1))
        return (engine.state.piles.copy(), engine.obs.copy(), wins["wins"],
                env.engine.state.piles.copy(), env.engine.obs.copy())

    one, two = play(1), play(2)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a, b)


def test_numba_num_threads_and_set_num_threads_choose_the_engines_threads():
    code = ("import numba\nfrom skipbo_env.vector import threads\nprint(threads.plan(4096))\n"
            "numba.set_num_threads(1)\nprint(threads.plan(4096))")
    out = _python(code, NUMBA_NUM_THREADS="2").stdout.split("\n")
    assert out[:2] == ["(2, 256)", "(1, 4096)"]
    out = _python(code.split("\nnumba.set")[0], NUMBA_NUM_THREADS="1").stdout.split("\n")
    assert out[0] == "(1, 4096)"


CHOICE = """
import os
import numba
before = {k: v for k, v in os.environ.items() if k.startswith(("NUMBA_", "OMP_"))}
from skipbo_env.vector import VectorEngine, threads
e = VectorEngine("standard", 2, num_games=600)
e.reset(seed=0)
e.step_random()
after = {k: v for k, v in os.environ.items() if k.startswith(("NUMBA_", "OMP_"))}
try:
    layer = numba.threading_layer()
except ValueError:
    layer = "none started"
print(before == after, numba.config.THREADING_LAYER, layer, threads.thread_count(),
      1 in threads._pools)
"""


def test_the_engines_threading_is_in_force_after_import_and_sets_nothing_of_the_users():
    # Two threads: the engine's own pool runs the kernels; numba's threading layer (OpenMP,
    # whose threads spin) is never started; no NUMBA_ or OMP_ variable is set or changed.
    out = _python(CHOICE, NUMBA_NUM_THREADS="2").stdout.split()
    assert out == ["True", "default", "none", "started", "2", "True"]
    # The user's own choices stay theirs.
    out = _python(CHOICE, NUMBA_NUM_THREADS="2", NUMBA_THREADING_LAYER="workqueue",
                  OMP_WAIT_POLICY="ACTIVE").stdout.split()
    assert out[:2] == ["True", "workqueue"]


NOTICE = "compiling the batched engine's kernels"
FIRST_ILLEGAL = """
import numpy as np
from skipbo_env.vector import VectorEngine, kernels
e = VectorEngine("standard", 2, num_games=4)
print(kernels.first_illegal(e.state, e.buffers, np.zeros(4, dtype=np.int64)))
"""


def test_the_compile_notice_appears_on_an_empty_cache_and_not_on_a_warm_one(tmp_path):
    cold = _python(FIRST_ILLEGAL, NUMBA_CACHE_DIR=str(tmp_path))
    lines = [line for line in cold.stderr.splitlines() if NOTICE in line]
    assert len(lines) == 1
    assert str(tmp_path) in lines[0] and " s " in lines[0]  # where, and about how long
    warm = _python(FIRST_ILLEGAL, NUMBA_CACHE_DIR=str(tmp_path))
    assert NOTICE not in warm.stderr
    assert cold.stdout == warm.stdout
