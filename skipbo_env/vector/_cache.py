"""numba's on-disk cache of the batched engine, keyed to all of its sources.

numba checks a cached kernel against the source file that defines it and no other, so a kernel
of `players.py` that inlines a rule from `kernels.py` would keep running its old machine code
after that rule changed. Here every kernel is cached in a directory named after a hash of
every ``*.py`` file of this package: an edit to any of them starts a fresh directory, and
everything recompiles. The directory lies under ``NUMBA_CACHE_DIR`` when the user sets it,
else in this package's ``__pycache__`` (where older directories are removed), else under
the user's cache directory; where none can be written, the kernels compile without a cache.

Processes that start at once on a cold cache (test workers, a user's parallel jobs) compile
each kernel once between them: a kernel compiles under a file lock of its own in the cache
directory, and a process that finds the lock taken waits, then loads what the other wrote.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator

from numba.core import config
from numba.core.compiler_lock import global_compiler_lock

try:
    import fcntl
except ImportError:  # Windows: no lock; processes may compile a kernel twice
    fcntl = None  # type: ignore[assignment]

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "skipbo-vector-"


def source_key(directory: str = HERE) -> str:
    """A hash of the names and contents of every ``*.py`` file in `directory`."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(directory)):
        if name.endswith(".py"):
            digest.update(name.encode() + b"\0")
            with open(os.path.join(directory, name), "rb") as f:
                digest.update(f.read() + b"\0")
    return digest.hexdigest()[:16]


def _writable(path: str) -> bool:
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError:
        return False
    return True


def cache_dir(key: str | None = None) -> str | None:
    """Where the kernels of these sources are cached (None: nowhere writable)."""
    name = PREFIX + (key or source_key())
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        path = os.path.join(user, name)
        return path if _writable(path) else None
    in_tree = os.path.join(HERE, "__pycache__")
    path = os.path.join(in_tree, name)
    if _writable(path):
        for old in os.listdir(in_tree):  # directories of earlier sources
            if old.startswith(PREFIX) and old != name:
                shutil.rmtree(os.path.join(in_tree, old), ignore_errors=True)
        return path
    path = os.path.join(os.path.expanduser("~"), ".cache", "skipbo_env", name)
    return path if _writable(path) else None


CACHE_DIR = cache_dir()


def cached_jit(njit: Callable, fn: Callable, options: dict):
    """``njit(fn, **options)``, cached in `CACHE_DIR`. numba's cache locator reads the
    directory from its config when the kernel is defined, so the config holds ours for just
    that moment and the user's setting for every other numba function."""
    if CACHE_DIR is None:
        return njit(fn, **options)
    saved = config.CACHE_DIR  # type: ignore[attr-defined]  # set from the environment
    config.CACHE_DIR = CACHE_DIR  # type: ignore[attr-defined]
    try:
        dispatcher = njit(fn, cache=True, **options)
    finally:
        config.CACHE_DIR = saved  # type: ignore[attr-defined]
    if fcntl is not None:
        _compile_once(dispatcher, os.path.join(
            CACHE_DIR, f"{fn.__module__}.{fn.__qualname__}.lock"))
    return dispatcher


def _compile_once(dispatcher, lock: str) -> None:
    """Make `dispatcher` compile (or load from the cache) under the file lock `lock`, so
    processes compiling at once compile it once: the others wait, then load it. numba's own
    lock is taken first, so threads of one process never wait on each other's file lock."""
    compile_ = dispatcher.compile

    def locked(sig):
        with global_compiler_lock, _file_lock(lock):
            return compile_(sig)

    dispatcher.compile = locked


@contextlib.contextmanager
def _file_lock(path: str) -> Iterator[None]:
    """An exclusive lock on the file `path` (made if missing) while the block runs; no lock
    where the file cannot be opened."""
    try:
        f = open(path, "a")  # noqa: SIM115 (held open for the lock's lifetime)
    except OSError:
        yield
        return
    with f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
