"""How the batched engine shares the cores: its own worker threads, each taking the next chunk
of games as it comes free.

An entry point of the engine (`bundles.entry`) is a plain numba kernel that releases the GIL
(``nogil``) and loops over chunks of its games: each thread that runs it takes the next
chunk with an atomic count (`bundles.next_chunk`) until none is left. `run` starts it on
the calling thread and on ``threads - 1`` helper threads of a pool of this module, then waits.

Why not numba's ``parallel=True`` loops: their threading layers give every thread one equal
share of the games up front (OpenMP, numba's default here, also spins while it waits), so when
another process holds a core the thread on it finishes late and the rest wait for it: the
engine fell to under half its quiet speed beside one busy process. Here a thread that is slowed
takes fewer chunks and a thread that has none left returns; nobody spins. And a parallel loop
costs its kernel a second compilation of everything it calls (numba's gufunc), which was most
of a first start's minutes. docs/vector.md has the figures (benchmarks/vector_speed.py: quiet
and beside a busy process).

The number of threads is numba's (``NUMBA_NUM_THREADS``, ``numba.set_num_threads`` on the
calling thread): this module sets no variable and changes no setting of numba or OpenMP (torch's
threads are left as the user has them). A kernel over fewer than `MIN_PARALLEL_ROWS` games runs
on the calling thread alone (waking a helper costs more than it saves).
"""

from __future__ import annotations

import inspect
import os
import threading
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba.np.ufunc import parallel as _numba_parallel

CHUNKS_PER_THREAD = 8
MIN_PARALLEL_ROWS = 256

_pools: dict[int, ThreadPoolExecutor] = {}  # by number of helpers (never shut down)
_pools_lock = threading.Lock()


def thread_count() -> int:
    """The threads a kernel runs on: numba's number for the calling thread (its environment
    variable, or ``numba.set_num_threads``), read without starting numba's own threads."""
    if _numba_parallel._is_initialized:
        return int(numba.get_num_threads())
    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]  # from env


def plan(rows: int, threads: int | None = None) -> tuple[int, int]:
    """(threads, games a chunk) for a kernel over `rows` games."""
    threads = thread_count() if threads is None else threads
    if threads <= 1 or rows < MIN_PARALLEL_ROWS:
        return 1, max(1, rows)
    return threads, max(1, -(-rows // (threads * CHUNKS_PER_THREAD)))


def _helpers(count: int) -> ThreadPoolExecutor:
    """The pool of `count` helper threads (one per count: callers on threads with other
    numba thread counts never shut down each other's)."""
    with _pools_lock:
        if count not in _pools:
            _pools[count] = ThreadPoolExecutor(count, thread_name_prefix="skipbo-vector")
        return _pools[count]


def _forget_pools() -> None:
    """In a forked child the pools' threads are gone: start new pools when they are needed."""
    global _pools, _pools_lock
    _pools, _pools_lock = {}, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def run(kernel: Callable, rows: int, args: tuple) -> None:
    """``kernel(work, *args)`` on every thread of `plan`, sharing `rows` games in chunks."""
    threads, size = plan(rows)
    work = np.array([0, size, rows], dtype=np.int64)  # next chunk, chunk size, rows
    if threads == 1:
        kernel(work, *args)
        return
    helpers: list[futures.Future] = []
    try:
        pool = _helpers(threads - 1)
        helpers.extend(pool.submit(kernel, work, *args) for _ in range(threads - 1))
    except RuntimeError:  # no new threads (the interpreter is shutting down): fewer helpers
        pass
    try:
        kernel(work, *args)  # takes whatever chunks the helpers do not
    finally:
        futures.wait(helpers)  # every helper done with the arrays before anything returns
    for helper in helpers:
        helper.result()  # a helper's error, raised here


class Launcher:
    """An entry point as Python calls it: its arguments without `work`, its games run by
    `run`. The games are those of its argument `over` (a `State`: its games; an array: its
    length). Every other attribute is the numba dispatcher's."""

    def __init__(self, kernel, over: str) -> None:
        names = list(inspect.signature(kernel.py_func).parameters)
        if names[:1] != ["work"] or over not in names:
            raise TypeError(f"an entry point takes work first and {over!r}; "
                            f"{kernel.py_func.__qualname__} takes {names}")
        self.kernel = kernel
        self._over = names.index(over) - 1  # among the arguments after work
        self.__doc__ = kernel.__doc__
        self.__name__ = kernel.__name__

    def __call__(self, *args) -> None:
        over = args[self._over]
        rows = over.piles.shape[0] if hasattr(over, "piles") else len(over)
        run(self.kernel, rows, args)

    def __getattr__(self, name: str):
        if name == "kernel":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.kernel, name)
