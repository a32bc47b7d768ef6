"""Mutated game states against `Game.from_dict`: each must be refused with a clear error
(ValueError or TypeError) or load as a game that keeps the engine's invariants.

    python benchmarks/fuzz_states.py [--mutants 20000] [--seed 0]

The seed states are reached in random games of every variant and player count (some with a
small stock, a short turn limit or no wild on a wild, so won, drawn and truncated games, tolls
and coin follow-ups are among them). Each mutant makes one to four changes to a copy of one:
a value anywhere in the state (the rules and the generator state included) replaced by a
random JSON-like value (integers small, negative and huge, floats with nan and inf, bools,
None, strings, lists, dictionaries, nesting thousands deep) or by a nearby one, a key or list
entry deleted or added, a card moved from one pile to another (which keeps the card total, so
the deeper checks are reached), or the phase, winner, turn, stalled turns, seats or pending
coin step set to a plausible value. An accepted game must write back exactly the state it was
read from, load again, hold every card and coin of the deck, have a legal action unless it is
over and none if it is, keep the relations between phase, turn, stalled turns, stocks and
winner that every reachable state keeps, encode an observation in [0, 1] for every seat, and
play 30 random actions keeping all of these. The goal is no other exception and no accepted
state that breaks an invariant.
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import random
import re
import sys
import time

import numpy as np

from skipbo_env import VARIANTS, Game, ObservationEncoder, Rules, allowed_players
from skipbo_env.rules import FIELDS_ADDED_LATER, shown
from skipbo_env.state_io import KEYS_ADDED_LATER

DEEP = 5_000  # nesting of the deepest values, past Python's recursion limit (1000)


# -- seed states ---------------------------------------------------------------------------------
def seed_states(rng: random.Random, per_case: int = 6) -> list[dict]:
    """States reached in random games of every variant and player count: uniformly random
    play (which ends most refill games as draws) and play that prefers building."""
    states = []
    cases = [(v, n) for v in VARIANTS for n in allowed_players(v)]
    for variant, n in cases:
        for k in range(per_case):
            overrides = [{}, {"stock_size": 2}, {"max_turns": 12}, {"wild_on_wild": False},
                         {"stock_size": 1, "max_turns": 40}, {}][k % 6]
            game = Game(Rules.preset(variant, n, **overrides), rng.randrange(2**32))
            while True:
                if rng.random() < 0.05 or game.is_over:
                    states.append(game.to_dict())
                if game.is_over:
                    break
                legal = game.legal_actions()
                # Prefer plays now and then, so the piles build and the coin steps appear.
                layout = game.layout
                plays = [a for a in legal if a < layout.num_plays or (
                    a >= layout.coin_base and a != layout.end_turn)] if game.rules.coins else \
                    [a for a in legal if a < layout.num_plays]
                pool = plays if plays and k % 2 and rng.random() < 0.7 else legal
                game.step(pool[rng.randrange(len(pool))])
    return states


# -- random values and mutations -----------------------------------------------------------------
STRINGS = ["", "coin", "draw", "play", "won", "drawn", "truncated", "toll", "coin_followup",
           "PCG64", "MT19937", "skipbo-state/1", "standard", "masters", "refill", "stacked",
           "0", "1", "1.5", "nan", "x" * 5000, "stock", "hand", "discard_piles"]
KEYS = ["format", "rules", "current_player", "turn", "phase", "draw_pile", "set_aside",
        "building_piles", "players", "winner", "first_player", "scores", "played_this_turn",
        "stall_turns", "coins", "pile_coins", "pending", "rng", "stock", "hand", "discard_piles",
        "pile", "toll", "state", "inc", "has_uint32", "uinteger", "bit_generator", "teams",
        "toll_table", "max_turns", "extra", ""]


def deep(rng: random.Random, depth: int):
    value: object = rng.choice([0, [], {}, None])
    for _ in range(depth):
        value = [value] if rng.random() < 0.5 else {"k": value}
    return value


def random_value(rng: random.Random, level: int = 0):
    """A random JSON-like value (Python's: nan and inf included, so not always valid JSON)."""
    kind = rng.randrange(12 if level < 2 else 8)
    if kind == 0:
        return rng.randint(-3, 40)
    if kind == 1:
        return rng.choice([10**rng.randint(9, 400), 2**63, 2**64, 2**128, -2**63, -(10**30),
                           2**31, 10**6 + 1, 10**9 + 1, 2**128 - 1])
    if kind == 2:
        return rng.choice([0.0, -0.0, 0.5, 1.0, 1.5, 2.0, -1.0, 1e308, math.nan, math.inf,
                           -math.inf, 12.0])
    if kind == 3:
        return rng.choice([True, False])
    if kind == 4:
        return None
    if kind in (5, 6):
        return rng.choice(STRINGS)
    if kind == 7:
        return rng.choice([[], {}, [0], [1, 1], [[0, 1]], ["coin"], {"pile": 0, "toll": 1}])
    if kind == 8:
        return [random_value(rng, level + 1) for _ in range(rng.randrange(5))]
    if kind == 9:
        return {rng.choice(KEYS): random_value(rng, level + 1) for _ in range(rng.randrange(4))}
    if kind == 10:
        return deep(rng, rng.choice([10, 100, DEEP]))
    return rng.choice([[0] * 20_000, list(range(300)), [[1, 1]] * 50])


def nearby(rng: random.Random, value):
    """A value close to `value`: an integer moved a little, a bool flipped, a list changed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        choices = [value + 1, value - 1, value + rng.randint(-20, 20), 0, -value,
                   value * 2**64, [value]]
        if abs(value) < 2**64:
            choices += [float(value), str(value)]
        return rng.choice(choices)
    if isinstance(value, float):
        return rng.choice([int(value) if math.isfinite(value) else 0, value + 0.5, math.nan])
    if isinstance(value, str):
        return rng.choice(STRINGS + [value.upper(), value + " ", None])
    if isinstance(value, list):
        out = list(value)
        op = rng.randrange(4)
        if op == 0 and out:
            rng.shuffle(out)
        elif op == 1:
            out = out[:-1]
        elif op == 2:
            out.append(out[rng.randrange(len(out))] if out else 0)
        else:
            out = out + out
        return out
    if isinstance(value, dict):
        out = dict(value)
        if out:
            out.pop(rng.choice(list(out)))
        return out
    return random_value(rng)


def walk(rng: random.Random, state: dict):
    """A random place in the state, reached by a random walk from the root (so each field is
    picked about as often, however many cards it holds)."""
    parent, key = state, rng.choice(list(state))
    path: tuple = (key,)
    while True:
        value = parent[key]
        children = list(value) if isinstance(value, dict) else range(len(value)) \
            if isinstance(value, list) else []
        if not children or rng.random() < 0.35:
            return parent, key, path
        parent, key = value, rng.choice(list(children))
        path += (key,)


def card_lists(state: dict) -> list[list]:
    """The lists of cards in a state (piles, hands, hand stacks)."""
    stacked = state["rules"]["hand_mode"] == "stacked"
    out = [state["draw_pile"], state["set_aside"], *state["building_piles"]]
    for pl in state["players"]:
        out.append(pl["stock"])
        out.extend(pl["discard_piles"])
        out.extend(pl["hand"]) if stacked else out.append(pl["hand"])
    return out


def plausible(rng: random.Random, state: dict) -> tuple[str, object]:
    """A field and a value it could well have in some state."""
    n = len(state["players"])
    max_turns = state["rules"]["max_turns"]
    teams = state["rules"]["teams"]
    choices = {
        "phase": ["play", "won", "drawn", "truncated", "toll", "coin_followup"],
        "winner": [None, "draw", *range(n), *(teams or []), [0], list(range(n))],
        "turn": [0, 1, n - 1, n, max_turns - 1, max_turns, max_turns + 1],
        "stall_turns": list(range(n + 2)),
        "played_this_turn": [True, False],
        "current_player": list(range(n)),
        "first_player": list(range(n)),
        "pending": [None, *({"pile": p, "toll": t} for p in range(4) for t in range(3))],
    }
    field = rng.choice(list(choices))
    return field, rng.choice(choices[field])


def mutate(rng: random.Random, state: dict) -> list[str]:
    """Change `state` in place one to four times; returns what was done, in words."""
    done = []
    for _ in range(1 + min(3, int(rng.expovariate(1.2)))):
        op = rng.randrange(8)
        try:
            if op <= 1:
                parent, key, path = walk(rng, state)
                value = random_value(rng) if op == 0 else nearby(rng, parent[key])
                parent[key] = value
                done.append(f"{_where(path)} = {shown(value)}")
            elif op == 2:
                parent, key, path = walk(rng, state)
                del parent[key]
                done.append(f"del {_where(path)}")
            elif op == 3:
                parent, key, path = walk(rng, state)
                if isinstance(parent, dict):
                    new = rng.choice(KEYS)
                    parent[new] = random_value(rng)
                    done.append(f"{_where(path[:-1] + (new,))} = {shown(parent[new])} (added)")
                else:
                    value = random_value(rng) if rng.random() < 0.5 else parent[key]
                    parent.insert(key, value)
                    done.append(f"insert {shown(value)} at {_where(path)}")
            elif op in (4, 5):
                piles = [p for p in card_lists(state) if isinstance(p, list)]
                source = rng.choice([p for p in piles if p] or piles)
                target = rng.choice(piles)
                if source:
                    card = source.pop(rng.randrange(len(source)) if rng.random() < 0.3 else -1)
                    target.insert(len(target) if rng.random() < 0.7 else 0, card)
                    done.append(f"moved card {shown(card)} between piles")
            elif op == 6:
                field, value = plausible(rng, state)
                state[field] = value
                done.append(f"{field} = {shown(value)}")
            else:
                rules = state["rules"]
                field = rng.choice(list(rules))
                rules[field] = nearby(rng, rules[field]) if rng.random() < 0.6 \
                    else random_value(rng)
                done.append(f"rules.{field} = {shown(rules[field])}")
        except (KeyError, IndexError, TypeError, ValueError, AttributeError, OverflowError):
            done.append("(a change that did not apply)")  # an earlier change removed its place
    return done


def _where(path: tuple) -> str:
    return "".join(f"[{k!r}]" for k in path)


# -- invariants ----------------------------------------------------------------------------------
def card_counts(game) -> list[int]:
    return game.card_counts()


def unreachable(game: Game) -> str | None:
    """A relation every state the engine reaches keeps, broken (or None): stated here apart
    from skipbo_env/state_io.py, from the rules of play."""
    rules, phase, n = game.rules, game.phase.value, game.rules.num_players
    active = not game.is_over
    if (active or phase == "won") and game.turn >= rules.max_turns:
        return f"phase {phase} at turn {game.turn}, not below max_turns {rules.max_turns}"
    if phase == "truncated" and game.turn != rules.max_turns:
        return f"truncated at turn {game.turn}, not at max_turns {rules.max_turns}"
    teams = rules.teams or [(p,) for p in range(n)]
    # A full round of stalled turns ends the game: drawn, or under stall_outcome
    # "fewest_stock" won by the one team with the fewest stock cards left (a tie is drawn).
    left = [sum(len(game.stocks[s]) for s in t) for t in teams]
    fewest = [list(t) for t, k in zip(teams, left) if k == min(left)]
    stall_team = fewest[0] if rules.stall_outcome == "fewest_stock" and len(fewest) == 1 \
        else None
    stalled = game.stall_turns >= n
    if stalled and (game.stall_turns != n or game.draw_pile or game.set_aside):
        return f"stall_turns {game.stall_turns} without a full round of stalled turns with " \
               f"nothing to draw"
    if stalled and phase != ("drawn" if stall_team is None else "won"):
        return f"stall_turns {game.stall_turns} with {n} players in phase {phase}"
    if stalled and stall_team is not None and sorted(game.winners) != stall_team:
        return (f"a stalled game won by {list(game.winners)}, not by {stall_team}, the fewest "
                f"stock cards")
    if phase == "drawn" and not stalled:
        return "drawn without a full round of stalled turns with nothing to draw"
    empty = [list(t) for t in teams if all(not game.stocks[s] for s in t)]
    if phase == "won" and not stalled and empty != [list(game.winners)]:
        return f"won by {list(game.winners)} with the empty stocks of {empty}"
    if phase != "won" and empty:
        return f"seats {empty[0]} have empty stocks in phase {phase}"
    return None


def broken_invariant(game: Game, state: dict, rng: random.Random) -> str | None:
    """What an accepted game breaks, or None."""
    rules, deck = game.rules, game.rules.deck_counts()
    written = game.to_dict()
    if isinstance(state.get("rules"), dict):  # a field added later reads as it was, and is written
        state = {**state, "rules": {**FIELDS_ADDED_LATER, **state["rules"]}}
    state = {**KEYS_ADDED_LATER, **state}  # a key added later too
    if written != state:
        return "to_dict() differs from the state it was read from (a value was coerced)"
    json.dumps(written, allow_nan=False)
    if Game.from_dict(json.loads(json.dumps(written))).to_dict() != written:
        return "the written state does not load back to itself"
    encoder = ObservationEncoder(rules)
    for step in range(31):
        why = unreachable(game)
        if why:
            return f"{why} (after {step} steps)"
        if card_counts(game) != deck:
            return f"the card total changed (after {step} steps)"
        if sum(game.coins) + sum(game.pile_coins) != rules.coins_per_player * rules.num_players \
                or min(game.coins + game.pile_coins) < 0:
            return f"the coin total changed (after {step} steps)"
        legal = game.legal_actions()
        if np.flatnonzero(game.action_mask()).tolist() != legal:
            return f"the mask differs from the legal actions (after {step} steps)"
        if bool(legal) == game.is_over:
            return (f"{'an over game has legal actions' if legal else 'no legal action'} "
                    f"in phase {game.phase.value} (after {step} steps)")
        if step == 0:
            for seat in range(rules.num_players):
                obs = encoder.encode(game, seat)
                if not np.all(np.isfinite(obs)) or obs.min() < 0 or obs.max() > 1:
                    return (f"seat {seat}'s observation leaves [0, 1] (min {obs.min()}, max "
                            f"{obs.max()})")
        if game.is_over:
            return None
        game.step(legal[rng.randrange(len(legal))])
    return None


def _seed_problem(state: dict, rng: random.Random) -> str | None:
    try:
        return broken_invariant(Game.from_dict(json.loads(json.dumps(state))), state, rng)
    except Exception as e:
        return f"{type(e).__name__}: {e}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    start = time.perf_counter()
    seeds = seed_states(rng)
    texts = [json.dumps(s) for s in seeds]
    phases = collections.Counter(s["phase"] for s in seeds)
    print(f"{len(seeds)} seed states from random games of {len(VARIANTS)} variants "
          f"({', '.join(f'{k} {v}' for k, v in sorted(phases.items()))}); "
          f"{args.mutants} mutants, seed {args.seed}")
    # Every state a game reached must load, and keep the invariants (no false refusal).
    wrong = [why for state in seeds for why in [_seed_problem(state, rng)] if why]
    print(f"seed states refused or breaking an invariant: {len(wrong)}"
          + (f", e.g. {wrong[0]}" if wrong else ""))
    refused = 0
    reasons: collections.Counter = collections.Counter()
    others: dict[str, list] = {}
    accepted = unchanged = 0
    broken: dict[str, list] = {}
    for _ in range(args.mutants):
        i = rng.randrange(len(seeds))
        state = json.loads(texts[i])
        changes = mutate(rng, state)
        try:
            game = Game.from_dict(state)
        except (ValueError, TypeError) as e:
            refused += 1
            reasons[" ".join(str(e).split()[:4])] += 1
            continue
        except Exception as e:  # what the fuzz looks for
            others.setdefault(type(e).__name__, []).append((changes, shown(str(e))))
            continue
        accepted += 1
        unchanged += state == seeds[i]
        try:
            why = broken_invariant(game, state, rng)
        except Exception as e:
            why = f"{type(e).__name__} while checking: {shown(str(e))}"
        if why:
            # Grouped by the message with its numbers left out; the first case kept as example.
            broken.setdefault(re.sub(r"\d+", "N", why), []).append((why, changes))
    print(f"clear errors (ValueError/TypeError): {refused}")
    for reason, count in reasons.most_common(12):
        print(f"    {count:6d}  {reason} ...")
    print(f"other exceptions: {sum(map(len, others.values()))}")
    for name, cases in others.items():
        changes, message = cases[0]
        print(f"    {len(cases):6d}  {name}, e.g. {'; '.join(changes)} -> {message}")
    print(f"accepted: {accepted} ({unchanged} unchanged from their seed state)")
    print(f"accepted but breaking an invariant: {sum(map(len, broken.values()))}")
    for cases in sorted(broken.values(), key=len, reverse=True):
        why, changes = cases[0]
        print(f"    {len(cases):6d}  e.g. {why}: {'; '.join(changes)}")
    print(f"{time.perf_counter() - start:.0f} s")
    return 1 if others or broken or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
