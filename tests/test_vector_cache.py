"""The batched engine's compiled kernels are cached under a key of all of its sources, so an
edit to any kernel file reaches every kernel that inlines it (skipbo_env/vector/_cache.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import skipbo_env
from skipbo_env.vector import _cache

PACKAGE = Path(skipbo_env.__file__).resolve().parent

# A kernel of seating.py (`_new_seating`) that inlines `agent_random` from generator.py: the
# learner's seats it draws show which `agent_random` it runs.
SEATS = """
import numpy as np
from skipbo_env.vector import seating as KA
from skipbo_env.vector.batched import VectorEngine
e = VectorEngine("standard", 4, num_games=16)  # no reset: only _new_seating compiles
e.state.arng[:] = np.arange(16, dtype=np.uint64)
seating = KA.Seating(np.zeros((16, 4), np.int64), np.zeros(16, np.int64),
                     np.array([0.5, 0.75, 1.0]), np.zeros(16), np.zeros(16, np.int64),
                     np.zeros(16, np.int64), np.zeros(1))
for g in range(16):
    KA._new_seating(e.state, e.static, seating, -1, g)
print(seating.learner.tolist())
"""


def _seats(root: Path, cache: Path) -> list[int]:
    env = dict(os.environ, PYTHONPATH=str(root), NUMBA_CACHE_DIR=str(cache))
    result = subprocess.run([sys.executable, "-c", SEATS], env=env, capture_output=True,
                            text=True, timeout=300, cwd=root)
    assert result.returncode == 0, result.stderr
    return eval(result.stdout.strip().splitlines()[-1])  # a list of ints printed above


def test_an_edit_to_the_generator_file_recompiles_the_seating_kernels_that_inline_it(tmp_path):
    root = tmp_path / "tree"
    shutil.copytree(PACKAGE, root / "skipbo_env",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    cache = tmp_path / "numba"
    before = _seats(root, cache)
    assert _seats(root, cache) == before  # a second run loads the cache: the same draws
    generator = root / "skipbo_env" / "vector" / "generator.py"
    source = generator.read_text()
    old = "z = arng[g] + np.uint64(0x9E3779B97F4A7C15)"
    assert old in source
    generator.write_text(source.replace(old, "z = arng[g] + np.uint64(0x9E3779B97F4A7C17)"))
    after = _seats(root, cache)
    # Stale machine code of seating.py would draw the same seats as before.
    assert after != before
    assert len(list(cache.glob(_cache.PREFIX + "*"))) == 2  # one directory per version


def test_the_cache_key_changes_with_any_kernel_module_and_respects_numba_cache_dir(tmp_path,
                                                                                  monkeypatch):
    (tmp_path / "generator.py").write_text("@jit\ndef f(): pass\n")
    (tmp_path / "seating.py").write_text("@entry\ndef g(work): pass\n")
    (tmp_path / "env.py").write_text("x = 1\n")  # no kernel: the Python around them
    (tmp_path / "notes.txt").write_text("@jit\n")
    key = _cache.source_key(str(tmp_path))
    (tmp_path / "notes.txt").write_text("not a source\n")
    (tmp_path / "env.py").write_text("x = 2\n")
    assert _cache.source_key(str(tmp_path)) == key
    (tmp_path / "seating.py").write_text("@entry\ndef g(work): return 1\n")
    assert _cache.source_key(str(tmp_path)) != key
    key = _cache.source_key(str(tmp_path))
    (tmp_path / "env.py").write_text("@jit\ndef h(): pass\n")  # a kernel moves in
    assert _cache.source_key(str(tmp_path)) != key
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "user"))
    assert _cache.cache_dir("abc") == str(tmp_path / "user" / (_cache.PREFIX + "abc"))


SHUFFLE = """
import numpy as np
from skipbo_env.vector import _cache, generator
piles = np.arange(8, dtype=np.int8).reshape(1, 1, 8)
generator.shuffle(piles, np.ones((1, 6), dtype=np.uint64), 0, 0, 8)
print(_cache.CACHE_DIR, sum(generator.shuffle.stats.cache_hits.values()),
      sum(generator.shuffle.stats.cache_misses.values()))
"""


def test_a_kernel_another_process_is_compiling_is_waited_for_and_loaded_not_compiled_again(
        tmp_path):
    # Hold `shuffle`'s lock as a process compiling it would: the second process waits until
    # the lock is let go, then compiles it (here nobody wrote it); a third loads it.
    import fcntl
    import time

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    run = [sys.executable, "-c", SHUFFLE]
    probe = subprocess.run([sys.executable, "-c", "from skipbo_env.vector import _cache;"
                            "print(_cache.CACHE_DIR)"], env=env, capture_output=True,
                           text=True, timeout=300)
    lock = Path(probe.stdout.strip()) / "skipbo_env.vector.generator.shuffle.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = subprocess.Popen(run, env=env, stdout=subprocess.PIPE, text=True)
        time.sleep(8)  # long enough to import and reach the kernel (2-3 s here)
        assert waiting.poll() is None, "the kernel was compiled while its lock was held"
        fcntl.flock(held, fcntl.LOCK_UN)
    out, _ = waiting.communicate(timeout=300)
    assert waiting.returncode == 0 and out.split()[1:] == ["0", "1"]  # compiled it
    again = subprocess.run(run, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and again.stdout.split()[1:] == ["1", "0"]  # loaded it
