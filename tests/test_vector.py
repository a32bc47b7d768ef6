"""The batched engine (skipbo_env.vector) against the reference engine and players.

Differential tests: the same deals, the same legal masks, the same successor states
(`to_dict()`, generator state included), the same observations and rewards, and the same
scripted moves, over thousands of positions of every variant.
"""

from __future__ import annotations

import numpy as np
import pytest
from positions import coin_gap_position, position

from skipbo_env import Game, Rules
from skipbo_env.integrations.sb3 import sb3_vec_env
from skipbo_env.observation import ObservationEncoder
from skipbo_env.players.registry import make_agent
from skipbo_env.players.scripted import ExpertAgent
from skipbo_env.rules import STALL_OUTCOMES, VARIANTS, allowed_players
from skipbo_env.vector import SkipBoVectorEnv, VectorEngine
from skipbo_env.vector import bundles as K
from skipbo_env.vector import generator as G
from skipbo_env.vector import scripted as KA
from skipbo_env.vector.batched import engine_bytes

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]
# Rows 0-3 play at random; rows 4-7 play naive or greedy, which complete building piles, so
# set-aside cards get reshuffled into new draw piles and stocks run out.
ROWS = 8


def _drive(engine: VectorEngine, steps: int, seed: int, check_agents: bool = False) -> dict:
    """Step `engine` and reference games side by side, comparing everything after each step;
    returns how often each rule event happened, so a test can show it was exercised."""
    rules = engine.rules
    n = rules.num_players
    engine.reset(seed=seed)
    seeds = np.random.default_rng(seed).integers(2**63, size=engine.num_games)
    games = [Game(rules, seed=int(s)) for s in seeds]
    encoder = ObservationEncoder(rules)
    kinds = np.zeros((engine.num_games, n), dtype=np.int64)
    kinds[4:] = np.array([[1 + (row + seat) % 2 for seat in range(n)] for row in range(4, ROWS)])
    refs = {name: make_agent(name) for name in ("naive", "greedy")}
    seen = dict.fromkeys(("positions", "reshuffles", "won", "drawn", "truncated", "coin_plays",
                          "purchases", "tolls_paid", "tolls_declined", "coins_handed_out",
                          "teammate_plays", "team_wins", "stalled_won", "stalled_drawn",
                          "move_limit"), 0)
    for _ in range(steps):
        for i, game in enumerate(games):
            where = f"row {i}, turn {game.turn}"
            assert np.array_equal(engine.masks[i], game.action_mask()), f"mask, {where}"
            assert engine.num_legal[i] == len(game.legal_actions()), f"legal count, {where}"
            assert engine.seats[i] == game.current_player, where
            assert np.array_equal(engine.obs[i], encoder.encode(game, game.current_player)), \
                f"observation, {where}"
            assert engine.state_dict(i) == game.to_dict(), f"state, {where}"
            seen["positions"] += 1
        if check_agents:
            for name, kind in (("naive", 1), ("greedy", 2)):
                chosen = engine.scripted_actions(np.full((engine.num_games, n), kind)).copy()
                for i, game in enumerate(games):
                    assert chosen[i] == refs[name].act(game.view()), f"{name}, row {i}, {game}"
        actions = engine.random_actions().copy()
        scripted = engine.scripted_actions(kinds).copy()
        actions[4:] = scripted[4:]
        engine.step(actions)
        for i, game in enumerate(games):
            draw_before = len(game.draw_pile)
            decoded = game.layout.decode(int(actions[i]))
            pile_coins = list(game.pile_coins)
            game.step(int(actions[i]))
            _count(seen, decoded, pile_coins, game)
            if len(game.draw_pile) > draw_before:
                seen["reshuffles"] += 1
            if game.is_over:
                seen[game.phase] += 1
                if game.stall_turns == rules.num_players:
                    seen[f"stalled_{game.phase}"] += 1
                seen["team_wins"] += game.phase == "won" and rules.teams is not None
                seen["move_limit"] += game.turn_moves == rules.max_turn_moves
                assert engine.terminated[i] == (game.phase != "truncated")
                assert engine.truncated[i] == (game.phase == "truncated")
                assert np.array_equal(engine.rewards[i], np.array(game.returns(), np.float32))
                games[i] = Game(rules, seed=game.rng)  # a row deals on from its generator
            else:
                assert not engine.terminated[i] and not engine.truncated[i]
                assert not engine.rewards[i].any()
    return seen


def _count(seen: dict, decoded, pile_coins: list[int], game: Game) -> None:
    """Count the rule events of one reference step (the action taken apart before it)."""
    kind = decoded.kind
    seen["coin_plays"] += kind == "coin"
    seen["purchases"] += kind == "buy"
    seen["tolls_paid"] += kind == "pay_toll"
    seen["tolls_declined"] += kind == "decline_toll"
    seen["teammate_plays"] += kind == "play" and decoded.source.owner > 0
    seen["coins_handed_out"] += sum(1 for before, now in zip(pile_coins, game.pile_coins)
                                    if before and not now)


# The rule events each kind of game must have shown for its differential test to count.
EVENTS = {"masters": ("coin_plays", "purchases", "tolls_paid", "tolls_declined",
                      "coins_handed_out"),
          "partnership": ("teammate_plays", "team_wins")}


@pytest.mark.parametrize("variant,players", CASES)
def test_the_batched_engine_deals_steps_observes_and_scores_as_the_reference(variant, players):
    engine = VectorEngine(variant, players, num_games=ROWS, stock_size=6)
    seen = _drive(engine, steps=300, seed=11)
    assert seen["positions"] == 300 * ROWS
    assert seen["won"] > 0
    for event in EVENTS.get(variant.removesuffix("_short"), ()):
        assert seen[event] > 0, f"no {event} in {variant} with {players} players"


SHORT_DECK_CASES = [("standard", 2), ("junior", 2), ("masters", 3), ("partnership", 4)]


def _short_deck(variant: str, players: int, max_turns: int, **overrides) -> VectorEngine:
    """A short deck, so the draw pile runs out and set-aside cards get reshuffled."""
    rules = Rules.preset(variant, players)
    return VectorEngine(variant, players, num_games=ROWS, max_turns=max_turns, stock_size=10,
                        copies_per_rank=rules.copies_per_rank // 2 + 1, **overrides)


@pytest.mark.parametrize("outcome", STALL_OUTCOMES)
@pytest.mark.parametrize("variant,players", SHORT_DECK_CASES)
def test_reshuffles_and_stalled_games_match_the_reference(variant, players, outcome):
    # Reshuffles draw the generator's own numbers; with nothing left to draw, a round without
    # a card played ends the game, drawn or won by the fewest stock cards (play is compulsory
    # in the junior games: no stalls).
    engine = _short_deck(variant, players, max_turns=120, stall_outcome=outcome)
    seen = _drive(engine, steps=400, seed=5)
    assert seen["reshuffles"] > 0
    if not engine.rules.stacked:
        assert seen["stalled_won" if outcome == "fewest_stock" else "stalled_drawn"] > 0
        assert outcome == "fewest_stock" or not seen["stalled_won"]


@pytest.mark.parametrize("variant,players", SHORT_DECK_CASES)
def test_the_turn_limit_matches_the_reference(variant, players):
    engine = _short_deck(variant, players, max_turns=40)
    seen = _drive(engine, steps=400, seed=5)
    assert seen["truncated"] > 0


@pytest.mark.parametrize("variant,players", SHORT_DECK_CASES)
def test_the_move_limit_of_a_turn_matches_the_reference(variant, players):
    # Three actions a turn: naive and greedy play several cards before they discard.
    engine = _short_deck(variant, players, max_turns=1000, max_turn_moves=3)
    seen = _drive(engine, steps=400, seed=5)
    assert seen["move_limit"] > 0


def test_without_wild_on_wild_the_batched_engine_matches_the_reference():
    engine = VectorEngine("standard", 3, num_games=ROWS, wild_on_wild=False, stock_size=8)
    seen = _drive(engine, steps=400, seed=2)
    assert seen["won"] > 0


@pytest.mark.parametrize("variant,players", [(v, allowed_players(v)[0]) for v in VARIANTS]
                         + [("standard", 4), ("partnership", 4), ("masters", 5)])
def test_batched_naive_and_greedy_choose_the_reference_players_moves(variant, players):
    engine = VectorEngine(variant, players, num_games=ROWS, stock_size=12)
    _drive(engine, steps=150, seed=8, check_agents=True)


def _check_expert(variant: str, players: int, positions: int, seed: int,
                  **overrides) -> dict:
    """Positions of mixed reference play (each seat random, naive, greedy or expert; every
    third position kept), loaded one a row into a batched engine: in every one the batched
    expert must choose `ExpertAgent`'s action, and leave the row as it was. Returns what the
    positions showed."""
    engine = VectorEngine(variant, players, num_games=positions, **overrides)
    rules = engine.rules
    rng = np.random.default_rng(seed)
    agents = [make_agent(name, seed) for name in ("random", "naive", "greedy", "expert")]
    games: list[Game] = []
    while len(games) < positions:
        game = Game(rules, seed=int(rng.integers(2**63)))
        seats = [agents[k] for k in rng.integers(len(agents), size=players)]
        while not game.is_over and len(games) < positions:
            if rng.random() < 1 / 3:
                games.append(game.clone())
            game.step(seats[game.current_player].act(game.view()))
    for i, game in enumerate(games):
        engine.set_game(i, game)
    chosen = engine.scripted_actions(["expert"] * players).copy()
    expert = make_agent("expert")
    seen = {"nothing_to_draw": 0, "discards": 0, "tolls": 0, "set_order_ties": 0,
            "coin_plays": 0, "purchases": 0}
    for i, game in enumerate(games):
        want = expert.act(game.view())
        seen["coin_plays"] += game.layout.decode(want).kind == "coin"
        seen["purchases"] += game.layout.decode(want).kind == "buy"
        assert chosen[i] == want, f"expert, position {i}: {game.describe(want)}, {game.to_dict()}"
        # The expert's planning marks cards in place and restores them: the row is untouched.
        assert engine.state_dict(i) == game.to_dict()
        seen["nothing_to_draw"] += not game.draw_pile and not game.set_aside
        seen["discards"] += game.layout.decode(want).kind == "discard"
        seen["tolls"] += game.phase == "toll"
        card, m = game.layout.decode(want).card, rules.max_rank + 1
        if card >= 0:  # a discard: do copies of its number with other ids tie?
            ties = [c for c in game.hands[game.current_player] if c % m == card % m]
            seen["set_order_ties"] += card != min(ties)
    return seen


@pytest.mark.parametrize("variant,players", CASES)
def test_batched_expert_chooses_the_reference_experts_moves(variant, players):
    seen = _check_expert(variant, players, positions=150,
                         seed=VARIANTS.index(variant) * 10 + players, stock_size=8)
    assert seen["discards"] > 0 or variant.startswith("junior")
    assert seen["tolls"] > 0 or not variant.startswith("masters")


@pytest.mark.parametrize("players", [2, 3, 4])
def test_batched_expert_spends_coins_as_the_reference_expert_does(players):
    # Skip-Bo Masters: the expert's coin plays and purchases (ExpertAgent._coin_step), in
    # positions of mixed play.
    seen = _check_expert("masters", players, positions=400, seed=40 + players, stock_size=10)
    assert seen["coin_plays"] > 0 and seen["purchases"] > 0, seen


@pytest.mark.parametrize("variant,players", SHORT_DECK_CASES)
def test_batched_expert_matches_the_reference_with_nothing_left_to_draw(variant, players):
    # A tiny deck: the draw pile and the set-aside cards run out, where the expert plays
    # rather than hold back (ExpertAgent._unstall).
    seen = _check_expert(variant, players, positions=300, seed=3, max_turns=120, stock_size=5,
                         copies_per_rank=3, wilds=4)
    assert seen["nothing_to_draw"] > 0
    # Masters discards where, of two copies of a number with different tolls, the one with
    # the higher id goes (the reference's set order; `_set_slots`).
    assert seen["set_order_ties"] > 0 or variant != "masters"


def test_batched_expert_matches_the_reference_without_wild_on_wild():
    _check_expert("standard", 3, positions=300, seed=2, wild_on_wild=False, stock_size=8)


@pytest.mark.parametrize("hand, stock, building, discarded", [
    # Three ids: CPython's set of 7, 20, 5 iterates 20 (slot 4), 5, 7: the tolled 7 goes.
    ([7, 20, 7, 20, 5], 3, [[], [], [], []], 20),
    # Five ids grow the set's table to 32 slots: 33 (a 7 with a 2-coin toll) comes first.
    ([7, 33, 1, 2, 3], 6, [[1, 2, 3, 4]] * 4, 33),
])
def test_batched_expert_breaks_discard_ties_in_the_references_set_order(hand, stock, building,
                                                                        discarded):
    # ExpertAgent._discard takes the first best card in `set(hand)` order: between cards of
    # one rank and different tolls (Skip-Bo Masters) neither the hand's order nor the ids'.
    assert KA.EXPERT_SAFE_GAP == ExpertAgent.SAFE_GAP
    assert KA.EXPERT_COIN_LIMIT == ExpertAgent.COIN_LIMIT
    assert KA.EXPERT_BUY_STOCK == ExpertAgent.BUY_STOCK
    rules = Rules.preset("masters", 2)
    # Without coins: with them the second position's 5 would be a coin play.
    game = position(rules, building=building, coins=[0, 24],
                    players=[{"stock": [stock], "hand": hand}, {"stock": [12]}])
    want = make_agent("expert").act(game.view())
    assert game.layout.decode(want).card == discarded == next(
        c for c in set(hand) if c % 13 == discarded % 13)
    engine = VectorEngine("masters", 2, num_games=1)
    engine.reset(seed=0)
    engine.set_game(0, game)
    assert engine.scripted_actions(["expert", "expert"])[0] == want


def test_batched_expert_builds_a_chain_to_a_partners_stock_as_the_reference_does():
    rules = Rules.preset("partnership", 4)
    game = position(rules, building=[[1, 2, 3]],
                    players=[{"hand": [4, 10, 11, 12, 7], "stock": [9]}, {"stock": [5]},
                             {"stock": [8, 5]}, {"stock": [11]}])
    want = make_agent("expert").act(game.view())
    assert game.describe(want) == "hand 4 -> building pile 0"  # for the partner's 5
    engine = VectorEngine("partnership", 4, num_games=1)
    engine.reset(seed=0)
    engine.set_game(0, game)
    assert engine.scripted_actions(["expert"] * 4)[0] == want


@pytest.mark.parametrize("gap", [12, 13])
def test_batched_expert_pays_at_most_coin_limit_coins_as_the_reference_does(gap):
    game = coin_gap_position(gap)
    want = make_agent("expert").act(game.view())
    assert (game.layout.decode(want).kind == "coin") == (gap <= ExpertAgent.COIN_LIMIT)
    engine = VectorEngine("masters", 2, num_games=1, max_rank=16, coins_per_player=30)
    engine.reset(seed=0)
    engine.set_game(0, game)
    assert engine.scripted_actions(["expert", "expert"])[0] == want

def test_the_batched_set_order_is_cpythons_for_any_hand():
    # `players._set_slots` rebuilds CPython's set table of a hand's ids (up to 30 ids below
    # 128: tables of 8, 32 and 128 slots): sorting the ids by slot gives list(set(hand)).
    rng = np.random.default_rng(0)
    piles = np.zeros((1, 1, 32), dtype=np.int8)
    st = K.State(piles=piles, lens=np.zeros((1, 1), dtype=np.int32),
                 scal=np.zeros((1, 1), dtype=np.int32), rng=np.zeros((1, 6), dtype=np.uint64),
                 arng=np.zeros(1, dtype=np.uint64))
    seen = np.zeros((1, 128), dtype=np.int64)
    for size in [1, 2, 4, 5, 6, 12, 18, 19, 20, 25, 30] * 30:
        hand = rng.integers(0, int(rng.choice([13, 39, 128])), size=size)
        piles[0, 0, :size] = hand
        st.lens[0, 0] = size
        KA._set_slots(st, seen, np.int64(0), np.int64(0))
        ids = sorted(set(hand.tolist()), key=lambda c: seen[0, c])
        assert ids == list(set(hand.tolist())), hand.tolist()


def test_the_batched_engine_draws_the_numbers_numpys_pcg64_draws():
    rng = np.zeros((1, 6), dtype=np.uint64)
    for seed in (0, 1, 2**40 + 3):
        reference = np.random.default_rng(seed)
        rng[0] = [int(x) for x in _state_row(reference)]
        raw = [int(G.next_uint64(rng, 0)) for _ in range(50)]
        assert raw == [int(x) for x in np.random.PCG64(seed).random_raw(50)]
        # Shuffles use masked rejection on 32-bit halves, as Generator.shuffle does.
        deck = list(range(100))
        reference.shuffle(deck)
        piles = np.zeros((1, 1, 100), dtype=np.int8)
        piles[0, 0] = np.arange(100)
        fresh = np.random.default_rng(seed)
        rng[0] = [int(x) for x in _state_row(fresh)]
        G.shuffle(piles, rng, 0, 0, 100)
        assert piles[0, 0].tolist() == deck


def _state_row(generator):
    from skipbo_env.vector.tables import _pcg_state
    return _pcg_state(generator)


def test_game_i_after_a_seeded_reset_is_the_reference_game_of_the_ith_seed():
    engine = VectorEngine("masters", 4, num_games=5)
    engine.reset(seed=123)
    seeds = np.random.default_rng(123).integers(2**63, size=5)
    for i, s in enumerate(seeds):
        assert engine.state_dict(i) == Game(engine.rules, seed=int(s)).to_dict()


def test_a_seed_repeats_every_game_and_the_random_actions():
    def run(seed):
        engine = VectorEngine("standard", 2, num_games=16)
        engine.reset(seed=seed)
        for _ in range(50):
            engine.step_random()
        return engine.obs.copy(), engine.state_dict(7)

    a, b, c = run(4), run(4), run(5)
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]
    assert a[1] != c[1]


def test_step_random_takes_legal_actions_and_reports_them():
    engine = VectorEngine("junior", 3, num_games=32)
    engine.reset(seed=0)
    for _ in range(100):
        masks = engine.masks.copy()
        *_, info = engine.step_random()
        assert all(masks[i, a] for i, a in enumerate(info["actions"]))


def test_a_finished_games_last_observation_is_kept_and_the_row_deals_again():
    engine = VectorEngine("short", 2, num_games=4, stock_size=1)
    engine.reset(seed=1)
    for _ in range(200):
        before = [engine.game(i) for i in range(4)]
        obs, masks, rewards, terminated, truncated, info = engine.step_random()
        if len(info["done_index"]):
            i = int(info["done_index"][0])
            game = before[i]
            game.step(int(info["actions"][i]))
            assert game.is_over
            expected = ObservationEncoder(engine.rules).encode(game, game.current_player)
            assert np.array_equal(info["final_obs"][0], expected)
            assert engine.game(i).turn == 0  # a fresh deal
            return
    pytest.fail("no game finished")


def test_without_autoreset_a_finished_game_stays_over_and_ignores_actions():
    engine = VectorEngine("short", 2, num_games=4, stock_size=1, autoreset=False)
    engine.reset(seed=1)
    for _ in range(300):
        engine.step_random()
    finished = [engine.game(i) for i in range(4)]
    assert all(g.is_over for g in finished)
    assert not engine.masks.any()
    engine.step(np.zeros(4, dtype=np.int64))
    assert [engine.game(i).to_dict() for i in range(4)] == [g.to_dict() for g in finished]


def test_set_game_loads_any_reference_position():
    rules = Rules.preset("masters", 2)
    game = position(rules, building=[[1, 2, -1]], pile_coins=[3, 0, 0, 0],
                    coins=[9, 12], players=[{"stock": [5, 4], "hand": [0, 7]},
                                            {"stock": [9]}],
                    phase="coin_followup", pending={"pile": 0, "toll": 0})
    engine = VectorEngine("masters", 2, num_games=3)
    engine.reset(seed=0)
    engine.set_game(1, game)
    assert engine.state_dict(1) == game.to_dict()
    assert np.array_equal(engine.masks[1], game.action_mask())
    actions = np.array([np.flatnonzero(m)[0] for m in engine.masks])
    engine.step(actions)
    game.step(int(actions[1]))
    assert engine.state_dict(1) == game.to_dict()


def test_whole_games_of_scripted_players_are_counted():
    engine = VectorEngine("standard", 2, num_games=32, stock_size=5)
    engine.reset(seed=0)
    result = engine.play(["naive", "random"], games_per_row=2)
    assert result["games"] == 64
    assert sum(result["wins"]) + result["draws"] == 64
    assert result["wins"][0] > result["wins"][1]  # naive beats random
    assert all(engine.game(i).turn == 0 for i in range(32))  # fresh deals, observed
    assert engine.masks.any(axis=1).all()
    result = engine.play(["expert", "greedy"], games_per_row=2)
    assert result["wins"][0] > result["wins"][1]  # expert beats greedy


def test_bad_arguments_and_illegal_actions_are_refused_with_clear_errors():
    with pytest.raises(ValueError, match="num_games must be a positive integer"):
        VectorEngine(num_games=0)
    with pytest.raises(ValueError, match="unknown variant"):
        VectorEngine("poker")
    with pytest.raises(ValueError, match="num_games: 1000000000000 games of these rules need "
                                         "about .* GiB in the batched engine, over 8 GiB"):
        VectorEngine(num_games=10**12)
    for huge in (np.int64(2**62), 10**400, 10**5000):
        with pytest.raises(ValueError, match="num_games: .* at most 994,320 fit"):
            VectorEngine(num_games=huge)
    with pytest.raises(ValueError, match="unknown rules field"):
        VectorEngine(stock=3)
    engine = VectorEngine("standard", 2, num_games=4)
    with pytest.raises(RuntimeError, match="reset"):
        engine.step(np.zeros(4, dtype=np.int64))
    engine.reset(seed=0)
    before = engine.state_dict(2)
    with pytest.raises(ValueError, match="shape"):
        engine.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="integers"):
        engine.step(np.zeros(4))
    actions = engine.random_actions().copy()
    actions[2] = int(np.flatnonzero(engine.masks[2] == 0)[0])
    with pytest.raises(ValueError, match="game 2: action .* is not legal"):
        engine.step(actions)
    assert engine.state_dict(2) == before  # nothing applied
    with pytest.raises(ValueError, match="no batched player 'lookahead'"):
        engine.scripted_actions(["lookahead", "naive"])
    with pytest.raises(ValueError, match="one player for each of the 2 seats"):
        engine.play(["naive"])
    with pytest.raises(ValueError, match="game index"):
        engine.game(4)



@pytest.mark.parametrize("variant,players", [("standard", 2), ("masters", 6), ("junior", 3),
                                             ("partnership", 4)])
def test_the_engines_size_bound_counts_every_array_it_allocates(variant, players):
    engine = VectorEngine(variant, players, num_games=5)
    allocated = sum(a.nbytes for a in (*engine.state, *engine.buffers))
    assert engine_bytes(engine.rules, 5) == allocated

# -- the single-agent vector env ---------------------------------------------------------------
def test_the_vector_env_has_the_single_game_envs_spaces():
    env = SkipBoVectorEnv("standard", 3, num_envs=6)
    obs, info = env.reset(seed=0)
    assert env.single_observation_space.shape == (ObservationEncoder(env.rules).size,)
    assert env.single_action_space.n == Game(env.rules, 0).num_actions
    assert obs.shape == (6, env.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert env.action_masks().shape == (6, env.single_action_space.n)
    assert set(info["seat"]) <= {0, 1, 2}


def test_the_vector_envs_opponents_play_the_reference_players_moves_until_the_learners_turn():
    for opponent in ("naive", "greedy", "expert"):
        env = SkipBoVectorEnv("standard", 3, num_envs=8, opponents=[opponent], stock_size=6)
        env.reset(seed=3)
        ref = make_agent(opponent)
        finished = 0
        for _ in range(60):
            games = [env.game(i) for i in range(8)]
            for i, game in enumerate(games):
                seat = int(env.learner[i])
                assert game.current_player == seat
                assert np.array_equal(env.action_masks()[i], game.action_mask().astype(bool))
                assert np.array_equal(env.engine.obs[i],
                                      ObservationEncoder(env.rules).encode(game, seat))
            actions = np.array([int(np.flatnonzero(m)[-1]) for m in env.action_masks()])
            obs, rewards, terminated, truncated, infos = env.step(actions)
            for i, game in enumerate(games):
                seat = game.current_player
                game.step(int(actions[i]))
                while not game.is_over and game.current_player != seat:
                    game.step(ref.act(game.view()))
                if game.is_over:
                    finished += 1
                    assert terminated[i] or truncated[i]
                    assert rewards[i] == game.returns()[seat]
                    assert np.array_equal(infos["final_obs"][i],
                                          ObservationEncoder(env.rules).encode(game, seat))
                else:
                    assert env.game(i).to_dict() == game.to_dict()
                    assert rewards[i] == 0
        assert finished > 0


def test_the_vector_envs_seat_and_opponents_follow_the_options():
    env = SkipBoVectorEnv("standard", 4, num_envs=200, seat=2,
                          opponents={"naive": 1, "greedy": 0})
    env.reset(seed=0)
    assert (env.learner == 2).all()
    assert (env.kinds == 1).all()
    env = SkipBoVectorEnv("standard", 2, num_envs=400, opponents="random,greedy")
    env.reset(seed=0)
    assert set(env.learner) == {0, 1}
    share = (env.kinds[np.arange(400), 1 - env.learner] == 2).mean()
    assert 0.4 < share < 0.6


def test_stock_reward_pays_for_each_card_the_learner_plays_from_its_stock():
    env = SkipBoVectorEnv("short", 2, num_envs=16, opponents="naive", stock_reward=0.5)
    env.reset(seed=1)
    source = env.engine.tables.param("stocksrc") * env.rules.building_piles
    masks = env.action_masks()
    stock_plays = masks[:, source:source + env.rules.building_piles]
    rows = np.flatnonzero(stock_plays.any(axis=1))
    assert len(rows)
    actions = np.array([int(np.flatnonzero(m)[0]) for m in masks])
    actions[rows] = source + np.argmax(stock_plays[rows], axis=1)
    _, rewards, terminated, _, _ = env.step(actions)
    assert all(rewards[i] == 0.5 or terminated[i] for i in rows)


def test_opponent_stock_reward_pays_per_card_the_other_stocks_lose_until_the_learners_turn():
    env = SkipBoVectorEnv("short", 2, num_envs=16, opponents="expert", stock_reward=0.5,
                          opponent_stock_reward=-0.25)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(40):
        before = [env.game(i) for i in range(env.num_envs)]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        _, rewards, terminated, truncated, _ = env.step(actions)
        for i in np.flatnonzero(~(terminated | truncated)):
            seat, old, new = env.learner[i], before[i], env.game(i)
            own = old.team_stock_size(seat) - new.team_stock_size(seat)
            lost = sum(map(len, old.stocks)) - sum(map(len, new.stocks))
            assert rewards[i] == pytest.approx(0.5 * own - 0.25 * (lost - own))
            checked += lost > own
    assert checked  # steps in which the opponent played from its stock were seen


def test_the_vector_env_refuses_bad_options_and_illegal_actions():
    with pytest.raises(ValueError, match="no batched player 'lookahead'"):
        SkipBoVectorEnv(opponents=["lookahead"])
    with pytest.raises(ValueError, match="seat must be"):
        SkipBoVectorEnv(seat=2)
    with pytest.raises(ValueError, match="weight of 'naive'"):
        SkipBoVectorEnv(opponents={"naive": -1})
    with pytest.raises(ValueError, match="stock_reward"):
        SkipBoVectorEnv(stock_reward=float("nan"))
    with pytest.raises(ValueError, match="opponent_stock_reward must be a finite number"):
        SkipBoVectorEnv(opponent_stock_reward=float("inf"))
    env = SkipBoVectorEnv(num_envs=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        env.step(np.array([env.single_action_space.n - 1] * 2))


def test_maskable_ppo_trains_on_the_vector_env_directly():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    venv = sb3_vec_env(SkipBoVectorEnv("short", 2, num_envs=32, stock_size=3,
                                       opponents="naive"))
    model = sb3_contrib.MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=128, n_epochs=1,
                                    seed=0, policy_kwargs={"net_arch": [32]})
    # Every action MaskablePPO takes is legal: the env raises on an illegal one.
    model.learn(1024)
    assert model.num_timesteps >= 1024
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=venv.action_masks())
    assert all(venv.action_masks()[i, a] for i, a in enumerate(actions))


def test_the_rule_tests_positions_are_played_by_the_batched_engine_too():
    import positions

    rules = Rules.preset("masters", 2)
    game = position(rules, building=[[1, 2]], players=[{"stock": [3], "hand": [5, 0]},
                                                       {"stock": [9]}])
    before = positions.STEPS_CHECKED[0]
    positions.play(game, "stock 3 -> building pile 0")
    assert positions.STEPS_CHECKED[0] == before + 1 and game.phase == "won"


def test_rules_whose_card_ids_or_counters_overflow_the_batched_storage_are_refused():
    from types import SimpleNamespace

    from skipbo_env.vector.tables import check_representable

    base = Rules.preset("masters", 2)
    fields = {k: getattr(base, k) for k in ("max_rank", "toll_table", "max_turns",
                                            "max_turn_moves", "deck_size", "coins_per_player",
                                            "num_players")}
    with pytest.raises(ValueError, match="int8 ids up to 127; these rules have card ids up to"):
        check_representable(SimpleNamespace(**fields, num_card_ids=273))
    with pytest.raises(ValueError, match="max_turns 4294967296 is over"):
        check_representable(SimpleNamespace(**{**fields, "max_turns": 2**32},
                                            num_card_ids=base.num_card_ids))
    with pytest.raises(ValueError, match="max_turn_moves 4294967296 is over"):
        check_representable(SimpleNamespace(**{**fields, "max_turn_moves": 2**32},
                                            num_card_ids=base.num_card_ids))
    check_representable(base)  # the presets fit


@pytest.mark.parametrize("field, value", [("turn", 2**40), ("scores", [2**40, 0])])
def test_a_game_whose_counters_overflow_int32_is_refused_by_set_game(field, value):
    engine = VectorEngine("standard", 2, num_games=2)
    engine.reset(seed=0)
    before = engine.state_dict(0)
    game = Game(Rules.preset("standard", 2), seed=1)
    setattr(game, field, value)
    with pytest.raises(ValueError, match=f"int32: the game's {field} holds"):
        engine.set_game(0, game)
    assert engine.state_dict(0) == before
