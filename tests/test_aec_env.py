"""The PettingZoo AEC environment."""

import itertools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import skipbo_env
from skipbo_env import VARIANTS, Game, Rules, allowed_players
from skipbo_env.envs.aec import ActionCheckWrapper

CASES = [(v, n) for v in VARIANTS for n in allowed_players(v)]


@pytest.mark.parametrize("variant, players", CASES)
def test_pettingzoo_api_test_passes(variant, players):
    api_test(skipbo_env.env(variant=variant, num_players=players), num_cycles=300)


@pytest.mark.parametrize("variant, players", CASES)
def test_pettingzoo_seed_test_passes(variant, players):
    seed_test(lambda: skipbo_env.env(variant=variant, num_players=players), num_cycles=300)


def test_env_is_wrapped_as_pettingzoo_classic_games_are():
    e = skipbo_env.env()
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, wrappers.AssertOutOfBoundsWrapper)
    assert isinstance(e.env.env, wrappers.TerminateIllegalWrapper)
    assert isinstance(e.env.env, ActionCheckWrapper)  # with the check that -O cannot remove
    assert isinstance(e.unwrapped, skipbo_env.raw_env)
    assert e.metadata["name"] == "skipbo_v0"


def test_agents_are_named_player_0_onwards():
    e = skipbo_env.env(num_players=3)
    e.reset(seed=0)
    assert e.agents == ["player_0", "player_1", "player_2"]


def test_the_same_agent_acts_again_within_its_turn():
    e = skipbo_env.raw_env(variant="short")
    e.reset(seed=0)
    state = e.game.to_dict()
    # Give player 0 a 1 in hand so a play (which does not end the turn) is legal.
    hand = state["players"][0]["hand"]
    if 1 not in hand:
        i = state["draw_pile"].index(1)
        state["draw_pile"][i], hand[0] = hand[0], 1
    e.reset(options={"state": state})
    play = next(a for a in e.game.legal_actions() if e.game.describe(a).startswith("hand 1 "))
    e.step(play)
    assert e.agent_selection == "player_0"


def test_the_raw_env_raises_value_error_listing_the_legal_actions():
    e = skipbo_env.raw_env()
    e.reset(seed=1)
    mask = e.observe("player_0")["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError) as err:
        e.step(illegal)
    assert "legal actions are" in str(err.value) and "discard hand" in str(err.value)


def test_the_wrapped_env_ends_the_game_with_a_penalty_on_an_illegal_action():
    e = skipbo_env.env()
    e.reset(seed=1)
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards["player_0"] == -1


def test_rewards_are_plus_one_for_the_winner_and_minus_one_for_the_others():
    game = Game(Rules.preset("standard", 3, stock_size=1), 0)
    state = game.to_dict()
    # Player 0's single stock card becomes a 1, so playing it wins.
    stock = state["players"][0]["stock"]
    i = state["draw_pile"].index(1)
    state["draw_pile"][i], stock[0] = stock[0], 1
    e = skipbo_env.env(num_players=3, stock_size=1)
    e.reset(options={"state": state})
    win = next(a for a in e.unwrapped.game.legal_actions()
               if e.unwrapped.game.describe(a) == "stock 1 -> building pile 0")
    e.step(win)
    assert e.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}
    assert all(e.terminations.values()) and not any(e.truncations.values())
    assert e.infos["player_1"]["won"].tolist() == [True, False, False]


def test_the_turn_limit_is_a_truncation_with_zero_rewards():
    e = skipbo_env.env(max_turns=2)
    e.reset(seed=0)
    for _ in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    assert e.unwrapped.game.truncated


def test_reset_with_a_state_starts_from_that_position():
    game = Game(Rules.preset("standard", 2), 9)
    for _ in range(5):
        game.step(game.legal_actions()[-1])
    e = skipbo_env.raw_env()
    e.reset(options={"state": game.to_dict()})
    assert e.game.to_dict() == game.to_dict()
    assert e.agent_selection == f"player_{game.current_player}"


def test_reset_rejects_a_state_with_other_rules_and_warns_of_unknown_options():
    e = skipbo_env.raw_env()
    other = Game(Rules.preset("short", 2), 0).to_dict()
    with pytest.raises(ValueError, match="differ from this env"):
        e.reset(options={"state": other})
    with pytest.warns(UserWarning, match=r"ignoring unknown reset option\(s\) \['deal'\]"):
        e.reset(options={"deal": 3})


def test_reset_with_the_same_seed_repeats_the_deal():
    e = skipbo_env.raw_env()
    e.reset(seed=5)
    first = e.game.to_dict()
    e.reset(seed=5)
    assert e.game.to_dict() == first
    e.reset()
    assert e.game.to_dict() != first


def test_the_mask_of_an_agent_not_to_act_is_all_zeros():
    e = skipbo_env.raw_env()
    e.reset(seed=0)
    assert e.observe("player_1")["action_mask"].sum() == 0
    assert e.observe("player_0")["action_mask"].sum() > 0


def test_render_ansi_returns_the_table_and_human_prints_it(capsys):
    e = skipbo_env.raw_env(render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "building piles" in text and "player 0" in text and "discard piles" in text
    h = skipbo_env.raw_env(render_mode="human")
    h.reset(seed=0)
    assert "building piles" in capsys.readouterr().out


def test_an_unknown_render_mode_is_refused():
    with pytest.raises(ValueError, match="render_mode must be one of"):
        skipbo_env.raw_env(render_mode="rgb")


def test_rgb_array_renders_the_table_as_an_image_of_one_size_through_the_game():
    e = skipbo_env.env(render_mode="rgb_array", num_players=3, stock_size=3)
    assert "rgb_array" in e.metadata["render_modes"]
    e.reset(seed=2)
    frames = [e.render()]
    for _agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[-1]))
        frames.append(e.render())
    assert all(f.dtype == np.uint8 and f.shape == frames[0].shape and f.shape[2] == 3
               for f in frames)
    assert frames[0].shape[0] > frames[0].shape[1] / 3
    assert any(not np.array_equal(a, b) for a, b in itertools.pairwise(frames))



def _runs(line: np.ndarray, colour) -> int:
    """How many separate runs of `colour` a row of pixels holds."""
    hit = np.all(line == colour, axis=1).astype(int)
    return int(np.count_nonzero(np.diff(np.concatenate([[0], hit])) == 1))


def test_rgb_array_has_room_for_every_pile_of_rules_past_the_presets():
    from skipbo_env import picture as P

    e = skipbo_env.env(render_mode="rgb_array", hand_size=12, building_piles=8,
                       discard_piles=6, stock_size=3)
    e.reset(seed=0)
    frame = e.render()
    assert frame.shape[1] > P.WIDTH  # wider than the presets' pictures
    # Every pile is empty at the deal: one empty slot drawn for each, none cut off.
    building_mid = P.HEADER + 6 + P.CARD_H // 2
    assert _runs(frame[building_mid], P.EMPTY) == 8
    for p in range(2):
        mid = P.HEADER + P.PILES_ROW + p * P.PLAYER_ROW + 18 + P.MINI_H // 2
        assert _runs(frame[mid], P.EMPTY) == 6

def test_pettingzoos_render_test_passes_for_every_render_mode():
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: skipbo_env.env(render_mode=render_mode, stock_size=2))


def test_bad_env_arguments_raise_value_error():
    with pytest.raises(ValueError, match="unknown variant"):
        skipbo_env.env(variant="uno")
    with pytest.raises(ValueError, match="allows 4 players"):
        skipbo_env.env(variant="partnership", num_players=3)


def test_the_action_space_is_a_discrete_space_that_tests_membership_like_gymnasium():
    from gymnasium import spaces
    space = skipbo_env.raw_env().action_space("player_0")
    plain = spaces.Discrete(space.n)
    assert isinstance(space, spaces.Discrete) and space == plain
    for x in [0, 5, space.n - 1, space.n, -1, np.int64(3), np.int8(200 % 127), 2.0, "1", True,
              np.array(4), np.array([4])]:
        assert space.contains(x) == plain.contains(x), x


_WITHOUT_ASSERTIONS = """
import numpy as np
from skipbo_env.envs.aec import env
for action in (-1, -125, 125, 80.9, np.int64(-1), True, "3"):
    e = env()
    e.reset(seed=0)
    try:
        e.step(action)
    except ValueError:
        continue
    raise SystemExit(f"accepted {action!r}")
print("refused all")
"""


def test_an_out_of_range_or_non_integer_action_is_refused_even_without_assertions():
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-O", "-c", _WITHOUT_ASSERTIONS],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and "refused all" in out.stdout, out.stdout + out.stderr


def test_a_zero_dimensional_integer_array_is_an_action_as_in_the_gym_env():
    e = skipbo_env.env()
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    e.step(np.array(int(mask.argmax())))
    assert not any(e.terminations.values())


def test_every_agents_info_has_turn_and_won_from_the_reset_on():
    e = skipbo_env.env(stock_size=2)
    e.reset(seed=4)
    kinds, last = set(), {}
    for agent in e.agent_iter():
        obs, _, term, trunc, info = e.last()
        assert info["turn"] == e.unwrapped.game.turn
        kinds.add((tuple(sorted(info)), info["won"].dtype, info["won"].shape))
        last[agent] = info["won"].tolist()
        e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    assert kinds == {(("turn", "won"), np.dtype(bool), (2,))}
    winners = list(e.unwrapped.game.winners)
    assert winners and list(last.values()) == [[p in winners for p in range(2)]] * 2
