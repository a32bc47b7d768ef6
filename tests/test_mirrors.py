"""The two engines name each other: every rule of the reference engine, of the observation
encoder and of the scripted players names its mirror in the batched engine (`Mirror:` in its
docstring), the mirror names it back, and every name cited exists."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

import skipbo_env.engine as engine
import skipbo_env.observation as observation
import skipbo_env.players.scripted as scripted
import skipbo_env.segments as segments
import skipbo_env.vector.observe as observe
import skipbo_env.vector.play_rules as play_rules
import skipbo_env.vector.scripted as batched_scripted
import skipbo_env.vector.segments as batched_segments

MODULES = {"engine": engine, "observation": observation, "players.scripted": scripted,
           "segments": segments, "vector.segments": batched_segments,
           "vector.play_rules": play_rules, "vector.observe": observe,
           "vector.scripted": batched_scripted}
MIRROR = re.compile(r"Mirror: ([^\n]+)")
# Game methods that are no rule of play: the API around the rules, serialisation, helpers.
NOT_RULES = {"__repr__", "_legal_cached", "_illegal_message", "_building_key",
             "_own_cards", "_targets", "points", "legal_actions", "action_mask", "describe",
             "view", "from_view", "card_name", "clone", "to_dict", "from_dict"}


def _documented():
    """{"module.qualname": [cited names]} for every function, class and method with a
    Mirror: line, in the modules above."""
    out = {}
    for prefix, module in MODULES.items():
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            if getattr(getattr(obj, "py_func", obj), "__name__", name) != name:
                continue  # another name for a kernel (encode_inline is encode, inlined)
            things = [(name, obj)]
            if inspect.isclass(obj):
                things += [(f"{name}.{m}", f) for m, f in vars(obj).items()
                           if callable(f) or isinstance(f, property)]
            for qualname, thing in things:
                doc = getattr(getattr(thing, "py_func", thing), "__doc__", None) or ""
                match = MIRROR.search(doc)
                if match:
                    cited = [c.strip() for c in match.group(1).split(",")]
                    out[f"{prefix}.{qualname}"] = cited
    return out


DOCUMENTED = _documented()


def _resolve(dotted: str):
    """The object a cited name (relative to skipbo_env) stands for."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module("skipbo_env." + ".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_the_engines_cite_their_mirrors():
    assert len(DOCUMENTED) > 30


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_every_mirror_cited_exists_and_names_its_citer_back(name):
    for cited in DOCUMENTED[name]:
        if cited.startswith("none"):
            continue
        _resolve(cited)  # raises if the name does not exist
        assert cited in DOCUMENTED, f"{cited} (cited by {name}) names no mirror"
        assert name in DOCUMENTED[cited], f"{cited} does not name {name} back"


def test_every_rule_method_of_the_engine_names_its_mirror():
    missing = [f"engine.Game.{m}" for m, f in vars(engine.Game).items()
               if callable(f) and m not in NOT_RULES and f"engine.Game.{m}" not in DOCUMENTED]
    assert not missing


def test_every_scripted_player_names_its_mirror_or_says_it_has_none():
    players = [name for name, obj in vars(scripted).items()
               if inspect.isclass(obj) and issubclass(obj, scripted.Agent)
               and obj.__module__ == scripted.__name__]
    assert players and all(f"players.scripted.{p}" in DOCUMENTED for p in players)
