"""Training configuration: YAML, validated before any training starts, and parsed once into a
typed `TrainConfig` (docs/training.md). The YAML's keys are `DEFAULTS`' (the defaults in
YAML terms); the typed sections name the same keys as fields."""

from __future__ import annotations

import copy
import dataclasses
import math
import re
import typing
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .. import checks
from ..actions import ActionLayout
from ..observation import PILE_DEPTH, ObservationEncoder
from ..players.checkpoints import (
    ACTIVATIONS,
    MAX_LAYERS,
    MAX_WIDTH,
    checkpoint_spec,
    fits_games_of,
    is_net_arch,
    load_model,
)
from ..players.registry import SCRIPTED, PlayerKind, make_agent, parse_player
from ..rules import Rules, allowed_players
from ..vector.batched import check_engine_size
from ..vector.scripted import BATCHED_PLAYERS

VEC_ENVS = ("subproc", "dummy", "batched")
BATCHED_GAMES = 256  # games in the batched engine when n_envs is 0
MAX_BATCHED_GAMES = 2**20  # n_envs bounds: games of the batched engine, or env processes
MAX_ENV_PROCESSES = 512
MAX_WEIGHT = 10**6  # an opponent's weight (only the ratios matter)

# Every key, with its default (None: required). Nested dictionaries list their own keys.
DEFAULTS: dict[str, Any] = {
    "name": None,  # the checkpoint's name: checkpoints/<name>.zip and .json
    "variant": "standard",
    "num_players": 2,
    "rules": {},  # overrides of the preset, e.g. {stock_size: 30}
    "seed": 0,
    "total_timesteps": None,
    "n_envs": 0,  # 0: one per core (vec_env batched: 256 games)
    # "subproc" (a process per environment), "dummy" (all in this process) or "batched" (the
    # numba batched engine, skipbo_env.vector: scripted random/naive/greedy/expert, checkpoint
    # and value player opponents)
    "vec_env": "subproc",
    "opponents": {"random": 1.0},  # scripted players (or checkpoint paths) by weight
    "self_play": {"weight": 0.0, "save_every": 100_000, "pool_size": 10, "refresh": 100},
    "curriculum": [],  # [{until: steps, stock_size: n}, ...], ascending; the last size holds on
    "stock_reward": 0.0,  # shaping: reward per card the learner's team plays from its stocks
    # shaping: reward per card the other teams' stocks lose between the learner's move and its
    # next turn (-stock_reward: the change in the stock lead)
    "opponent_stock_reward": 0.0,
    # A checkpoint (.zip with its model card) whose policy and value networks start the run
    # instead of fresh ones ("" or null: none); its network must be ppo.net_arch/activation.
    "init": "",
    # Behaviour cloning before PPO (skipbo_env/train/pretrain.py); samples 0: none.
    # fresh (vec_env batched): each of the `epochs` passes clones `samples` new decisions.
    "pretrain": {"samples": 0, "teacher": "expert", "epochs": 10, "learning_rate": 1e-3,
                 "batch_size": 512, "fresh": False,
                 # DAgger after cloning (vec_env batched): per round, `samples` states of the
                 # learner's own play labelled by the teacher, then `epochs` on everything
                 # (aggregate false: on that round's states only).
                 "dagger": {"rounds": 0, "samples": 200_000, "epochs": 2, "aggregate": True},
                 # vec_env batched, teacher expert: each decision's label is the legal move
                 # whose rollout in the true game (expert in every seat to the end of the
                 # learner's next turn) beats expert's by more than `margin` stock cards
                 # (skipbo_env/vector/rollout.py), else expert's; deals 0: the rollouts
                 # play in the true game (they see the hidden cards), deals k: the mean of k
                 # rollouts per move, each in a fresh deal of the cards the learner cannot see
                 "rollout": {"enabled": False, "margin": 1.0, "win_bonus": 10.0,
                             "deals": 0}},
    "ppo": {
        "learning_rate": 3e-4, "n_steps": 1024, "batch_size": 256, "n_epochs": 10,
        "gamma": 0.995, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01,
        "vf_coef": 0.5, "max_grad_norm": 0.5, "net_arch": [256, 256],
        "activation": "tanh",  # of the hidden layers: tanh (SB3's default) or relu
    },
    "eval": {"every": 100_000, "games": 200, "opponents": ["random", "naive", "greedy"],
             "final_games": 2000, "final_opponents": ["random", "naive", "greedy", "expert"]},
    "output_dir": "runs/checkpoints",  # the shipped configs name checkpoints/ themselves
    "log_dir": "runs",  # TensorBoard logs and the learning curve, under <log_dir>/<name>
}


class ConfigError(ValueError):
    """A configuration that cannot be trained, with the key and the problem named."""


MAX_NUMBER = 10**15  # no key of a config means a number beyond this (a typo or an attack)
SEED_MAX = 2**31 - 1  # seeds and the seeds derived from them (seed + k) stay in numpy's range
RUN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")  # a plain file name


def _flag(value, key) -> bool:
    """`value` checked as true or false, else ConfigError naming `key`."""
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {_show(value)}")
    return value


def number(value, key, *, integer=False, minimum=None, above=None, maximum=None):
    """`value` checked as a finite number (an integer if `integer`) in range (at most
    `maximum`, or MAX_NUMBER when none is given), else ConfigError naming `key`."""
    kinds = (int,) if integer else (int, float)
    if isinstance(value, bool) or not isinstance(value, kinds):
        raise ConfigError(f"{key} must be {'an integer' if integer else 'a number'}, got "
                          f"{_show(value)}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"{key} must be a finite number, got {checks.shown(value)}")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{key} must be at least {minimum}, got {_show(value)}")
    if above is not None and not value > above:
        raise ConfigError(f"{key} must be above {above}, got {_show(value)}")
    top = MAX_NUMBER if maximum is None else maximum
    if value > top or value < -MAX_NUMBER:
        raise ConfigError(f"{key} must be at most {top}, got {_show(value)}")
    return value


_show = checks.shown  # a value for a message, cut short (never raises)


def check_run_name(name) -> str:
    """A run's name: a plain file name (letters, digits, ``.``, ``_``, ``-``, starting with a
    letter or digit, at most 100 characters), so ``<dir>/<name>`` never leaves ``<dir>``."""
    if not isinstance(name, str) or not RUN_NAME.fullmatch(name):
        raise ConfigError(f"name must be a plain file name (letters, digits, '.', '_', '-', "
                          f"starting with a letter or digit, at most 100 characters), got "
                          f"{_show(name)}")
    return name


def check_dir(value, key: str) -> str:
    """A directory path of the config: a non-empty string without NUL."""
    if not isinstance(value, str) or not value or "\0" in value or len(value) > 4096:
        raise ConfigError(f"{key} must be a directory path, got {_show(value)}")
    return value


def check_net_arch(arch, key: str = "ppo.net_arch") -> list[int]:
    """Hidden layer widths, as the safe checkpoint loader accepts them."""
    if not is_net_arch(arch):
        raise ConfigError(f"{key} must be a list of 1 to {MAX_LAYERS} layer widths from 1 to "
                          f"{MAX_WIDTH}, got {_show(arch)}")
    return arch


def parse_net_arch(text: str, key: str) -> list[int]:
    """Hidden layer widths written as on a command line ("512,512,256"), checked as
    `check_net_arch` checks a config's."""
    return check_net_arch([int(w) if w.strip().isdigit() else w for w in text.split(",")], key)


def check_activation(name, key: str = "ppo.activation") -> str:
    """The hidden layers' activation, one the safe checkpoint loader rebuilds."""
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ConfigError(f"{key} must be one of {', '.join(ACTIVATIONS)}, got {_show(name)}")
    return name


def merge(defaults: dict, given: dict, where: str) -> dict:
    """`given` over a deep copy of `defaults`, nested sections merged key by key; an unknown
    key is a ConfigError naming it (`where` is the section's prefix, e.g. "ppo.")."""
    if not isinstance(given, dict):
        raise ConfigError(f"{where.rstrip('.') or 'the config'} must be a mapping, got "
                          f"{checks.shown(given)}")
    unknown = set(given) - set(defaults)
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(sorted(f'{where}{k}' for k in unknown))}; "
                          f"allowed: {', '.join(sorted(defaults))}")
    out = copy.deepcopy(defaults)
    for key, value in given.items():
        if isinstance(defaults[key], dict) and key != "rules" and key != "opponents":
            out[key] = merge(defaults[key], value, f"{where}{key}.")
        else:
            out[key] = value
    return out


def _player(name, where: str) -> None:
    """A player spec of the config (the registry's rules), or ConfigError."""
    try:
        parse_player(name, where)
    except ValueError as e:
        raise ConfigError(str(e)) from None


def check_game(cfg: dict) -> Rules:
    """Check a merged config's name, game (variant, num_players, rules) and seed, shared by
    the SB3 and the RLlib configs; returns the game's rules."""
    check_run_name(cfg["name"])
    if not isinstance(cfg["rules"], dict) or any(not isinstance(k, str) for k in cfg["rules"]):
        raise ConfigError(f"rules must map rule names to values, got {_show(cfg['rules'])}")
    try:
        allowed_players(cfg["variant"])
        rules = Rules.preset(cfg["variant"], cfg["num_players"], **cfg["rules"])
    except (TypeError, ValueError, OverflowError) as e:
        raise ConfigError(f"variant/num_players/rules: {e}") from None
    number(cfg["seed"], "seed", integer=True, minimum=0, maximum=SEED_MAX)
    return rules


S = TypeVar("S", bound="Section")


class Section:
    """A config section as typed values: a frozen dataclass whose fields are the section's
    YAML keys (a key that is a Python keyword, RLlib's ``lambda``, ends in "_" as a field),
    built from the merged and checked dictionary by `build` and written back by `to_dict`.
    A field whose metadata says ``derived`` (the game's `Rules`) is no key: `build` takes it
    as an argument and `to_dict` leaves it out."""

    @classmethod
    def build(cls: type[S], data: dict, **derived: Any) -> S:
        """The section of the checked dictionary `data` (nested sections built in turn)."""
        hints = typing.get_type_hints(cls)
        values = dict(derived)
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            if f.metadata.get("derived"):
                continue
            value, kind = data[f.name.rstrip("_")], hints[f.name]
            if isinstance(kind, type) and issubclass(kind, Section):
                value = kind.build(value)
            elif typing.get_origin(kind) is tuple:
                item = typing.get_args(kind)[0]
                value = tuple(item.build(v) if isinstance(item, type)
                              and issubclass(item, Section) else v for v in value)
            elif typing.get_origin(kind) is dict:
                value = dict(value)
            values[f.name] = value
        return cls(**values)

    def to_dict(self) -> dict:
        """The section as the YAML writes it (lists for tuples), its derived fields left out:
        what a model card records as the run's config."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            if f.metadata.get("derived"):
                continue
            value = getattr(self, f.name)
            if isinstance(value, Section):
                value = value.to_dict()
            elif isinstance(value, tuple):
                value = [v.to_dict() if isinstance(v, Section) else v for v in value]
            elif isinstance(value, dict):
                value = copy.deepcopy(value)
            out[f.name.rstrip("_")] = value
        return out


@dataclass(frozen=True)
class SelfPlay(Section):
    """``self_play``: frozen copies of the learner as opponents."""

    weight: float
    save_every: int
    pool_size: int
    refresh: int


@dataclass(frozen=True)
class Stage(Section):
    """One stage of the ``curriculum``: the stock size until a number of steps."""

    until: int
    stock_size: int


@dataclass(frozen=True)
class Dagger(Section):
    """``pretrain.dagger``: rounds of the learner's own states labelled by the teacher."""

    rounds: int
    samples: int
    epochs: int
    aggregate: bool


@dataclass(frozen=True)
class Rollout(Section):
    """``pretrain.rollout``: the rollout teacher's labels."""

    enabled: bool
    margin: float
    win_bonus: float
    deals: int


@dataclass(frozen=True)
class Pretrain(Section):
    """``pretrain``: behaviour cloning before PPO."""

    samples: int
    teacher: str
    epochs: int
    learning_rate: float
    batch_size: int
    fresh: bool
    dagger: Dagger
    rollout: Rollout


@dataclass(frozen=True)
class PPO(Section):
    """``ppo``: MaskablePPO's settings and the network."""

    learning_rate: float
    n_steps: int
    batch_size: int
    n_epochs: int
    gamma: float
    gae_lambda: float
    clip_range: float
    ent_coef: float
    vf_coef: float
    max_grad_norm: float
    net_arch: tuple[int, ...]
    activation: str

    def algorithm_kwargs(self) -> dict[str, Any]:
        """MaskablePPO's keyword arguments (the network aside: `net_arch`, `activation`)."""
        return {k: v for k, v in self.to_dict().items() if k not in ("net_arch", "activation")}


@dataclass(frozen=True)
class Eval(Section):
    """``eval``: the learning curve's evaluations and the final one."""

    every: int
    games: int
    opponents: tuple[str, ...]
    final_games: int
    final_opponents: tuple[str, ...]


@dataclass(frozen=True)
class TrainConfig(Section):
    """A checked training config (`validate`): every key of `DEFAULTS` as a typed field, and
    `game_rules`, the `Rules` its variant, players and rule overrides (``rules``) make."""

    name: str
    variant: str
    num_players: int
    rules: dict[str, Any]  # overrides of the preset, as the YAML gives them
    seed: int
    total_timesteps: int
    n_envs: int
    vec_env: str
    opponents: dict[str, float]
    self_play: SelfPlay
    curriculum: tuple[Stage, ...]
    stock_reward: float
    opponent_stock_reward: float
    init: str
    pretrain: Pretrain
    ppo: PPO
    eval: Eval
    output_dir: str
    log_dir: str
    game_rules: Rules = field(metadata={"derived": True}, repr=False)

    def with_changes(self, **changes: Any) -> TrainConfig:
        """This config with some keys changed (YAML values), checked again."""
        return validate({**self.to_dict(), **changes})


def validate(raw: dict) -> TrainConfig:
    """The full configuration (defaults filled in) as a `TrainConfig`, or ConfigError naming
    the problem."""
    cfg = merge(DEFAULTS, raw, "")
    if cfg["init"] is None:
        cfg["init"] = ""  # null: no checkpoint to start from
    for key, value in cfg.items():
        if value is None:
            raise ConfigError(f"{key} is required")
    rules = check_game(cfg)
    number(cfg["total_timesteps"], "total_timesteps", integer=True, minimum=0, maximum=10**12)
    number(cfg["n_envs"], "n_envs", integer=True, minimum=0,
           maximum=MAX_BATCHED_GAMES if cfg["vec_env"] == "batched" else MAX_ENV_PROCESSES)
    if cfg["vec_env"] not in VEC_ENVS:
        raise ConfigError(f"vec_env must be one of {', '.join(VEC_ENVS)}, got "
                          f"{checks.shown(cfg['vec_env'])}")
    _check_opponents(cfg["opponents"], rules)
    _check_self_play(cfg["self_play"])
    cfg["curriculum"] = _checked_curriculum(cfg["curriculum"], rules)
    number(cfg["stock_reward"], "stock_reward", minimum=-100, maximum=100)
    number(cfg["opponent_stock_reward"], "opponent_stock_reward", minimum=-100, maximum=100)
    _check_pretrain(cfg["pretrain"], cfg["vec_env"])
    _check_cloning_memory(cfg, rules)
    _check_ppo(cfg["ppo"])
    _check_init(cfg, rules)
    if cfg["total_timesteps"] == 0 and not cfg["pretrain"]["samples"]:
        raise ConfigError("total_timesteps is 0 (no PPO) but pretrain.samples is 0 too: the run "
                          "would train nothing; give pretrain.samples (behaviour cloning alone) "
                          "or total_timesteps")
    if cfg["vec_env"] == "batched":
        _check_batched(cfg)
        _check_batched_memory(cfg, rules)
    _check_rollout_memory(cfg, rules)
    _check_eval(cfg["eval"])
    for key in ("output_dir", "log_dir"):
        check_dir(cfg[key], key)
    return TrainConfig.build(cfg, game_rules=rules)


def _check_opponents(opponents, rules: Rules) -> None:
    if not isinstance(opponents, dict) or not opponents:
        raise ConfigError(f"opponents must map player names to weights, got {_show(opponents)}")
    for name, weight in opponents.items():
        _player(name, "opponents")
        number(weight, f"opponents.{name}", minimum=0, maximum=MAX_WEIGHT)
        _check_checkpoint_player(name, rules, f"opponents.{name}")
    if sum(opponents.values()) <= 0:
        raise ConfigError("opponents: at least one weight must be positive")


def _check_self_play(sp: dict) -> None:
    number(sp["weight"], "self_play.weight", minimum=0, maximum=MAX_WEIGHT)
    number(sp["save_every"], "self_play.save_every", integer=True, minimum=1)
    number(sp["pool_size"], "self_play.pool_size", integer=True, minimum=1, maximum=1000)
    number(sp["refresh"], "self_play.refresh", integer=True, minimum=1)


def _checked_curriculum(curriculum, rules: Rules) -> list[dict]:
    """The curriculum's stages, each {until, stock_size}, ascending, within the rules' stock."""
    if not isinstance(curriculum, list):
        raise ConfigError(f"curriculum must be a list of {{until, stock_size}}, got "
                          f"{_show(curriculum)}")
    last, out = 0, []
    for i, stage in enumerate(curriculum):
        stage = merge({"until": None, "stock_size": None}, stage, f"curriculum[{i}].")
        for key in ("until", "stock_size"):
            if stage[key] is None:
                raise ConfigError(f"curriculum[{i}].{key} is required")
        number(stage["until"], f"curriculum[{i}].until", integer=True, above=last)
        number(stage["stock_size"], f"curriculum[{i}].stock_size", integer=True, minimum=1,
               maximum=rules.stock_size)
        last = stage["until"]
        out.append(stage)
    return out


def _check_pretrain(pt: dict, vec_env: str) -> None:
    """Behaviour cloning, its rollout teacher and DAgger."""
    number(pt["samples"], "pretrain.samples", integer=True, minimum=0, maximum=10**9)
    if not isinstance(pt["teacher"], str) or pt["teacher"] not in SCRIPTED:
        raise ConfigError(f"pretrain.teacher must be a player name from {', '.join(SCRIPTED)}, "
                          f"got {_show(pt['teacher'])}")
    number(pt["epochs"], "pretrain.epochs", integer=True, minimum=1, maximum=10**4)
    number(pt["batch_size"], "pretrain.batch_size", integer=True, minimum=2, maximum=10**7)
    number(pt["learning_rate"], "pretrain.learning_rate", above=0, maximum=1)
    _flag(pt["fresh"], "pretrain.fresh")
    if pt["fresh"] and vec_env != "batched":
        raise ConfigError("pretrain.fresh needs vec_env batched (new decisions for every pass "
                          "come from the batched teacher)")
    rollout = pt["rollout"]
    _flag(rollout["enabled"], "pretrain.rollout.enabled")
    number(rollout["margin"], "pretrain.rollout.margin", minimum=0, maximum=1000)
    number(rollout["win_bonus"], "pretrain.rollout.win_bonus", minimum=0, maximum=1000)
    number(rollout["deals"], "pretrain.rollout.deals", integer=True, minimum=0, maximum=1000)
    if rollout["deals"] and not rollout["enabled"]:
        raise ConfigError("pretrain.rollout.deals needs pretrain.rollout.enabled true (the "
                          "deals are the rollout teacher's)")
    if rollout["enabled"] and (vec_env != "batched" or pt["teacher"] != "expert"):
        raise ConfigError("pretrain.rollout.enabled needs vec_env batched and pretrain.teacher "
                          "expert (the rollouts play the batched expert)")
    dagger = pt["dagger"]
    _flag(dagger["aggregate"], "pretrain.dagger.aggregate")
    number(dagger["rounds"], "pretrain.dagger.rounds", integer=True, minimum=0, maximum=1000)
    number(dagger["samples"], "pretrain.dagger.samples", integer=True, minimum=1, maximum=10**9)
    number(dagger["epochs"], "pretrain.dagger.epochs", integer=True, minimum=1, maximum=10**4)
    if dagger["rounds"] and (vec_env != "batched" or not pt["samples"]):
        raise ConfigError("pretrain.dagger.rounds needs vec_env batched and pretrain.samples "
                          "above 0 (the learner's states are labelled by the batched teacher)")


def _check_ppo(ppo: dict) -> None:
    number(ppo["learning_rate"], "ppo.learning_rate", above=0, maximum=1)
    number(ppo["n_steps"], "ppo.n_steps", integer=True, minimum=1, maximum=10**6)
    number(ppo["batch_size"], "ppo.batch_size", integer=True, minimum=2, maximum=10**7)
    number(ppo["n_epochs"], "ppo.n_epochs", integer=True, minimum=1, maximum=1000)
    for key in ("gamma", "gae_lambda"):
        number(ppo[key], f"ppo.{key}", above=0, maximum=1)
    number(ppo["clip_range"], "ppo.clip_range", above=0, maximum=10)
    number(ppo["max_grad_norm"], "ppo.max_grad_norm", above=0, maximum=10**6)
    for key in ("ent_coef", "vf_coef"):
        number(ppo[key], f"ppo.{key}", minimum=0, maximum=100)
    check_net_arch(ppo["net_arch"])
    check_activation(ppo["activation"])


def _check_eval(ev: dict) -> None:
    number(ev["every"], "eval.every", integer=True, minimum=1)
    for key in ("games", "final_games"):
        number(ev[key], f"eval.{key}", integer=True, minimum=0, maximum=10**7)
    for key in ("opponents", "final_opponents"):
        names = ev[key]
        if not isinstance(names, list) or any(not isinstance(n, str) or n not in SCRIPTED
                                              for n in names):
            raise ConfigError(f"eval.{key} must be a list of player names from "
                              f"{', '.join(SCRIPTED)}, got {_show(names)}")


def _check_batched(cfg: dict) -> None:
    """The batched engine plays its own scripted players (not `lookahead`), checkpoints and
    value players; its teacher for behaviour cloning is one of its scripted players."""
    others = [name for name, w in cfg["opponents"].items()
              if w > 0 and name not in BATCHED_PLAYERS
              and parse_player(name).kind not in (PlayerKind.CHECKPOINT, PlayerKind.VALUE)]
    if others:
        raise ConfigError(f"vec_env batched plays {', '.join(BATCHED_PLAYERS)}, checkpoints and "
                          f"value players as opponents, not {checks.shown(others[0])}; use "
                          f"vec_env subproc for it")
    if cfg["pretrain"]["samples"] and cfg["pretrain"]["teacher"] not in BATCHED_PLAYERS:
        raise ConfigError(f"pretrain.teacher: vec_env batched clones one of "
                          f"{', '.join(BATCHED_PLAYERS)}, not "
                          f"{checks.shown(cfg['pretrain']['teacher'])}")


def _check_checkpoint_player(name: str, rules: Rules, where: str) -> None:
    """A checkpoint named as a player is loaded now, as the run would load it (its card, its
    fit to these rules and its weights), so a bad one stops the check, not the run."""
    spec = parse_player(name, where)
    if spec.path is None:
        return
    try:
        make_agent(name, rules=rules)
    except (ValueError, TypeError) as e:
        raise ConfigError(f"{where}: {e}") from None


MAX_ROLLOUT_BYTES = 8 * 2**30  # PPO's rollout buffer (n_steps x n_envs samples), at most


def rollout_bytes(cfg: dict, rules: Rules) -> int:
    """About how much memory PPO's rollout buffer takes: n_steps x n_envs samples (n_envs 0
    counted as the batched engine's default or 64 processes), each an observation and an
    action mask (float32) and a few numbers."""
    n_envs = cfg["n_envs"] or (BATCHED_GAMES if cfg["vec_env"] == "batched" else 64)
    per_sample = 4 * (ObservationEncoder(rules).size + ActionLayout(rules).size) + 64
    return cfg["ppo"]["n_steps"] * n_envs * per_sample


def _check_rollout_memory(cfg: dict, rules: Rules) -> None:
    need = rollout_bytes(cfg, rules)
    if need > MAX_ROLLOUT_BYTES:
        raise ConfigError(f"ppo.n_steps x n_envs: the rollout buffer would take about "
                          f"{need / 2**30:,.1f} GiB, over {MAX_ROLLOUT_BYTES // 2**30} GiB; use "
                          f"fewer steps per update or fewer environments")


def _check_init(cfg: dict, mine: Rules) -> None:
    """`init` names a checkpoint the safe loader takes, made for games of these rules' shape
    (the same observation and actions; the stock size may differ) with the config's network.
    With pretrain.samples too, cloning (and DAgger) go on from the checkpoint's weights."""
    path = cfg["init"]
    if not path:
        return
    if not isinstance(path, str) or "\0" in path:
        raise ConfigError(f"init must be a checkpoint path (.zip), got {_show(path)}")
    try:
        _, rules, depth, arch, activation = checkpoint_spec(path)
    except ValueError as e:
        raise ConfigError(f"init: {e}") from None
    if depth != PILE_DEPTH or not fits_games_of(rules, depth, mine):
        raise ConfigError(f"init: checkpoint {path} plays {rules.variant} with "
                          f"{rules.num_players} players (pile_depth {depth}); its observations "
                          f"and actions do not fit this config's {mine.variant} with "
                          f"{mine.num_players}")
    if (arch, activation) != (list(cfg["ppo"]["net_arch"]), cfg["ppo"]["activation"]):
        raise ConfigError(f"init: checkpoint {path} has net_arch {arch} with {activation}; "
                          f"ppo.net_arch and ppo.activation must be the same, got "
                          f"{cfg['ppo']['net_arch']} with {cfg['ppo']['activation']}")
    try:
        load_model(path)  # its weights read and checked now, not when the run starts
    except ValueError as e:
        raise ConfigError(f"init: {e}") from None


def _check_batched_memory(cfg: dict, rules: Rules) -> None:
    """n_envs games of the batched engine must fit in its arrays' bound
    (`vector.batched.check_engine_size`)."""
    try:
        check_engine_size(rules, cfg["n_envs"] or BATCHED_GAMES, name="n_envs")
    except ValueError as e:
        raise ConfigError(str(e)) from None


MAX_CLONING_BYTES = 16 * 2**30  # behaviour cloning's samples held at once, at most (estimated)
CLONING_COPIES = 3  # the samples as collected, joined, and a joined training set's copy


def cloning_bytes(cfg: dict | TrainConfig, rules: Rules | None = None) -> int:
    """About how much memory behaviour cloning holds at its peak: the samples in memory at
    once (the whole set; with `fresh`, one pass's and the held-out set; with DAgger's
    `aggregate`, everything so far, else the larger of a pass and a round), each an
    observation (float32), a mask and an action with its return, `CLONING_COPIES` times."""
    if isinstance(cfg, TrainConfig):
        rules, cfg = cfg.game_rules, cfg.to_dict()
    assert rules is not None
    pt = cfg["pretrain"]
    if not pt["samples"]:
        return 0
    dagger = pt["dagger"]
    held = pt["samples"] + (pt["samples"] // 20 if pt["fresh"] else 0)
    if dagger["rounds"]:
        held = (held + dagger["rounds"] * dagger["samples"] if dagger["aggregate"]
                else max(held, dagger["samples"] + held - pt["samples"]))
    per_sample = 4 * ObservationEncoder(rules).size + ActionLayout(rules).size + 12
    return held * per_sample * CLONING_COPIES


def _check_cloning_memory(cfg: dict, rules: Rules) -> None:
    need = cloning_bytes(cfg, rules)
    if need > MAX_CLONING_BYTES:
        raise ConfigError(f"pretrain.samples: behaviour cloning would hold about "
                          f"{need / 2**30:.1f} GiB of samples, over "
                          f"{MAX_CLONING_BYTES // 2**30} GiB; use fewer samples or DAgger "
                          f"rounds, pretrain.fresh, or pretrain.dagger.aggregate false")


def load(path: str) -> TrainConfig:
    """Read and validate the YAML config at `path`."""
    return validate(read_yaml(path))


MAX_CONFIG_VALUES = 100_000  # values a config may expand to (a real one has a few hundred)


def _expanded_size(node) -> int:
    """How many values the YAML node graph `node` stands for once its aliases are expanded
    (each alias counts in full, as constructing the document would copy it), counted without
    expanding anything: each node once, memoised, children before parents."""
    import yaml

    sizes: dict[int, int] = {}
    stack = [(node, False)]
    while stack:
        current, ready = stack.pop()
        if id(current) in sizes:
            continue
        if isinstance(current, yaml.MappingNode):
            children = [c for pair in current.value for c in pair]
        elif isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        else:
            sizes[id(current)] = 1
            continue
        if ready:
            sizes[id(current)] = 1 + sum(sizes.get(id(c), 1) for c in children)
        else:
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(node)]


def read_yaml(path: str) -> dict:
    """The YAML mapping at `path`, or ConfigError saying why it cannot be read. Aliases are
    allowed, but a document that would expand to more than MAX_CONFIG_VALUES values (a
    "billion laughs" of nested aliases: a kilobyte standing for gigabytes) is refused before
    it is built."""
    import yaml

    try:
        with open(path) as f:
            loader = yaml.SafeLoader(f)
            try:
                node = loader.get_single_node()
                if node is not None and _expanded_size(node) > MAX_CONFIG_VALUES:
                    raise ConfigError(f"config {path} expands to more than "
                                      f"{MAX_CONFIG_VALUES:,} values (nested aliases?): "
                                      f"not a config")
                raw = loader.construct_document(node) if node is not None else None
            finally:
                loader.dispose()
    except OSError as e:
        raise ConfigError(f"cannot read config {path}: {e.strerror}") from None
    except yaml.YAMLError as e:
        raise ConfigError(f"config {path} is not valid YAML: {e}") from None
    except RecursionError:
        raise ConfigError(f"config {path} is nested too deeply to be a config") from None
    if raw is None:
        raise ConfigError(f"config {path} is empty")
    return raw
