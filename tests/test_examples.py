"""The scripts in examples/ run as documented (with small numbers here) and print what they
measure."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(script: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "examples" / script), *args],
                          capture_output=True, text=True, timeout=900, cwd=ROOT)


def test_the_pettingzoo_style_sb3_example_trains_and_plays_random(tmp_path):
    out = tmp_path / "model.zip"
    result = _run("sb3_action_mask.py", "--steps", "256", "--games", "4", "--out", str(out))
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("win rate against random: ") and "untrained" in last
    assert out.is_file()


def test_the_cleanrl_style_example_trains_on_make_vec_with_the_info_mask():
    result = _run("cleanrl_masked_ppo.py", "--total-timesteps", "512", "--num-envs", "8",
                  "--num-steps", "32")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("update 1/2: 256 steps")
    assert lines[-1].startswith("win rate against random over the last updates'")


def test_the_examples_refuse_bad_numbers():
    for script, option in [("sb3_action_mask.py", "--steps"),
                           ("cleanrl_masked_ppo.py", "--total-timesteps")]:
        result = _run(script, option, "0")
        assert result.returncode == 2 and "must be positive" in result.stderr


def test_the_segment_search_example_plays_whole_games_on_the_segment_api():
    result = _run("segment_search.py", "--games", "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].endswith("of 2 games against expert")
    assert _run("segment_search.py", "--games", "0").returncode == 2
