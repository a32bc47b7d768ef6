"""Benchmark tasks: a rules setting, an opponent population and an evaluation protocol, named
so that two people who run one on different machines get comparable numbers
(docs/benchmark.md).

`run(task, players)` plays every pair among the task's population and the players under test
(the tournament harness: seat-rotated games with paired deals, seeded from the task's seed),
and rates everyone from every game with openskill's Plackett-Luce model (a rating with its
uncertainty, for free-for-all and team games alike) beside the pairwise table. The
exploitability proxy's seating (`seated`) is here; training its best response is
`train.exploit`'s.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from dataclasses import asdict, dataclass, field

from .. import checks
from ..players.checkpoints import checkpoint_spec, fits_games_of, load_model
from ..players.registry import PlayerSpec, is_value_file, parse_players
from ..players.value import load_value_agent
from ..rules import Rules
from .stats import by_seat, ratings, wilson
from .tournament import against, run_games

FORMAT = "skipbo-benchmark/1"
MAX_GAMES = 10**7  # per pair: the harness lists its deals before playing them
MAX_RECORDS = 10**6  # games in one run: each game's record is kept for the ratings


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


def check_fits(player: PlayerSpec, rules: Rules) -> None:
    """ValueError unless `player`'s checkpoint (if it has one) observes and acts in games of
    `rules`' shape: said before any game is played."""
    path = player.path
    if path is None:
        return
    if is_value_file(path):  # a value player, or the search around one
        load_value_agent(path, rules)  # refuses a network that does not read these rules
        return
    _, own, depth, _, _ = checkpoint_spec(path)
    if not fits_games_of(own, depth, rules):
        raise ValueError(f"checkpoint {path} plays {own.variant} with {own.num_players} "
                         f"players; its observations and actions do not fit {rules.variant} "
                         f"with {rules.num_players}")
    load_model(path)  # its weights read and checked now, not in a worker hours later


def run(t: Task, players: list[str] | list[PlayerSpec], games: int | None = None,
        workers: int | None = None, progress: bool = False,
        record_dir: str | None = None) -> dict:
    """Play task `t` with `players` (player specs: scripted names, checkpoints, search
    players) added to its population; ``games`` overrides the task's games per pair (a
    smaller run, no longer the task's protocol: the result says so). Returns the result
    dictionary `to_markdown` and ``skipbo benchmark`` write. With `record_dir`, every game is
    written there as a game record, named by its pair and lineup (`pair_prefix`)."""
    if not isinstance(players, (list, tuple)) or not players:
        raise ValueError("give at least one player to benchmark")
    specs = parse_players(players)
    rules = t.game_rules()
    for spec in specs:
        check_fits(spec, rules)
    names = [spec.name for spec in specs]
    entrants = list(dict.fromkeys([*t.population, *names]))
    per_pair = t.games if games is None else checks.integer(games, "games", minimum=1,
                                                             maximum=MAX_GAMES)
    count = len(entrants) * (len(entrants) - 1) // 2
    if count * per_pair > MAX_RECORDS:
        raise ValueError(f"{count} pairs x {per_pair:,} games is {count * per_pair:,} games, "
                         f"over the {MAX_RECORDS:,} one benchmark run plays (it keeps every "
                         f"game's record for the ratings, about a kilobyte each): give fewer "
                         f"games per pair")
    pairs, records = {}, []
    for number, (a, b) in enumerate(itertools.combinations(entrants, 2)):
        lineups = t.lineups(a, b)
        share = -(-per_pair // len(lineups))
        wins = {a: 0, b: 0}
        total = draws = 0
        for i, seats in enumerate(lineups):
            res = run_games(rules, seats, share, t.seed + 7919 * i, workers, progress,
                            keep_records=True, record_dir=record_dir,
                            record_prefix=pair_prefix(number, a, b, i))
            records += res["records"]
            for name in wins:
                wins[name] += res["players"][name]["wins"]
            draws += res["draws"]
            total += res["games"]
        lo, hi = wilson(wins[a], total)
        pairs[f"{a} vs {b}"] = {"a": a, "b": b, "games": total, "a_wins": wins[a],
                                "b_wins": wins[b], "draws": draws,
                                "a_win_rate": wins[a] / total, "a_ci95": [lo, hi]}
    return {"format": FORMAT, "task": t.to_dict(), "players": names,
            "entrants": entrants, "games_per_pair": per_pair,
            "protocol": per_pair == t.games, "pairs": pairs,
            "ratings": ratings(records, entrants),
            "by_seat": by_seat(records, entrants, rules.teams)}


def pair_prefix(number: int, a: str, b: str, lineup: int) -> str:
    """The start of the record files' names of pair `number` (`a` against `b`), lineup
    `lineup`: the pair's number and the players' names as file-name-safe labels."""
    return f"pair{number:03d}-{label(a)}-vs-{label(b)}-lineup{lineup}-"


def label(name: str) -> str:
    """A player's name as a short file-name-safe label: a checkpoint path's file name without
    its extension, with anything but letters, digits, '.', '_' and '-' made '_'."""
    stem = os.path.splitext(os.path.basename(name.rstrip("/\\")))[0] if (
        "/" in name or "\\" in name or name.endswith((".zip", ".npz"))) else name
    return re.sub(r"[^A-Za-z0-9._-]", "_", stem)[:40].lstrip(".") or "player"


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


def to_json(result: dict) -> str:
    return json.dumps(result, indent=1, sort_keys=True)
