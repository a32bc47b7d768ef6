"""The test run's set-up: the tests run in one process per core (pytest-xdist, ``-n auto``).

- The batched engine compiles once per run, not once per worker: while the workers start on
  the tests, one more process compiles every kernel into numba's cache
  (``python -m skipbo_env.vector``), and a worker that needs a kernel being compiled waits
  for it and loads it (each kernel compiles under a file lock: skipbo_env/vector/_cache.py).
- Each process runs numba's kernels on one thread, so the processes do not fight over the
  cores (numba's threads spin while they wait for each other when a core is taken).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

PRECOMPILE = pytest.StashKey[subprocess.Popen]()  # the process compiling the kernels

if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker process of `pytest -n`
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")


def pytest_configure(config) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER") or not getattr(config.option, "numprocesses", 0):
        return
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    config.stash[PRECOMPILE] = subprocess.Popen(
        [sys.executable, "-m", "skipbo_env.vector"], env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)


def pytest_unconfigure(config) -> None:
    # Left to finish (a few seconds when the cache is warm): a kernel cut off while it is
    # written to the cache would be compiled again by the next run, not loaded.
    process = config.stash.get(PRECOMPILE, None)
    if process is not None:
        process.wait()
