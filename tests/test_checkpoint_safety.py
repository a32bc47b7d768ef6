"""Checkpoints are data, not code: loading one as a player never unpickles anything.

Each test plants a harmless pickle payload (it creates a marker file when unpickled) in a copy
of a shipped checkpoint, first proves that SB3's own loader runs it (so the payload is live),
then loads the copy through an entry point of the package and checks the marker is absent.
"""

import base64
import json
import pickle
import shutil
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib", reason="the train extra is not installed")

from skipbo_env.players.checkpoints import load_model
from skipbo_env.players.policy import load_policy_agent
from skipbo_env.players.registry import make_agent
from skipbo_env.rules import Rules

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "checkpoints" / "short_2p.zip"


class Payload:
    """Unpickling this calls open(marker, "w"): it creates the marker file, nothing else."""

    def __init__(self, marker: Path):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def _copy_with(tmp_path: Path, name: str, entries: dict[str, bytes]) -> Path:
    """A copy of the shipped checkpoint (and its card) with `entries` replaced or added."""
    path = tmp_path / f"{name}.zip"
    with zipfile.ZipFile(SHIPPED) as src, zipfile.ZipFile(path, "w") as dst:
        for info in src.infolist():
            if info.filename not in entries:
                dst.writestr(info, src.read(info))
        for entry, data in entries.items():
            dst.writestr(entry, data)
    shutil.copy(SHIPPED.with_suffix(".json"), path.with_suffix(".json"))
    return path


@pytest.fixture
def planted(tmp_path):
    """(checkpoint whose `data` entry carries a serialized payload, marker path)."""
    marker = tmp_path / "payload-ran"
    with zipfile.ZipFile(SHIPPED) as z:
        data = json.loads(z.read("data"))
    data["payload"] = {":type:": "<class 'object'>",
                       ":serialized:": base64.b64encode(pickle.dumps(Payload(marker))).decode()}
    path = _copy_with(tmp_path, "planted", {"data": json.dumps(data).encode()})
    return path, marker


def test_the_planted_payload_is_live_under_sb3s_own_loader(planted):
    from sb3_contrib import MaskablePPO

    path, marker = planted
    MaskablePPO.load(str(path), device="cpu")  # SB3 trusts the file: the payload runs
    assert marker.exists()


def test_make_agent_and_load_policy_agent_never_unpickle_a_checkpoint(planted):
    path, marker = planted
    agent = make_agent(str(path), 0, Rules.preset("short", 2))
    assert load_policy_agent(str(path)).path == str(path)
    from skipbo_env import Game

    game = Game(Rules.preset("short", 2, stock_size=3), seed=0)
    game.step(agent.act(game.view()))
    assert not marker.exists()


def test_the_gym_and_roles_envs_never_unpickle_a_checkpoint_opponent(planted):
    import gymnasium

    from skipbo_env.envs.roles import RolesEnv

    path, marker = planted
    env = gymnasium.make("SkipBo-v0", variant="short", opponents=str(path), stock_size=3)
    env.reset(seed=0)
    env.step(int(env.unwrapped.action_masks().nonzero()[0][0]))
    roles = RolesEnv("short", 2, opponents={str(path): 1.0}, stock_size=3, seed=0)
    roles.reset()
    assert not marker.exists()


def test_evaluate_tournament_and_play_never_unpickle_a_checkpoint(planted):
    from skipbo_env.apps.cli import main as cli
    from skipbo_env.apps.session import PlaySession

    path, marker = planted
    assert not cli(["evaluate", str(path), "--opponents", "random", "--games", "2",
                    "--stock-size", "2", "--workers", "1", "--quiet"])
    assert not cli(["tournament", "--players", f"{path},random", "--games", "2",
                    "--variant", "short", "--stock-size", "2", "--workers", "1", "--quiet"])
    session = PlaySession("short", [str(path)], seed=0, stock_size=2)
    assert session.bots
    assert not marker.exists()


def test_training_against_a_checkpoint_opponent_never_unpickles_it(planted, tmp_path):
    from skipbo_env.train import config as cfgmod
    from skipbo_env.train.ppo import train

    path, marker = planted
    cfg = cfgmod.validate({
        "name": "against_planted", "variant": "short", "rules": {"stock_size": 2},
        "total_timesteps": 64, "n_envs": 1, "vec_env": "dummy",
        "opponents": {str(path): 1.0},
        "ppo": {"n_steps": 64, "batch_size": 32, "n_epochs": 1, "net_arch": [16]},
        "eval": {"games": 0, "final_games": 0},
        "output_dir": str(tmp_path / "out"), "log_dir": str(tmp_path / "runs")})
    train(cfg, progress=False)
    assert not marker.exists()


def test_the_web_server_never_unpickles_a_checkpoint_opponent(planted):
    pytest.importorskip("starlette", reason="the web extra is not installed")
    from starlette.testclient import TestClient

    from skipbo_env.apps.web.server import create_app

    path, marker = planted
    client = TestClient(create_app((str(path),), allowed_hosts=("testserver",)))
    r = client.post("/api/games", json={"variant": "short", "opponents": [str(path)],
                                        "stock_size": 2, "seed": 0})
    assert r.status_code == 200, r.text
    assert not marker.exists()


def test_weights_that_are_not_plain_tensors_are_refused_unread(tmp_path):
    import io

    import torch

    marker = tmp_path / "payload-ran"
    buf = io.BytesIO()
    torch.save({"weights": Payload(marker)}, buf)
    path = _copy_with(tmp_path, "pth", {"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="is not a plain state dict of tensors"):
        make_agent(str(path))
    assert not marker.exists()


def _card(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


def _write_card(path: Path, card: dict) -> None:
    path.with_suffix(".json").write_text(json.dumps(card))


def test_a_checkpoint_without_what_the_safe_loader_needs_is_refused_naming_it(tmp_path):
    path = _copy_with(tmp_path, "nopolicy", {})
    card = _card(path)
    del card["policy"], card["config"]
    _write_card(path, card)
    with pytest.raises(ValueError, match="has no policy section.*policy.net_arch"):
        load_model(str(path))
    card = _card(SHIPPED)
    del card["rules"]
    _write_card(path, card)
    with pytest.raises(ValueError, match="has no rules"):
        load_model(str(path))
    with zipfile.ZipFile(SHIPPED) as src, zipfile.ZipFile(tmp_path / "nopth.zip", "w") as dst:
        dst.writestr("data", src.read("data"))
    shutil.copy(SHIPPED.with_suffix(".json"), tmp_path / "nopth.json")
    with pytest.raises(ValueError, match="has no policy.pth entry"):
        load_model(str(tmp_path / "nopth.zip"))


@pytest.mark.parametrize("policy, message", [
    ({"net_arch": [64, 64]}, "do not fit the network of its model card"),
    ({"net_arch": "256"}, "policy.net_arch must be a list"),
    ({"net_arch": [10**9]}, "policy.net_arch must be a list"),
    ({"net_arch": [256, 256], "activation": "os.system"}, "policy.activation must be one of"),
    ({"net_arch": [256, 256], "class": "builtins.eval"}, "is not supported"),
    ({"net_arch": [256, 256], "weights": "../data"}, "policy.weights must be"),
    ("tanh", "policy must be an object"),
])
def test_a_model_card_that_does_not_describe_the_weights_is_refused(tmp_path, policy, message):
    path = _copy_with(tmp_path, "badcard", {})
    card = _card(path)
    card["policy"] = policy
    _write_card(path, card)
    with pytest.raises(ValueError, match=message):
        load_model(str(path))


def test_the_safe_loader_chooses_exactly_as_sb3s_loader_does():
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    from skipbo_env import Game
    from skipbo_env.observation import ObservationEncoder

    safe = load_model(str(SHIPPED))
    sb3 = MaskablePPO.load(str(SHIPPED), device="cpu")
    rules = Rules.from_dict(_card(SHIPPED)["rules"])
    encoder = ObservationEncoder(rules)
    game, rng, checked = Game(rules, seed=5), np.random.default_rng(0), 0
    while not game.is_over and checked < 200:
        obs = torch.as_tensor(encoder.encode(game, game.current_player)[None])
        mask = game.action_mask().astype(bool)
        with torch.no_grad():
            a = safe.get_distribution(obs, action_masks=mask).distribution.probs
            b = sb3.policy.get_distribution(obs, action_masks=mask).distribution.probs
        assert torch.allclose(a, b)
        game.step(int(rng.choice(np.flatnonzero(mask))))
        checked += 1
    assert checked > 20


def test_weights_whose_entries_are_compressed_are_refused_before_torch_reads_them(tmp_path):
    import io

    with zipfile.ZipFile(SHIPPED) as z:
        inner = zipfile.ZipFile(io.BytesIO(z.read("policy.pth")))
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as out:
            for info in inner.infolist():
                out.writestr(info.filename, inner.read(info))  # deflated: could be a bomb
    path = _copy_with(tmp_path, "deflated", {"policy.pth": buf.getvalue()})
    with pytest.raises(ValueError, match="holds compressed entries"):
        load_model(str(path))


@pytest.mark.parametrize("card, message", [
    ("[" * 100_000, "nested too deeply"),
    ('{"obs_version": true}', "obs_version must be an integer"),
    ('{"obs_version": 1, "rules": null, "policy": {"net_arch": [64], "activation": []}}',
     "bad rules|policy.activation"),
    ('{"obs_version": 1, "config": {"ppo": [1]}}', "has no rules|has no policy section"),
])
def test_a_malformed_model_card_is_refused_with_a_value_error(tmp_path, card, message):
    path = _copy_with(tmp_path, "odd", {})
    path.with_suffix(".json").write_text(card)
    with pytest.raises(ValueError, match=message):
        load_model(str(path))


def test_a_model_card_that_is_not_a_regular_file_is_refused_unread(tmp_path):
    path = _copy_with(tmp_path, "dev", {})
    path.with_suffix(".json").unlink()
    path.with_suffix(".json").symlink_to("/dev/zero")
    with pytest.raises(ValueError, match="is not a regular file"):
        load_model(str(path))


def _never_built(monkeypatch):
    """Make building any policy network fail the test: the loader must refuse before."""
    from sb3_contrib.common.maskable import policies

    def refuse(*args, **kwargs):
        raise AssertionError("the network was built before the checkpoint was refused")

    monkeypatch.setattr(policies.MaskableActorCriticPolicy, "__init__", refuse)


def test_a_card_asking_for_another_network_than_its_weights_is_refused_before_building(
        tmp_path, monkeypatch):
    path = _copy_with(tmp_path, "wide", {})
    card = _card(path)
    card["policy"]["net_arch"] = [4096, 4096, 4096]  # within the bound, not these weights
    _write_card(path, card)
    _never_built(monkeypatch)
    with pytest.raises(ValueError, match="do not fit the network of its model card"):
        load_model(str(path))


def test_a_card_asking_for_a_network_past_the_loaders_bound_is_refused_before_building(
        tmp_path, monkeypatch):
    from skipbo_env.players import checkpoints

    path = _copy_with(tmp_path, "huge", {})
    card = _card(path)
    card["policy"]["net_arch"] = [8192, 8192, 8192, 8192]  # a 1.7 KB card, gigabytes to build
    _write_card(path, card)
    _never_built(monkeypatch)
    with pytest.raises(ValueError, match="over the .* this loader builds"):
        load_model(str(path))
    assert checkpoints.MAX_WEIGHTS_BYTES // 4 < 2 * 3 * 8192 * 8192  # the bound bites here


def _with_weights(tmp_path: Path, name: str, change) -> Path:
    import io

    import torch

    with zipfile.ZipFile(SHIPPED) as z:
        state = torch.load(io.BytesIO(z.read("policy.pth")), weights_only=True)
    change(state)
    buf = io.BytesIO()
    torch.save(state, buf)
    return _copy_with(tmp_path, name, {"policy.pth": buf.getvalue()})


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_weights_that_are_not_finite_are_refused_at_load(tmp_path, bad):
    def spoil(state):
        state["action_net.bias"][3] = bad

    path = _with_weights(tmp_path, "spoilt", spoil)
    with pytest.raises(ValueError, match="not finite"):
        load_model(str(path))
    with pytest.raises(ValueError, match="not finite"):
        make_agent(str(path), rules=Rules.preset("short", 2))


def test_a_refused_checkpoint_is_remembered_and_not_read_again(tmp_path, monkeypatch):
    from skipbo_env.players import checkpoints

    path = _copy_with(tmp_path, "refused", {})
    card = _card(path)
    card["policy"]["net_arch"] = [64]
    _write_card(path, card)
    reads = []
    real = checkpoints._read_weights
    monkeypatch.setattr(checkpoints, "_read_weights", lambda p: reads.append(p) or real(p))
    for _ in range(3):
        with pytest.raises(ValueError, match="do not fit"):
            load_model(str(path))
    assert len(reads) == 1
    card["policy"]["net_arch"] = [512, 512, 256]  # a changed card is read afresh
    _write_card(path, card)
    assert load_model(str(path)) is not None and len(reads) == 2


def test_weights_larger_than_the_loaders_cap_are_refused_unread(tmp_path, monkeypatch):
    from skipbo_env.players import checkpoints

    path = _copy_with(tmp_path, "big", {})
    with zipfile.ZipFile(path) as z:
        size = z.getinfo("policy.pth").file_size
    monkeypatch.setattr(checkpoints, "MAX_WEIGHTS_BYTES", size - 1)
    read = []
    monkeypatch.setattr(zipfile.ZipFile, "read", lambda self, *a: read.append(a) or b"")
    with pytest.raises(ValueError, match=f"policy.pth is {size} bytes, over the {size - 1}"):
        load_model(str(path))
    assert read == []  # refused by its stated size, before a byte of it was inflated
