"""Benchmark tasks (skipbo_env/arena/benchmark.py, docs/benchmark.md): fixed rules,
population and protocol; reruns give identical results; ratings from openskill order players
as their results do; `skipbo benchmark` prints and writes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skipbo_env.arena import benchmark as bench

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = Path(__file__).parent / "data" / "benchmark_tasks.json"


def test_the_tasks_cover_two_player_three_player_partnership_masters_and_junior_games():
    shapes = {(t.variant, t.num_players) for t in bench.TASKS.values()}
    assert {("standard", 2), ("short", 2), ("standard", 3), ("partnership", 4),
            ("masters", 2), ("junior", 2)} <= shapes


def test_every_task_names_its_rules_population_seed_games_and_seat_rotation():
    for t in bench.TASKS.values():
        d = t.to_dict()
        assert d["game_rules"]["stock_size"] == t.game_rules().stock_size
        assert d["population"] and d["protocol"]["seed"] == t.seed
        assert d["protocol"]["games_per_pair"] == t.games >= 100
        assert d["protocol"]["paired_deals"] is True
        assert "rotation" in d["protocol"]["seat_rotation"]


def test_a_tasks_json_is_stable():
    """A change to a task, or to the rules it plays, shows here: the tasks' JSON is the one
    committed in tests/data (regenerate it only for a new protocol, and say so)."""
    now = json.loads(json.dumps({n: t.to_dict() for n, t in bench.TASKS.items()}))
    assert now == json.loads(GOLDEN.read_text())


def test_an_unknown_task_is_named_with_the_tasks_there_are():
    with pytest.raises(ValueError, match="unknown task 'nope'; tasks: standard_2p"):
        bench.task("nope")


def test_two_players_play_a_against_b_and_more_play_against_copies_or_in_teams():
    assert bench.task("standard_2p").lineups("x", "y") == [["x", "y"]]
    assert bench.task("ffa_3p").lineups("x", "y") == [["x", "y", "y"], ["y", "x", "x"]]
    assert bench.task("partnership_4p").lineups("x", "y") == [["x", "y", "x", "y"]]


def test_a_rerun_of_a_task_gives_identical_results():
    first = bench.run(bench.task("short_2p"), ["greedy", "random"], games=4, workers=2)
    again = bench.run(bench.task("short_2p"), ["greedy", "random"], games=4, workers=1)
    assert first == again
    assert first["entrants"] == ["random", "naive", "greedy", "expert"]  # no duplicates
    assert len(first["pairs"]) == 6 and not first["protocol"]
    assert all(p["games"] == 4 for p in first["pairs"].values())


def test_ratings_order_players_as_their_results_do():
    # a beats b, b beats c, a beats c: every time.
    games = [{"seats": [x, y], "winners": [0]} for x, y in
             [("a", "b"), ("b", "c"), ("a", "c")] * 20]
    r = bench.ratings(games, ["a", "b", "c"])
    assert r["a"]["ordinal"] > r["b"]["ordinal"] > r["c"]["ordinal"]
    assert all(v["sigma"] < 8.333 for v in r.values())  # the games made them surer


def test_a_drawn_game_ties_everyone_and_a_team_win_counts_once_for_the_side():
    drawn = bench.ratings([{"seats": ["a", "b"], "winners": []}] * 10, ["a", "b"])
    assert drawn["a"]["mu"] == pytest.approx(drawn["b"]["mu"])
    teams = bench.ratings([{"seats": ["a", "b", "a", "b"], "winners": [0, 2]}] * 10,
                          ["a", "b"])
    pairs = bench.ratings([{"seats": ["a", "b"], "winners": [0]}] * 10, ["a", "b"])
    assert teams == pairs


def test_a_free_for_all_win_ranks_the_winner_above_the_rest():
    games = [{"seats": ["a", "b", "b"], "winners": [0]},
             {"seats": ["b", "a", "a"], "winners": [1]}] * 10
    r = bench.ratings(games, ["a", "b"])
    assert r["a"]["mu"] > r["b"]["mu"]


def test_wins_by_seat_count_each_player_where_it_played_alone_on_its_side():
    games = [{"seats": ["a", "b", "b"], "winners": [0]},
             {"seats": ["b", "a", "b"], "winners": [0]},
             {"seats": ["b", "b", "a"], "winners": [2]},
             {"seats": ["a", "b", "b"], "winners": [1]}]
    seats = bench.by_seat(games, ["a", "b"])
    assert [r["games"] for r in seats["a"]] == [2, 1, 1]
    assert [r["wins"] for r in seats["a"]] == [1, 0, 1]
    assert seats["a"][0]["win_rate"] == 0.5
    assert [r["games"] for r in seats["b"]] == [0, 0, 0]  # always two copies: not counted
    assert seats["b"][0]["win_rate"] is None


def test_wins_by_team_count_the_team_holding_seat_0_as_team_0():
    games = [{"seats": ["a", "b", "a", "b"], "winners": [0, 2]},
             {"seats": ["b", "a", "b", "a"], "winners": [1, 3]},
             {"seats": ["b", "a", "b", "a"], "winners": []}]
    seats = bench.by_seat(games, ["a", "b"], teams=((0, 2), (1, 3)))
    assert [(r["games"], r["wins"]) for r in seats["a"]] == [(1, 1), (2, 1)]
    assert [(r["games"], r["wins"]) for r in seats["b"]] == [(2, 0), (1, 0)]


def test_a_checkpoint_for_other_games_is_refused_before_any_game(monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(bench, "run_games", no_games)
    with pytest.raises(ValueError, match="do not fit standard with 3"):
        bench.run(bench.task("ffa_3p"), ["standard_2p"])
    with pytest.raises(ValueError, match="unknown player 'nobody'"):
        bench.run(bench.task("short_2p"), ["nobody"])
    with pytest.raises(ValueError, match="at least one player"):
        bench.run(bench.task("short_2p"), [])
    with pytest.raises(ValueError, match="games must be"):
        bench.run(bench.task("short_2p"), ["greedy"], games=10**30)


def test_the_benchmark_command_prints_and_writes_json_and_markdown(tmp_path):
    out = tmp_path / "results"
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark",
                             "short_2p", "--player", "greedy", "--games", "2", "--quiet",
                             "--out", str(out)], capture_output=True, text=True, timeout=600,
                            cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "| greedy |" in result.stdout and "| greedy vs expert | 2 |" in result.stdout
    data = json.loads((out / "short_2p.json").read_text())
    assert data["format"] == bench.FORMAT and data["task"]["name"] == "short_2p"
    assert set(data["ratings"]) == {"random", "naive", "greedy", "expert"}
    assert (out / "short_2p.md").read_text() == result.stdout
    assert [r["games"] for r in data["by_seat"]["greedy"]] == [3, 3]  # 2 games against each of 3
    assert "Win rate by seat (seat 0 moves first)" in result.stdout
    blocked = tmp_path / "file"
    blocked.write_text("x")
    bad = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark", "short_2p",
                          "--player", "greedy", "--games", "1", "--quiet", "--out",
                          str(blocked)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert bad.returncode == 2 and "cannot write the results under" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark", "nope",
                          "--player", "greedy"], capture_output=True, text=True, timeout=600,
                         cwd=ROOT)
    assert bad.returncode == 2 and "invalid choice: 'nope'" in bad.stderr
    huge = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark",
                           "short_2p", "--player", "greedy", "--games", "1" + "0" * 30],
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert huge.returncode == 2 and "a number of games from 1 to 10,000,000" in huge.stderr


def test_the_docs_table_of_tasks_is_the_tasks_definition():
    text = (ROOT / "docs" / "benchmark.md").read_text()
    for t in bench.TASKS.values():
        rules = t.game_rules()
        row = (f"| `{t.name}` | {t.description} | {rules.variant}, {rules.num_players} players, "
               f"stock {rules.stock_size} | {', '.join(t.population)} | {t.lineup_kind()} | "
               f"{t.games} | {t.seed} |")
        assert row in text


def test_the_exploitability_proxy_trains_a_best_response_and_reports_its_win_rate(tmp_path):
    # A tiny budget (one PPO update) against random: the pipeline, not the strength.
    out = tmp_path / "results"
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark",
                             "short_2p", "--exploit", "random", "--exploit-steps", "100",
                             "--games", "4", "--workers", "1", "--quiet", "--out", str(out)],
                            capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    data = json.loads((out / "short_2p_exploit_random.json").read_text())
    from skipbo_env.train.exploit import EXPLOIT_FORMAT

    assert data["format"] == EXPLOIT_FORMAT and data["target"] == "random"
    assert data["steps"] >= 100 and data["games"] == 4 and not data["protocol"]
    assert data["config"]["vec_env"] == "batched" and data["config"]["opponents"] == {
        "random": 1.0}
    assert data["wins"] + data["draws"] <= 4 and 0 <= data["win_rate"] <= 1
    assert (out / "exploit" / "short_2p_exploit_random.zip").is_file()
    assert "exploitability proxy of random" in result.stdout
    assert data["baseline"] == bench.seated(bench.task("short_2p"), "greedy", "random", 4)
    assert "greedy in the same seats, for scale" in result.stdout
    assert (out / "short_2p_exploit_random.md").read_text() == result.stdout


def test_a_best_response_to_a_checkpoint_or_value_player_trains_on_the_batched_engine():
    from skipbo_env.train import config as C
    from skipbo_env.train.exploit import exploit_config

    for target in ("short_2p", "value_short_2p"):
        made = C.validate(exploit_config(bench.task("short_2p"), target, 1000))
        assert made.vec_env == "batched" and dict(made.opponents) == {target: 1.0}
    assert exploit_config(bench.task("masters_2p"), "expert_tolls", 1000)["vec_env"] == "subproc"


def test_the_reference_ppo_config_is_the_best_responses_training_config():
    # docs/benchmark.md's "MaskablePPO against scripted players" row is the best response to
    # expert on short_2p: the committed config must train exactly what --exploit trains.
    from skipbo_env.train import config as C
    from skipbo_env.train.exploit import exploit_config

    shipped = C.load(str(ROOT / "configs" / "ref_ppo_vs_expert_short_2p.yaml"))
    made = C.validate(exploit_config(bench.task("short_2p"), "expert", 1_000_000))
    ignore = {"name", "output_dir", "log_dir"}
    assert ({k: v for k, v in shipped.to_dict().items() if k not in ignore}
            == {k: v for k, v in made.to_dict().items() if k not in ignore})


def test_the_exploit_seating_puts_the_player_alone_against_the_target_in_every_other_seat():
    t = bench.task("partnership_4p")
    assert bench.exploit_lineup(t, "greedy", "expert") == ["greedy", "expert", "expert", "expert"]
    result = bench.seated(t, "greedy", "random", games=4, workers=1)
    assert result["lineup"] == ["greedy", "random", "random", "random"]
    assert result["games"] == 4 and result["wins"] + result["draws"] <= 4
    with pytest.raises(ValueError, match="would play itself"):
        bench.seated(t, "greedy", "greedy", games=4)


def seat_results(*args):
    return subprocess.run([sys.executable, str(ROOT / "benchmarks" / "seat_results.py"),
                           *args], capture_output=True, text=True, timeout=600, cwd=ROOT)


@pytest.mark.parametrize("task, games", [("ffa_3p", 6), ("partnership_4p", 8)])
def test_the_seat_results_script_with_seating_exploit_scores_the_exploit_seating(task, games):
    result = seat_results(task, "--player", "greedy", "--against", "naive", "--games",
                          str(games), "--workers", "1", "--seating", "exploit")
    assert result.returncode == 0, result.stderr
    expected = bench.seated(bench.task(task), "greedy", "naive", games=games, workers=1)
    row = result.stdout.splitlines()[-1]
    assert row.startswith(f"| greedy | naive | {task} | {games} | {expected['win_rate']:.1%} ")


@pytest.mark.parametrize("args, message", [
    (["short_2p", "--player", "greedy", "--against", "greedy"], "must differ"),
    (["short_2p", "--player", "nobody", "--against", "greedy"], "unknown player 'nobody'"),
    (["short_2p", "--player", "greedy", "--against", "naive", "--games", "0"], "--games"),
    (["short_2p", "--player", "greedy", "--against", "naive", "--seating", "x"], "invalid choice"),
])
def test_the_seat_results_script_refuses_bad_arguments(args, message):
    result = seat_results(*args)
    assert result.returncode == 2 and message in result.stderr, result.stderr


@pytest.mark.parametrize("args, message", [
    (["short_2p"], "give --player"),
    (["short_2p", "--exploit", "nobody"], "unknown player 'nobody'"),
    # Every target is checked before the first best response trains.
    (["short_2p", "--exploit", "random", "--exploit", "nobody"], "unknown player 'nobody'"),
    (["ffa_3p", "--exploit", "standard_2p"], "do not fit standard with 3"),
    (["short_2p", "--exploit", "random", "--exploit", "random"], "would both write"),
    (["short_2p", "--player", "random", "--exploit-steps", "100"],
     "--exploit-steps is the budget of --exploit"),
    (["short_2p", "--exploit", "random", "--exploit-steps", "0"],
     "a number of learner steps from 1"),
    (["short_2p", "--exploit", "random", "--exploit-steps", "1" + "0" * 20],
     "a number of learner steps from 1"),
])
def test_a_bad_exploit_request_is_refused_with_the_reason(args, message):
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark", *args,
                             "--quiet"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_an_exploit_directory_that_is_a_file_or_not_a_run_is_refused_and_kept(tmp_path):
    (tmp_path / "exploit").write_text("mine")
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark",
                             "short_2p", "--exploit", "random", "--quiet", "--out",
                             str(tmp_path)], capture_output=True, text=True, timeout=600,
                            cwd=ROOT)
    assert result.returncode == 2 and "is not a directory" in result.stderr
    assert (tmp_path / "exploit").read_text() == "mine"
    other = tmp_path / "other"
    (other / "exploit" / "short_2p_exploit_random").mkdir(parents=True)
    (other / "exploit" / "short_2p_exploit_random" / "notes.txt").write_text("keep")
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark",
                             "short_2p", "--exploit", "random", "--quiet", "--out", str(other)],
                            capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 2 and "was not made by a training run" in result.stderr
    assert (other / "exploit" / "short_2p_exploit_random" / "notes.txt").read_text() == "keep"


def _bench_out(out, *extra):
    return subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "benchmark", "short_2p",
                           "--player", "greedy", "--games", "1", "--workers", "1", "--quiet",
                           "--out", str(out), *extra], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_a_benchmark_never_writes_over_earlier_results_unless_forced(tmp_path):
    first = _bench_out(tmp_path)
    assert first.returncode == 0, first.stderr
    before = {p: (tmp_path / p).read_bytes() for p in ("short_2p.json", "short_2p.md")}
    (tmp_path / "short_2p.md").write_text("my notes")  # what a user keeps there
    again = _bench_out(tmp_path)
    assert again.returncode == 2 and "exists already" in again.stderr
    assert "--force" in again.stderr and again.stdout == ""  # refused before any game
    assert (tmp_path / "short_2p.md").read_text() == "my notes"
    assert (tmp_path / "short_2p.json").read_bytes() == before["short_2p.json"]
    forced = _bench_out(tmp_path, "--force")
    assert forced.returncode == 0, forced.stderr
    assert (tmp_path / "short_2p.md").read_bytes() == before["short_2p.md"]


def test_a_benchmark_never_writes_through_a_link_even_when_forced(tmp_path):
    card = tmp_path / "short_2p_card.json"
    card.write_text('{"kind": "policy"}')  # a shipped model card of the task's name
    (tmp_path / "short_2p.json").symlink_to(card)
    for extra in ((), ("--force",)):
        result = _bench_out(tmp_path, *extra)
        assert result.returncode == 2 and "symbolic link" in result.stderr
        assert card.read_text() == '{"kind": "policy"}'
        assert not (tmp_path / "short_2p.md").exists()


def test_a_benchmark_too_large_to_keep_its_records_is_refused_before_any_game():
    with pytest.raises(ValueError, match="over the 1,000,000 one benchmark run plays"):
        bench.run(bench.task("short_2p"), ["greedy"], games=10**6)


def test_a_player_whose_weights_cannot_play_is_refused_before_any_game(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from spoilt import spoilt_checkpoint

    path = spoilt_checkpoint(tmp_path)

    def no_games(*args, **kwargs):
        raise AssertionError("games were played before the player was refused")

    monkeypatch.setattr(bench, "run_games", no_games)
    with pytest.raises(ValueError, match="not finite"):
        bench.run(bench.task("short_2p"), [path], games=2)
    from skipbo_env.train.exploit import exploit_config

    with pytest.raises(ValueError, match="not finite"):
        exploit_config(bench.task("short_2p"), path, 100, str(tmp_path / "exploit"))


@pytest.mark.parametrize("workers", ["0", "257", "1" + "0" * 12])
def test_an_unbounded_number_of_workers_is_refused(workers):
    for command in (["tournament", "--players", "greedy,random"],
                    ["benchmark", "short_2p", "--player", "greedy"]):
        result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", *command,
                                 "--workers", workers], capture_output=True, text=True,
                                timeout=600, cwd=ROOT)
        assert result.returncode == 2 and "worker processes from 1 to 256" in result.stderr
    from skipbo_env.arena.tournament import run_games

    with pytest.raises(ValueError, match="workers"):
        run_games(bench.task("short_2p").game_rules(), ["greedy", "random"], 2,
                  workers=int(workers))


def test_a_tournament_keeps_no_records_it_was_not_asked_for_and_tallies_them_alike():
    from skipbo_env.arena.tournament import run_games, summarise

    rules = bench.task("short_2p").game_rules()
    kept = run_games(rules, ["greedy", "random"], 40, seed=3, workers=1, progress=False,
                     keep_records=True)
    plain = run_games(rules, ["greedy", "random"], 40, seed=3, workers=1, progress=False)
    assert "records" not in plain
    again = summarise(kept["records"], 1.0)
    for key in ("games", "players", "draws", "mean_turns", "truncated"):
        assert plain[key] == again[key] == kept[key]
