"""`--record` on the commands that play games and `skipbo replay` (docs/records.md)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skipbo_env.apps import cli
from skipbo_env.records import read, read_one


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = cli.main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_tournament_record_writes_one_record_a_game_that_replays_to_its_result(tmp_path,
                                                                               capsys):
    folder = tmp_path / "games"
    code, out, _ = run(capsys, "tournament", "--players", "expert,greedy", "--variant", "short",
                       "--games", "4", "--workers", "1", "--quiet", "--record", str(folder))
    assert code == 0 and f"game records in {folder}" in out
    files = sorted(os.listdir(folder))
    assert len(files) == 4 and all(f.endswith(".jsonl") for f in files)
    winners = [read_one(str(folder / f)).replay().winners for f in files]
    assert sum(0 in w for w in winners) + sum(1 in w for w in winners) >= 3


def test_a_record_folder_that_holds_files_or_is_a_file_is_refused_before_any_game(tmp_path,
                                                                                  capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "mine.txt").write_text("keep")
    code, _, err = run(capsys, "tournament", "--players", "expert,greedy", "--games", "2",
                       "--record", str(tmp_path / "full"))
    assert code == 2 and "is not empty" in err
    assert os.listdir(tmp_path / "full") == ["mine.txt"]
    (tmp_path / "file").write_text("x")
    code, _, err = run(capsys, "tournament", "--players", "expert,greedy", "--games", "2",
                       "--record", str(tmp_path / "file"))
    assert code == 2 and "is a file" in err


def test_evaluate_records_each_opponents_games_and_says_what_it_measured(tmp_path, capsys):
    folder = tmp_path / "ev"
    code, out, err = run(capsys, "evaluate", "standard_2p", "--opponents", "random,greedy",
                         "--games", "2", "--workers", "1", "--quiet", "--record", str(folder))
    assert code == 0, err
    names = sorted(os.listdir(folder))
    assert len(names) == 4 and names[0].startswith("00-vs-random-")
    assert names[2].startswith("01-vs-greedy-")
    assert out.startswith("standard_2p: standard, 2 players")  # the name given, not a path
    assert "/checkpoints/standard_2p.zip" not in out
    assert "written before the stall option" in out  # which stall reading applies, and why
    assert "columns: wins" in out and "Wilson" in out
    assert "summary: standard_2p won" in out and "against random" in out


def test_evaluate_takes_any_player_as_an_opponent_and_lists_the_shipped_ones_for_a_bad_name(
        capsys):
    code, out, err = run(capsys, "evaluate", "standard_2p", "--opponents", "value_ffa_3p",
                         "--games", "2", "--workers", "1", "--quiet")
    assert code == 2 and "value_ffa_3p" in err  # a checkpoint for other rules, refused
    code, out, err = run(capsys, "evaluate", "standard_2p", "--opponents",
                         "value_standard_2p", "--games", "2", "--workers", "1", "--quiet")
    assert code == 0, err
    assert "against value_standard_2p" in out
    code, _, err = run(capsys, "evaluate", "standard_2p", "--opponents", "wizard")
    assert code == 2 and "unknown opponent 'wizard'" in err and "standard_2p" in err


def test_benchmark_record_writes_the_games_of_every_pair(tmp_path, capsys):
    folder = tmp_path / "bench"
    code, _, err = run(capsys, "benchmark", "short_2p", "--player", "greedy", "--games", "2",
                       "--workers", "1", "--quiet", "--record", str(folder))
    assert code == 0, err
    names = os.listdir(folder)
    assert names and all(n.startswith("pair") for n in names)
    assert any("greedy" in n for n in names)
    for name in names:
        read_one(str(folder / name))


def test_play_record_keeps_every_game_played_in_the_sitting(tmp_path):
    path = tmp_path / "sitting.jsonl"
    stdin = "1\n" * 300 + "y\n" + "1\n" * 300 + "n\n"
    result = subprocess.run(
        [sys.executable, "-m", "skipbo_env.apps.cli", "play", "--variant", "short",
         "--stock-size", "2", "--opponents", "naive", "--fast", "--seed", "4", "--record",
         str(path)], input=stdin, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    games = read(str(path))
    assert len(games) == 2 and games[0].players == ("you", "naive")
    assert all(g.replay().is_over for g in games)
    assert games[1].scores == tuple(games[0].result["points"])  # the match's points carried


def test_play_record_refuses_a_file_there_already_before_the_game(tmp_path):
    path = tmp_path / "mine.jsonl"
    path.write_text("keep")
    result = subprocess.run(
        [sys.executable, "-m", "skipbo_env.apps.cli", "play", "--record", str(path)],
        input="", capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "exists already" in result.stderr
    assert path.read_text() == "keep"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("rec") / "games"
    cli.main(["tournament", "--players", "expert,greedy", "--variant", "short", "--games", "2",
              "--workers", "1", "--quiet", "--record", str(folder)])
    return str(folder / sorted(os.listdir(folder))[0])


def test_replay_final_prints_the_last_table_and_the_result(recorded, capsys):
    code, out, _ = run(capsys, "replay", recorded, "--final")
    total = len(read_one(recorded).actions)
    assert code == 0 and f"move {total} of {total}" in out and "end: player" in out


def test_replay_move_prints_the_table_after_that_many_moves(recorded, capsys):
    code, out, _ = run(capsys, "replay", recorded, "--move", "3")
    assert code == 0 and out.startswith("move 3 of") and "last: player" in out
    code, _, err = run(capsys, "replay", recorded, "--move", "100000")
    assert code == 2 and "--move must be from 0 to" in err
    code, _, err = run(capsys, "replay", recorded, "--game", "2")
    assert code == 2 and "holds 1 game(s)" in err


def test_replay_steps_forward_back_and_jumps_with_keys(recorded, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\nn\nb\ng 5\nx\ng \u00b2\ne\nn\nq\n"))
    code, out, _ = run(capsys, "replay", recorded)
    shown = [line.split(" of ")[0].split("move ")[-1] for line in out.splitlines()
             if "move " in line and " of " in line and not line.startswith("keys")]
    total = len(read_one(recorded).actions)
    assert code == 0 and shown == ["0", "1", "2", "1", "5", str(total)]
    assert "unknown key 'x'" in out and "at the end" in out and "g needs a move number" in out


def test_replay_of_a_tampered_record_names_the_line(recorded, tmp_path, capsys):
    lines = Path(recorded).read_text().splitlines()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([lines[0], "{not json", *lines[2:]]))
    code, _, err = run(capsys, "replay", str(bad), "--final")
    assert code == 2 and "line 2" in err and "not JSON" in err
    code, _, err = run(capsys, "replay", str(tmp_path / "missing.jsonl"))
    assert code == 2 and "cannot read" in err


# -- a first hour without stumbling (issue 37) ---------------------------------------------------
def test_skipbo_version_prints_the_packages_version(capsys):
    from skipbo_env.version import __version__

    code, out, _ = run(capsys, "--version")
    assert code == 0 and out.strip() == f"skipbo-env {__version__}"


@pytest.mark.parametrize("command,shown", [
    ("tournament", "(default: 1000)"), ("evaluate", "(default: 2000)"),
    ("watch", "(default: expert,greedy)"), ("serve", "(default: 8000)"),
    ("play", "(default: expert)"), ("replay", "(default: 1)")])
def test_every_help_shows_the_options_defaults(capsys, command, shown):
    code, out, _ = run(capsys, command, "--help")
    assert code == 0 and shown in " ".join(out.split())


def test_skipbo_watch_without_arguments_watches_a_default_game():
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "watch", "--fast",
                             "--stock-size", "3", "--no-color"], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "player 0 (expert):" in result.stdout and "game over:" in result.stdout


def test_skipbo_serve_on_a_taken_port_says_so_and_suggests_another(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, out, err = run(capsys, "serve", "--port", str(port))
    assert code == 2 and f"port {port} on 127.0.0.1 is taken" in err and "--port" in err
    assert "http://" not in out  # the address is not announced first


def test_the_terminal_help_explains_how_to_play():
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "play", "--fast",
                             "--seed", "1", "--no-color"], input="?\nq\n", capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "How to play" in out and "Goal: be the first to play every card of your stock" in out
    assert "Strongest bot: lookahead" in out


def test_the_terminal_help_names_the_strongest_bot_of_the_game_s_setting():
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "play", "--fast",
                             "--seed", "1", "--no-color", "--variant", "short", "--opponents",
                             "value_short_2p"], input="?\nq\n", capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    out = " ".join(result.stdout.split())
    assert "Strongest bot in the two-player short game (stock 10): lookahead:value_short_2p, " \
        "it won" in out
    assert "Strongest bot: lookahead" not in out


def test_a_record_folder_given_as_a_link_is_refused_however_it_is_spelt(tmp_path, capsys):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    for spelt in ("link", "link/", "link/."):
        code, _, err = run(capsys, "tournament", "--players", "expert,greedy", "--games", "2",
                           "--record", str(tmp_path / spelt))
        assert code == 2 and "symbolic link" in err
    assert os.listdir(tmp_path / "real") == []
