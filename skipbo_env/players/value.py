"""The value player: it lists every turn segment it can play (`segments.turn_segments`: every
distinct position it can reach before the next chance event), values each resulting position
with a learned network, and plays the moves of the best one.

The network is a small multilayer perceptron over the observation of the resulting position
from the acting seat's view (docs/observation.md; a stock top not yet seen shows as no card).
It runs in numpy: playing needs no torch. A checkpoint is an ``.npz`` of weight arrays, read
with ``allow_pickle=False`` (nothing in it can run code), beside its JSON model card.

The player sees only its seat's view: it lists segments in a game dealt from that view
(`Game.from_view`); what a segment shows does not depend on that deal (tests/test_segments.py),
so neither does the choice. It plans a segment once and plays its moves in turn while the
position is the one the plan expects.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Sequence

import numpy as np

from .. import checks
from ..engine import Game
from ..files import write_whole
from ..observation import ObservationEncoder
from ..rules import Rules
from ..segments import (
    SegmentEncoder,
    TooManyPositions,
    played_segment,
    position_key,
    segment_ending,
    turn_segments,
)
from ..view import SeatView
from .base import Agent
from .checkpoints import card_or_refuse, check_obs_version
from .scripted import ExpertAgent
from .value_features import FEATURE_SETS, GapFeatures, features_for

MAX_LAYERS = 8
TABLE_BITS = 19
"""The value players' bound on one decision's walk: at most 2**18 positions (the batched
kernel's `max_table_bits`), about half a gigabyte of observations at the most. A decision past
it (none in the standard game's measured decisions, whose largest has 14,003 segments; a
Masters one can have a million) is played by `expert`, one move, and counted in `fallbacks`."""
MAX_SAMPLES = 1024  # outcomes a chance-ending segment's value is averaged over, at most
MAX_TOP = 1 << 20
SEARCH_DEALS = 4  # `lookahead:` a value checkpoint: deals each searched segment is scored in
SEARCH_TOP = 3  # and the best-valued segments it searches
MAX_SEARCH = 64  # deals and searched segments, at most each (the search's batch holds `top`)
CHANCE_ENDINGS = ("stock", "refill")  # endings whose outcome the seat sees once it resolves
MAX_WEIGHTS = 2**24  # numbers in one network, at most (a shipped one holds about 2**18)
NEGLIGIBLE = 1e-20
"""Weights smaller than this in magnitude are read as zero. Weight decay leaves the weights of
inputs that are seldom on at 1e-30 and below (a third of a shipped network's first layer):
their products with the activations are subnormal floats, which the CPU computes many times
slower, and add nothing a float32 value can show (benchmarks/value_speed.py)."""

ACTIVATION = "relu"


class ValueNet:
    """An MLP in numpy: ``tanh(W_k relu(... relu(W_1 x + b_1)) + b_k)``, a value in [-1, 1]
    (+1: the acting seat wins). `layers` are (weight [out, in], bias [out]) pairs. `features`
    names inputs computed from the observation and read beside it (`value_features`); such a
    network is `prepare`d for the rules it plays before it is called."""

    def __init__(self, layers: Sequence[tuple[np.ndarray, np.ndarray]],
                 features: str | None = None):
        if features is not None and features not in FEATURE_SETS:
            raise ValueError(f"unknown value-network features {checks.shown(features)}; the "
                             f"sets are {list(FEATURE_SETS)} (or none)")
        self.features = features
        self._extend: GapFeatures | None = None
        if not layers:
            raise ValueError("a value network needs at least one layer")
        self.layers = [(_negligible_as_zero(np.ascontiguousarray(w, dtype=np.float32).T.copy()),
                        _negligible_as_zero(np.array(b, dtype=np.float32))) for w, b in layers]
        if any(w.shape[1] != b.shape[0] for w, b in self.layers):
            raise ValueError("each layer's bias must fit its weights")
        if any(w2.shape[0] != w.shape[1]
               for (w, _), (w2, _) in zip(self.layers, self.layers[1:], strict=False)):
            raise ValueError("the value network's layers do not fit together")
        if self.layers[-1][0].shape[1] != 1:
            raise ValueError("the value network's last layer must have one output")
        self.inputs = self.layers[0][0].shape[0]

    def prepare(self, rules: Rules, path: str = "") -> None:
        """Check that the network reads the observations of `rules` (and its features of them)
        and compute those features from now on; ValueError naming the sizes if it does not."""
        size = ObservationEncoder(rules).size
        extend = features_for(self.features, rules)
        want = size + (extend.width if extend is not None else 0)
        if want != self.inputs:
            extra = f" and {self.features} features" if extend is not None else ""
            raise ValueError(f"value network {path} reads {self.inputs} inputs, but "
                             f"{rules.variant} with {rules.num_players} players observes "
                             f"{size}{extra} ({want})")
        if extend is not None and self._extend is not None and \
                self._extend.layout != extend.layout:
            raise ValueError(f"value network {path} is prepared for another layout of "
                             f"{size} entries already")
        self._extend = extend

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Values of the rows of x (float32 [rows, observation size]) as float32 [rows]."""
        if self.features is not None:
            if self._extend is None:
                raise RuntimeError(f"a value network that reads {self.features} features is "
                                   f"prepared for its rules (prepare) before it is called")
            x = self._extend(x)
        h = x
        for w, b in self.layers[:-1]:
            h = h @ w
            h += b
            np.maximum(h, 0.0, out=h)
        w, b = self.layers[-1]
        return np.tanh(h @ w + b)[:, 0]


def one_blas_thread() -> None:
    """Hold numpy's BLAS (a value network's products) to one thread in this process, for good:
    the initializer of worker processes that share the cores (a tournament's, a value
    collection's shards). A second BLAS thread in each of two workers on two cores only fights
    the other: a tournament of a [512, 512] network played 0.8 games a second so, 3.4 to 4
    with one thread each (docs/training.md, "Averaging networks")."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1, user_api="blas")


def _negligible_as_zero(a: np.ndarray) -> np.ndarray:
    """`a` with its entries below NEGLIGIBLE in magnitude set to zero (in place)."""
    a[np.abs(a) < NEGLIGIBLE] = 0.0
    return a


Lister = Callable[[Game], tuple[Sequence[tuple[int, ...]], np.ndarray]]
"""Lists a game's turn segments: their action sequences (indexable) and the observations of the
positions they reach (the reference `segments.turn_segments`, or the batched engine's
kernel)."""


def reference_lister(rules: Rules) -> Lister:
    """A lister of games of `rules` over the reference engine (`segments.turn_segments`)."""
    encoder = SegmentEncoder(rules)

    def listed(game: Game) -> tuple[list[tuple[int, ...]], np.ndarray]:
        segments = turn_segments(game)
        return [s.actions for s in segments], encoder.encode(segments)

    return listed


_listers: list[Callable[[Rules], Lister]] = [reference_lister]


def use_lister(factory: Callable[[Rules], Lister]) -> None:
    """Make `factory` (rules -> lister) the one value players list their segments with: the
    package's facade sets the batched engine's kernel (docs/architecture.md), which lists the
    same segments as the reference, with the same observations, in a fraction of the time."""
    _listers[0] = factory


def lister_for(rules: Rules) -> Lister:
    """A lister of games of `rules` from the factory in use (`use_lister`)."""
    return _listers[0](rules)


Searcher = Callable[[Sequence[tuple[Game, int]]], np.ndarray]
"""Scores candidate segments, each given as (the position before its last move, that move), by
a search's labels, all in the same deals; one score each, higher is better."""
SearcherFactory = Callable[[Rules, "ValueNet", int, int, int], Searcher]
"""(rules, network, deals, most candidates, seed) -> a `Searcher` bootstrapped from the
network."""

_searchers: list[SearcherFactory | None] = [None]


def use_searcher(factory: SearcherFactory) -> None:
    """Make `factory` the search value players with `search` deals use: the package's facade
    sets the batched engine's labels (vector/labels.py, docs/architecture.md), a layer above."""
    _searchers[0] = factory


class ValueAgent(Agent):
    """Plays the segment whose resulting position `net` values highest (module docstring)."""

    name = "value"

    def __init__(self, net: ValueNet, rules: Rules | None = None, seed: int = 0,
                 path: str = "", margin: float | None = None, samples: int = 0,
                 top: int = 8, search: int = 0):
        super().__init__(seed)
        self.net, self.path = net, path
        # samples > 0: the `top` best-valued segments that end in a chance event (a stock top
        # turning up, a hand refilled) are valued again as the mean of the network over
        # `samples` outcomes drawn from the seat's view (`Game.from_view`), each seen as the
        # seat sees it once the chance has resolved.
        self.samples = checks.integer(samples, "samples", minimum=0, maximum=MAX_SAMPLES)
        # search > 0: the `top` best-valued segments are scored again by one round of TD in
        # `search` deals of the hidden cards (vector/labels.py, bootstrapped at the decision):
        # `expert` plays on to the seat's next decision, valued as this network's best segment
        # there (a game over before: its score), and the best-scored segment is played.
        self.search = checks.integer(search, "search", minimum=0, maximum=MAX_SEARCH)
        self.top = checks.integer(top, "top", minimum=2 if self.search else 1,
                                  maximum=MAX_SEARCH if self.search else MAX_TOP)
        if self.search and (samples or margin is not None):
            raise ValueError("a value player's search (search > 0) replaces its averaging "
                             "(samples) and its margin: give one of them")
        self._searchers: dict[Rules, Searcher] = {}  # one for each rules played, as listers
        # None: play the best-valued segment. A number: play `expert`'s segment unless the best
        # one's value beats it by more than `margin` (the network overrules `expert` only where
        # it is sure).
        self.margin = None if margin is None else checks.number(margin, "margin", minimum=0)
        self._expert = ExpertAgent(seed)  # its segment (margin) and its move (past the bound)
        self.fallbacks = 0  # moves played by `expert`: their decision's walk passed TABLE_BITS
        self._listers: dict[Rules, Lister] = {}
        self._plan: list[int] = []
        self._expect: tuple | None = None
        self._game: Game | None = None
        self._obs = np.zeros((0, 0), dtype=np.float32)
        if rules is not None:
            self.lister(rules)

    def lister(self, rules: Rules) -> Lister:
        """The segment lister for `rules`, once the network's input size is checked."""
        lister = self._listers.get(rules)
        if lister is None:
            self.net.prepare(rules, self.path)
            lister = self._listers[rules] = lister_for(rules)
        return lister

    def evaluate(self, view: SeatView) -> tuple[Sequence[tuple[int, ...]], np.ndarray]:
        """The segments of the seat to act in `view` (listed in a game dealt from the view:
        what they show does not depend on the deal) and the network's value of each."""
        game = Game.from_view(view, self.rng)
        sequences, obs = self.lister(view.rules)(game)
        self._game, self._obs = game, obs
        return sequences, self.net(obs)

    def choose(self, view: SeatView) -> int:
        if self._plan and self._expect == position_key(view) and \
                self._plan[0] in view.legal_actions:
            return self._next(view)
        try:
            sequences, values = self.evaluate(view)
        except TooManyPositions:
            self.fallbacks += 1
            self._plan, self._expect, self._game = [], None, None
            return self._expert.act(view)
        if self.search:
            self._plan = list(sequences[self.searched(view, sequences, values)])
            return self._next(view)
        if self.samples:
            values = self.averaged(view, sequences, values)
        best = int(np.argmax(values))
        if self.margin is not None:
            own = self._expert_choice(self._obs, view)
            if own is not None and values[best] <= values[own] + self.margin:
                best = own
        self._plan = list(sequences[best])
        return self._next(view)

    def searched(self, view: SeatView, sequences: Sequence[tuple[int, ...]],
                 values: np.ndarray) -> int:
        """The index of the segment to play with `search` on: of the `top` best by `values`,
        the one the searcher (`use_searcher`) scores highest (the first on a tie)."""
        top = [int(i) for i in np.argsort(-values, kind="stable")[:self.top]]
        if len(top) == 1:
            return top[0]
        searcher = self._searchers.get(view.rules)
        if searcher is None:
            factory = _searchers[0]
            if factory is None:
                raise RuntimeError("no value search is wired in: import skipbo_env, whose "
                                   "facade sets the batched engine's (use_searcher)")
            searcher = self._searchers[view.rules] = factory(
                view.rules, self.net, self.search, self.top, int(self.rng.integers(2**62)))
        assert self._game is not None  # the deal the segments were listed in
        candidates = []
        for i in top:
            game = self._game.clone()
            for action in sequences[i][:-1]:
                game.step(action)
            candidates.append((game, sequences[i][-1]))
        return top[int(np.argmax(searcher(candidates)))]

    def averaged(self, view: SeatView, sequences: Sequence[tuple[int, ...]],
                 values: np.ndarray) -> np.ndarray:
        """`values` with those of the `top` best segments that end in a chance event replaced by
        the network's mean over `samples` outcomes: each a deal of the hidden cards from the
        seat's view (`Game.from_view`: draw order, stock cards below the top, other hands),
        the segment played in it, the position encoded as the seat then sees it."""
        values = np.array(values, dtype=np.float32)
        deals = [Game.from_view(view, self.rng) for _ in range(self.samples)]
        encoder, p = ObservationEncoder(view.rules), view.seat
        for i in np.argsort(-values, kind="stable")[:self.top]:
            seen = []
            for deal in deals:
                game = deal.clone()
                *head, last = sequences[int(i)]
                for action in head:
                    game.step(action)
                before = game.clone()
                game.step(last)
                if segment_ending(before, game, last, p) not in CHANCE_ENDINGS:
                    break  # no chance resolved: the value stands
                seen.append(encoder.encode(game, p))
            if seen:
                values[i] = float(np.mean(self.net(np.stack(seen))))
        return values

    def _expert_choice(self, obs: np.ndarray, view: SeatView) -> int | None:
        """The segment `expert` would play here: the row of `obs` (the listed segments'
        observations) of the position it reaches, if listed."""
        assert self._game is not None and self._expert is not None
        mine = ObservationEncoder(view.rules).encode_view(
            played_segment(self._game, self._expert).view)
        same = np.flatnonzero((obs == mine).all(axis=1))
        return int(same[0]) if same.size else None

    def _next(self, view: SeatView) -> int:
        """The plan's next action; the position expected after it, if the plan goes on."""
        action = self._plan.pop(0)
        game = self._game
        assert game is not None
        if self._plan:
            game.step(action)
            self._expect = position_key(game.view(view.seat))
        else:
            self._expect, self._game = None, None
        return action

    def __repr__(self) -> str:
        return f"ValueAgent({self.path!r})"


def save_value_net(path: str, layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> None:
    """Write the layers as ``w0, b0, w1, b1, ...`` float32 arrays in an ``.npz`` (no pickle),
    replacing `path` whole (`files.write_whole`: never through a link)."""
    arrays = {}
    for i, (w, b) in enumerate(layers):
        arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
        arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
    write_whole(path, lambda f: np.savez(f, **arrays),  # type: ignore[arg-type]
                replace=True)


def read_value_net(path: str, features: str | None = None) -> ValueNet:
    """The network in the ``.npz`` at `path` (reading `features` beside the observation: its
    card's ``network.features``), read without unpickling anything; ValueError naming what is
    wrong with a missing, corrupt or oversized file."""
    if not os.path.isfile(path):
        raise ValueError(f"value network {path} does not exist")
    if not zipfile.is_zipfile(path):
        raise ValueError(f"value network {path} is not an .npz file (corrupt or another format)")
    try:
        with np.load(path, allow_pickle=False) as data:
            names = set(data.files)
            count = len(names) // 2
            want = {f"{k}{i}" for i in range(count) for k in "wb"}
            if not 0 < count <= MAX_LAYERS or names != want:
                raise ValueError(f"value network {path} must hold arrays w0, b0, ... for 1 to "
                                 f"{MAX_LAYERS} layers, got {sorted(names)[:20]}")
            total = 0
            layers = []
            for i in range(count):
                w, b = data[f"w{i}"], data[f"b{i}"]
                total += w.size + b.size
                if w.ndim != 2 or b.ndim != 1 or w.dtype != np.float32 or \
                        b.dtype != np.float32 or total > MAX_WEIGHTS:
                    raise ValueError(f"value network {path}: layer {i} must be a float32 "
                                     f"matrix and vector within {MAX_WEIGHTS:,} numbers in all")
                if not (np.isfinite(w).all() and np.isfinite(b).all()):
                    raise ValueError(f"value network {path}: layer {i} holds a number that is "
                                     f"not finite")
                layers.append((w, b))
    except (OSError, zipfile.BadZipFile, EOFError) as e:
        raise ValueError(f"value network {path} is not readable: {e}") from None
    except ValueError as e:  # numpy's refusal of a pickled (object) array, among others
        if str(e).startswith("value network"):
            raise
        raise ValueError(f"value network {path} is not a plain array file: {e}") from None
    return ValueNet(layers, features)


def load_value_agent(path: str, rules: Rules | None = None, seed: int = 0,
                     **options) -> ValueAgent:
    """The value player of the checkpoint at `path` (an ``.npz`` beside its model card, whose
    ``"kind"`` is ``"value"`` and whose observation version is this package's); checked
    against `rules` when given; `options` are `ValueAgent`'s (``search``, ``top``, ...).
    Nothing in either file is unpickled or run."""
    card = card_or_refuse(path)
    if card.get("kind") != "value":
        raise ValueError(f"model card of {path} is not a value network's (its kind is "
                         f"{card.get('kind')!r}, not 'value')")
    check_obs_version(card, path)
    network = card.get("network", {})
    features = network.get("features") if isinstance(network, dict) else None
    if features is not None and features not in FEATURE_SETS:
        raise ValueError(f"model card of {path}: network.features must be one of "
                         f"{list(FEATURE_SETS)} or absent, got {checks.shown(features)}")
    return ValueAgent(read_value_net(path, features), rules, seed, path, **options)
