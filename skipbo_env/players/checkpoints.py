"""Checkpoints and their model cards: reading a card, checking what a checkpoint plays, and
building its network from the card with the weights read safely; writing cards.

A checkpoint is the SB3 ``.zip``; beside it the training scripts write a JSON model card
(same name, ``.json``) whose ``"rules"`` say which game the policy was trained for and whose
``"policy"`` describes its network (docs/training.md, "Model cards").

Loading never unpickles anything: SB3's own loader (``MaskablePPO.load``) rebuilds objects
from cloudpickles stored in the ``.zip``, so a crafted file runs code. This module instead
builds the network from the JSON card (rules and observation depth give the spaces,
``policy.net_arch`` and ``policy.activation`` the layers) and reads only the ``policy.pth``
entry, with ``torch.load(..., weights_only=True)``, which refuses anything but tensors and
plain containers. The rest of the ``.zip`` (optimizer state, the pickled ``data`` entry) is
never read. Loading needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); the
player that plays a loaded network is `players.policy.PolicyAgent`.
"""

from __future__ import annotations

import io
import json
import math
import os
import pickle
import threading
import zipfile
from collections import OrderedDict

import numpy as np

from .. import checks
from ..actions import ActionLayout
from ..extras import INSTALL_TRAIN
from ..files import write_whole
from ..observation import MAX_PILE_DEPTH, OBS_VERSION, PILE_DEPTH, ObservationEncoder
from ..rules import Rules


def check_obs_version(card: dict, path: str = "") -> None:
    """Raise ValueError unless the model card was written for this package's observation
    (`OBS_VERSION`): the shapes of two versions may agree while their meaning differs."""
    version = card.get("obs_version")
    if version is not None and type(version) is not int:  # true and 1.0 equal 1: not versions
        raise ValueError(f"model card of {path}: obs_version must be an integer, got "
                         f"{checks.shown(version)}")
    if version is None:
        raise ValueError(f"model card of {path} has no obs_version; it must say which "
                         f"observation the policy was trained on (this package's is "
                         f"{OBS_VERSION}, docs/observation.md)")
    if version != OBS_VERSION:
        raise ValueError(f"checkpoint {path} was trained on observation version {version!r}; "
                         f"this package encodes version {OBS_VERSION}, which the policy cannot "
                         f"read (docs/observation.md)")


def model_card(path: str) -> dict | None:
    """The JSON model card beside checkpoint `path`, or None if there is none."""
    card = os.path.splitext(path)[0] + ".json"
    if not os.path.lexists(card):
        return None
    if not os.path.isfile(card):  # a device, a FIFO, a directory or a dangling link
        raise ValueError(f"model card {card} is not a regular file")
    try:
        with open(card, "rb") as f:
            raw = f.read(MAX_CARD_BYTES + 1)
        if len(raw) > MAX_CARD_BYTES:
            raise ValueError(f"model card {card} is over {MAX_CARD_BYTES} bytes")
        data = json.loads(raw)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"model card {card} is not readable JSON: {e}") from None
    except RecursionError:
        raise ValueError(f"model card {card} is nested too deeply to be a model card") from None
    if not isinstance(data, dict):
        raise ValueError(f"model card {card} must hold a JSON object")
    return data


def finite(data):
    """`data` (JSON-like: dicts, lists, tuples, numbers, strings, numpy scalars and arrays)
    with numpy values as Python's and every float that is not a finite number replaced by
    None: JSON has no NaN or infinity."""
    if isinstance(data, np.ndarray):
        data = data.tolist()
    elif isinstance(data, np.generic):
        data = data.item()
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite(v) for v in data]
    return data


def write_card(path: str, card) -> None:
    """Write `card` (a model card, or a learning curve beside one) to `path` as strict JSON:
    a figure that is not a finite number (a diverged loss, an empty iteration's mean) is
    written as null, so any JSON reader can read the file. The text is made before the file
    is touched and replaces it whole (`files.write_whole`: written to a file created
    exclusively beside it, then renamed; never through a link), so a card that cannot be
    written leaves the one before it as it was."""
    write_whole(path, json.dumps(finite(card), indent=1, allow_nan=False), replace=True)


_MODELS: OrderedDict[tuple, object] = OrderedDict()  # loaded policies by path, time, size
_MODELS_LOCK = threading.Lock()  # the web server's bot threads load policies too
MAX_MODELS = 64  # policies kept loaded at once (least recently used go first)
WEIGHTS = "policy.pth"  # the zip entry with the policy's state dict (SB3's name)
MAX_WEIGHTS_BYTES = 512 * 2**20  # a policy.pth larger than this is refused unread
MAX_CARD_BYTES = 16 * 2**20  # a model card is a few tens of kilobytes
ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU"}  # card name -> torch.nn class
POLICY_CLASS = "MaskableActorCriticPolicy"
MAX_LAYERS, MAX_WIDTH = 16, 8192  # sane bounds on a card's net_arch


def is_net_arch(arch) -> bool:
    """Whether `arch` is a list of 1 to MAX_LAYERS hidden layer widths of 1 to MAX_WIDTH (what
    the safe loader builds, so also what a training config may ask for)."""
    return isinstance(arch, list) and 1 <= len(arch) <= MAX_LAYERS and all(
        checks.is_integer(w) and 1 <= w <= MAX_WIDTH for w in arch)


def policy_card(net_arch, activation: str = "tanh") -> dict:
    """The ``"policy"`` section of a model card: what the safe loader needs to rebuild the
    network (the spaces come from the card's rules and pile_depth)."""
    return {"class": POLICY_CLASS, "net_arch": [int(w) for w in net_arch],
            "activation": activation, "weights": WEIGHTS}


def check_checkpoint(path: str) -> None:
    """Raise ValueError unless `path` is an existing SB3 ``.zip`` file (a cheap check that
    loads nothing)."""
    if not os.path.isfile(path):
        raise ValueError(f"checkpoint {path} does not exist")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"checkpoint {path} is not an SB3 .zip file (corrupt or another "
                         f"format)")


def card_or_refuse(path: str) -> dict:
    card = model_card(path)
    if card is None:
        raise ValueError(f"checkpoint {path} has no model card "
                         f"({os.path.splitext(path)[0]}.json): the card records the rules, the "
                         f"observation version (obs_version) and the network (policy) the "
                         f"policy was trained with")
    return card


def network_of(card: dict, path: str = "") -> tuple[list[int], str]:
    """(net_arch, activation) from the card's ``"policy"`` section (or, for cards written
    before it existed, the training config's ``ppo.net_arch`` with SB3's default tanh), or
    ValueError saying what is missing."""
    spec = card.get("policy")
    if spec is None:
        config = card.get("config")
        ppo = config.get("ppo") if isinstance(config, dict) else None
        arch = ppo.get("net_arch") if isinstance(ppo, dict) else None
        if arch is None:
            raise ValueError(f"model card of {path} has no policy section: the safe loader "
                             f"needs policy.net_arch (the hidden layer widths, e.g. "
                             f"[256, 256]) and policy.activation ({', '.join(ACTIVATIONS)})")
        spec = {"class": POLICY_CLASS, "net_arch": arch, "activation": "tanh"}
    if not isinstance(spec, dict):
        raise ValueError(f"model card of {path}: policy must be an object, got "
                         f"{checks.shown(spec)}")
    if spec.get("class", POLICY_CLASS) != POLICY_CLASS:
        raise ValueError(f"model card of {path}: policy.class {checks.shown(spec.get('class'))} "
                         f"is not supported (only {POLICY_CLASS})")
    arch = spec.get("net_arch")
    if not is_net_arch(arch):
        raise ValueError(f"model card of {path}: policy.net_arch must be a list of 1 to "
                         f"{MAX_LAYERS} layer widths from 1 to {MAX_WIDTH}, got "
                         f"{checks.shown(arch)}")
    activation = spec.get("activation", "tanh")
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(f"model card of {path}: policy.activation must be one of "
                         f"{', '.join(ACTIVATIONS)}, got {checks.shown(activation)}")
    weights = spec.get("weights", WEIGHTS)
    if weights != WEIGHTS:
        raise ValueError(f"model card of {path}: policy.weights must be {WEIGHTS!r}, got "
                         f"{checks.shown(weights)}")
    assert isinstance(arch, list)  # is_net_arch: a list of integers
    return [int(w) for w in arch], activation


def _read_weights(path: str) -> dict:
    """The state dict in the checkpoint's ``policy.pth``, read without unpickling objects."""
    import torch

    try:
        with zipfile.ZipFile(path) as z:
            try:
                info = z.getinfo(WEIGHTS)
            except KeyError:
                raise ValueError(f"checkpoint {path} has no {WEIGHTS} entry (the policy's "
                                 f"weights)") from None
            if info.file_size > MAX_WEIGHTS_BYTES:
                raise ValueError(f"checkpoint {path}: {WEIGHTS} is {info.file_size} bytes, "
                                 f"over the {MAX_WEIGHTS_BYTES} this loader reads")
            raw = z.read(info)
    except (OSError, zipfile.BadZipFile, RuntimeError, NotImplementedError) as e:
        raise ValueError(f"checkpoint {path} could not be read: {type(e).__name__}: "
                         f"{e}") from None
    _check_inner(raw, path)
    try:
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # torch's own text advises weights_only=False: not here
        raise ValueError(f"checkpoint {path}: {WEIGHTS} is not a plain state dict of tensors "
                         f"(it is corrupt or holds other objects; nothing in it was "
                         f"run)") from None
    except Exception as e:  # torch raises many kinds of error for a damaged file
        raise ValueError(f"checkpoint {path}: {WEIGHTS} could not be read: "
                         f"{type(e).__name__}: {e}") from None
    if not isinstance(state, dict) or not all(
            isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()):
        raise ValueError(f"checkpoint {path}: {WEIGHTS} must hold a state dict (names to "
                         f"tensors)")
    return state


def _check_inner(raw: bytes, path: str) -> None:
    """`policy.pth` is itself a zip (torch's format), whose entries torch would inflate without
    limit: a few kilobytes could expand to gigabytes of tensors. torch writes its entries
    stored, not compressed; anything else, or more than MAX_WEIGHTS_BYTES in all, is refused
    before torch reads it."""
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as inner:
            entries = inner.infolist()
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, ValueError):
        raise ValueError(f"checkpoint {path}: {WEIGHTS} is not a plain state dict of tensors "
                         f"(not torch's zip format)") from None
    if any(e.compress_type != zipfile.ZIP_STORED for e in entries):
        raise ValueError(f"checkpoint {path}: {WEIGHTS} holds compressed entries; torch writes "
                         f"them stored, and compressed ones could inflate without bound")
    if sum(e.file_size for e in entries) > MAX_WEIGHTS_BYTES or len(entries) > 100_000:
        raise ValueError(f"checkpoint {path}: {WEIGHTS} holds over {MAX_WEIGHTS_BYTES} bytes")


def legal_logits(policy, obs: np.ndarray, masks: np.ndarray):
    """The actor's scores of a MaskableActorCriticPolicy for a batch of observations, -inf
    where `masks` is false (torch, inference mode): the first highest is the action
    `predict(..., deterministic=True)` takes (softmax keeps the order), without building
    the masked distribution."""
    import torch

    with torch.inference_mode():
        features = policy.extract_features(torch.from_numpy(obs), policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        return torch.where(torch.from_numpy(masks.astype(bool, copy=False)), logits,
                           -torch.inf)


def checkpoint_spec(path: str, card: dict | None = None) -> tuple:
    """What checkpoint `path` is, from its model card (`card` if given), its weights not read:
    (card, rules, pile_depth, net_arch, activation). ValueError says what is missing or
    wrong."""
    check_checkpoint(path)
    if card is None:
        card = card_or_refuse(path)
    check_obs_version(card, path)
    return (card, card_rules(card, path), card_depth(card, path), *network_of(card, path))


def fits_games_of(own: Rules, depth: int, rules: Rules) -> bool:
    """Whether a checkpoint made for games of `own` (observing piles to `depth`) observes and
    acts in games of `rules`: the same observation and action sizes (the stock size, say,
    may differ)."""
    return (ObservationEncoder(own, depth).size == ObservationEncoder(rules, depth).size
            and ActionLayout(own).size == ActionLayout(rules).size)


def expected_shapes(inputs: int, actions: int, arch: list[int]) -> dict[str, tuple[int, ...]]:
    """The state dict's tensor shapes of the network a card describes (sb3-contrib's
    MaskableActorCriticPolicy with separate policy and value MLPs of widths `arch`), by name:
    what the loader compares the weights with before it builds anything."""
    shapes: dict[str, tuple[int, ...]] = {}
    for net in ("policy_net", "value_net"):
        last = inputs
        for i, width in enumerate(arch):
            shapes[f"mlp_extractor.{net}.{2 * i}.weight"] = (width, last)
            shapes[f"mlp_extractor.{net}.{2 * i}.bias"] = (width,)
            last = width
    shapes.update({"action_net.weight": (actions, arch[-1]), "action_net.bias": (actions,),
                   "value_net.weight": (1, arch[-1]), "value_net.bias": (1,)})
    return shapes


def _check_state(state: dict, shapes: dict[str, tuple[int, ...]], path: str, what: str) -> None:
    """Refuse weights that are not exactly the card's network (`shapes`), or not finite,
    before the network is built: a card may not make the loader build more than its weights
    hold."""
    import torch

    numbers = sum(math.prod(shape) for shape in shapes.values())
    if numbers * 4 > MAX_WEIGHTS_BYTES:
        raise ValueError(f"checkpoint {path}: its model card asks for a network of {numbers:,} "
                         f"weights ({what}), over the {MAX_WEIGHTS_BYTES // 4:,} this loader "
                         f"builds")
    got = {k: tuple(v.shape) for k, v in state.items()}
    if got != shapes:
        wrong = sorted(set(got) ^ set(shapes)) or sorted(
            k for k in shapes if got[k] != shapes[k])
        raise ValueError(f"checkpoint {path}: the weights do not fit the network of its model "
                         f"card ({what}): {len(wrong)} tensor(s) differ, first "
                         f"{checks.shown(wrong[0])} (weights {got.get(wrong[0])}, card "
                         f"{shapes.get(wrong[0])})")
    for name, tensor in state.items():
        if not tensor.is_floating_point() or not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"checkpoint {path}: weight {checks.shown(name)} holds a number "
                             f"that is not finite (or is not a float tensor): the network "
                             f"could not play")


_REFUSED: OrderedDict[tuple, str] = OrderedDict()  # checkpoints refused, by path, time, size
MAX_REFUSED = 256


def load_model(path: str, card: dict | None = None):
    """The policy network of checkpoint `path` (sb3-contrib's MaskableActorCriticPolicy, on
    the CPU, in evaluation mode), built from its model card and filled with the weights of
    its ``policy.pth`` (never unpickled); loaded once per process. ValueError says what is
    missing or wrong."""
    check_checkpoint(path)
    stat = os.stat(path)
    try:  # the card is part of what was loaded (or refused): a new card, a new load
        own = os.stat(os.path.splitext(path)[0] + ".json")
        stamp: tuple = (own.st_mtime_ns, own.st_size, own.st_ino)
    except OSError:
        stamp = ()
    key = (os.path.abspath(path), stat.st_mtime_ns, stat.st_size, stamp)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is not None:
            _MODELS.move_to_end(key)
            return model
        refused = _REFUSED.get(key) if card is None else None
    if refused is not None:  # refused before: no work a second time (a client repeating it)
        raise ValueError(refused)
    try:
        policy = _build(path, card)
    except ValueError as e:
        if card is None:
            with _MODELS_LOCK:
                _REFUSED[key] = str(e)
                while len(_REFUSED) > MAX_REFUSED:
                    _REFUSED.popitem(last=False)
        raise
    with _MODELS_LOCK:
        _MODELS[key] = policy
        while len(_MODELS) > MAX_MODELS:  # a long self-play run loads a snapshot each time
            _MODELS.popitem(last=False)
    return policy


def _build(path: str, card: dict | None):
    """`load_model`'s work: the card read, the weights read and checked against it, then the
    network built and filled."""
    card, rules, pile_depth, arch, activation = checkpoint_spec(path, card)
    try:
        import torch
        from gymnasium import spaces
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        raise ValueError(f"loading a checkpoint needs the train extra: {INSTALL_TRAIN}") from None
    torch.set_num_threads(1)  # one move at a time: threads only cost here
    state = _read_weights(path)
    encoder = ObservationEncoder(rules, pile_depth)
    _check_state(state, expected_shapes(encoder.size, ActionLayout(rules).size, arch), path,
                 f"rules {rules.variant}, {rules.num_players} players, pile_depth "
                 f"{pile_depth}, net_arch {arch}")
    policy = MaskableActorCriticPolicy(
        spaces.Box(0.0, 1.0, (encoder.size,), np.float32),
        spaces.Discrete(ActionLayout(rules).size), lambda _: 0.0, net_arch=arch,
        activation_fn=getattr(torch.nn, ACTIVATIONS[activation]))
    try:
        policy.load_state_dict(state, strict=True)
    except RuntimeError as e:
        raise ValueError(f"checkpoint {path}: the weights do not fit the network of its model "
                         f"card (rules {rules.variant}, {rules.num_players} players, "
                         f"pile_depth {pile_depth}, net_arch {arch}): "
                         f"{str(e).splitlines()[0]}") from None
    policy.set_training_mode(False)
    return policy


def checkpoints_in(directory: str) -> list[str]:
    """The checkpoints (``*.zip``) in `directory` as paths, oldest snapshot first: names
    ordered by length, then alphabetically, so the trainer's zero-padded step counts
    (``step_000250000.zip``) keep their order past any number of digits; [] if `directory`
    is not a directory (a self-play pool before its first snapshot). Only regular files count
    (a directory, a dangling link or a link loop named ``*.zip`` is no checkpoint)."""
    if not os.path.isdir(directory):
        return []
    names = sorted((f for f in os.listdir(directory) if f.endswith(".zip") and len(f) > 4
                    and os.path.isfile(os.path.join(directory, f))),
                   key=lambda f: (len(f), f))
    return [os.path.join(directory, f) for f in names]


def card_rules(card: dict, path: str) -> Rules:
    if "rules" not in card:
        raise ValueError(f"model card of {path} has no rules: they give the network's "
                         f"observation and action sizes")
    try:
        return Rules.from_dict(card["rules"])
    except (TypeError, ValueError) as e:
        raise ValueError(f"model card of {path} holds bad rules: {e}") from None


def card_depth(card: dict, path: str) -> int:
    pile_depth = card.get("pile_depth", PILE_DEPTH)
    if not checks.is_integer(pile_depth) or not 1 <= pile_depth <= MAX_PILE_DEPTH:
        raise ValueError(f"model card of {path} holds a bad pile_depth: {pile_depth!r} (an "
                         f"integer from 1 to {MAX_PILE_DEPTH})")
    return pile_depth
