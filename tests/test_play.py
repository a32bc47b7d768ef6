"""Playing against bots: the session behind `skipbo play` and `skipbo serve`, and the
terminal game driven through its input stream."""

import itertools
import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from skipbo_env import VARIANTS, Game, Rules, allowed_players
from skipbo_env.apps.session import (
    STRONGEST,
    STRONGEST_IN,
    PlaySession,
    parse_opponents,
    public_state,
    strongest,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _random_positions(variant, count, seed):
    rng = np.random.default_rng(seed)
    players = allowed_players(variant)
    for i in range(count):
        n = players[i % len(players)]
        game = Game(Rules.preset(variant, n, stock_size=4), int(rng.integers(2**31)))
        for _ in range(int(rng.integers(0, 60))):
            if game.is_over:
                break
            game.step(int(rng.choice(game.legal_actions())))
        if not game.is_over:
            yield game


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_table_sent_to_a_person_holds_no_hidden_card(variant):
    # Re-dealing every card the seat cannot see (other hands, stocks below the top, the draw
    # pile) leaves what it is sent unchanged, byte for byte.
    rng = np.random.default_rng(0)
    for game in _random_positions(variant, 12, 1):
        for seat in range(game.rules.num_players):
            names = [f"p{i}" for i in range(game.rules.num_players)]
            sent = json.dumps(public_state(game.view(seat), names))
            other = Game.from_view(game.view(seat), rng)
            assert other.hands != game.hands or other.draw_pile != game.draw_pile or \
                other.stocks != game.stocks or game.rules.stacked
            assert json.dumps(public_state(other.view(seat), names)) == sent
            state = json.loads(sent)
            assert "draw_pile" not in state and state["draw_pile_size"] == len(game.draw_pile)
            for p in state["players"]:
                assert "hand" not in p and "stock" not in p


def test_the_session_plays_the_bots_until_the_persons_turn_and_scores_the_game():
    s = PlaySession("short", "naive,greedy", seed=2, stock_size=2)
    assert s.names == ["you", "naive", "greedy"]
    while not s.game.is_over:
        s.play_bots()
        if s.game.is_over:
            break
        assert s.human_to_move and s.legal_moves()
        s.play(s.hint().action)
    assert s.result() is not None and sum(s.wins) == 1
    points = s.public_state()["points"]
    assert sum(points) > 0
    s.new_game()
    assert s.games == 2 and s.public_state()["points"] == points and not s.game.is_over


def test_a_move_out_of_turn_or_illegal_is_refused_and_changes_nothing():
    s = PlaySession("short", "naive", seed=5, stock_size=3)
    s.play_bots()
    before = s.game.to_dict()
    legal = set(s.game.legal_actions())
    illegal = next(a for a in range(s.game.num_actions) if a not in legal)
    for bad in (illegal, -1, 10**6, "3", 2.0, True):
        with pytest.raises(ValueError):
            s.play(bad)
    assert s.game.to_dict() == before
    s.play(next(m.action for m in s.legal_moves() if m.target["zone"] == "discard"))
    if not s.game.is_over and not s.human_to_move:
        with pytest.raises(ValueError, match="turn"):
            s.play(s.game.legal_actions()[0])


def _session_with_plain_play():
    """A session where the person can play a hand card onto a building pile without
    emptying the hand (the move that can be taken back)."""
    for seed in range(200):
        s = PlaySession("standard", "naive", seed=seed, stock_size=5)
        s.play_bots()
        for m in s.legal_moves():
            if m.source and m.source["zone"] == "hand" and m.target["zone"] == "building" \
                    and len(s.game.hands[s.human]) > 1:
                return s, m
    raise AssertionError("no position found")


def test_undo_takes_back_a_move_of_this_turn_that_turned_up_no_card():
    s, move = _session_with_plain_play()
    before = s.game.to_dict()
    s.play(move.action)
    assert s.can_undo
    assert s.undo() == move.text
    assert s.game.to_dict() == before and not s.can_undo


def test_a_discard_commits_the_turn_and_cannot_be_undone():
    s, _ = _session_with_plain_play()
    discard = next(m for m in s.legal_moves() if m.target["zone"] == "discard")
    s.play(discard.action)
    assert not s.can_undo
    with pytest.raises(ValueError, match="nothing to undo"):
        s.undo()


def test_a_stock_play_turns_up_a_card_and_cannot_be_undone():
    for seed in range(300):
        s = PlaySession("standard", "naive", seed=seed, stock_size=5)
        s.play_bots()
        stock = [m for m in s.legal_moves() if m.source and m.source["zone"] == "stock"]
        if stock:
            s.play(stock[0].action)
            assert not s.can_undo
            return
    raise AssertionError("no stock play found")


def test_the_hint_is_experts_move():
    from skipbo_env.players.registry import make_agent

    s = PlaySession("standard", "expert", seed=3)
    s.play_bots()
    assert s.hint().action == make_agent("expert", 0).act(s.game.view())


@pytest.mark.parametrize("spec, message", [
    ("", "give 1 to 5 opponents"), ("a,b,c,d,e,f", "at most 5 opponents"),
    ("wizard", "unknown opponent 'wizard'")])
def test_bad_opponents_are_refused_naming_the_problem(spec, message):
    with pytest.raises(ValueError, match=message):
        PlaySession("standard", spec)


def test_every_variant_can_be_played_with_up_to_five_opponents():
    assert [spec.name for spec in parse_opponents("random, naive")] == ["random", "naive"]
    for variant in VARIANTS:
        n = max(allowed_players(variant))
        s = PlaySession(variant, ",".join(["random"] * (n - 1)), seed=1, stock_size=2)
        for _ in range(30):
            s.play_bots()
            if s.game.is_over:
                break
            s.play(s.legal_moves()[0].action)
        json.dumps(s.public_state())


def _play(args, stdin, timeout=120):
    return subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "play", *args], input=stdin,
                          capture_output=True, text=True, timeout=timeout)


def test_skipbo_play_runs_a_whole_game_from_its_input_stream(tmp_path):
    log = tmp_path / "game.log"
    # Bad keys first, then the hint, undo and log commands, then always the first move.
    stdin = "x\n99\n\nh\nu\nl\n?\n" + "1\n" * 400 + "n\n"
    result = _play(["--variant", "short", "--stock-size", "2", "--opponents", "naive",
                    "--fast", "--seed", "4", "--log", str(log)], stdin)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Traceback" not in out + result.stderr
    assert "unknown key 'x'" in out and "there is no move 99" in out
    assert "hint: expert would play" in out and "nothing to undo" in out
    assert "game over:" in out and "another game?" in out
    text = log.read_text()
    assert text.startswith("game 1: short, 2 players, stock 2") and "game 1 over:" in text


def test_skipbo_play_leaves_quietly_at_the_end_of_input():
    result = _play(["--variant", "masters", "--opponents", "random,random", "--fast",
                    "--seed", "1"], "1\n")
    assert result.returncode == 0 and "end of input: leaving the game" in result.stdout
    assert "Traceback" not in result.stderr and "coins" in result.stdout


def test_skipbo_play_refuses_bad_arguments_with_a_message():
    result = _play(["--opponents", "wizard"], "")
    assert result.returncode == 2 and "unknown opponent 'wizard'" in result.stderr
    result = _play(["--variant", "partnership", "--opponents", "naive"], "")
    assert result.returncode == 2 and "partnership" in result.stderr


def test_skipbo_watch_shows_bots_playing_each_other():
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "watch", "--players",
                             "expert,naive", "--variant", "short", "--stock-size", "3",
                             "--fast"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "player 0 (expert):" in result.stdout and "game over:" in result.stdout


def _watch(*args):
    return subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "watch", *args],
                          capture_output=True, text=True, timeout=120)


def test_skipbo_watch_and_play_take_the_stall_outcome_and_say_how_a_stalled_game_ended(
        tmp_path):
    # Seed 0: two random players at stock 3 stall, player 1 with the fewer stock cards.
    deal = ["--players", "random,random", "--variant", "short", "--stock-size", "3", "--fast",
            "--seed", "0"]
    fewest = _watch(*deal)
    assert fewest.returncode == 0, fewest.stderr
    assert "game over: player 1 (random) wins with the fewest stock cards left" in fewest.stdout
    drawn = _watch(*deal, "--stall-outcome", "draw")
    assert "game over: drawn: a full round with no card played" in drawn.stdout
    assert _watch(*deal, "--stall-outcome", "nobody").returncode == 2
    log = tmp_path / "game.log"
    result = _play(["--variant", "short", "--opponents", "naive", "--stall-outcome", "draw",
                    "--log", str(log)], "q\n")
    assert result.returncode == 0, result.stderr
    assert log.read_text().startswith("game 1: short, 2 players, stock 10, stalled games drawn")


def _terminal(session, stdin: str):
    """A TerminalGame over `stdin` that records what it draws: ("table", state) for every
    table and ("bot", seat) for every bot move, in order."""
    import io

    from rich.console import Console

    from skipbo_env.apps.terminal import TerminalGame

    events = []
    game = TerminalGame(session, Console(file=io.StringIO(), width=200), io.StringIO(stdin),
                        pause=0)
    show, moves = game.show, session.bot_moves

    def recorded_show():
        events.append(("table", json.dumps(session.public_state(), sort_keys=True)))
        show()

    def recorded_moves():
        for seat, move in moves():
            events.append(("bot", seat))
            yield seat, move

    play = session.play

    def recorded_play(action):
        result = play(action)
        events.append(("played", json.dumps(session.public_state(), sort_keys=True)))
        return result

    game.show, session.bot_moves, session.play = recorded_show, recorded_moves, recorded_play
    return game, events


def test_the_table_before_the_bots_turn_is_drawn_before_their_first_move_and_once():
    session = PlaySession("short", "naive,naive", seed=5, stock_size=8)
    game, events = _terminal(session, "1\n" * 300 + "n\n")
    game.run()
    bots = [i for i, (kind, _) in enumerate(events) if kind == "bot"]
    assert len(bots) > 10
    starts = [i for i in bots if events[i - 1][0] != "bot"]
    assert len(starts) > 3
    for i in starts:  # a run of bot moves comes under the table as the person left it
        assert events[i - 1][0] == "table"
        if i >= 2 and events[i - 2][0] == "played":
            assert events[i - 1][1] == events[i - 2][1]
    assert sum(events[i - 2][0] == "played" for i in starts if i >= 2) > 3
    tables = [state for kind, state in events if kind == "table"]
    assert all(a != b for a, b in itertools.pairwise(tables))  # never the same table twice


def test_an_empty_line_asks_for_a_move_and_help_explains_the_card_marks():
    import io

    from rich.console import Console

    from skipbo_env.apps.terminal import TerminalGame

    out = io.StringIO()
    session = PlaySession("masters", "naive", seed=2)
    TerminalGame(session, Console(file=out, width=200), io.StringIO("\n?\nq\n"), pause=0).run()
    text = out.getvalue()
    assert "unknown key ''" not in text and "type a move's number" in text
    for mark in ("SB is a Skip-Bo card", "(10) the cards left", "$ after a card",
                 "the last card is the top"):
        assert mark in text


def test_discard_piles_are_numbered_with_their_top_card_last():
    from skipbo_env.apps.terminal import _pile_text

    four, nine = ({"wild": False, "rank": r, "name": str(r), "toll": 0} for r in (4, 9))
    assert _pile_text([four, nine], 2).plain == "2:[4 9]"
    assert _pile_text([], 0).plain == "0:[]"


def test_the_playing_cards_deck_style_names_ace_to_queen_and_kings_for_the_wilds():
    from skipbo_env.text import card_name, check_deck_style

    assert [card_name(c, 12, "playing-cards") for c in (1, 2, 10, 11, 12, 0)] == \
        ["A", "2", "10", "J", "Q", "K"]
    assert card_name(0, 12) == "Skip-Bo" and card_name(11, 12) == "11"
    for variant in ("standard", "short", "quick", "partnership"):
        n = allowed_players(variant)[0]
        assert check_deck_style("playing-cards", Rules.preset(variant, n)) == "playing-cards"
    for variant in ("masters", "junior", "junior_classic"):  # more wilds, or only 1 to 10
        with pytest.raises(ValueError, match="playing-cards deck style needs"):
            check_deck_style("playing-cards", Rules.preset(variant, 2))
    with pytest.raises(ValueError, match="deck style must be one of"):
        check_deck_style("tarot", Rules.preset("standard", 2))


def test_a_wild_played_as_a_number_is_described_in_the_deck_style():
    from positions import position

    game = position(Rules.preset("standard", 2), building=[[], [], [], []],
                    players=[{"hand": [0, 9, 9, 9, 9], "stock": [8]}, {"stock": [12]}])
    wild = next(a for a in game.legal_actions() if "building pile 0" in game.describe(a)
                and "Skip-Bo" in game.describe(a))
    assert game.describe(wild) == "hand Skip-Bo -> building pile 0 as 1"
    assert game.describe(wild, "playing-cards") == "hand K -> building pile 0 as A"


def test_skipbo_play_and_watch_take_the_playing_cards_deck_style():
    result = _play(["--variant", "short", "--opponents", "naive", "--fast", "--seed", "2",
                    "--deck-style", "playing-cards"], "?\nq\n")
    assert result.returncode == 0, result.stderr
    assert "K is a wild (a king or a joker" in result.stdout
    assert "Skip-Bo ->" not in result.stdout and "SB" not in result.stdout.split("cards:")[0]
    result = _play(["--variant", "masters", "--opponents", "naive", "--deck-style",
                    "playing-cards"], "")
    assert result.returncode == 2 and "24 wilds" in result.stderr
    watch = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "watch", "--players",
                            "expert,naive", "--variant", "short", "--stock-size", "3", "--fast",
                            "--deck-style", "playing-cards"], capture_output=True, text=True,
                           timeout=120)
    assert watch.returncode == 0 and "Skip-Bo ->" not in watch.stdout


@pytest.mark.parametrize("outcome, said", [
    ("fewest_stock", "you win with the fewest stock cards left, after a full round with no "
                     "card played and nothing left to draw"),
    ("draw", "drawn: a full round with no card played and nothing left to draw")])
def test_a_stalled_game_says_how_it_ended(outcome, said):
    from positions import position

    s = PlaySession("standard", "naive", seed=0, copies_per_rank=1, wilds=0, stock_size=2,
                    stall_outcome=outcome)
    game = position(s.rules, building=[[1, 2, 3, 4], [], [], []],
                    players=[{"hand": [12], "stock": [11], "discard_piles": [[6, 7], [], [], []]},
                             {"hand": [10], "stock": [9, 8], "discard_piles": [[5], [], [], []]}])
    game.step(game.layout.discard(12, 1))
    game.step(game.layout.discard(10, 1))
    s.match.game = game
    assert s.human == 0 and s.result() == said


def _stopped_game(pick: int, **limits) -> Game:
    """A standard game played by always taking the legal action at index `pick` (0: the
    first, a play when there is one; -1: the last, a discard or end of turn) until it is
    over."""
    game = Game(Rules.preset("standard", 2, **limits), seed=1)
    while not game.is_over:
        game.step(game.legal_actions()[pick])
    return game


@pytest.mark.parametrize("pick, limits, said", [
    (0, {"max_turn_moves": 3}, "stopped at the move limit of a turn (3 actions)"),
    (-1, {"max_turns": 2, "max_turn_moves": 2}, "stopped at the turn limit (2 turns)")])
def test_a_truncated_game_says_which_limit_stopped_it(pick, limits, said):
    from skipbo_env.apps.session import result_text

    game = _stopped_game(pick, **limits)
    assert game.truncated
    assert result_text(game, ["you", "expert"], human=0) == said


def test_the_strongest_bot_of_a_setting_a_value_player_was_trained_for_is_its_search():
    assert strongest(Rules.preset("short", 2))["name"] == "lookahead:value_short_2p"
    assert strongest(Rules.preset("short", 2, stock_size=10))["name"] == \
        "lookahead:value_short_2p"


def test_every_other_setting_names_lookahead_the_strongest_bot():
    assert strongest(Rules.preset("standard", 2)) is STRONGEST
    assert strongest(Rules.preset("short", 3)) is STRONGEST  # another player count
    assert strongest(Rules.preset("short", 2, stock_size=9)) is STRONGEST  # another stock
    assert STRONGEST["name"] == "lookahead"


@pytest.mark.parametrize("entry", STRONGEST_IN, ids=lambda e: e["name"])
def test_a_setting_s_strongest_bot_plays_that_setting(entry):
    rules = Rules.preset(entry["variant"], entry["num_players"], stock_size=entry["stock_size"])
    session = PlaySession(rules.variant, [entry["name"]] * (rules.num_players - 1), seed=1,
                          stock_size=rules.stock_size)  # builds (and checks) every bot now
    assert session.rules == rules and strongest(session.rules) is entry


@pytest.mark.parametrize("entry", [STRONGEST, *STRONGEST_IN], ids=lambda e: e["name"])
def test_the_strength_a_strongest_bot_says_is_the_one_docs_agents_md_records(entry):
    with open(os.path.join(ROOT, "docs", "agents.md")) as f:
        agents = f.read()
    figures = re.findall(r"\d+\.\d%", entry["said"])
    assert figures and "against expert" in entry["said"]
    for figure in figures:
        assert figure in agents, figure
