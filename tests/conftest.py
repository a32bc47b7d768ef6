"""The test run's set-up: the tests run in one process per core (pytest-xdist), and each
process runs numba's kernels on one thread, so the processes do not fight over the cores
(numba's threads spin while they wait for each other when a core is taken)."""

from __future__ import annotations

import os

if os.environ.get("PYTEST_XDIST_WORKER"):  # a worker process of `pytest -n`
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
