"""The shipped checkpoints (checkpoints/*.zip, trained by configs/*.yaml; docs/training.md)
load with their model cards and play legal moves in every seat of their own game."""

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")

from skipbo_env import Game, Rules
from skipbo_env.observation import OBS_VERSION
from skipbo_env.players.registry import make_agent
from skipbo_env.train.config import load, validate

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ["standard_2p", "short_2p"]


def _recorded(card: dict) -> dict:
    """The card's config with the rules fields added since it was written holding the values
    that held then, as `Rules.from_dict` reads the card's rules (a card written before
    `stall_outcome` existed was trained with every stalled game drawn)."""
    config = json.loads(json.dumps(card["config"]))
    then = Rules.from_dict(card["rules"]).to_dict()
    config["rules"] = {**{k: then[k] for k in set(then) - set(card["rules"])},
                       **config.get("rules", {})}
    return config


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_checkpoint_has_the_model_card_of_its_config(name):
    card = json.loads((ROOT / "checkpoints" / f"{name}.json").read_text())
    cfg = load(str(ROOT / "configs" / f"{name}.yaml"))
    raw = cfg.to_dict()
    # The card's config as today's loader reads it (keys added since take their defaults).
    recorded = validate(_recorded(card)).to_dict()
    assert recorded == raw and card["seed"] == cfg.seed
    assert Rules.from_dict(card["rules"]) == cfg.game_rules
    assert card["obs_version"] == OBS_VERSION  # trained on today's encoding
    assert card["steps"] >= cfg.total_timesteps
    results = card["evaluation"]["results"]
    assert set(results) == set(cfg.eval.final_opponents)
    assert all(r["games"] == cfg.eval.final_games for r in results.values())
    # A full SB3 save (Adam's state included, so that SB3 can resume from it); a network of
    # [512, 512, 256] is about 18 MB of it.
    assert (ROOT / "checkpoints" / f"{name}.zip").stat().st_size < 32 * 2**20


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_checkpoint_loads_and_plays_legal_moves_in_every_seat(name):
    path = str(ROOT / "checkpoints" / f"{name}.zip")
    card = json.loads((ROOT / "checkpoints" / f"{name}.json").read_text())
    rules = Rules.from_dict(card["rules"])
    agent = make_agent(path)
    for seat in range(rules.num_players):
        game = Game(rules, 100 + seat)
        others = make_agent("greedy", seat)
        moves = 0
        while not game.is_over:
            if game.current_player == seat:
                action = agent.act(game.view())
                assert action in game.legal_actions()
                moves += 1
            else:
                action = others.act(game.view())
            game.step(action)
        assert moves > 0 and game.phase in ("won", "drawn", "truncated")


def test_a_shipped_checkpoint_is_an_opponent_in_the_terminal_game():
    from skipbo_env.apps.session import PlaySession

    session = PlaySession("short", str(ROOT / "checkpoints" / "short_2p.zip"), seed=0,
                          stock_size=3)
    assert session.names == ["you", "short_2p"]
    while not session.game.is_over:
        session.play_bots()
        if not session.game.is_over:
            session.play(session.hint().action)
    assert session.result() is not None


def test_the_shipped_rllib_checkpoint_has_the_model_card_of_its_config():
    from skipbo_env.train.rllib_ppo import load as load_rllib
    from skipbo_env.train.rllib_ppo import validate as validate_rllib

    card = json.loads((ROOT / "checkpoints" / "rllib_standard_2p.json").read_text())
    cfg = load_rllib(str(ROOT / "configs" / "rllib_standard_2p.yaml"))
    raw = cfg.to_dict()
    # The card's config as today's loader reads it (keys added since take their defaults).
    recorded = validate_rllib(_recorded(card))
    assert recorded.to_dict() == raw
    assert Rules.from_dict(card["rules"]) == cfg.game_rules
    assert card["iterations"] == cfg.iterations == len(card["curve"])
    assert card["env_steps"] >= cfg.iterations * cfg.ppo.train_batch_size
    assert set(card["evaluation"]) == set(cfg.eval.opponents)
    assert all(r["games"] >= cfg.eval.games for r in card["evaluation"].values())


def test_the_shipped_rllib_checkpoint_plays_legal_moves_in_every_seat():
    path = str(ROOT / "checkpoints" / "rllib_standard_2p.zip")
    agent = make_agent(path)
    rules = Rules.preset("standard", 2)
    for seat in range(2):
        game = Game(rules, 200 + seat)
        others = make_agent("naive", seat)
        while not game.is_over:
            player = agent if game.current_player == seat else others
            action = player.act(game.view())
            assert action in game.legal_actions()
            game.step(action)


def test_a_shipped_checkpoint_is_a_player_by_its_name_everywhere_a_path_is():
    import subprocess
    import sys

    from skipbo_env.players.registry import SHIPPED, parse_player
    from skipbo_env.vector import SkipBoVectorEnv

    for name in SHIPPED:
        assert Path(parse_player(name).path).samefile(ROOT / "checkpoints" / f"{name}.zip")
        assert parse_player(f"lookahead:{name}").path == parse_player(name).path
    agent = make_agent("standard_2p")
    game = Game(Rules.preset("standard", 2), 0)
    assert agent.act(game.view()) in game.legal_actions()
    env = SkipBoVectorEnv(num_envs=2, opponents={"standard_2p": 1.0})
    env.reset(seed=0)
    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "evaluate",
                             "short_2p", "--opponents", "random", "--games", "2", "--quiet",
                             "--workers", "1"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "against random" in result.stdout and "short, 2 players, stock 10" in result.stdout
