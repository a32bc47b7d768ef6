"""The demonstration command and the benchmark scripts run and say what they measure."""

import io
import re
import subprocess
import sys
from pathlib import Path

import pytest

from skipbo_env.apps.cli import demo, main

ROOT = Path(__file__).resolve().parent.parent


def test_the_demo_plays_a_seeded_game_between_random_players_to_the_end():
    out = io.StringIO()
    game = demo("short", 2, seed=3, stock_size=None, out=out)
    text = out.getvalue()
    assert game.is_over
    assert "building piles" in text and "player 0:" in text and "returns" in text
    again = io.StringIO()
    demo("short", 2, seed=3, stock_size=None, out=again)
    assert again.getvalue() == text


def test_the_demo_command_rejects_bad_arguments_with_a_message(capsys):
    with pytest.raises(SystemExit) as err:
        main(["demo", "--variant", "partnership", "--players", "2"])
    assert err.value.code == 2
    assert "allows 4 players, not 2" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["demo", "--players", "zero"])
    assert "expected a positive integer" in capsys.readouterr().err


def test_an_error_after_parsing_prints_the_subcommands_usage_line(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--players", "expert,bogus", "--games", "2"])
    err = capsys.readouterr().err
    assert "usage: skipbo tournament" in err and "unknown player 'bogus'" in err
    with pytest.raises(SystemExit):
        main(["evaluate", "nowhere.zip"])
    assert "usage: skipbo evaluate" in capsys.readouterr().err


def _without(modules: list[str], argv: list[str]) -> subprocess.CompletedProcess:
    """`skipbo ARGV` in a process where `modules` cannot be imported (an extra not installed)."""
    code = ("import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
            + f"from skipbo_env.apps.cli import main\nsys.exit(main({argv!r}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


TRAIN = "pip install torch==2.13.0 && pip install -e '.[train]'"  # torch's CPU build first


@pytest.mark.parametrize("modules, argv, extra, install", [
    (["starlette", "uvicorn"], ["serve"], "web", "pip install -e '.[web]'"),
    (["sb3_contrib"], ["train", "--config", "configs/short_2p.yaml"], "train", TRAIN),
    (["yaml"], ["train", "--config", "configs/short_2p.yaml"], "train", TRAIN),
    (["torch"], ["train", "--help"], "train", TRAIN),
    (["sb3_contrib"], ["benchmark", "short_2p", "--exploit", "expert"], "train", TRAIN),
])
def test_a_command_without_its_extra_names_the_extra_to_install(modules, argv, extra, install):
    result = _without(modules, argv)
    out = result.stdout if "--help" in argv else result.stderr
    assert result.returncode == (0 if "--help" in argv else 2)
    assert f"needs the {extra} extra" in out and install in out
    assert "Traceback" not in result.stderr


def test_a_train_extra_package_that_fails_to_import_is_named_with_its_error(monkeypatch):
    import builtins

    from skipbo_env.extras import missing_train_extra

    pytest.importorskip("sb3_contrib")  # imported before torch breaks (it imports torch too)
    real = builtins.__import__
    failing = {"torch": OSError("libtorch_cpu.so: cannot open shared object file"),
               "yaml": ImportError("yaml was built for another Python")}  # no module name

    def broken(name, *args, **kwargs):
        if name in failing:
            raise failing[name]
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", broken)
    assert missing_train_extra("skipbo train") == (
        "skipbo train needs the train extra (torch is installed but does not import: OSError: "
        "libtorch_cpu.so: cannot open shared object file): " + TRAIN)
    del failing["torch"]  # torch imports now: yaml is next
    assert missing_train_extra("skipbo train") == (
        "skipbo train needs the train extra (yaml does not import: yaml was built for another "
        "Python): " + TRAIN)
    del failing["yaml"]
    assert missing_train_extra("skipbo train") is None


def test_the_training_script_without_the_train_extra_names_it():
    code = ("import sys\nsys.modules['sb3_contrib'] = None\n"
            "from skipbo_env.train.ppo import main\n"
            "sys.exit(main(['--config', 'configs/short_2p.yaml']))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            timeout=300, cwd=ROOT)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"training needs the train extra (sb3_contrib is not installed): {TRAIN}" in \
        result.stderr


def test_a_training_config_error_message_names_the_file(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ntotal_timesteps: 10\nppo: {n_steps: 0}\n")
    with pytest.raises(SystemExit) as err:
        main(["train", "--config", str(bad)])
    assert err.value.code == 2
    text = capsys.readouterr().err
    assert f"{bad}: ppo.n_steps" in text and "usage: skipbo train" in text


def test_the_skipbo_command_runs_the_demo():
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "demo", "--variant",
                             "junior", "--seed", "1"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "returns" in result.stdout


def test_the_aec_speed_benchmark_prints_the_ratio_to_connect_four():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "aec_speed.py"),
                             "--seconds", "0.2", "--rounds", "1", "--variants", "short"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "connect_four_v3" in result.stdout and "skipbo_v0 short 2p" in result.stdout


def test_the_turn_limit_benchmark_prints_percentiles_beside_the_default():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "turn_limits.py"),
                             "--games", "5", "--variants", "junior"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "p99.9" in result.stdout and "junior" in result.stdout


def test_the_move_limit_benchmark_prints_the_longest_turn_beside_the_default():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "turn_moves.py"),
                             "--games", "2", "--variants", "short"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    row = result.stdout.splitlines()[-1].split()
    assert row[0] == "short" and row[-1] == "500" and 5 < int(row[-2]) < 500


def test_the_agent_strength_benchmark_prints_the_table():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "agent_strength.py"),
                             "--games", "20"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "| expert,naive | 20 |" in result.stdout and "| greedy,naive | 20 |" in result.stdout
    assert "| lookahead,expert | 20 |" in result.stdout


def test_the_agent_speed_benchmark_prints_seconds_per_move():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "agent_speed.py"),
                             "--games", "2", "--players", "naive,greedy"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "| naive |" in result.stdout and "| greedy |" in result.stdout


def test_the_agent_speed_benchmark_times_a_value_player_in_its_own_game():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "agent_speed.py"),
                             "--games", "2", "--players", "value_short_2p", "--variant",
                             "short", "--stock-size", "10"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "| value_short_2p |" in result.stdout
    wrong = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "agent_speed.py"),
                            "--games", "1", "--variant", "poker"],
                           capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 2 and "poker" in wrong.stderr


def test_the_value_speed_benchmark_times_a_network_as_trained_and_as_read():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "value_speed.py"),
                             "--games", "1", "--repeats", "1"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "weights below 1e-20" in result.stdout
    assert "largest difference of a value 0\n" in result.stdout  # reading them as zero
    wrong = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "value_speed.py"),
                            "--player", "no_such_player"],
                           capture_output=True, text=True, timeout=300)
    assert wrong.returncode == 2 and "no_such_player" in wrong.stderr


@pytest.mark.parametrize("bootstrap", ["none", "decision"])
def test_the_value_rollouts_benchmark_plays_the_value_player_with_its_rollout_check(bootstrap):
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "value_rollouts.py"),
                             "--games", "2", "--top", "3", "--deals", "2", "--bootstrap",
                             bootstrap], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"value_short_2p, top 3, deals 2, bootstrap {bootstrap}, against expert: " in \
        result.stdout and "ms a move" in result.stdout


def test_the_soak_benchmark_plays_every_variant_and_prints_failures_and_memory():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "soak.py"),
                             "--games", "64", "--batched-games", "0"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "reference engine: 64 games" in result.stdout and "failures: 0" in result.stdout
    assert "RSS, reference engine:" in result.stdout


def test_the_state_fuzz_benchmark_finds_no_other_exception_and_no_invalid_state():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "fuzz_states.py"),
                             "--mutants", "300"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "other exceptions: 0" in result.stdout
    assert "accepted but breaking an invariant: 0" in result.stdout


def test_the_expert_speed_benchmark_prints_batched_beside_reference():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "expert_speed.py"),
                             "--rows", "8", "--games-per-row", "1", "--reference-games", "1"],
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "expert speed: batched" in result.stdout and "reference expert,expert" in result.stdout


def test_the_rollout_teacher_benchmark_prints_labels_a_second_and_how_often_they_differ():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rollout_teacher.py"),
                             "--variant", "short", "--stock-size", "5", "--games", "8",
                             "--steps", "3"], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"rollout teacher: \d+ labels/s, differs from expert in "
                        r"\d+\.\d% of 24 decisions", last), last
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rollout_teacher.py"),
                          "--margin", "-1"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--margin" in bad.stderr


def test_the_rollout_teacher_benchmark_plays_whole_games_against_expert_with_deals():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rollout_teacher.py"),
                             "--variant", "short", "--stock-size", "3", "--games", "6",
                             "--deals", "2", "--play"], capture_output=True, text=True,
                            timeout=900)
    assert result.returncode == 0, result.stdout + result.stderr
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"rollout teacher: \d+\.\d% \(\d+\.\d%-\d+\.\d%\) of 6 games won "
                        r"against expert, \d+\.\d% drawn or cut at the turn limit, "
                        r"\d+ labels/s", last), last
    bad = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "rollout_teacher.py"),
                          "--deals", "-3"], capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--deals" in bad.stderr


def test_the_training_speed_benchmark_ends_with_both_paths_and_their_ratio():
    pytest.importorskip("sb3_contrib")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "training_speed.py"),
                             "--games", "8", "--batched-steps", "256",
                             "--subproc-steps", "256", "--snapshots", "1",
                             "--net-arch", "32,16", "--activation", "relu"],
                            capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "net_arch [32, 16] relu" in result.stdout
    last = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"training speed: batched \d+ steps/s, subproc \d+ steps/s, "
                        r"ratio \d+\.\d", last), last


@pytest.mark.parametrize("option", [["--net-arch", "0"], ["--net-arch", "64,x"],
                                    ["--activation", "sigmoid"]])
def test_the_training_speed_benchmark_refuses_a_network_the_loader_would_not_rebuild(option):
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "training_speed.py"),
                             *option], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 2 and option[0] + " must be" in result.stderr, result.stderr


def test_the_clone_capacity_benchmark_reports_held_out_agreement_per_network():
    pytest.importorskip("sb3_contrib")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "clone_capacity.py"),
                             "--config", "configs/short_2p.yaml", "--samples", "400",
                             "--epochs", "1", "--nets", "16:relu", "8,8"],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert re.fullmatch(r"\[16\] relu, 1 epochs: agreement train \d+\.\d%, held out "
                        r"\d+\.\d% \(\d+ s\)", lines[-2]), lines
    assert lines[-1].startswith("[8, 8] tanh, 1 epochs")


def test_the_clone_errors_benchmark_splits_the_disagreement_by_kind_of_move():
    pytest.importorskip("sb3_contrib")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "clone_errors.py"),
                             "checkpoints/short_2p.zip", "--config", "configs/short_2p.yaml",
                             "--samples", "2000"],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    overall = float(re.search(r"the policy differs in (\d+\.\d)%", lines[0]).group(1))
    kinds = [re.fullmatch(r"  teacher (\S+) +(\d+\.\d)% of decisions, the policy differs +"
                          r"(\d+\.\d)% \((\d+\.\d)% of all\)", line) for line in lines[1:]
             if line.startswith("  teacher")]
    assert kinds and all(kinds)
    names = {m.group(1) for m in kinds}
    assert {"play/stock", "play/hand", "discard"} <= names
    assert abs(sum(float(m.group(2)) for m in kinds) - 100) < 0.5  # every decision once
    assert abs(sum(float(m.group(4)) for m in kinds) - overall) < 0.5
    assert lines[len(kinds) + 1] == "commonest confusions (teacher -> policy):"


@pytest.mark.parametrize("option, problem", [
    (["nope.zip"], "checkpoint nope.zip does not exist"),
    (["checkpoints/short_2p.zip", "--samples", "0"], "--samples must be at least 1"),
    (["checkpoints/short_2p.zip", "--config", "configs/smoke.yaml"], "does not train on the "
                                                                     "batched engine"),
])
def test_the_clone_errors_benchmark_refuses_bad_arguments(option, problem):
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "clone_errors.py"),
                             *option], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 2 and problem in result.stderr, result.stderr


@pytest.mark.parametrize("option, problem", [
    (["--nets", "0:relu"], "--nets '0:relu' must be a list"),
    (["--nets", "64:sigmoid"], "--nets '64:sigmoid' must be one of tanh, relu"),
    (["--samples", "-5"], "--samples must be at least 40"),
    (["--config", "configs/smoke.yaml"], "does not train on the batched engine"),
])
def test_the_clone_capacity_benchmark_refuses_bad_options(option, problem):
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "clone_capacity.py"),
                             *option], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 2 and problem in result.stderr, result.stderr


def test_the_stall_outcome_benchmark_prints_decided_games_under_both_readings():
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "stall_outcome.py"),
                             "--games", "4", "--variants", "short",
                             "--pairings", "random,random"],
                            capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    header, row = result.stdout.strip().splitlines()
    assert "decided, draw" in header and "decided, fewest_stock" in header
    assert re.fullmatch(r"short +random,random +4 +0\.0% +\d+\.\d% +100\.0%", row), row


def test_the_policy_parts_benchmark_prints_each_hybrids_win_rate_against_expert():
    pytest.importorskip("sb3_contrib")
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "policy_parts.py"),
                             "short_2p", "--games", "2", "--parts", "discards,all",
                             "--workers", "1"],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.strip().splitlines()
    assert "against expert, 2 seat-rotated games per part" in lines[0]
    assert [line.split()[0] for line in lines[2:]] == ["discards", "all"]
    assert all(re.fullmatch(r"\S+ +\d+\.\d% +\d+\.\d% - \d+\.\d%", line) for line in lines[2:])
