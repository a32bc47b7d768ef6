"""Building piles: how they start, grow, take wilds and are set aside."""

from positions import described, play, position

from skipbo_env import Rules

STANDARD = Rules.preset("standard", 2)
W = 0  # the wild (Skip-Bo card)


def test_a_building_pile_starts_with_a_1():
    game = position(STANDARD, players=[{"hand": [1, 7, 7, 9, 12], "stock": [5]}, {"stock": [3]}])
    legal = described(game)
    assert "hand 1 -> building pile 0" in legal
    assert not any(d.startswith(("hand 7 ", "hand 9", "hand 12", "stock")) for d in legal)


def test_a_building_pile_starts_with_a_wild_played_as_1():
    game = position(STANDARD, players=[{"hand": [W, 7, 7, 9, 12], "stock": [5]}, {"stock": [3]}])
    assert "hand Skip-Bo -> building pile 2 as 1" in described(game)
    play(game, "hand Skip-Bo -> building pile 2 as 1")
    assert game.building[2] == [W]


def test_a_building_pile_takes_only_the_next_number():
    game = position(STANDARD, building=[[1, 2], [], [], []],
                    players=[{"hand": [3, 4, 5, 5, 9], "stock": [8]}, {"stock": [3]}])
    legal = described(game)
    assert "hand 3 -> building pile 0" in legal
    assert "hand 4 -> building pile 0" not in legal
    play(game, "hand 3 -> building pile 0")
    play(game, "hand 4 -> building pile 0")
    assert game.building[0] == [1, 2, 3, 4]


def test_a_wild_takes_the_value_the_pile_needs():
    game = position(STANDARD, building=[[1, 2, 3, 4, 5], [], [], []],
                    players=[{"hand": [W, 7, 6, 9, 9], "stock": [8]}, {"stock": [3]}])
    play(game, "hand Skip-Bo -> building pile 0 as 6")
    legal = described(game)
    assert "hand 7 -> building pile 0" in legal
    assert "hand 6 -> building pile 0" not in legal


def test_a_wild_may_be_played_on_a_wild():
    game = position(STANDARD, building=[[W], [], [], []],
                    players=[{"hand": [W, 7, 6, 9, 9], "stock": [8]}, {"stock": [3]}])
    play(game, "hand Skip-Bo -> building pile 0 as 2")
    assert game.building[0] == [W, W]


def test_wild_on_wild_can_be_switched_off_as_a_rules_option():
    rules = Rules.preset("standard", 2, wild_on_wild=False)
    game = position(rules, building=[[W], [1, 2], [], []],
                    players=[{"hand": [W, 7, 6, 9, 9], "stock": [8]}, {"stock": [3]}])
    legal = described(game)
    assert "hand Skip-Bo -> building pile 0 as 2" not in legal
    assert "hand Skip-Bo -> building pile 1 as 3" in legal


def test_a_pile_that_reaches_max_rank_is_set_aside_at_once_freeing_its_place():
    game = position(STANDARD, building=[list(range(1, 12)), [], [], []],
                    players=[{"hand": [12, 1, 6, 9, 9], "stock": [8]}, {"stock": [3]}])
    play(game, "hand 12 -> building pile 0")
    assert game.building[0] == []
    assert game.set_aside == list(range(1, 13))
    assert "hand 1 -> building pile 0" in described(game)


def test_a_wild_played_as_max_rank_completes_the_pile():
    game = position(STANDARD, building=[list(range(1, 12)), [], [], []],
                    players=[{"hand": [W, 1, 6, 9, 9], "stock": [8]}, {"stock": [3]}])
    play(game, "hand Skip-Bo -> building pile 0 as 12")
    assert game.building[0] == [] and game.set_aside == list(range(1, 12)) + [W]


def test_junior_piles_are_built_to_10():
    rules = Rules.preset("junior", 2)
    game = position(rules, building=[list(range(1, 10)), [], [], []],
                    players=[{"hand": [[10], [4], [5]], "stock": [8]}, {"stock": [3]}])
    play(game, "hand stack 0 top 10 -> building pile 0")
    assert game.building[0] == [] and game.set_aside == list(range(1, 11))


def test_there_are_never_more_than_building_piles_piles():
    game = position(STANDARD, building=[[1], [1, 2], [1, 2, 3], [W]],
                    players=[{"hand": [1, 1, 7, 9, 9], "stock": [1]}, {"stock": [3]}])
    legal = described(game)
    assert not any(d.startswith(("hand 1 ", "stock 1 ")) for d in legal)
    assert len(game.building) == STANDARD.building_piles


def test_a_wild_keeps_the_number_it_was_played_as_and_is_never_swapped():
    game = position(STANDARD, building=[[1, 2], [], [], []],
                    players=[{"hand": [W, 3, 4, 9, 9], "stock": [8]}, {"stock": [3]}])
    play(game, "hand Skip-Bo -> building pile 0 as 3")
    legal = described(game)
    assert "hand 4 -> building pile 0" in legal and "hand 3 -> building pile 0" not in legal
    play(game, "hand 4 -> building pile 0")
    assert game.building[0] == [1, 2, W, 4]


def test_a_card_on_a_building_pile_never_moves_again():
    game = position(STANDARD, building=[[1, 2], [], [], []],
                    players=[{"hand": [3, 4, 5, 9, 9], "stock": [8]}, {"stock": [3]}])
    assert all(source.kind in ("hand", "stock", "discard") for source in game.layout.sources)
    before = [list(p) for p in game.building]
    play(game, "discard hand 9 -> discard pile 0")
    assert game.building == before


def test_building_piles_are_shared_by_every_player():
    game = position(STANDARD, building=[[1, 2], [], [], []],
                    players=[{"hand": [3, 9, 9, 9, 9], "stock": [8]},
                             {"hand": [4, 10, 10, 10, 10], "stock": [7]}])
    play(game, "hand 3 -> building pile 0")
    play(game, "discard hand 9 -> discard pile 0")
    play(game, "hand 4 -> building pile 0")
    assert game.building[0] == [1, 2, 3, 4]
