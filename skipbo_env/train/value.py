"""Training the value player's network (docs/training.md, "The value player").

A sample is one segment's resulting position (`segments`), observed from the acting seat. The
positions come from decisions of games between `expert`s (segment starts of either seat, a few
a game, at random); at each, `candidates` segments are labelled: `expert`'s own and others
drawn at random, so the network also sees what a poor choice leads to. A label is `lookahead`'s
score of the segment (players/lookahead.py, vector/rollout.py): from the position before the
segment's last move, that move and then the batched `expert` in every seat until the end of
the acting seat's next turn, scored by the acting team's stock lead, `win_bonus` more for a game
won and less for one lost; the mean over `deals` fresh deals of the cards the seat cannot see,
over `label_scale`. The network, an MLP with a tanh output, is fitted to the labels by mean
squared error (torch); the player reads its weights in numpy (players/value.py).

Labels from the outcome of the whole game played on by `expert` (+1, -1) were tried first and
lost: a player greedy on them won 6 of 100 games against `expert` (docs/training.md); one
rollout's outcome varies far more than the candidates of one decision differ.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import time
import zipfile
from dataclasses import asdict, dataclass, field
from typing import cast

import numpy as np

from .. import checks
from ..engine import Game
from ..observation import OBS_VERSION
from ..players.checkpoints import card_or_refuse, write_card
from ..players.registry import SHIPPED_VALUE, PlayerKind, make_agent, parse_player
from ..players.value import load_value_agent, one_blas_thread, save_value_net
from ..players.value_features import FEATURE_SETS, features_for
from ..rules import Rules
from ..segments import SegmentEncoder, played_segment, segment_ending
from ..vector.labels import BOOTSTRAP_AT, LABEL_SCALE, WIN_BONUS, SegmentLabels
from ..vector.segments import SegmentLister
from .config import check_run_name, read_yaml
from .ppo import peak_rss_mib


@dataclass(frozen=True)
class ValueConfig:
    """A value-network run (configs/value_*.yaml): every key, with its default."""

    name: str
    variant: str = "standard"
    num_players: int = 2
    rules: dict = field(default_factory=dict)
    seed: int = 0
    games: int = 4000  # games between experts that the decisions are taken from
    decisions_per_game: int = 10  # segment starts taken from each (at random)
    candidates: int = 16  # segments labelled at each decision (expert's and random others)
    # A value player (a shipped name or an .npz) whose `guide_top` best-valued segments of each
    # decision are among the candidates too: the choices a player greedy on those values would
    # weigh, labelled, so a refit learns to tell them apart (none: expert's and random ones).
    guide: str | None = None
    guide_top: int = 8
    # A value player (a shipped name or an .npz) that labels by one round of TD instead of
    # scoring the acting seat's next turn: the rollout stops where that turn would start and
    # the label is this network's best value of the turn's segments there (vector/labels.py).
    bootstrap: str | None = None
    # Where a bootstrapped label stops and asks the network (with `bootstrap`): "turn", where
    # the acting seat's next turn would start (`expert` plays the rest of this turn, then the
    # others'), or "decision", also at once where the segment leaves the seat to act again
    # in the same turn (it played its stock top or emptied its hand): the network's best value
    # of its next segment there, so the continuation within the turn is the network's own.
    bootstrap_at: str = "turn"
    rollout_rows: int = 4096  # games the batched engine rolls out at once
    # The label: `lookahead`'s score after the acting seat's next turn (its team's stock lead,
    # win_bonus more for a game won and less for one lost), the mean over `deals` fresh deals
    # of the cards the seat cannot see, over `label_scale` (and within [-1, 1]).
    deals: int = 4
    win_bonus: float = WIN_BONUS
    label_scale: float = LABEL_SCALE
    hidden: tuple[int, ...] = (256, 256)
    # A value player (a shipped name or an .npz) whose weights the fit starts from (none:
    # torch's random ones): a network of this config's shape (inputs, hidden, features).
    init: str | None = None
    # Inputs computed from the observation and read beside it (players/value_features.py:
    # "gaps"), or none: the observation alone.
    features: str | None = None
    # Processes the decisions are collected in: each plays its share of `games` from its own
    # seed (1: one process, the samples of the seed alone; another count gives other samples).
    workers: int = 1
    epochs: int = 6
    batch_size: int = 1024
    learning_rate: float = 3e-4
    weight_decay: float = 1e-5
    value_weight: float = 0.25  # the plain squared error's weight beside the within-decision one
    # Compute subnormal floats as zero during the fit (torch.set_flush_denormal): weight decay
    # drives the weights of seldom-on inputs towards zero, and once subnormal every product
    # with them runs many times slower. Off by default: the shipped runs were fitted without
    # it, and with it their losses differ from the third epoch on (in the sixth digit).
    flush_subnormal: bool = False
    validation: float = 0.1  # share of the decisions held out to measure the fit


def _rules(cfg: ValueConfig) -> Rules:
    return Rules.preset(cfg.variant, cfg.num_players, **cfg.rules)


def load_value_config(path: str) -> ValueConfig:
    """A `ValueConfig` from YAML, every key checked (an unknown key names itself)."""
    raw = read_yaml(path)  # bounded: aliases may not expand past MAX_CONFIG_VALUES
    if not isinstance(raw, dict):
        raise ValueError(f"{path}: a value config is a mapping of keys, got {checks.shown(raw)}")
    known = set(ValueConfig.__dataclass_fields__)
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {unknown}; the keys are {sorted(known)}")
    if "hidden" in raw:
        raw["hidden"] = tuple(raw["hidden"])
    cfg = ValueConfig(**raw)
    _check(cfg, path)
    return cfg


def _check(cfg: ValueConfig, where: str) -> None:
    check_run_name(cfg.name)
    checks.number(cfg.learning_rate, f"{where}: learning_rate", minimum=0.0)
    checks.number(cfg.weight_decay, f"{where}: weight_decay", minimum=0.0)
    if checks.number(cfg.validation, f"{where}: validation", minimum=0.0) > 0.5:
        raise ValueError(f"{where}: validation must be at most 0.5, got {cfg.validation}")
    checks.number(cfg.win_bonus, f"{where}: win_bonus", minimum=0.0)
    checks.number(cfg.value_weight, f"{where}: value_weight", minimum=0.0)
    checks.number(cfg.label_scale, f"{where}: label_scale", above=0.0)
    for key, low in (("games", 1), ("decisions_per_game", 1), ("candidates", 1),
                     ("rollout_rows", 1), ("epochs", 1), ("batch_size", 1), ("seed", 0),
                     ("deals", 1), ("workers", 1)):
        checks.integer(getattr(cfg, key), f"{where}: {key}", minimum=low)
    checks.integer(cfg.guide_top, f"{where}: guide_top", minimum=0)
    checks.boolean(cfg.flush_subnormal, f"{where}: flush_subnormal")
    if cfg.workers > 64:
        raise ValueError(f"{where}: workers must be at most 64, got {cfg.workers}")
    if cfg.features is not None and cfg.features not in FEATURE_SETS:
        raise ValueError(f"{where}: features must be one of {list(FEATURE_SETS)} or absent, "
                         f"got {checks.shown(cfg.features)}")
    if cfg.bootstrap is not None:
        _value_net(cfg, "bootstrap", where)
    if not isinstance(cfg.bootstrap_at, str) or cfg.bootstrap_at not in BOOTSTRAP_AT:
        raise ValueError(f"{where}: bootstrap_at must be one of {list(BOOTSTRAP_AT)}, got "
                         f"{checks.shown(cfg.bootstrap_at)}")
    if cfg.bootstrap_at == "decision" and cfg.bootstrap is None:
        raise ValueError(f"{where}: bootstrap_at: decision needs a bootstrap (the network that "
                         "values the position there)")
    if cfg.guide is not None:
        _value_net(cfg, "guide", where)  # a value player's checkpoint that fits the rules
        checks.integer(cfg.guide_top, f"{where}: guide_top (with a guide)", minimum=0,
                       maximum=max(0, cfg.candidates - 1))
    if not cfg.hidden or not all(isinstance(h, int) and 0 < h <= 4096 for h in cfg.hidden):
        raise ValueError(f"{where}: hidden must list layer widths in 1..4096, got {cfg.hidden}")
    _rules(cfg)  # the variant, players and rule overrides
    if cfg.init is not None:
        _init_layers(cfg, where)


def _init_layers(cfg: ValueConfig, where: str = "config") -> list[tuple[np.ndarray, np.ndarray]]:
    """The (weight [out, in], bias) pairs of `init`'s network, refused unless its shape and
    features are the config's."""
    net = _value_net(cfg, "init", where)
    shape = [w.shape[1] for w, _ in net.layers[:-1]]
    if shape != list(cfg.hidden) or net.features != cfg.features:
        raise ValueError(f"{where}: init {cfg.init} has hidden layers {shape} and features "
                         f"{net.features}; this config fits {list(cfg.hidden)} and "
                         f"{cfg.features}")
    return [(w.T.copy(), b.copy()) for w, b in net.layers]


# -- the samples ------------------------------------------------------------------------------
def _value_net(cfg: ValueConfig, key: str, where: str = "config"):
    """The network of `key` (`guide` or `bootstrap`: a value player's name or .npz path),
    checked to fit the rules (its card's kind, observation version and input size)."""
    spec, name = None, getattr(cfg, key)
    if isinstance(name, str):
        try:
            spec = parse_player(name, what=key)
        except ValueError as e:
            raise ValueError(f"{where}: {key}: {e}") from None
    if spec is None or spec.kind is not PlayerKind.VALUE or spec.path is None:
        raise ValueError(f"{where}: {key} must name a value player ({', '.join(SHIPPED_VALUE)} "
                         f"or an .npz path), got {checks.shown(name)}")
    agent = load_value_agent(spec.path, _rules(cfg))
    agent.lister(_rules(cfg))  # its input size checked against the rules
    return agent.net


def _candidates(first: int | None, n: int, cfg: ValueConfig, values: np.ndarray | None,
                rng: np.random.Generator) -> list[int]:
    """The segments labelled at a decision of `n`: expert's (`first`), the guide's `guide_top`
    best by `values` (if a guide is set), then others at random, `cfg.candidates` at most."""
    guided = [] if values is None else [
        int(i) for i in np.argsort(-values, kind="stable")[:cfg.guide_top + 1]
        if i != first][:cfg.guide_top]
    chosen = ([first] if first is not None else []) + guided
    others = np.setdiff1d(np.arange(n), chosen)
    room = min(cfg.candidates - 1 - len(guided), len(others))  # one place kept for expert's
    if room > 0:
        chosen += [int(i) for i in rng.choice(others, size=room, replace=False)]
    return chosen


def _expert_segment(game: Game, agent, encoder: SegmentEncoder) -> np.ndarray:
    """The observation of the position `expert` reaches from `game` at its segment's end."""
    return encoder.encode([played_segment(game, agent)])[0]


def _decisions(rules: Rules, games: int, per_game: int, rng: np.random.Generator):
    """Positions at segment starts of `games` games between `expert`s, `per_game` a game."""
    for k in range(games):
        game = Game(rules, seed=int(rng.integers(2**63)))
        agents = [make_agent("expert", seed=int(rng.integers(2**31)), rules=rules)
                  for _ in range(rules.num_players)]
        starts = []
        while not game.is_over:
            starts.append(game.clone())
            p = game.current_player
            while True:
                action = agents[p].act(game.view())
                pre = game.clone()
                game.step(action)
                if segment_ending(pre, game, action, p) is not None:
                    break
        take = rng.choice(len(starts), size=min(per_game, len(starts)), replace=False)
        for i in sorted(take):
            yield k, starts[i], agents[starts[i].current_player]


def _rollouts(rules: Rules, cfg: ValueConfig, seed: int) -> SegmentLabels:
    """The labeller of `cfg`'s samples (vector/labels.py: the module docstring's labels)."""
    bootstrap = _value_net(cfg, "bootstrap") if cfg.bootstrap is not None else None
    return SegmentLabels(rules, cfg.rollout_rows, seed, cfg.deals, cfg.win_bonus,
                         cfg.label_scale, bootstrap, cfg.bootstrap_at)


def collect(cfg: ValueConfig, log=print) -> dict:
    """The samples of `cfg` as arrays: ``x`` (float16 observations), ``y`` (labels),
    ``decision`` (the decision each came from), ``expert`` (1 for expert's own choice). With
    `workers` above 1, each process collects its share of the games from its own seed
    (`_shard_seed`) and the shares are joined in order."""
    if cfg.workers == 1:
        return _collect(cfg, cfg.games, cfg.seed, log)
    shares = [cfg.games // cfg.workers + (i < cfg.games % cfg.workers)
              for i in range(cfg.workers)]
    jobs = [(cfg, games, _shard_seed(cfg.seed, i)) for i, games in enumerate(shares) if games]
    at_once = min(len(jobs), os.cpu_count() or 1)
    with _pool(at_once) as pool:
        parts = pool.starmap(_collect_quietly, jobs)
    offset = 0
    for part in parts:
        part["decision"] += offset
        offset = int(part["decision"].max()) + 1 if len(part["decision"]) else offset
    log(f"{len(parts)} workers: decisions {offset:,}")
    return _joined(parts)


def _pool(processes: int):
    """A pool of fresh processes for the collection's shards, each holding numpy's BLAS to one
    thread (the shards share the cores)."""
    import multiprocessing

    return multiprocessing.get_context("spawn").Pool(processes, initializer=one_blas_thread)


def _joined(parts: list[dict]) -> dict:
    """The parts' arrays joined in order, each part's freed once copied (the peak is the
    samples once and one part, not twice the samples)."""
    sizes = [len(part["y"]) for part in parts]
    out = {k: np.empty((sum(sizes), *v.shape[1:]), dtype=v.dtype) for k, v in parts[0].items()}
    at = 0
    for size in sizes:
        part = parts.pop(0)
        for k, v in part.items():
            out[k][at:at + size] = v
        at += size
        del part
    return out


def _shard_seed(seed: int, shard: int) -> int:
    """The seed of worker `shard` of a run seeded `seed` (below 2**63)."""
    state = np.random.SeedSequence([seed, shard]).generate_state(2, dtype=np.uint64)
    return int(state[0] >> np.uint64(1))


def _collect_quietly(cfg: ValueConfig, games: int, seed: int) -> dict:
    return _collect(cfg, games, seed, log=lambda line: None)


def _collect(cfg: ValueConfig, games: int, seed: int, log) -> dict:
    """`games` games' samples from `seed` (`collect`)."""
    rules = _rules(cfg)
    rng = np.random.default_rng(seed)
    lister, encoder = SegmentLister.of(rules), SegmentEncoder(rules)
    rollouts = _rollouts(rules, cfg, seed)
    guide = _value_net(cfg, "guide") if cfg.guide is not None else None
    xs: list[np.ndarray] = []
    decision: list[int] = []
    expert: list[bool] = []
    start = time.time()
    for d, (k, game, agent) in enumerate(_decisions(rules, games, cfg.decisions_per_game, rng)):
        listing = lister.list_game(game)
        n = int(listing.offsets[1])
        mine = _expert_segment(game, agent, encoder)
        same = np.flatnonzero((listing.obs[:n] == mine).all(axis=1))
        first = int(same[0]) if same.size else None
        values = guide(listing.obs[:n]) if guide is not None else None
        for i in _candidates(first, n, cfg, values, rng):
            g = game.clone()
            sequence = listing.sequence(i)  # only the candidates' (listing all costs)
            for action in sequence[:-1]:
                g.step(action)
            rollouts.add(len(xs), g, sequence[-1], d)
            xs.append(listing.obs[i].astype(np.float16))
            decision.append(d)
            expert.append(i == first)
        if (d + 1) % 2000 == 0:
            log(f"decisions {d + 1:,}, samples {len(xs):,}, game {k + 1:,}/{games:,}, "
                f"{time.time() - start:,.0f} s")
    rollouts.flush()
    if rollouts.bootstrap is not None:
        log(f"labels by the plain rollout (next segments past the walk's bound): "
            f"{rollouts.crowded:,} of {len(xs) * cfg.deals:,}")
    y = np.array([rollouts.labels[i] for i in range(len(xs))], dtype=np.float32)
    return {"x": np.stack(xs), "y": y, "decision": np.array(decision, dtype=np.int64),
            "expert": np.array(expert, dtype=np.bool_)}


# -- the fit ----------------------------------------------------------------------------------
def _decision_batches(starts: np.ndarray, ends: np.ndarray, ids: np.ndarray, size: int,
                      rng: np.random.Generator):
    """Rows of whole decisions (`ids`, shuffled), about `size` rows a batch: (rows, the
    batch's number of each row's decision)."""
    ids = rng.permutation(ids)
    step = max(1, size // max(1, int(np.mean(ends - starts))))
    for k in range(0, len(ids), step):
        chosen = ids[k:k + step]
        lengths = ends[chosen] - starts[chosen]
        rows = np.concatenate([np.arange(starts[d], ends[d]) for d in chosen])
        yield rows, np.repeat(np.arange(len(chosen)), lengths)


def _losses(f, y, local, count: int):
    """(within-decision loss, plain squared error): the first compares each value's difference
    from its decision's mean with the label's (what the player's choice rests on)."""
    import torch

    n = torch.zeros(count, device=f.device).index_add_(0, local, torch.ones_like(f))
    mf = torch.zeros(count, device=f.device).index_add_(0, local, f) / n
    my = torch.zeros(count, device=f.device).index_add_(0, local, y) / n
    within = (((f - mf[local]) - (y - my[local])) ** 2).mean()
    return within, ((f - y) ** 2).mean()


def inputs(cfg: ValueConfig, x: np.ndarray, chunk: int = 65536) -> np.ndarray:
    """The network's inputs for observations `x`: `x` itself (float16, converted a batch at a
    time by the fit: the samples are held once), or with `features`, float32 with those
    computed from each observation beside it (`players.value_features`)."""
    extend = features_for(cfg.features, _rules(cfg))
    if extend is None:
        return x
    out = np.empty((len(x), extend.size + extend.width), dtype=np.float32)
    for k in range(0, len(x), chunk):
        out[k:k + chunk] = extend(x[k:k + chunk].astype(np.float32))
    return out


def fit(cfg: ValueConfig, data: dict, log=print,
        device: str = "cpu") -> tuple[list, list[dict]]:
    """Fit the MLP to `data` (rows grouped by decision): the loss is the within-decision error
    (`_losses`) plus `value_weight` times the plain squared error. Returns its layers as
    (weight, bias) numpy pairs, from the epoch with the lowest held-out within-decision loss,
    and the learning curve (one row an epoch, with the held-out decisions' mean regret: how
    much lower the label of the network's choice is than the best label of the decision)."""
    import torch
    from torch import nn

    torch.manual_seed(cfg.seed)
    if not cfg.flush_subnormal:
        return _fit(cfg, data, log, device, torch, nn)
    torch.set_flush_denormal(True)
    try:
        return _fit(cfg, data, log, device, torch, nn)
    finally:
        torch.set_flush_denormal(False)  # torch's default: other work computes as it did


def _fit(cfg: ValueConfig, data: dict, log, device: str, torch, nn) -> tuple[list, list[dict]]:
    """`fit` once torch is set up."""
    rng = np.random.default_rng(cfg.seed)
    decision = data["decision"]
    starts = np.flatnonzero(np.r_[True, decision[1:] != decision[:-1]])
    ends = np.r_[starts[1:], len(decision)]
    ids = np.arange(len(starts))
    held = (ids * 2654435761 % 1000) < cfg.validation * 1000
    x = torch.from_numpy(inputs(cfg, data["x"])).to(device)
    y = torch.from_numpy(data["y"]).to(device)
    widths = [x.shape[1], *cfg.hidden]
    layers: list[nn.Module] = []
    for a, b in itertools.pairwise(widths):
        layers += [nn.Linear(a, b), nn.ReLU()]
    net = nn.Sequential(*layers, nn.Linear(widths[-1], 1), nn.Tanh()).to(device)
    if cfg.init is not None:
        with torch.no_grad():
            for m, (w, b) in zip([m for m in net if isinstance(m, nn.Linear)],
                                 _init_layers(cfg), strict=True):
                m.weight.copy_(torch.from_numpy(w))
                m.bias.copy_(torch.from_numpy(b))
    opt = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate,
                           weight_decay=cfg.weight_decay)
    curve: list[dict] = []
    best, best_state = float("inf"), None
    start = time.time()
    for epoch in range(cfg.epochs):
        total, seen = 0.0, 0
        for rows, local in _decision_batches(starts, ends, ids[~held], cfg.batch_size, rng):
            at = torch.from_numpy(rows).to(device)
            f = net(x[at].float()).squeeze(1)
            within, plain = _losses(f, y[at], torch.from_numpy(local).to(device),
                                    int(local[-1]) + 1)
            loss = within + cfg.value_weight * plain
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(rows)
            seen += len(rows)
        row = {"epoch": epoch + 1, "train_loss": total / max(seen, 1),
               **_held_out(net, x, y, starts, ends, ids[held]),
               "seconds": time.time() - start}
        curve.append(row)
        log(json.dumps(row))
        if row["held_out_within"] < best:
            best = row["held_out_within"]
            best_state = {k: v.clone() for k, v in net.state_dict().items()}
    assert best_state is not None
    net.load_state_dict(best_state)
    linear = [m for m in net if isinstance(m, nn.Linear)]
    return [(m.weight.detach().cpu().numpy().copy(), m.bias.detach().cpu().numpy().copy())
            for m in linear], curve


def _held_out(net, x, y, starts, ends, ids) -> dict:
    """The held-out decisions' within-decision loss, squared error and mean regret."""
    import torch

    if not len(ids):
        return {"held_out_within": float("nan"), "held_out_mse": float("nan"),
                "held_out_regret": float("nan")}
    rows = np.concatenate([np.arange(starts[d], ends[d]) for d in ids])
    local = np.repeat(np.arange(len(ids)), ends[ids] - starts[ids])
    at = torch.from_numpy(rows).to(x.device)
    with torch.no_grad():
        f = net(x[at].float()).squeeze(1)
        within, plain = _losses(f, y[at], torch.from_numpy(local).to(x.device), len(ids))
    fv, yv = f.cpu().numpy(), y[at].cpu().numpy()
    regret = [yv[a:b].max() - yv[a + int(np.argmax(fv[a:b]))]
              for a, b in zip(np.r_[0, np.cumsum(ends[ids] - starts[ids])[:-1]],
                              np.cumsum(ends[ids] - starts[ids]))]
    return {"held_out_within": within.item(), "held_out_mse": plain.item(),
            "held_out_regret": float(np.mean(regret))}


# The config keys the samples depend on: a samples file is read for a config only when its
# values of these are the config's (the fit's keys may differ: that is what refitting is for).
COLLECT_KEYS = ("variant", "num_players", "rules", "seed", "games", "decisions_per_game",
                "candidates", "guide", "guide_top", "bootstrap", "rollout_rows", "deals",
                "win_bonus", "label_scale", "workers", "bootstrap_at")
# Keys added to COLLECT_KEYS later, with the value every samples file written before them was
# collected with.
COLLECT_LATER = {"bootstrap_at": "turn"}
SAMPLE_ARRAYS = ("x", "y", "decision", "expert")


def collection_of(cfg: ValueConfig) -> dict:
    """The values of `COLLECT_KEYS` in `cfg`, as JSON writes them."""
    return json.loads(json.dumps({k: getattr(cfg, k) for k in COLLECT_KEYS}))


def save_samples(path: str, data: dict, cfg: ValueConfig, seconds: float) -> None:
    """Write collected samples with the collection they came from and its time."""
    meta = json.dumps({"collection": collection_of(cfg), "collect_seconds": seconds})
    np.savez(path, meta=np.array(meta), **{k: data[k] for k in SAMPLE_ARRAYS})


def load_samples(path: str, cfg: ValueConfig) -> tuple[dict, float]:
    """The samples in `path` and the seconds their collection took, refused (ValueError) unless
    they were collected as `cfg` would collect them."""
    try:
        with np.load(path, allow_pickle=False) as f:
            missing = [k for k in ("meta", *SAMPLE_ARRAYS) if k not in f.files]
            if missing:
                raise ValueError(f"samples file {path} lacks {', '.join(missing)}: not written "
                                 "by this version's collection (collect again)")
            meta = json.loads(str(f["meta"]))
            data = {k: f[k] for k in SAMPLE_ARRAYS}
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as e:
        if str(e).startswith(f"samples file {path}"):
            raise
        raise ValueError(f"samples file {path} is not a samples file this package wrote "
                         f"({type(e).__name__})") from None
    if not (isinstance(meta, dict) and isinstance(meta.get("collection"), dict)
            and isinstance(meta.get("collect_seconds"), (int, float))):
        raise ValueError(f"samples file {path}: its meta is not a collection record")
    wanted = collection_of(cfg)
    there = {**COLLECT_LATER, **meta["collection"]}
    differ = [k for k in COLLECT_KEYS if there.get(k) != wanted[k]]
    if differ:
        shown = ", ".join(f"{k}: {checks.shown(there.get(k))} there, "
                          f"{checks.shown(wanted[k])} here" for k in differ)
        raise ValueError(f"samples file {path} was collected otherwise than config "
                         f"{cfg.name} collects ({shown})")
    return data, float(meta["collect_seconds"])


def train_value(cfg: ValueConfig, out_dir: str, log=print, samples: str | None = None,
                device: str = "cpu") -> str:
    """Collect, fit (on torch's `device`) and save ``out_dir/<name>.npz`` with its model
    card; returns the path. `samples`: an ``.npz`` of collected samples, written after
    collecting, or read instead of collecting when it exists (to fit again; it must have
    been collected as `cfg` collects: `load_samples`)."""
    start_from = _lineage(cfg)  # a bad card behind `init` refused before anything is done
    os.makedirs(out_dir, exist_ok=True)
    start = time.time()
    read = bool(samples and os.path.isfile(samples))
    if read:
        data, collected = load_samples(cast(str, samples), cfg)
        log(f"samples read from {samples} (collected in {collected:,.0f} s)")
        start = time.time() - collected  # the card counts the collection's own time
    else:
        data = collect(cfg, log)
        collected = time.time() - start
        if samples:
            save_samples(samples, data, cfg, collected)
    log(f"samples {len(data['y']):,} in {collected:,.0f} s")
    layers, curve = fit(cfg, data, log, device)
    path = os.path.join(out_dir, f"{cfg.name}.npz")
    save_value_net(path, layers)
    rules = _rules(cfg)
    card = {"kind": "value", "name": cfg.name, "rules": rules.to_dict(),
            "obs_version": OBS_VERSION, "network": {"hidden": list(cfg.hidden),
                                                    "activation": "relu", "output": "tanh",
                                                    "features": cfg.features},
            "config": asdict(cfg), "samples": len(data["y"]),
            "decisions": int(data["decision"].max() + 1),
            "collect_seconds": collected, "samples_read": read, "fit": curve,
            "seconds": time.time() - start,
            "peak_rss_mib": peak_rss_mib()}
    if start_from is not None:
        card["init"] = start_from
        card["decisions_total"] = card["decisions"] + start_from["decisions_total"]
        card["seconds_total"] = card["seconds"] + start_from["seconds_total"]
    write_card(os.path.splitext(path)[0] + ".json", card)
    return path


def _lineage(cfg: ValueConfig) -> dict | None:
    """What the fit started from (`init`): its network's name, SHA-256, and the decisions and
    seconds of every run behind it (its card's `decisions_total` and `seconds_total`, or its
    own `decisions` and `seconds` for a run that started from scratch); None without `init`."""
    if cfg.init is None:
        return None
    spec = parse_player(cfg.init, what="init")
    assert spec is not None and spec.path is not None  # checked with the config
    card = card_or_refuse(spec.path)
    totals = {}
    for key in ("decisions", "seconds"):
        value = card.get(f"{key}_total", card.get(key))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not 0 <= value < float("inf"):
            raise ValueError(f"model card of {spec.path}: {key} must be a finite number of at "
                             f"least 0, got {checks.shown(value)}")
        totals[f"{key}_total"] = value
    with open(spec.path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    return {"network": cfg.init, "sha256": digest,
            "decisions_total": int(totals["decisions_total"]),
            "seconds_total": float(totals["seconds_total"])}
