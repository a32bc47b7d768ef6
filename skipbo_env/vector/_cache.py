"""numba's on-disk cache of the batched engine, keyed to all of its sources.

numba checks a cached kernel against the source file that defines it and no other, so a kernel
of `scripted.py` that inlines a rule from `play_rules.py` would keep running its old machine
code after that rule changed. Here every kernel is cached in a directory named after a hash of
every module of this package that defines kernels (`source_key`): an edit to any of them
starts a fresh directory, and everything recompiles. The directory lies under
``NUMBA_CACHE_DIR`` when the user sets it, else in this package's ``__pycache__`` (where older
directories are removed), else under the user's cache directory; where none can be written,
the kernels compile without a cache.

Processes that start at once on a cold cache (test workers, a user's parallel jobs) compile
each kernel once between them: a kernel compiles under a file lock of its own in the cache
directory, and a process that finds the lock taken waits, then loads what the other wrote.

A first start compiles what it calls (the vector env: one entry point, about 45 s here): the
first entry point of a process that misses the cache prints one line on stderr saying so
(`_CompileNotice`), and the kernels below the entry points are optimised only lightly
(`HELPER_OPT`), as the entry points optimise all they call again.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator

from numba.core import config, event
from numba.core.compiler_lock import global_compiler_lock
from numba.core.config import _OptLevel

try:
    import fcntl
except ImportError:  # Windows: no lock; processes may compile a kernel twice
    fcntl = None  # type: ignore[assignment]

HERE = os.path.dirname(os.path.abspath(__file__))
PREFIX = "skipbo-vector-"


# A module whose text holds one of these defines kernels (or how they compile: this one).
KERNEL_MARKS = (b"@jit", b"@entry", b"@intrinsic", b"def cached_jit")


def source_key(directory: str = HERE) -> str:
    """A hash of the names and contents of the ``*.py`` files in `directory` that define
    kernels or how they compile (`KERNEL_MARKS`): the Python around the kernels (the env,
    `VectorEngine`, the tables, the threads) changes no machine code."""
    digest = hashlib.sha256()
    for name in sorted(os.listdir(directory)):
        if name.endswith(".py"):
            with open(os.path.join(directory, name), "rb") as f:
                text = f.read()
            if any(mark in text for mark in KERNEL_MARKS):
                digest.update(name.encode() + b"\0" + text + b"\0")
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


def cached_jit(njit: Callable, fn: Callable, options: dict, top: bool = True):
    """``njit(fn, **options)``, cached in `CACHE_DIR`. numba's cache locator reads the
    directory from its config when the kernel is defined, so the config holds ours for just
    that moment and the user's setting for every other numba function. A kernel that is not
    `top` is optimised at `HELPER_OPT` (`_compile`)."""
    if CACHE_DIR is None:
        dispatcher = njit(fn, **options)
    else:
        saved = config.CACHE_DIR  # type: ignore[attr-defined]  # set from the environment
        config.CACHE_DIR = CACHE_DIR  # type: ignore[attr-defined]
        try:
            dispatcher = njit(fn, cache=True, **options)
        finally:
            config.CACHE_DIR = saved  # type: ignore[attr-defined]
    lock = None
    if fcntl is not None and CACHE_DIR is not None:
        lock = os.path.join(CACHE_DIR, f"{fn.__module__}.{fn.__qualname__}.lock")
    _compile(dispatcher, lock, top)
    return dispatcher


# LLVM's optimisation level of the kernels that are not `top`. A kernel that calls another
# links in the callee's code and optimises it again with its own, so the entry points' level
# (numba's, 3) decides the machine code that runs, and a helper's own pass only prepares it.
# The vector env's first start, measured on one version of the kernels: 90 s with helpers at
# 3, 74 s at 1, 128 s at 0 (left so much to the entry point that it took longer).
HELPER_OPT = 1
NOTICE_SECONDS = 45


def _compile(dispatcher, lock: str | None, top: bool) -> None:
    """Make `dispatcher` compile (or load from the cache) under the file lock `lock`, so
    processes compiling at once compile it once: the others wait, then load it. numba's own
    lock is taken first, so threads of one process never wait on each other's file lock."""
    compile_ = dispatcher.compile
    level = config.OPT if top else _OptLevel(HELPER_OPT)  # type: ignore[attr-defined]

    def locked(sig):
        with global_compiler_lock, (_file_lock(lock) if lock else contextlib.nullcontext()):
            saved = config.OPT  # type: ignore[attr-defined]
            config.OPT = level  # type: ignore[attr-defined]
            try:
                return compile_(sig)
            finally:
                config.OPT = saved  # type: ignore[attr-defined]

    dispatcher.compile = locked
    dispatcher._skipbo_top = top


class _CompileNotice(event.Listener):
    """One line on stderr, once a process, when an entry point of the engine is not in the
    cache and compiles (numba's "numba:compile" event: after the cache was tried)."""

    shown = False

    def on_start(self, ev) -> None:
        if _CompileNotice.shown or not getattr(ev.data["dispatcher"], "_skipbo_top", False):
            return
        _CompileNotice.shown = True
        where = (f"cached in {CACHE_DIR}, so later starts load them in about a second"
                 if CACHE_DIR else "no cache directory is writable, so every start compiles")
        print(f"skipbo_env: compiling the batched engine's kernels for their first use, about "
              f"{NOTICE_SECONDS} s on a two-core machine; {where} "
              f"(python -m skipbo_env.vector compiles them all beforehand)",
              file=sys.stderr, flush=True)

    def on_end(self, ev) -> None:
        pass


event.register("numba:compile", _CompileNotice())


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
