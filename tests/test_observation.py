"""What the observation shows: everything public, from the observing seat's point of view."""

import json
from pathlib import Path

import numpy as np
import pytest
from positions import position

from skipbo_env import ObservationEncoder, Rules
from skipbo_env.observation import OBS_VERSION

STANDARD = Rules.preset("standard", 2)
PARTNERSHIP = Rules.preset("partnership", 4)
JUNIOR = Rules.preset("junior", 2)
W = 0


def part(encoder, obs, name):
    _, start, width = next(s for s in encoder.sections if s[0] == name)
    return obs[start:start + width]


def seat_block(encoder, obs, k):
    o = {n: s for n, s, _ in encoder.sections}["seats"] + k * encoder.seat_width
    return obs[o:o + encoder.seat_width]


def decode_pile(encoder, block):
    """(size, top, codes, below counts) of one encoded pile."""
    r, depth = encoder.num_ranks, encoder.depth
    rules = encoder.rules
    size = round(block[0] * rules.deck_size)
    top = int(np.argmax(block[1:2 + r]))
    codes = [round(x * r) - 1 for x in block[2 + r:2 + r + depth] if x > 0]
    below = [round(x * c) for x, c in zip(block[2 + r + depth:], rules.deck_counts())]
    return size, top, codes, below


def test_the_observation_is_from_the_observing_seat_first_then_the_others_in_turn_order():
    game = position(Rules.preset("standard", 3), players=[
        {"hand": [9, 9, 9, 9, 9], "stock": [4, 5]}, {"stock": [6]}, {"stock": [7, 7, 7]}])
    enc = ObservationEncoder(game.rules)
    r = enc.num_ranks
    obs = enc.encode(game, 1)
    tops = [int(np.argmax(seat_block(enc, obs, k)[2:3 + r])) for k in range(3)]
    assert tops == [6, 7, 5]
    assert part(enc, obs, "to_act").tolist() == [0, 0, 1]  # player 0 is two seats on


def test_the_observation_shows_every_stock_top_and_size_and_the_own_hand():
    game = position(STANDARD, players=[{"hand": [W, 3, 3, 12, 5], "stock": [4, 5, 11]},
                                       {"hand": [1, 1], "stock": [W, 2]}])
    enc = ObservationEncoder(STANDARD)
    obs = enc.encode(game, 0)
    r = enc.num_ranks
    hand = np.round(part(enc, obs, "own_hand_by_rank") * STANDARD.hand_size)
    assert hand.tolist() == [1, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0, 0, 1]
    me, other = seat_block(enc, obs, 0), seat_block(enc, obs, 1)
    assert np.argmax(me[2:3 + r]) == 11 and np.argmax(other[2:3 + r]) == 2
    assert round(me[3 + r] * 30) == 3 and round(other[3 + r] * 30) == 2
    assert round(other[4 + r] * 5) == 2  # the other hand's size, not its cards


def test_the_observation_shows_the_building_piles_and_their_wilds():
    game = position(STANDARD, building=[[1, W, 3], [], [W], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]],
                    players=[{"hand": [9, 9, 9, 9, 9], "stock": [5]}, {"stock": [6]}])
    enc = ObservationEncoder(STANDARD)
    obs = enc.encode(game, 0)
    piles = part(enc, obs, "building_piles").reshape(4, 12)
    assert np.argmax(piles, axis=1).tolist() == [3, 0, 1, 11]
    assert np.round(part(enc, obs, "building_pile_wilds") * 12).tolist() == [1, 0, 1, 0]


@pytest.mark.parametrize("depth", [16, 4])
def test_the_observation_shows_every_discard_pile_in_full(depth):
    pile = [5, 7, W, 12, 1, 1, 9, 3, 8, 8, 2, 4, 6, 10, 11, 12, W, 2, 3, 7]
    game = position(STANDARD, players=[{"hand": [9, 9, 9, 9, 9], "stock": [5]},
                                       {"stock": [6], "discard_piles": [[], [], pile, [4]]}])
    enc = ObservationEncoder(STANDARD, pile_depth=depth)
    block = seat_block(enc, enc.encode(game, 0), 1)
    r = enc.num_ranks
    start = 2 + (r + 1) + 1 + 1 + 2 * enc.pile_width
    size, top, codes, below = decode_pile(enc, block[start:start + enc.pile_width])
    assert (size, top) == (20, 7)
    assert codes == list(reversed(pile))[:depth]
    assert below == np.bincount(pile[:-depth], minlength=r).tolist()


def test_junior_hand_stacks_are_public_and_shown_for_every_seat():
    game = position(JUNIOR, players=[{"hand": [[3], [4, 5], []], "stock": [7]},
                                     {"hand": [[9, 8], [], [2]], "stock": [6]}])
    enc = ObservationEncoder(JUNIOR)
    obs = enc.encode(game, 0)
    r = enc.num_ranks
    other = seat_block(enc, obs, 1)
    stack0 = other[4 + r:4 + r + enc.pile_width]
    assert decode_pile(enc, stack0)[:3] == (2, 8, [8, 9])


def test_partners_are_flagged_in_the_observation():
    game = position(PARTNERSHIP, players=[{"hand": [9, 9, 9, 9, 9], "stock": [5]},
                                          {"stock": [6]}, {"stock": [7]}, {"stock": [8]}])
    enc = ObservationEncoder(PARTNERSHIP)
    obs = enc.encode(game, 1)
    assert [seat_block(enc, obs, k)[0] for k in range(4)] == [1, 0, 1, 0]


def test_scores_of_a_match_appear_in_the_observation():
    game = position(STANDARD, players=[{"hand": [9, 9, 9, 9, 9], "stock": [5]}, {"stock": [6]}])
    game.scores = [250, 600]
    enc = ObservationEncoder(STANDARD)
    obs = enc.encode(game, 0)
    assert seat_block(enc, obs, 0)[1] == pytest.approx(0.5)
    assert seat_block(enc, obs, 1)[1] == 1.0


def test_unseen_cards_by_rank_count_what_the_seat_cannot_see():
    game = position(STANDARD, building=[[1, 2]], players=[
        {"hand": [3, 3, 9, 9, 9], "stock": [5, 4]}, {"hand": [4], "stock": [3, 6]}])
    enc = ObservationEncoder(STANDARD)
    unseen = np.round(part(enc, enc.encode(game, 0), "unseen_by_rank")
                      * np.array(STANDARD.deck_counts())).astype(int)
    # Threes: 12 in the deck, 2 in own hand; the 3 under the other stock top is unseen.
    assert unseen[3] == 10
    assert unseen[1] == 11 and unseen[9] == 9 and unseen[6] == 11 and unseen[4] == 11


def test_pile_depth_must_be_positive_and_at_most_max_pile_depth():
    with pytest.raises(ValueError, match=r"pile_depth must be an integer in 1..64, got 0"):
        ObservationEncoder(STANDARD, pile_depth=0)
    with pytest.raises(ValueError, match=r"pile_depth must be an integer in 1..64, got 1000000"):
        ObservationEncoder(STANDARD, pile_depth=10**6)


GOLDEN = Path(__file__).with_name("golden") / "observations.json"


def test_the_encoding_matches_the_golden_observations_of_its_version():
    # A failure here means the observation changed meaning: bump OBS_VERSION in
    # skipbo_env/observation.py (checkpoints of the old version are then refused) and
    # regenerate with `python tests/golden/make_observations.py`.
    from golden.make_observations import position

    golden = json.loads(GOLDEN.read_text())
    assert golden["obs_version"] == OBS_VERSION
    assert len(golden["cases"]) >= 30
    for case in golden["cases"]:
        rules = Rules.preset(case["variant"], case["num_players"])
        obs = ObservationEncoder(rules).encode(position(case["variant"], case["num_players"],
                                                        case["steps"]), case["seat"])
        expected = np.zeros(case["size"], dtype=np.float32)
        for i, value in case["nonzero"]:
            expected[i] = value
        assert obs.shape == expected.shape, case["variant"]
        changed = np.flatnonzero(obs != expected)
        assert not len(changed), (f"{case['variant']} {case['num_players']}p after "
                                  f"{case['steps']} steps, seat {case['seat']}: entries "
                                  f"{changed[:10].tolist()} changed")
