"""Properties that hold in every position of random games of every variant (hypothesis)."""

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from skipbo_env import VARIANTS, Game, ObservationEncoder, Rules, allowed_players

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]
SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def games(draw):
    """A game of some variant and player count, sometimes with a small stock or without wilds
    on wilds, and a seed for the random player that drives it."""
    variant, players = draw(st.sampled_from(CASES))
    stock = draw(st.sampled_from([None, 1, 3, 8]))
    overrides = {} if stock is None else {"stock_size": stock}
    if draw(st.integers(0, 4)) == 0:
        overrides["wild_on_wild"] = False
    rules = Rules.preset(variant, players, **overrides)
    return Game(rules, draw(st.integers(0, 2**32))), draw(st.integers(0, 2**32))


def card_counts(game):
    counts = [0] * game.rules.num_card_ids
    piles = [game.draw_pile, game.set_aside, *game.building, *game.stocks]
    for p in range(game.rules.num_players):
        piles += game.discards[p]
        piles += [game.hands[p], *game.stacks[p]]
    for pile in piles:
        for c in pile:
            if c >= 0:  # a coin play's place in a building pile is no card
                counts[c] += 1
    return counts


def hide_differently(game, seat, rng):
    """The same game with the cards `seat` cannot see dealt differently among the places it
    cannot see: the draw pile, other players' hands (refill mode) and every stock below its
    top."""
    d = game.to_dict()
    slots = [(d, "draw_pile", slice(None))]
    # A player who must follow a coin play holds a card to follow it: a deal of that hand
    # without one is a state no game reaches (from_dict refuses it), so it stays as it is.
    followup = game.phase == "coin_followup"
    for p, pl in enumerate(d["players"]):
        if not game.rules.stacked and p != seat and not (followup and p == game.current_player):
            slots.append((pl, "hand", slice(None)))
        slots.append((pl, "stock", slice(0, max(len(pl["stock"]) - 1, 0))))
    hidden = [c for obj, key, sl in slots for c in obj[key][sl]]
    rng.shuffle(hidden)
    i = 0
    for obj, key, sl in slots:
        part = obj[key][sl]
        obj[key][sl] = hidden[i:i + len(part)]
        i += len(part)
    return Game.from_dict(d)


def run(game, seed, check, max_steps=20_000):
    rng = np.random.default_rng(seed)
    for _ in range(max_steps):
        check(game, rng)
        if game.is_over:
            return
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])
    raise AssertionError("the game did not end")


@SETTINGS
@given(games())
def test_the_card_total_is_conserved(case):
    game, seed = case
    deck = game.rules.deck_counts()

    def check(g, rng):
        np.testing.assert_array_equal(card_counts(g), deck)
        assert g.card_counts() == card_counts(g)  # the engine's own count (from_dict uses it)

    run(game, seed, check)


@SETTINGS
@given(games())
def test_the_coin_total_is_conserved_and_no_seat_goes_below_zero(case):
    game, seed = case
    total = game.rules.coins_per_player * game.rules.num_players

    def check(g, rng):
        assert sum(g.coins) + sum(g.pile_coins) == total
        assert min(g.coins) >= 0 and min(g.pile_coins) >= 0

    run(game, seed, check)


@SETTINGS
@given(games())
def test_the_mask_equals_legal_actions(case):
    game, seed = case

    def check(g, rng):
        assert np.flatnonzero(g.action_mask()).tolist() == g.legal_actions()
        assert (g.legal_actions() == []) == g.is_over

    run(game, seed, check)


@SETTINGS
@given(games())
def test_every_masked_action_is_accepted_and_every_unmasked_one_refused(case):
    game, seed = case

    def check(g, rng):
        # Every action of a sample of positions (fewer for the larger action spaces).
        if g.is_over or rng.random() > min(0.2, 25 / g.num_actions):
            return
        mask = g.action_mask()
        before = g.to_dict()
        for action in range(g.num_actions):
            trial = g.clone()
            if mask[action]:
                trial.step(action)
            else:
                try:
                    trial.step(action)
                except ValueError:
                    assert trial.to_dict() == before
                else:
                    raise AssertionError(f"unmasked action {action} was accepted")

    run(game, seed, check)


@SETTINGS
@given(games())
def test_from_dict_of_to_dict_is_exact(case):
    game, seed = case

    def check(g, rng):
        d = g.to_dict()
        again = Game.from_dict(json.loads(json.dumps(d)))
        assert again.to_dict() == d
        assert again.legal_actions() == g.legal_actions()

    run(game, seed, check)


@SETTINGS
@given(games())
def test_a_hidden_information_change_never_changes_an_observation(case):
    game, seed = case
    encoder = ObservationEncoder(game.rules)

    def check(g, rng):
        for seat in range(g.rules.num_players):
            other = hide_differently(g, seat, rng)
            np.testing.assert_array_equal(encoder.encode(g, seat), encoder.encode(other, seat))

    run(game, seed, check)


@SETTINGS
@given(games())
def test_every_observation_lies_in_its_space_and_matches_a_fresh_encoder(case):
    game, seed = case
    # A shallow pile depth as well, so that piles deeper than it are exercised.
    encoders = [ObservationEncoder(game.rules), ObservationEncoder(game.rules, pile_depth=2)]

    def check(g, rng):
        seat = int(rng.integers(g.rules.num_players))
        for encoder in encoders:
            obs = encoder.encode(g, seat)
            assert obs.dtype == np.float32 and obs.shape == (encoder.size,)
            assert obs.min() >= 0.0 and obs.max() <= 1.0
            fresh = ObservationEncoder(g.rules, pile_depth=encoder.depth)
            np.testing.assert_array_equal(obs, fresh.encode(g, seat))

    run(game, seed, check)


@SETTINGS
@given(games())
def test_every_game_ends(case):
    game, seed = case
    run(game, seed, lambda g, rng: None)
    assert game.phase in ("won", "drawn", "truncated")
    assert game.turn <= game.rules.max_turns


def legal_by_the_rules(game):
    """The legal actions worked out from the rule text, action by action (a test oracle)."""
    rules, layout, p = game.rules, game.layout, game.current_player
    n, r = rules.num_players, rules.max_rank + 1
    if game.is_over:
        return []
    if game.phase == "toll":
        pay = [layout.pay_toll] if game.coins[p] >= game.pending_toll else []
        return pay + [layout.decline_toll]
    team = sorted(rules.team_of(p), key=lambda s: (s - p) % n)

    def card_of(source, seat=None):
        if source.kind == "hand":
            if rules.stacked:
                stack = game.stacks[p][source.index]
                return stack[-1] if stack else None
            return source.index if source.index in game.hands[p] else None
        owner = team[source.owner] if seat is None else seat
        pile = (game.stocks[owner] if source.kind == "stock"
                else game.discards[owner][source.index])
        return pile[-1] if pile else None

    def fits(card, pile):
        if card % r == 0:
            return rules.wild_on_wild or not pile or pile[-1] != 0
        return card % r == len(pile) + 1

    own = list(game.hands[p]) + [pile[-1] for pile in (game.stocks[p], *game.discards[p]) if pile]
    legal = []
    for action in range(layout.size):
        kind, source, pile, hand_card = layout.decode(action)
        if game.phase == "coin_followup":
            # Only the card after the coin play, from the player's own cards, on that pile.
            if kind == "play" and pile == game.pending_pile and source.owner == 0:
                card = card_of(source)
                if card is not None and fits(card, game.building[pile]):
                    legal.append(action)
            continue
        if kind == "play":
            card = card_of(source)
            if card is not None and fits(card, game.building[pile]):
                legal.append(action)
        elif kind == "discard":
            if hand_card in game.hands[p]:
                legal.append(action)
        elif kind == "coin":
            need = len(game.building[pile]) + 1
            if need < rules.max_rank and game.coins[p] >= need and any(
                    c % r in (0, need + 1) for c in own):
                legal.append(action)
        elif kind == "buy":
            card = card_of(source, (p + source.owner) % n)
            if game.coins[p] >= 1 and card is not None and fits(card, game.building[pile]):
                legal.append(action)
    if game.phase == "coin_followup":
        return legal
    if rules.stacked:
        if not legal:
            legal.append(layout.end_turn)
    elif not game.hands[p]:
        legal.append(layout.end_turn)
    return legal


@SETTINGS
@given(games())
def test_legal_actions_agree_with_the_rules_worked_out_action_by_action(case):
    game, seed = case
    run(game, seed, lambda g, rng: np.testing.assert_array_equal(g.legal_actions(),
                                                                 legal_by_the_rules(g)))


@SETTINGS
@given(games())
def test_a_game_sampled_from_a_view_shows_that_seat_the_same_and_holds_the_whole_deck(case):
    game, seed = case
    encoder = ObservationEncoder(game.rules)
    deck = game.rules.deck_counts()

    def check(g, rng):
        if g.is_over:
            return
        seat = int(rng.integers(g.rules.num_players))
        sample = Game.from_view(g.view(seat), np.random.default_rng(seed))
        np.testing.assert_array_equal(encoder.encode(sample, seat), encoder.encode(g, seat))
        assert sample.view(seat) == g.view(seat)
        np.testing.assert_array_equal(card_counts(sample), deck)
        Game.from_dict(sample.to_dict())  # a consistent state
        # Only the view decides the sample: re-dealing the hidden cards changes nothing.
        other = hide_differently(g, seat, rng)
        again = Game.from_view(other.view(seat), np.random.default_rng(seed))
        assert again.to_dict() == sample.to_dict()

    run(game, seed, check)
