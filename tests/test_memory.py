"""Process-wide memos are bounded: memory stays flat however many rules sets a process meets
(benchmarks/soak.py measures it over thousands of games)."""

import numpy as np

from skipbo_env import Game, Rules, spec
from skipbo_env.spec import BoundedMemo, GameSpec


def test_a_bounded_memo_drops_its_oldest_entry_when_full():
    memo = BoundedMemo(3)
    for k in range(5):
        memo[k] = str(k)
    assert list(memo) == [2, 3, 4]
    memo[3] = "again"  # storing a key it holds drops nothing
    assert list(memo) == [2, 3, 4] and memo[3] == "again"


def test_the_spec_memo_keeps_at_most_max_specs_rules_sets():
    for stock in range(1, 31):
        for hand in range(1, 11):
            GameSpec.of(Rules.preset("standard", 2, stock_size=stock, hand_size=hand))
    assert len(spec._SPECS) <= spec.MAX_SPECS


def test_rules_sets_that_place_cards_alike_share_one_bounded_target_memo():
    a = GameSpec.of(Rules.preset("standard", 2, stock_size=5))
    b = GameSpec.of(Rules.preset("standard", 4, stock_size=20))
    assert a.targets_memo is b.targets_memo
    assert a.targets_memo is not GameSpec.of(Rules.preset("junior", 2)).targets_memo
    assert a.targets_memo.limit == spec.MAX_TARGET_KEYS


def _play_out(game: Game) -> dict:
    rng = np.random.default_rng(0)
    while not game.is_over:
        legal = game.legal_actions()
        game.step(legal[int(rng.integers(len(legal)))])
    return game.to_dict()


def test_a_game_plays_on_alike_after_its_rules_left_the_memo():
    rules = Rules.preset("short", 2, stock_size=4)
    kept = _play_out(Game(rules, seed=0))
    game = Game(rules, seed=0)
    spec._SPECS.clear()
    spec._TARGET_MEMOS.clear()
    assert _play_out(game) == kept
