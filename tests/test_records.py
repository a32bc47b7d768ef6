"""Game records (skipbo_env/records.py, docs/records.md): a record replays exactly to its
result, and reading one checks it as strictly as state loading does."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from skipbo_env import Game, Rules
from skipbo_env.arena.tournament import run_games
from skipbo_env.observation import ObservationEncoder
from skipbo_env.players.registry import make_agent
from skipbo_env.records import (
    MAX_LINE_BYTES,
    MAX_RECORD_BYTES,
    GameRecord,
    RecordError,
    dumps,
    loads,
    read,
    read_one,
    training_data,
    write,
)

FAMILIES = [("standard", 2, 8), ("short", 3, None), ("quick", 2, None), ("partnership", 4, 6),
            ("junior", 2, None), ("junior_classic", 3, None), ("masters", 2, 8),
            ("masters_short", 3, None)]


def played(rules: Rules, seed: int = 3, names=("expert", "greedy")) -> GameRecord:
    game = Game(rules, seed)
    agents = [make_agent(names[s % len(names)], s, rules=rules) for s in range(rules.num_players)]
    actions = []
    while not game.is_over:
        seat = game.current_player
        action = agents[seat].act(game.view())
        game.step(action)
        actions.append((seat, action))
    return GameRecord.of(game, seed, [names[s % len(names)] for s in range(rules.num_players)],
                         actions)


@pytest.fixture(scope="module")
def record() -> GameRecord:
    return played(Rules.preset("standard", 2, stock_size=8))


def lines(record: GameRecord) -> list[str]:
    return dumps([record]).splitlines()


def refused(text: str, *needles: str) -> str:
    with pytest.raises(RecordError) as e:
        loads(text, "game.jsonl")
    message = str(e.value)
    for needle in needles:
        assert needle in message, message
    return message


def test_a_record_written_and_read_back_is_the_same_record(record, tmp_path):
    path = str(tmp_path / "game.jsonl")
    write(path, record)
    assert read_one(path) == record
    assert loads(dumps([record, record])) == [record, record]


def test_a_record_replays_exactly_to_its_recorded_result(record):
    game = record.replay()
    assert game.is_over and sorted(game.winners) == record.result["winners"]
    assert game.turn == record.result["turns"] and game.points() == record.result["points"]


@pytest.mark.parametrize("variant,players,stock", FAMILIES)
def test_recorded_tournament_games_replay_exactly_in_every_variant_family(
        variant, players, stock, tmp_path):
    rules = Rules.preset(variant, players, **({} if stock is None else {"stock_size": stock}))
    names = ["expert", "greedy", "random", "naive"][:players]
    result = run_games(rules, names, players, seed=5, workers=1, progress=False,
                       keep_records=True, record_dir=str(tmp_path))
    files = sorted(os.listdir(tmp_path))
    assert len(files) == len(result["records"]) == players
    for played_game, name in zip(result["records"], files):
        (rec,) = read(str(tmp_path / name))
        game = rec.replay()
        assert list(rec.players) == played_game["seats"]
        assert sorted(game.winners) == sorted(played_game["winners"])
        assert game.turn == played_game["turns"] and game.phase == played_game["phase"]


def test_iterating_the_positions_gives_each_action_with_the_seat_to_act(record):
    count = 0
    for game, seat, action in record.positions():
        assert game.current_player == seat and action in game.legal_actions()
        count += 1
    assert count == len(record.actions)


def test_a_record_of_another_format_version_is_refused_naming_the_line(record):
    text = lines(record)
    header = json.loads(text[0])
    header["format"] = 2
    refused("\n".join([json.dumps(header), *text[1:]]), "line 1", "format 2")


def test_a_file_that_is_no_game_record_is_refused(record):
    refused(json.dumps({"record": "chess-game"}), "line 1", "not a Skip-Bo game record")
    refused("", "holds no game")
    refused("[1, 2]", "line 1", "expected a JSON object")


def test_an_illegal_action_is_refused_naming_its_line(record):
    text = lines(record)
    seat, action = record.actions[4]
    legal = record.replay(4).legal_actions()
    bad = next(a for a in range(1000) if a not in legal)
    text[5] = json.dumps({"seat": seat, "action": bad})
    refused("\n".join(text), "line 6", f"action {bad} is not legal")


def test_an_action_by_a_seat_whose_turn_it_is_not_is_refused(record):
    text = lines(record)
    seat, action = record.actions[0]
    text[1] = json.dumps({"seat": 1 - seat, "action": action})
    refused("\n".join(text), "line 2", f"it is seat {seat}'s turn")


def test_a_move_in_words_that_is_not_the_actions_is_refused(record):
    text = lines(record)
    item = json.loads(text[1])
    item["move"] = "stock 12 -> building pile 3"
    text[1] = json.dumps(item)
    refused("\n".join(text), "line 2", "the move says")


def test_a_result_that_does_not_follow_from_the_actions_is_refused(record):
    text = lines(record)
    end = json.loads(text[-1])
    end["end"]["winners"] = [1 - end["end"]["winners"][0]]
    refused("\n".join([*text[:-1], json.dumps(end)]), f"line {len(text)}", "winners")
    cut = text[:-3] + text[-1:]  # the last moves gone: the game did not end there
    refused("\n".join(cut), "the replayed game gives")


def test_a_record_cut_short_is_refused(record):
    refused("\n".join(lines(record)[:-1]), "no end line")


def test_actions_after_the_end_and_a_second_header_mid_game_are_refused(record):
    text = lines(record)
    refused("\n".join([*text[:-1], text[1], text[-1]]), "after the game ended")
    refused("\n".join([text[0], text[1], text[0]]), "line 3", "before the last game's end")


@pytest.mark.parametrize("key,value,needle", [
    ("seed", -1, "seed must be"), ("seed", 2**128, "seed must be"), ("seed", "7", "seed must be"),
    ("first_player", 2, "first_player"), ("players", ["expert"], "players must be"),
    ("players", ["x" * 500, "y"], "players must be"), ("rules", {"variant": "poker"}, "bad rules"),
    ("scores", [-1, 0], "scores must be"), ("scores", [10**400, 0], "scores must be"),
    ("format", True, "record format"), ("format", 1.0, "record format"),
    ("players", ["\x1b]0;pwned\x07", "y"], "printable"), ("extra", 1, "header's keys")])
def test_a_bad_header_value_is_refused_naming_it(record, key, value, needle):
    text = lines(record)
    header = json.loads(text[0])
    header[key] = value
    refused("\n".join([json.dumps(header), *text[1:]]), "line 1", needle)


def test_malformed_lines_are_refused_naming_the_line(record):
    text = lines(record)
    refused("\n".join([text[0], "{not json", *text[2:]]), "line 2", "not JSON")
    refused("\n".join([text[0], "[" * 100000 + "]" * 100000]), "line 2")
    refused("\n".join([text[0], '{"seat": 0, "action": 1' + "0" * 5000 + "}"]), "line 2")


def test_a_huge_line_or_file_is_refused_before_it_is_parsed(record, tmp_path):
    text = lines(record)
    refused("\n".join([text[0], " " * MAX_LINE_BYTES + "{}"]), "line 2", "over the")
    big = tmp_path / "big.jsonl"
    with open(big, "wb") as f:
        f.truncate(MAX_RECORD_BYTES + 1)
    with pytest.raises(RecordError, match="over the"):
        read(str(big))


def test_a_file_that_is_not_utf8_text_is_refused(tmp_path):
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(RecordError, match="not UTF-8"):
        read(str(path))


def test_reading_a_record_loads_none_of_the_players_it_names(record, tmp_path):
    # the names are labels: a checkpoint path that does not exist reads like any other name
    text = lines(record)
    header = json.loads(text[0])
    header["players"] = ["lookahead:/nowhere/evil.zip", str(tmp_path / "missing.npz")]
    (back,) = loads("\n".join([json.dumps(header), *text[1:]]))
    assert back.players[0] == "lookahead:/nowhere/evil.zip"


def test_write_never_replaces_a_file_or_writes_through_a_link(record, tmp_path):
    path = tmp_path / "game.jsonl"
    path.write_text("mine")
    with pytest.raises(ValueError, match="exists already"):
        write(str(path), record)
    assert path.read_text() == "mine"
    link = tmp_path / "link.jsonl"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match="symbolic link"):
        write(str(link), record)


def test_training_data_gives_each_decision_of_a_seat_from_its_own_view(record):
    data = training_data([record], seat=0)
    rules = record.rules
    encoder = ObservationEncoder(rules)
    mine = [(g.clone(), a) for g, s, a in record.positions() if s == 0]
    assert len(data["action"]) == len(mine) and set(data["seat"]) == {0}
    for i, (game, action) in enumerate(mine):
        assert np.array_equal(data["obs"][i], encoder.encode(game, 0))
        assert data["action"][i] == action and data["mask"][i][action] == 1
        assert np.array_equal(data["mask"][i], game.action_mask())


def test_training_data_rewards_the_seats_return_on_its_last_decision_only(record):
    data = training_data([record, record])
    for game in (0, 1):
        for seat in (0, 1):
            rows = np.flatnonzero((data["game"] == game) & (data["seat"] == seat))
            assert data["done"][rows].tolist() == [False] * (len(rows) - 1) + [True]
            assert data["reward"][rows[-1]] == record.result["returns"][seat]
            assert not data["reward"][rows[:-1]].any()


def test_training_data_of_several_rules_sets_or_a_bad_seat_is_refused(record):
    other = played(Rules.preset("short", 2))
    with pytest.raises(ValueError, match="several rules sets"):
        training_data([record, other])
    with pytest.raises(ValueError, match="seat"):
        training_data([record], seat=5)
    with pytest.raises(ValueError, match="no records"):
        training_data([])


def test_a_value_of_another_json_type_in_the_end_line_is_refused(record):
    text = lines(record)
    end = json.loads(text[-1])
    end["end"]["turns"] = float(end["end"]["turns"])
    refused("\n".join([*text[:-1], json.dumps(end)]), "turns")


def test_a_key_given_twice_and_text_that_is_no_utf8_are_refused_naming_the_line(record):
    text = lines(record)
    refused("\n".join([text[0], '{"seat": 0, "seat": 0, "action": 1}']), "line 2", "twice")
    refused('{"record": "\ud800"}', "line 1", "UTF-8")


def test_training_data_marks_an_unfinished_games_last_decisions_truncated(record):
    cut = GameRecord(record.rules, record.seed, record.players, record.actions[:20],
                     {**record.result}, record.first_player, record.scores)
    game = cut.replay()
    unfinished = GameRecord.of(game, record.seed, record.players, record.actions[:20])
    data = training_data([record, unfinished])
    assert not data["truncated"][data["game"] == 0].any()
    ends = (data["game"] == 1) & data["done"]
    assert data["truncated"][ends].all() and not data["reward"][data["game"] == 1].any()
