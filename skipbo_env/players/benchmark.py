"""Benchmark tasks: a rules setting, an opponent population and an evaluation protocol, named
so that two people who run one on different machines get comparable numbers
(docs/benchmark.md).

`run(task, players)` plays every pair among the task's population and the players under test
(the tournament harness: seat-rotated games with paired deals, seeded from the task's seed),
and rates everyone from every game with openskill's Plackett-Luce model (a rating with its
uncertainty, for free-for-all and team games alike) beside the pairwise table.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import asdict, dataclass, field

from .. import checks
from ..rules import Rules
from .registry import check_player, checkpoint_of, is_checkpoint, searched_checkpoint
from .tournament import against, run_games, wilson

FORMAT = "skipbo-benchmark/1"
EXPLOIT_FORMAT = "skipbo-exploit/1"
MAX_GAMES = 10**7  # per pair: the harness lists its deals before playing them
EXPLOIT_STEPS = 1_000_000  # the best response's default budget, in learner steps
MAX_EXPLOIT_STEPS = 10**10
# The best-response learner: MaskablePPO from scratch on 256 batched games (64 steps of each
# per update), a [256, 256] ReLU network, and the stock-card shaping of configs/short_2p.yaml
# that gets a fresh learner going. A target the batched engine cannot play (expert_tolls,
# lookahead) trains in one env process per core instead: fewer steps per update.
EXPLOIT_PPO = {"learning_rate": 3e-4, "n_steps": 64, "batch_size": 4096, "n_epochs": 4,
               "gamma": 0.995, "gae_lambda": 0.95, "clip_range": 0.2, "ent_coef": 0.01,
               "vf_coef": 0.5, "max_grad_norm": 0.5, "net_arch": [256, 256],
               "activation": "relu"}
EXPLOIT_GAMES = 256  # games of the batched engine the learner plays at once
EXPLOIT_STOCK_REWARD = 0.05
# The scripted player scored in the best response's seats, for scale: what a player that
# learned nothing about the target wins there.
EXPLOIT_BASELINE = "greedy"


@dataclass(frozen=True)
class Task:
    """One benchmark task. Every pair (a, b) of entrants plays ``games`` games (rounded up to
    whole deals, each dealt once per seat rotation) in each of its lineups: two players a
    against b; more players, free-for-all, a against copies of b and b against copies of a
    (half the games each); teams, a's team against b's team (each team of copies)."""

    name: str
    description: str
    variant: str
    num_players: int
    rules: dict = field(default_factory=dict)  # overrides of the variant's preset
    population: tuple[str, ...] = ("random", "naive", "greedy", "expert")
    games: int = 400  # per pair of entrants
    seed: int = 20_261_202  # the evaluation seed: every deal and every player's seed from it

    def game_rules(self) -> Rules:
        return Rules.preset(self.variant, self.num_players, **self.rules)

    def lineups(self, a: str, b: str) -> list[list[str]]:
        """The seatings of one pairing (seat rotation is the harness's)."""
        rules = self.game_rules()
        if rules.teams or self.num_players == 2:
            return [against(rules, a, b)]
        return [against(rules, a, b), against(rules, b, a)]

    def to_dict(self) -> dict:
        out = asdict(self)
        out["population"] = list(self.population)
        out["game_rules"] = self.game_rules().to_dict()  # every rule, as played
        out["protocol"] = {"games_per_pair": self.games, "seed": self.seed,
                           "seat_rotation": "every deal played once from each rotation",
                           "paired_deals": True, "lineups": self.lineup_kind()}
        return out

    def lineup_kind(self) -> str:
        if self.game_rules().teams:
            return "teams of copies, a's team against b's"
        return "a against b" if self.num_players == 2 else \
            "a against copies of b, and b against copies of a"


TASKS = {t.name: t for t in (
    Task("standard_2p", "two players, the standard game (stock 30)", "standard", 2,
         {"stock_size": 30}),
    Task("short_2p", "two players, the short game (stock 10)", "short", 2),
    Task("ffa_3p", "three players free-for-all, standard rules at stock 20", "standard", 3,
         {"stock_size": 20}, games=300),
    Task("partnership_4p", "four players in two teams sharing a win (stock 15 each)",
         "partnership", 4, {"stock_size": 15}, games=200),
    Task("masters_2p", "two players, Skip-Bo Masters with coins (stock 20)", "masters", 2,
         {"stock_size": 20}, population=("random", "naive", "greedy", "expert_tolls",
                                         "expert")),
    Task("junior_2p", "two players, the junior game", "junior", 2),
)}


def task(name: str) -> Task:
    """The task called `name`, or ValueError listing the tasks."""
    if not isinstance(name, str) or name not in TASKS:
        raise ValueError(f"unknown task {name!r}; tasks: {', '.join(TASKS)}")
    return TASKS[name]


def ratings(records: list[dict], names: list[str]) -> dict:
    """openskill Plackett-Luce ratings of `names` from game `records` in their order (each
    {"seats": [name per seat], "winners": [seats]}): in every game each distinct name is one
    side, ranked first if it won and tied last otherwise (a drawn game ties everyone).
    Returns {name: {"mu", "sigma", "ordinal"}} (ordinal = mu - 3 sigma, the conservative
    rating to rank by)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in names}
    for r in records:
        sides = list(dict.fromkeys(r["seats"]))
        if len(sides) < 2:
            continue
        won = {r["seats"][s] for s in r["winners"]}
        ranks = [0 if side in won else 1 for side in sides]
        rated = model.rate([[current[side]] for side in sides], ranks=ranks)
        for side, (rating,) in zip(sides, rated):
            current[side] = rating
    return {name: {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                   "ordinal": round(r.ordinal(), 3)} for name, r in current.items()}


def by_seat(records: list[dict], names: list[str], teams=None) -> dict:
    """Each name's wins by the place it played from, in games where it was one side alone:
    its seat (seat 0 moves first) in two-player games and as the lone player of a
    free-for-all lineup, its team (team 0 holds seat 0) in team games; copies of one player
    are not counted. Returns {name: [{"games", "wins", "win_rate", "ci95"} per place]}."""
    places = len(teams) if teams else len(records[0]["seats"]) if records else 0
    counts = {name: [[0, 0] for _ in range(places)] for name in names}
    for r in records:
        seats = r["seats"]
        for name in dict.fromkeys(seats):
            mine = [s for s, who in enumerate(seats) if who == name]
            if teams:
                place = next((i for i, team in enumerate(teams) if sorted(team) == mine), None)
            else:
                place = mine[0] if len(mine) == 1 else None
            if place is None or name not in counts:
                continue
            counts[name][place][0] += 1
            counts[name][place][1] += mine[0] in r["winners"]
    out = {}
    for name, rows in counts.items():
        out[name] = []
        for games, wins in rows:
            lo, hi = wilson(wins, games) if games else (0.0, 1.0)
            out[name].append({"games": games, "wins": wins,
                              "win_rate": wins / games if games else None, "ci95": [lo, hi]})
    return out


def _check_fits(player: str, rules: Rules) -> None:
    """ValueError unless `player`'s checkpoint (if it has one) observes and acts in games of
    `rules`' shape: said before any game is played."""
    from .policy import checkpoint_spec, fits_games_of

    path = checkpoint_of(player)
    if path is None:
        return
    _, own, depth, _, _ = checkpoint_spec(path)
    if not fits_games_of(own, depth, rules):
        raise ValueError(f"checkpoint {path} plays {own.variant} with {own.num_players} "
                         f"players; its observations and actions do not fit {rules.variant} "
                         f"with {rules.num_players}")


def run(t: Task, players: list[str], games: int | None = None, workers: int | None = None,
        progress: bool = False) -> dict:
    """Play task `t` with `players` (player specs: scripted names, checkpoints, search
    players) added to its population; ``games`` overrides the task's games per pair (a
    smaller run, no longer the task's protocol: the result says so). Returns the result
    dictionary `to_markdown` and ``skipbo benchmark`` write."""
    if not isinstance(players, (list, tuple)) or not players:
        raise ValueError("give at least one player to benchmark")
    players = [check_player(p, what="player") for p in players]
    rules = t.game_rules()
    for p in players:
        _check_fits(p, rules)
    entrants = list(dict.fromkeys([*t.population, *players]))
    per_pair = t.games if games is None else checks.integer(games, "games", minimum=1,
                                                             maximum=MAX_GAMES)
    pairs, records = {}, []
    for a, b in itertools.combinations(entrants, 2):
        lineups = t.lineups(a, b)
        share = -(-per_pair // len(lineups))
        wins = {a: 0, b: 0}
        total = draws = 0
        for i, seats in enumerate(lineups):
            res = run_games(rules, seats, share, t.seed + 7919 * i, workers, progress,
                            keep_records=True)
            records += res["records"]
            for name in wins:
                wins[name] += res["players"][name]["wins"]
            draws += res["draws"]
            total += res["games"]
        lo, hi = wilson(wins[a], total)
        pairs[f"{a} vs {b}"] = {"a": a, "b": b, "games": total, "a_wins": wins[a],
                                "b_wins": wins[b], "draws": draws,
                                "a_win_rate": wins[a] / total, "a_ci95": [lo, hi]}
    return {"format": FORMAT, "task": t.to_dict(), "players": players,
            "entrants": entrants, "games_per_pair": per_pair,
            "protocol": per_pair == t.games, "pairs": pairs,
            "ratings": ratings(records, entrants),
            "by_seat": by_seat(records, entrants, rules.teams)}


def to_markdown(result: dict) -> str:
    """The result as Markdown: ratings (best first), then each player's pairwise rows."""
    t = result["task"]
    lines = [f"## {t['name']}: {t['description']}", "",
             f"{result['games_per_pair']} games per pair, seed {t['seed']}"
             + ("" if result["protocol"] else " (not the task's protocol: fewer games)"), "",
             "| player | rating (mu - 3 sigma) | mu | sigma |", "|---|---|---|---|"]
    order = sorted(result["ratings"].items(), key=lambda kv: -kv[1]["ordinal"])
    for name, r in order:
        lines.append(f"| {name} | {r['ordinal']:.2f} | {r['mu']:.2f} | {r['sigma']:.2f} |")
    lines += ["", "| pair | games | first's win rate (95% interval) | draws |",
              "|---|---|---|---|"]
    for pair, p in result["pairs"].items():
        lo, hi = p["a_ci95"]
        lines.append(f"| {pair} | {p['games']} | {p['a_win_rate']:.1%} ({lo:.1%}-{hi:.1%}) | "
                     f"{p['draws']} |")
    seat_rows = result.get("by_seat", {})
    places = max((len(v) for v in seat_rows.values()), default=0)
    if places:
        teams = bool(t["game_rules"].get("teams"))
        word = "team" if teams else "seat"
        lines += ["", "Win rate by team (team 0 holds seat 0, which moves first):" if teams
                  else "Win rate by seat (seat 0 moves first), over the games where the player "
                       "was alone on its side:", "",
                  "| player | " + " | ".join(f"{word} {i}" for i in range(places)) + " |",
                  "|---|" + "---|" * places]
        for name, rows in seat_rows.items():
            cells = [f"{r['win_rate']:.1%} of {r['games']}" if r["games"] else "-"
                     for r in rows]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def check_exploit_target(t: Task, target) -> str:
    """`target` if a best response can be trained against it on task `t`, else ValueError
    naming the problem (an unknown player, a checkpoint for other games)."""
    target = check_player(target, what="player")
    _check_fits(target, t.game_rules())
    return target


def exploit_config(t: Task, target: str, steps: int = EXPLOIT_STEPS,
                   out_dir: str = os.path.join("runs", "exploit")) -> dict:
    """The validated training config of the best response to `target` on task `t`, or
    ValueError naming the problem; everything `exploit` checks before it trains."""
    from ..train import missing_train_extra
    from ..vector.players import AGENT_NAMES

    missing = missing_train_extra("--exploit (it trains a MaskablePPO learner)")
    if missing:
        raise ValueError(missing)
    from ..train import config as C
    target = check_exploit_target(t, target)
    steps = checks.integer(steps, "exploit steps", minimum=1, maximum=MAX_EXPLOIT_STEPS)
    if not isinstance(out_dir, str) or (os.path.exists(out_dir) and not os.path.isdir(out_dir)):
        raise ValueError(f"the best responses' directory {out_dir} is not a directory")
    stem = os.path.splitext(os.path.basename(str(checkpoint_of(target) or target)))[0]
    if searched_checkpoint(target) is not None:
        stem = "lookahead_" + stem  # not the same name as the checkpoint's own
    prefix = f"{t.name}_exploit_"
    stem = re.sub(r"[^A-Za-z0-9._-]", "_", stem)[:100 - len(prefix)] or "player"
    batched = target in AGENT_NAMES or is_checkpoint(target)
    raw = {"name": prefix + stem, "variant": t.variant, "num_players": t.num_players,
           "rules": dict(t.rules), "seed": t.seed, "total_timesteps": steps,
           "vec_env": "batched" if batched else "subproc",
           "n_envs": EXPLOIT_GAMES if batched else 0, "opponents": {target: 1.0},
           "stock_reward": EXPLOIT_STOCK_REWARD, "ppo": dict(EXPLOIT_PPO),
           "eval": {"every": steps, "games": 0, "opponents": [], "final_games": 0,
                    "final_opponents": []},
           "output_dir": out_dir, "log_dir": out_dir}
    try:
        C.validate(raw)
    except C.ConfigError as e:
        raise ValueError(f"cannot train a best response to {target}: {e}") from None
    from ..train.ppo import RUN_MARK

    run_dir = os.path.join(out_dir, raw["name"])
    if os.path.lexists(run_dir) and not os.path.isfile(os.path.join(run_dir, RUN_MARK)):
        raise ValueError(f"{run_dir} exists and was not made by a training run; nothing was "
                         f"removed: move it or give another --out")
    return raw


def exploit_lineup(t: Task, player: str, target: str) -> list[str]:
    """The exploitability proxy's seating: `player`, then `target` in every other seat (its
    partner too, in team games)."""
    return [player] + [target] * (t.num_players - 1)


def seated(t: Task, player: str, target: str, games: int | None = None,
           workers: int | None = None, progress: bool = False) -> dict:
    """`player`'s wins in the exploitability proxy's seating on task `t`: `player`, then
    `target` in every other seat (its partner too, in team games), for the task's games (or
    `games`), seat-rotated with paired deals from the task's seed."""
    if player == target:
        raise ValueError(f"{player} would play itself in every seat")
    per = t.games if games is None else checks.integer(games, "games", minimum=1,
                                                       maximum=MAX_GAMES)
    seats = exploit_lineup(t, player, target)
    res = run_games(t.game_rules(), seats, per, t.seed, workers, progress)
    mine = res["players"][player]
    return {"player": player, "lineup": seats, "games": res["games"], "wins": mine["wins"],
            "win_rate": mine["win_rate"], "ci95": list(mine["ci95"]), "draws": res["draws"]}


def exploit(t: Task, target: str, steps: int = EXPLOIT_STEPS, games: int | None = None,
            out_dir: str = os.path.join("runs", "exploit"), workers: int | None = None,
            progress: bool = False) -> dict:
    """The exploitability proxy of `target` on task `t`: a fresh MaskablePPO learner
    (`EXPLOIT_PPO`, on the batched engine when it can play `target`: a batched scripted player
    or a checkpoint; else in env processes) trains for `steps` learner steps against `target`
    in every other seat (`target` as its partner too, in team games), then plays the same
    seating (the learner, then `target` in every other seat) for the task's games (or
    `games`), seat-rotated with paired deals from the task's seed. Returns the result
    ``skipbo benchmark --exploit`` writes: the best response's win rate with its interval,
    the budget, the checkpoint it left in `out_dir`, and for scale `baseline`: what
    `EXPLOIT_BASELINE` wins in the same seats and games (None when it is the target)."""
    from ..train import config as C
    from ..train.ppo import train

    raw = exploit_config(t, target, steps, out_dir)
    target = next(iter(raw["opponents"]))  # as checked
    per = t.games if games is None else checks.integer(games, "games", minimum=1,
                                                       maximum=MAX_GAMES)
    card = train(C.validate(raw), progress=progress)
    learner = os.path.join(out_dir, f"{raw['name']}.zip")
    mine = seated(t, learner, target, per, workers, progress)  # the seating it trained in
    baseline = (None if target == EXPLOIT_BASELINE
                else seated(t, EXPLOIT_BASELINE, target, per, workers, progress))
    return {"format": EXPLOIT_FORMAT, "task": t.to_dict(), "target": target,
            "learner": learner, "steps": card["steps"], "wall_time_s": card["wall_time_s"],
            "learner_steps_per_s": card["learner_steps_per_s"], "config": raw,
            "lineup": mine["lineup"], "games": mine["games"], "wins": mine["wins"],
            "win_rate": mine["win_rate"], "ci95": mine["ci95"],
            "draws": mine["draws"], "protocol": per == t.games, "baseline": baseline}


def exploit_markdown(result: dict) -> str:
    t = result["task"]
    lo, hi = result["ci95"]
    base = result.get("baseline")
    scale = ("" if not base else
             f"\n{base['player']} in the same seats, for scale: {base['win_rate']:.1%} "
             f"({base['ci95'][0]:.1%}-{base['ci95'][1]:.1%}) of {base['games']} games.\n")
    return (f"## {t['name']}: exploitability proxy of {result['target']}\n\n"
            f"A fresh MaskablePPO learner, {result['steps']:,} learner steps against "
            f"{result['target']} ({result['wall_time_s']:.0f} s, "
            f"{result['learner_steps_per_s']:,} steps/s), then {result['games']} games"
            + ("" if result["protocol"] else " (not the task's protocol: fewer games)")
            + f", seed {t['seed']}:\n\n"
            "| target | best response's steps | games | best response's win rate (95% interval) "
            "| draws |\n|---|---|---|---|---|\n"
            f"| {result['target']} | {result['steps']:,} | {result['games']} | "
            f"{result['win_rate']:.1%} ({lo:.1%}-{hi:.1%}) | {result['draws']} |\n" + scale)


def to_json(result: dict) -> str:
    return json.dumps(result, indent=1, sort_keys=True)
