"""One value network that averages several (an ensemble in the value player's own format).

Networks of one depth, fitted for the same rules, observation version and features, are
joined side by side into one wider MLP: the first layers' units stacked, each later hidden
layer block-diagonal (no unit reads another network's units), and the last layer the mean of
the networks' last layers. So the joined network's value of a position is
``tanh(mean of the networks' values before their tanh)``, computed in one pass by the same
`ValueNet`, loaded and played wherever a value checkpoint is (`load_value_agent`); it costs
about the sum of the networks' time a move. Its model card (kind ``value``) names each network
with its SHA-256; nothing is fitted. ``python -m training.value_average --networks A.npz
B.npz --out runs/value/avg/NAME.npz`` (docs/training.md, "Averaging networks").
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence

import numpy as np

from .. import checks
from ..observation import OBS_VERSION
from ..players.checkpoints import card_or_refuse, write_card
from ..players.value import load_value_agent, save_value_net
from ..rules import Rules
from .config import check_run_name

Layers = list[tuple[np.ndarray, np.ndarray]]  # (weight [out, in], bias [out]) pairs


def averaged_layers(nets: Sequence[Layers]) -> Layers:
    """The layers of one network whose value before its tanh is the mean of `nets`' (each a
    list of (weight [out, in], bias [out]) pairs of one depth and input size)."""
    if len(nets) < 2:
        raise ValueError(f"averaging takes at least two networks, got {len(nets)}")
    depth, inputs = len(nets[0]), nets[0][0][0].shape[1]
    for k, net in enumerate(nets):
        if len(net) != depth:
            raise ValueError(f"network {k + 1} has {len(net)} layers, network 1 has {depth}: "
                             f"only networks of one depth are averaged")
        if net[0][0].shape[1] != inputs:
            raise ValueError(f"network {k + 1} reads {net[0][0].shape[1]} inputs, network 1 "
                             f"reads {inputs}")
    if depth == 1:  # no hidden layer: the mean of the linear maps
        return [(np.mean([n[0][0] for n in nets], axis=0), np.mean([n[0][1] for n in nets],
                                                                    axis=0))]
    out: Layers = [(np.concatenate([n[0][0] for n in nets]),
                    np.concatenate([n[0][1] for n in nets]))]
    for i in range(1, depth - 1):
        rows = sum(n[i][0].shape[0] for n in nets)
        cols = sum(n[i][0].shape[1] for n in nets)
        w = np.zeros((rows, cols), dtype=np.float32)
        r = c = 0
        for n in nets:
            block = n[i][0]
            w[r:r + block.shape[0], c:c + block.shape[1]] = block
            r, c = r + block.shape[0], c + block.shape[1]
        out.append((w, np.concatenate([n[i][1] for n in nets])))
    share = np.float32(1.0 / len(nets))
    out.append((np.concatenate([n[-1][0] * share for n in nets], axis=1),
                np.sum([n[-1][1] for n in nets], axis=0) * share))
    return [(w.astype(np.float32), b.astype(np.float32)) for w, b in out]


def average_value_nets(paths: Sequence[str], out: str) -> str:
    """Write the network averaging the value checkpoints at `paths` to `out` (an ``.npz``,
    its card beside it) and return `out`; ValueError naming the network that does not fit
    the first (other rules, observation version, features or depth) or a bad `out`."""
    if len(paths) < 2:
        raise ValueError(f"averaging takes at least two networks, got {len(paths)}")
    if not isinstance(out, str) or not out.endswith(".npz"):
        raise ValueError(f"--out must be a path ending in .npz, got {checks.shown(out)}")
    name = check_run_name(os.path.basename(out)[:-len(".npz")])
    if any(os.path.abspath(out) == os.path.abspath(p) for p in paths):
        raise ValueError(f"--out {out} is one of the networks averaged: write it elsewhere")
    cards = [card_or_refuse(p) for p in paths]
    rules = _rules_of(paths[0], cards[0])
    features = (cards[0].get("network") or {}).get("features")
    nets = []
    for path, card in zip(paths, cards, strict=True):
        agent = load_value_agent(path, rules)  # kind, observation version and input size
        if (card.get("network") or {}).get("features") != features:
            raise ValueError(f"{path} reads other features than {paths[0]}: only networks "
                             f"of the same inputs are averaged")
        if _rules_of(path, card) != rules:
            raise ValueError(f"{path} was fitted for other rules than {paths[0]}")
        nets.append([(w.T.copy(), b.copy()) for w, b in agent.net.layers])
    layers = averaged_layers(nets)
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    save_value_net(out, layers)
    card = {"kind": "value", "name": name, "rules": rules.to_dict(), "obs_version": OBS_VERSION,
            "network": {"hidden": [int(w.shape[0]) for w, _ in layers[:-1]],
                        "activation": "relu", "output": "tanh", "features": features},
            "averaged": [_entry(p, c) for p, c in zip(paths, cards, strict=True)]}
    card.update(_totals(card["averaged"], cards))
    write_card(os.path.splitext(out)[0] + ".json", card)
    return out


def _entry(path: str, card: dict) -> dict:
    """What the averaged card says of one network: its path, name and SHA-256, and the
    decisions and seconds of the runs behind it where its card counts them."""
    entry = {"network": path, "name": card.get("name"), "sha256": _sha256(path)}
    for key in ("decisions", "seconds"):
        value = card.get(f"{key}_total", card.get(key))
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            entry[f"{key}_total"] = value
    return entry


def _totals(entries: list[dict], cards: list[dict]) -> dict:
    """The decisions and seconds of every run behind the averaged networks, each counted once
    where one network started from another (its card's ``init`` names that one's SHA-256; a
    run further up a chain shared by two networks is counted twice), as ``decisions_total``
    and ``seconds_total``; none where a network's card does not count them."""
    if not all("decisions_total" in e and "seconds_total" in e for e in entries):
        return {}
    starts = {(c.get("init") or {}).get("sha256") for c in cards}
    own = [e for e in entries if e["sha256"] not in starts]
    return {"decisions_total": int(sum(e["decisions_total"] for e in own)),
            "seconds_total": float(sum(e["seconds_total"] for e in own))}


def _rules_of(path: str, card: dict) -> Rules:
    """The rules `card` (the model card of `path`) was fitted for; ValueError if it has none."""
    rules = card.get("rules")
    if not isinstance(rules, dict):
        raise ValueError(f"model card of {path} has no rules (a dictionary), got "
                         f"{checks.shown(rules)}")
    try:
        return Rules.from_dict(rules)
    except (TypeError, ValueError) as e:
        raise ValueError(f"model card of {path}: rules: {e}") from None


def _sha256(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()
