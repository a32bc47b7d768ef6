"""The value network's training (skipbo_env/train/value.py): the config is checked, a tiny
run trains, saves, loads and plays in seconds. Strength is a benchmark, not a test."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from skipbo_env import Game, Rules
from skipbo_env.players.registry import make_agent
from skipbo_env.train.value import _collect, _shard_seed, collect, load_value_config, train_value

TINY = {"name": "tiny", "games": 3, "decisions_per_game": 3, "candidates": 4,
        "rollout_rows": 16, "deals": 2, "hidden": [8], "epochs": 1}


def write(tmp_path, **keys) -> str:
    path = tmp_path / "value.yaml"
    path.write_text(json.dumps({**TINY, **keys}))  # JSON is YAML
    return str(path)


def test_a_tiny_run_trains_saves_loads_and_plays(tmp_path):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    path = train_value(cfg, str(tmp_path / "out"), log=lambda line: None)
    card = json.loads((tmp_path / "out" / "tiny.json").read_text())
    assert card["kind"] == "value" and card["samples"] > 0 and len(card["fit"]) == 1
    rules = Rules.preset("standard", 2, stock_size=5)
    agents = [make_agent(path, rules=rules), make_agent("expert", rules=rules)]
    game = Game(rules, seed=0)
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))


@pytest.mark.parametrize("flush", [True, False])
def test_flush_subnormal_computes_subnormals_as_zero_during_the_fit_only(tmp_path, flush):
    import torch

    if not torch.set_flush_denormal(False):
        pytest.skip("this CPU cannot flush subnormal numbers")

    def subnormal_survives() -> bool:
        return bool((torch.tensor([1e-39]) * 1.0).item() != 0.0)

    during: list[bool] = []
    cfg = load_value_config(write(tmp_path, flush_subnormal=flush, rules={"stock_size": 5}))

    def log(line: str) -> None:
        if line.startswith('{"epoch"'):  # a row of the fit's learning curve
            during.append(subnormal_survives())

    train_value(cfg, str(tmp_path / "out"), log=log)
    assert during == [not flush]  # flushed in the fit's epochs only when asked
    assert subnormal_survives()  # after it: torch computes as it did


def test_a_run_that_reads_gaps_features_trains_saves_loads_and_plays(tmp_path):
    cfg = load_value_config(write(tmp_path, features="gaps", rules={"stock_size": 5}))
    path = train_value(cfg, str(tmp_path / "out"), log=lambda line: None)
    card = json.loads((tmp_path / "out" / "tiny.json").read_text())
    assert card["network"]["features"] == "gaps"
    rules = Rules.preset("standard", 2, stock_size=5)
    agents = [make_agent(path, rules=rules), make_agent("expert", rules=rules)]
    assert agents[0].net.features == "gaps"
    game = Game(rules, seed=0)
    while not game.is_over:
        game.step(agents[game.current_player].act(game.view()))


def test_a_card_naming_unknown_features_is_refused(tmp_path):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    path = train_value(cfg, str(tmp_path / "out"), log=lambda line: None)
    card_path = tmp_path / "out" / "tiny.json"
    card = json.loads(card_path.read_text())
    card["network"]["features"] = "colour"
    card_path.write_text(json.dumps(card))
    with pytest.raises(ValueError, match="network.features"):
        make_agent(path, rules=Rules.preset("standard", 2, stock_size=5))


def test_workers_share_the_games_and_number_the_decisions_in_order(tmp_path):
    cfg = load_value_config(write(tmp_path, workers=2, games=3))
    data = collect(cfg, log=lambda line: None)
    ids = np.unique(data["decision"])
    assert np.array_equal(ids, np.arange(len(ids)))  # joined without overlap or gap
    assert np.all(np.diff(data["decision"]) >= 0)
    assert data["expert"].sum() == len(ids) == 9  # 3 games' 3 decisions each
    again = collect(cfg, log=lambda line: None)
    assert np.array_equal(data["x"], again["x"]) and np.array_equal(data["y"], again["y"])


def test_a_sharded_collection_is_each_shard_collected_alone_joined_in_order(tmp_path):
    # more shards than cores: they take turns, and the join copies each in its place
    cfg = load_value_config(write(tmp_path, workers=3, games=3))
    data = collect(cfg, log=lambda line: None)
    alone = [_collect(cfg, 1, _shard_seed(cfg.seed, i), log=lambda line: None)
             for i in range(3)]
    for k in ("x", "y", "expert"):
        assert np.array_equal(data[k], np.concatenate([part[k] for part in alone]))
    assert data["x"].dtype == np.float16


def test_labels_lie_within_the_tanh_range_and_expert_choices_are_marked(tmp_path):
    cfg = load_value_config(write(tmp_path))
    data = collect(cfg, log=lambda line: None)
    assert np.all(np.abs(data["y"]) <= 1.0)
    assert data["x"].shape[0] == len(data["y"]) == len(data["decision"])
    assert data["expert"].sum() == data["decision"].max() + 1  # one expert choice a decision


def test_collecting_twice_with_one_seed_gives_the_same_samples(tmp_path):
    cfg = load_value_config(write(tmp_path))
    a, b = collect(cfg, log=lambda line: None), collect(cfg, log=lambda line: None)
    assert np.array_equal(a["x"], b["x"]) and np.array_equal(a["y"], b["y"])


@pytest.mark.parametrize("key,value,message", [
    ("games", 0, "games"), ("candidates", -1, "candidates"), ("deals", 0, "deals"),
    ("hidden", [0], "hidden"), ("validation", 0.9, "validation"), ("label_scale", 0, "label_scale"),
    ("variant", "poker", "variant"), ("name", "../x", "name"), ("epochs", "2", "epochs"),
    ("features", "colour", "features"), ("features", 3, "features"), ("workers", 0, "workers"),
    ("workers", 65, "workers"), ("flush_subnormal", "yes", "flush_subnormal")])
def test_a_bad_value_config_names_its_key(tmp_path, key, value, message):
    with pytest.raises(ValueError, match=message):
        load_value_config(write(tmp_path, **{key: value}))


def test_an_unknown_key_names_itself(tmp_path):
    with pytest.raises(ValueError, match="learning_rat"):
        load_value_config(write(tmp_path, learning_rat=0.1))


def test_every_value_config_in_configs_is_valid():
    from pathlib import Path
    found = sorted((Path(__file__).parents[1] / "configs").glob("value_*.yaml"))
    assert len(found) >= 4
    for path in found:
        assert load_value_config(str(path)).name == path.stem


def test_a_guides_best_segments_are_labelled_beside_experts_and_random_ones(tmp_path):
    from skipbo_env.train.value import _candidates

    cfg = load_value_config(write(tmp_path, candidates=6, guide_top=3))
    values = np.array([0.1, 0.9, 0.5, 0.8, 0.7, 0.0, 0.2, 0.3, 0.4, 0.6])
    chosen = _candidates(1, 10, cfg, values, np.random.default_rng(0))
    assert chosen[0] == 1  # expert's (also the guide's best: not counted twice)
    assert chosen[1:4] == [3, 4, 9]  # the guide's three best after expert's
    assert len(chosen) == len(set(chosen)) == 6


def test_without_a_guide_the_candidates_are_experts_and_random_ones(tmp_path):
    from skipbo_env.train.value import _candidates

    cfg = load_value_config(write(tmp_path, candidates=6))
    chosen = _candidates(4, 10, cfg, None, np.random.default_rng(0))
    assert chosen[0] == 4 and len(set(chosen)) == 6


def test_a_tiny_guided_run_collects_the_guides_choices(tmp_path):
    from skipbo_env import ObservationEncoder
    from skipbo_env.players.value import save_value_net

    rules = Rules.preset("standard", 2, stock_size=5)
    rng = np.random.default_rng(0)
    size = ObservationEncoder(rules).size
    guide = str(tmp_path / "guide.npz")
    save_value_net(guide, [(rng.normal(0, 0.05, (8, size)), np.zeros(8)),
                           (rng.normal(0, 0.05, (1, 8)), np.zeros(1))])
    (tmp_path / "guide.json").write_text(json.dumps(
        {"kind": "value", "obs_version": 1, "rules": rules.to_dict()}))
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}, guide=guide, guide_top=2))
    data = collect(cfg, log=lambda line: None)
    assert data["expert"].sum() == data["decision"].max() + 1


@pytest.mark.parametrize("guide,message", [
    ("expert", "guide must name a value player"), ("missing.npz", "missing.npz"),
    (7, "guide must name a value player")])
def test_a_guide_that_is_not_a_value_player_is_refused(tmp_path, guide, message):
    with pytest.raises(ValueError, match=message):
        load_value_config(write(tmp_path, guide=guide, guide_top=2))


def test_a_guide_for_other_rules_is_refused(tmp_path):
    with pytest.raises(ValueError, match="inputs"):
        load_value_config(write(tmp_path, num_players=3, guide="value_standard_2p",
                                guide_top=2))


def test_a_guide_top_past_the_candidates_is_refused(tmp_path):
    with pytest.raises(ValueError, match="guide_top"):
        load_value_config(write(tmp_path, guide="value_standard_2p", guide_top=4))


def test_a_refit_reads_the_samples_its_collection_wrote_and_the_card_says_so(tmp_path):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    samples = str(tmp_path / "s.npz")
    train_value(cfg, str(tmp_path / "a"), log=lambda line: None, samples=samples)
    first = json.loads((tmp_path / "a" / "tiny.json").read_text())
    wider = load_value_config(write(tmp_path, rules={"stock_size": 5}, hidden=[16], epochs=2))
    train_value(wider, str(tmp_path / "b"), log=lambda line: None, samples=samples)
    second = json.loads((tmp_path / "b" / "tiny.json").read_text())
    assert not first["samples_read"] and second["samples_read"]
    assert second["samples"] == first["samples"]
    assert second["collect_seconds"] == pytest.approx(first["collect_seconds"])
    assert second["seconds"] >= second["collect_seconds"]


@pytest.mark.parametrize("change", [{"seed": 1}, {"games": 4}, {"deals": 3},
                                    {"rules": {"stock_size": 6}}])
def test_samples_collected_otherwise_than_the_config_collects_are_refused(tmp_path, change):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    samples = str(tmp_path / "s.npz")
    train_value(cfg, str(tmp_path / "a"), log=lambda line: None, samples=samples)
    other = load_value_config(write(tmp_path, **{"rules": {"stock_size": 5}, **change}))
    key = next(iter(change))
    with pytest.raises(ValueError, match=f"collected otherwise than config tiny collects "
                                         rf"\({key}: "):
        train_value(other, str(tmp_path / "b"), log=lambda line: None, samples=samples)
    assert not (tmp_path / "b" / "tiny.npz").exists()


def test_a_samples_file_without_its_collection_is_refused(tmp_path):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    samples = tmp_path / "s.npz"
    np.savez(samples, x=np.zeros((2, 3), np.float16), y=np.zeros(2, np.float32),
             decision=np.zeros(2, np.int64), expert=np.ones(2, bool))
    with pytest.raises(ValueError, match="lacks meta"):
        train_value(cfg, str(tmp_path / "b"), log=lambda line: None, samples=str(samples))


@pytest.mark.parametrize("content", ["not a zip", "meta list", "meta not json"])
def test_a_file_that_is_no_samples_file_is_refused_naming_it(tmp_path, content):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    samples = tmp_path / "s.npz"
    arrays = dict(x=np.zeros((2, 3), np.float16), y=np.zeros(2, np.float32),
                  decision=np.zeros(2, np.int64), expert=np.ones(2, bool))
    if content == "not a zip":
        samples.write_text("hello")
    else:
        np.savez(samples, meta=np.array("[1, 2]" if content == "meta list" else "{oops"),
                 **arrays)
    with pytest.raises(ValueError, match=f"samples file {samples}"):
        train_value(cfg, str(tmp_path / "b"), log=lambda line: None, samples=str(samples))
    assert not (tmp_path / "b" / "tiny.npz").exists()


@pytest.mark.parametrize("name", ["value_standard_2p", "value_short_2p"])
def test_the_value_players_learning_curves_in_docs_are_curves_the_plot_script_reads(name):
    from pathlib import Path

    from skipbo_env.train.plot import read_curve

    root = Path(__file__).resolve().parents[1]
    _, points = read_curve(str(root / "docs" / f"value_curve_{name.removeprefix('value_')}.json"))
    steps = [p["steps"] for p in points]
    # in order; one point a network (an average of two is a point at the decisions behind it)
    assert steps == sorted(steps) and len({(p["steps"], p["network"]) for p in points}) == \
        len(points)
    for p in points:
        low, high = p["ci95"]
        assert low <= p["win_rate"]["expert"] <= high and p["seconds"] > 0 and p["command"]
    shipped = json.loads((root / "skipbo_env" / "checkpoints" / f"{name}.json").read_text())
    # the shipped network is a point of its curve, at the decisions of every run behind it
    assert (shipped["decisions_total"] if "decisions_total" in shipped else
            shipped["decisions"]) in steps


def test_a_curve_is_drawn_in_order_along_its_axis():
    from skipbo_env.train.plot import series

    points = [{"steps": 2, "seconds": 30, "win_rate": {"expert": 0.4}},
              {"steps": 1, "seconds": 10, "win_rate": {"expert": 0.3, "greedy": 0.9}},
              {"steps": 3, "seconds": 20, "win_rate": {"expert": 0.5}}]
    assert series(points, "expert", "seconds") == ([10, 20, 30], [0.3, 0.5, 0.4])
    assert series(points, "greedy", "steps") == ([1], [0.9])


def test_a_curve_whose_steps_are_not_numbers_is_refused(tmp_path):
    from skipbo_env.train.plot import read_curve

    bad = tmp_path / "curve.json"
    bad.write_text(json.dumps([{"steps": "1", "win_rate": {"expert": 0.5}}]))
    with pytest.raises(ValueError, match="must be numbers"):
        read_curve(str(bad))


def _bootstrapped_labels(tmp_path, engine, last: np.ndarray, reference, **config):
    """The labels the config's labeller (`SegmentLabels._bootstrapped`) gives the 24 short
    games of `engine` for their moves `last` in fresh deals, and for each game the reference
    (`reference`, the move and what follows it, played by the reference engine on the same
    deal) with the label it should have: the network's best value of the segments listed
    there, or the stock lead where the game is over."""
    from test_vector_rollout import reference_score

    from skipbo_env.players.value import reference_lister
    from skipbo_env.train.value import _rollouts
    from skipbo_env.vector.labels import rows_of
    from skipbo_env.vector.rollout import redeal

    cfg = load_value_config(write(tmp_path, variant="short", bootstrap="value_short_2p",
                                  rollout_rows=24, **config))
    rules = Rules.preset("short", 2)
    net = make_agent("value_short_2p", rules=rules).net
    listed = reference_lister(rules)
    rollouts = _rollouts(rules, cfg, seed=3)
    s = rollouts.scratch
    for src, dst in zip(engine.state, s.state):
        dst[:] = src
    base = rows_of(engine.state, 24)
    seats = engine.seats.astype(np.int64)
    keys = np.arange(1, 25, dtype=np.uint64) * np.uint64(7919)
    redeal(s.state, s.static, s.buffers, seats, keys)  # as `flush` deals before
    dealt = rollouts.engine  # the same deals, kept for the reference
    for src, dst in zip(s.state, dealt.state):
        dst[:] = src
    got = rollouts._bootstrapped(base, rows_of(s.state, 24), seats, last, keys)
    wanted = []
    for i in range(24):
        game = reference(dealt.game(i), int(last[i]))
        if game.is_over:
            want = np.clip(reference_score(dealt.game(i), int(last[i]), 10.0) / 20.0, -1, 1)
        else:
            want = float(net(listed(game)[1]).max())
        wanted.append((game, want, dealt.game(i).turn))
    return got, wanted


def test_a_bootstrapped_label_is_the_networks_best_value_where_the_acting_seats_next_turn_starts(
        tmp_path):
    """One round of TD (`bootstrap`): each row rolled out by `expert` in a fresh deal to where
    the acting seat's next turn would start, then valued as the network's best segment of that
    turn (listed and observed by the reference engine here); a game over before then scored by
    its stock lead, as the plain labels are."""
    from test_vector_rollout import positions, reference_to_turn

    engine = positions("short", 2, 24, 17)
    last = np.array([np.flatnonzero(m)[-1] for m in engine.masks], dtype=np.int64)
    got, wanted = _bootstrapped_labels(tmp_path, engine, last, reference_to_turn)
    waited = 0
    for i, (game, want, _) in enumerate(wanted):
        waited += not game.is_over
        assert got[i] == pytest.approx(want, abs=1e-5)
    assert waited > 12


def test_a_label_bootstrapped_at_the_decision_is_the_networks_best_value_where_the_seat_acts_next(
        tmp_path):
    """`bootstrap_at: decision`: as at the turn, but where the segment leaves the acting seat
    to act again in the same turn (the card turned up or the hand refilled, in the fresh
    deal), the label is the network's best segment from there, with no `expert` move
    between."""
    from test_vector_rollout import positions, reference_to_decision, segment_ends

    engine = positions("short", 2, 24, 17)
    ends = segment_ends(engine)  # a stock play or refill where a game has one
    last = np.array([e[0][0] for e in ends], dtype=np.int64)
    got, wanted = _bootstrapped_labels(tmp_path, engine, last, reference_to_decision,
                                       bootstrap_at="decision")
    again = later = 0
    for i, (game, want, turn) in enumerate(wanted):
        if not game.is_over:
            if game.turn == turn:
                assert ends[i][0][1] in ("stock", "refill")
                again += 1
            else:
                later += 1
        assert got[i] == pytest.approx(want, abs=1e-5)
    assert again >= 3 and later > 5


@pytest.mark.parametrize("value", ["next", 1, None, ["turn"]])
def test_a_bootstrap_at_other_than_turn_or_decision_is_refused(tmp_path, value):
    with pytest.raises(ValueError, match="bootstrap_at must be one of"):
        load_value_config(write(tmp_path, variant="short", bootstrap="value_short_2p",
                                bootstrap_at=value))


def test_bootstrapping_at_the_decision_without_a_bootstrap_is_refused(tmp_path):
    with pytest.raises(ValueError, match="bootstrap_at: decision needs a bootstrap"):
        load_value_config(write(tmp_path, variant="short", bootstrap_at="decision"))


def test_a_samples_file_from_before_bootstrap_at_reads_as_collected_at_the_turn(tmp_path):
    cfg = load_value_config(write(tmp_path, rules={"stock_size": 5}))
    samples = tmp_path / "s.npz"
    train_value(cfg, str(tmp_path / "a"), log=lambda line: None, samples=str(samples))
    with np.load(samples, allow_pickle=False) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["collection"]["bootstrap_at"]
    np.savez(samples, **{**arrays, "meta": np.array(json.dumps(meta))})
    train_value(cfg, str(tmp_path / "b"), log=lambda line: None, samples=str(samples))
    assert json.loads((tmp_path / "b" / "tiny.json").read_text())["samples_read"]


def test_a_tiny_bootstrapped_run_labels_otherwise_than_the_plain_rollouts(tmp_path):
    keys = {"variant": "short", "decisions_per_game": 2}
    plain = collect(load_value_config(write(tmp_path, **keys)), log=lambda line: None)
    lines: list[str] = []
    boot = collect(load_value_config(write(tmp_path, bootstrap="value_short_2p", **keys)),
                   log=lines.append)
    assert np.array_equal(plain["x"], boot["x"])  # the same positions, labelled otherwise
    assert not np.allclose(plain["y"], boot["y"]) and np.abs(boot["y"]).max() <= 1.0
    assert any(line.startswith("labels by the plain rollout") for line in lines)


@pytest.mark.parametrize("bootstrap,message", [
    ("expert", "bootstrap must name a value player"), ("missing.npz", "missing.npz"),
    (["value_short_2p"], "bootstrap must name a value player")])
def test_a_bootstrap_that_is_not_a_value_player_is_refused(tmp_path, bootstrap, message):
    with pytest.raises(ValueError, match=message):
        load_value_config(write(tmp_path, variant="short", bootstrap=bootstrap))


def test_a_bootstrap_for_other_rules_is_refused(tmp_path):
    with pytest.raises(ValueError, match="inputs"):
        load_value_config(write(tmp_path, num_players=3, bootstrap="value_short_2p"))


def test_a_fit_with_init_starts_from_that_networks_weights(tmp_path):
    from skipbo_env.players.value import read_value_net

    first = train_value(load_value_config(write(tmp_path, rules={"stock_size": 5})),
                        str(tmp_path / "a"), log=lambda line: None)
    again = load_value_config(write(tmp_path, name="again", rules={"stock_size": 5}, init=first,
                                    learning_rate=0.0, weight_decay=0.0))
    second = train_value(again, str(tmp_path / "b"), log=lambda line: None)
    for (w, b), (w2, b2) in zip(read_value_net(first).layers, read_value_net(second).layers,
                                strict=True):
        assert np.array_equal(w, w2) and np.array_equal(b, b2)  # not moved: its learning rate 0


def test_a_card_fitted_from_init_names_it_and_counts_the_decisions_and_seconds_behind_it(
        tmp_path):
    import hashlib

    first = train_value(load_value_config(write(tmp_path, rules={"stock_size": 5})),
                        str(tmp_path / "a"), log=lambda line: None)
    second = train_value(load_value_config(write(tmp_path, name="second", init=first,
                                                 rules={"stock_size": 5})),
                         str(tmp_path / "b"), log=lambda line: None)
    third = train_value(load_value_config(write(tmp_path, name="third", init=second,
                                                rules={"stock_size": 5})),
                        str(tmp_path / "c"), log=lambda line: None)
    cards = [json.loads(Path(p[:-4] + ".json").read_text()) for p in (first, second, third)]
    assert "init" not in cards[0] and "decisions_total" not in cards[0]
    with open(second, "rb") as f:
        assert cards[2]["init"]["sha256"] == hashlib.sha256(f.read()).hexdigest()
    assert cards[2]["init"]["network"] == second
    assert cards[2]["decisions_total"] == sum(c["decisions"] for c in cards)
    assert cards[2]["seconds_total"] == pytest.approx(sum(c["seconds"] for c in cards))


@pytest.mark.parametrize("bad", ["many", float("inf"), -1])
def test_an_init_whose_card_has_no_decisions_is_refused_before_anything_is_written(tmp_path,
                                                                                   bad):
    first = train_value(load_value_config(write(tmp_path, rules={"stock_size": 5})),
                        str(tmp_path / "a"), log=lambda line: None)
    card = tmp_path / "a" / "tiny.json"
    cfg = load_value_config(write(tmp_path, name="second", init=first, rules={"stock_size": 5}))
    card.write_text(json.dumps({**json.loads(card.read_text()), "decisions": bad}))
    with pytest.raises(ValueError, match="decisions must be a finite number"):
        train_value(cfg, str(tmp_path / "b"), log=lambda line: None)
    assert not (tmp_path / "b").exists()


@pytest.mark.parametrize("keys,message", [
    ({"hidden": [16]}, r"has hidden layers \[8\]"), ({"features": "gaps"}, "features"),
    ({"init": "expert"}, "init must name a value player")])
def test_an_init_of_another_shape_or_not_a_value_player_is_refused(tmp_path, keys, message):
    first = train_value(load_value_config(write(tmp_path, rules={"stock_size": 5})),
                        str(tmp_path / "a"), log=lambda line: None)
    with pytest.raises(ValueError, match=message):
        load_value_config(write(tmp_path, rules={"stock_size": 5}, **{"init": first, **keys}))


def test_a_next_turn_past_the_walks_bound_is_labelled_by_the_plain_rollout_of_the_same_deal(
        tmp_path, monkeypatch):
    from test_vector_rollout import positions, reference_score

    from skipbo_env.segments import TooManyPositions
    from skipbo_env.train.value import _rollouts
    from skipbo_env.vector.labels import rows_of
    from skipbo_env.vector.rollout import redeal

    cfg = load_value_config(write(tmp_path, variant="short", bootstrap="value_short_2p",
                                  rollout_rows=8))
    engine = positions("short", 2, 8, 17)
    rollouts = _rollouts(Rules.preset("short", 2), cfg, seed=3)
    s, lister = rollouts.scratch, rollouts.lister
    walk = lister.observations

    def crowded(want):
        if want[:2].any():
            raise TooManyPositions("too many", games=tuple(np.flatnonzero(want[:2]).tolist()))
        return walk(want)

    monkeypatch.setattr(lister, "observations", crowded)
    seats = engine.seats.astype(np.int64)
    last = np.array([np.flatnonzero(m)[0] for m in engine.masks], dtype=np.int64)
    keys = np.arange(1, 9, dtype=np.uint64) * np.uint64(104729)
    dealt = [a.copy() for a in engine.state]
    redeal(type(engine.state)(*dealt), s.static, s.buffers, seats, keys)
    for src, dst in zip(dealt, s.state):
        dst[:] = src
    got = rollouts._bootstrapped(rows_of(engine.state, 8), rows_of(s.state, 8), seats, last, keys)
    for src, dst in zip(dealt, rollouts.engine.state):
        dst[:] = src
    for i in (0, 1):
        want = reference_score(rollouts.engine.game(i), int(last[i]), 10.0) / 20.0
        assert got[i] == pytest.approx(np.clip(want, -1, 1))
    assert rollouts.crowded == 2
