"""Plot learning curves: win rate against training steps (top row) and against wall-clock time
(bottom row, minutes since the run started, cloning included), one line per evaluation
opponent, one column per run.

    python -m training.plot checkpoints/standard_2p.json [more cards or curve.json files]
        --out docs/learning_curves.png

Reads the ``learning_curve`` of model cards (or a run's ``curve.json``) and writes a PNG.
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def read_curve(path: str) -> tuple[str, list[dict]]:
    """(label, points) from a model card or a curve.json file."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    if isinstance(data, dict):
        label, points = data.get("name", path), data.get("learning_curve")
        pretrain = data.get("pretrain")
        if isinstance(pretrain, dict) and "teacher" in pretrain:
            label += f"\n(step 0: after cloning {pretrain['teacher']})"
    else:
        label, points = os.path.basename(os.path.dirname(path)) or path, data
    if not isinstance(points, list) or not all(
            isinstance(p, dict) and "steps" in p and isinstance(p.get("win_rate"), dict)
            for p in points):
        raise ValueError(f"{path} holds no learning curve (a list of {{steps, win_rate}})")
    for p in points:
        if not all(isinstance(p.get(k, 0), (int, float)) and not isinstance(p.get(k), bool)
                   for k in ("steps", "seconds")):
            raise ValueError(f"{path}: a point's steps and seconds must be numbers, got {p}")
    return label, points


def series(points: list[dict], opponent: str, key: str) -> tuple[list[float], list[float]]:
    """The (`key`, win rate against `opponent`) points that hold both, in order along `key`:
    the points of separate runs (one a run, as docs/value_curve_*.json) need not come in the
    order of their run time."""
    shown = sorted((p for p in points if opponent in p["win_rate"] and key in p),
                   key=lambda p: p[key])
    return [p[key] for p in shown], [p["win_rate"][opponent] for p in shown]


def plot(paths: list[str], out: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curves = [read_curve(p) for p in paths]
    fig, axes = plt.subplots(2, len(curves), figsize=(6 * len(curves), 8.2), squeeze=False)
    for column, (label, points) in enumerate(curves):
        opponents = sorted({o for p in points for o in p["win_rate"]})
        for row, (key, scale, name) in enumerate((("steps", 1, "training steps"),
                                                  ("seconds", 60, "wall-clock minutes"))):
            ax = axes[row][column]
            for opp in opponents:
                xs, ys = series(points, opp, key)
                ax.plot([x / scale for x in xs], ys, marker="o", label=f"vs {opp}")
            ax.set_title(label)
            ax.set_xlabel(name)
            ax.set_ylabel("win rate (seat-rotated games)")
            ax.set_ylim(0, 1)
            ax.axhline(0.5, color="grey", linewidth=0.5)
            ax.grid(alpha=0.3)
            ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="model cards (.json) or curve.json files")
    parser.add_argument("--out", default="docs/learning_curves.png")
    args = parser.parse_args(argv)
    try:
        plot(args.paths, args.out)
    except ValueError as e:
        parser.error(str(e))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
