"""The statistics of the arena: intervals of win rates, Elo ratings fitted to pairwise scores,
openskill ratings from every game, and win rates by seat."""

from __future__ import annotations

import math

from openskill.models import PlackettLuce


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion."""
    if trials == 0:
        return (0.0, 1.0)
    p, scale = successes / trials, 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / scale
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / scale
    return (max(0.0, centre - half), min(1.0, centre + half))


def elo(scores: dict[tuple[str, str], float], names: list[str], iterations: int = 2000) -> dict:
    """Elo ratings (mean 1500) fitted to pairwise scores (draws as half a win)."""
    rating = dict.fromkeys(names, 0.0)
    for _ in range(iterations):
        for a in names:
            expected = observed = 0.0
            for b in names:
                if a != b and (a, b) in scores:
                    expected += 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
                    observed += scores[(a, b)]
            rating[a] += 16 * (observed - expected)
        mean = sum(rating.values()) / len(rating)
        rating = {k: v - mean for k, v in rating.items()}
    return {k: 1500 + v for k, v in rating.items()}


def ratings(records: list[dict], names: list[str]) -> dict:
    """openskill Plackett-Luce ratings of `names` from game `records` in their order (each
    {"seats": [name per seat], "winners": [seats]}): in every game each distinct name is one
    side, ranked first if it won and tied last otherwise (a drawn game ties everyone).
    Returns {name: {"mu", "sigma", "ordinal"}} (ordinal = mu - 3 sigma, the conservative
    rating to rank by)."""
    model = PlackettLuce()
    current = {name: model.rating(name=name) for name in names}
    for r in records:
        sides = list(dict.fromkeys(r["seats"]))
        if len(sides) < 2:
            continue
        won = {r["seats"][s] for s in r["winners"]}
        ranks = [0.0 if side in won else 1.0 for side in sides]
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
    out: dict[str, list[dict]] = {}
    for name, rows in counts.items():
        out[name] = []
        for games, wins in rows:
            lo, hi = wilson(wins, games) if games else (0.0, 1.0)
            out[name].append({"games": games, "wins": wins,
                              "win_rate": wins / games if games else None, "ci95": [lo, hi]})
    return out
