"""Process-wide memos are bounded: memory stays flat however many rules sets a process meets
(benchmarks/soak.py measures it over thousands of games). The RSS tests measure it in a fresh
process: unbounded, either memo grows by about 80 MiB over the same work."""

import json
import subprocess
import sys
import textwrap

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


GROWTH_LIMIT_KIB = 16 * 1024
_MEASURE = textwrap.dedent("""
    import gc, itertools, json
    from skipbo_env import Game, Rules
    from skipbo_env.spec import GameSpec

    def rss_kib():
        gc.collect()  # what is unreachable is not a leak, only garbage not yet collected
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    def growth(step, warm, more):
        step(warm)  # past the memo's limit: from here a bounded memo only replaces entries
        before = rss_kib()
        step(more)
        return rss_kib() - before

    game = Game(Rules.preset("standard", 2, building_piles=6), seed=0)
    sizes = itertools.product(range(12), repeat=6)  # building piles of every size

    def targets(n):
        for _ in range(n):
            game._targets_for(next(sizes))

    rules = (Rules.preset("standard", 2, stock_size=s, hand_size=h, max_turns=m)
             for m in range(100, 10**6) for s in range(1, 31) for h in range(1, 11))

    def specs(n):
        for _ in range(n):
            GameSpec.of(next(rules))

    print(json.dumps({"targets": growth(targets, 5_000, 60_000),
                      "specs": growth(specs, 600, 6_000)}))
""")


def _growth_kib() -> dict:
    out = subprocess.run([sys.executable, "-c", _MEASURE], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_memory_stays_flat_however_many_building_pile_sizes_and_rules_sets_a_process_meets():
    # 60,000 new building-pile sizes in one rules set, then 6,000 new rules sets: each past
    # its memo's limit (MAX_TARGET_KEYS, MAX_SPECS), so a bounded memo only replaces entries.
    growth = _growth_kib()
    assert growth["targets"] < GROWTH_LIMIT_KIB, growth
    assert growth["specs"] < GROWTH_LIMIT_KIB, growth
