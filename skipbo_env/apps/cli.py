"""The ``skipbo`` command line."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import sys
from typing import Any

import numpy as np

from ..arena import benchmark as bench
from ..arena import tournament as harness
from ..engine import Game
from ..extras import missing_train_extra
from ..files import check_target, write_whole
from ..players.checkpoints import card_rules, check_checkpoint, model_card
from ..players.registry import SHIPPED, SHIPPED_VALUE, checkpoint_file, parse_players
from ..rules import STALL_OUTCOMES, VARIANTS, Rules
from ..text import DECK_STYLES, STALLED, render_table
from ..version import __version__
from . import replay as replay_app
from . import terminal
from .session import rules_overrides

STALL_HELP = ("how a game nobody can finish ends: fewest_stock (the fewest stock cards left "
              "wins) or draw (default: the rules' default, fewest_stock)")


RECORD_HELP = ("write every game to this directory as a game record, one file a game (a new "
               "or empty directory; skipbo replay FILE steps through one)")


class Help(argparse.HelpFormatter):
    """Help that shows each option's default (where its help does not already say it)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if ("default" in text or not action.option_strings or action.default is None
                or action.default is False or action.default == []
                or action.default is argparse.SUPPRESS):
            return text
        return f"{text} (default: {action.default})"


def _ranged(kind, what: str, low, high=None):
    """An argparse type: a number of `kind` from `low` to `high` (no upper end if None)."""
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {what}, got {value}")
        return value
    return parse


_positive = _ranged(int, "a positive integer", 1)
MAX_GAMES = 10**7
_games = _ranged(int, f"a number of games from 1 to {MAX_GAMES:,}", 1, MAX_GAMES)
MAX_EXPLOIT_STEPS = 10**10  # train.exploit.MAX_EXPLOIT_STEPS
_exploit_steps = _ranged(int, f"a number of learner steps from 1 to {MAX_EXPLOIT_STEPS:,}", 1,
                         MAX_EXPLOIT_STEPS)
_workers = _ranged(int, f"a number of worker processes from 1 to {harness.MAX_WORKERS}", 1,
                   harness.MAX_WORKERS)
_seconds = _ranged(float, "0 to 60 seconds", 0, 60)
_port = _ranged(int, "a port from 0 to 65535", 0, 65535)


def demo(variant: str, num_players: int, seed: int, stock_size: int | None, out=sys.stdout) -> Game:
    """Play one seeded game between uniformly random players, printing every turn."""
    overrides = {} if stock_size is None else {"stock_size": stock_size}
    rules = Rules.preset(variant, num_players, **overrides)
    game = Game(rules, seed)
    rng = np.random.default_rng(seed)
    print(render_table(game), file=out)
    turn = game.turn
    while not game.is_over:
        player = game.current_player
        action = int(rng.choice(game.legal_actions()))
        print(f"  player {player}: {game.describe(action)}", file=out)
        game.step(action)
        if game.turn != turn and not game.is_over:
            turn = game.turn
            print("\n" + render_table(game), file=out)
    print("\n" + render_table(game), file=out)
    print(f"returns {game.returns()}, points {game.points()}", file=out)
    return game


def tournament(args) -> dict:
    """Run the `skipbo tournament` command."""
    names = [spec.name for spec in parse_players(args.players.strip(", "))]
    overrides = rules_overrides(args)
    if args.round_robin:
        rules = Rules.preset(args.variant, 2, **overrides)
        result = harness.round_robin(rules, names, args.games, args.seed, args.workers,
                                     not args.quiet, record_dir=_record_folder(args.record))
        for pair, res in result["pairs"].items():
            print(pair)
            print(harness.format_results(res) + "\n")
        print("Elo: " + ", ".join(f"{k} {v:.0f}" for k, v in
                                   sorted(result["elo"].items(), key=lambda kv: -kv[1])))
        print("openskill (mu - 3 sigma): " + ", ".join(
            f"{k} {v['ordinal']:.1f}" for k, v in
            sorted(result["ratings"].items(), key=lambda kv: -kv[1]["ordinal"])))
    else:
        rules = Rules.preset(args.variant, len(names), **overrides)
        result = harness.run_games(rules, names, args.games, args.seed, args.workers,
                                   not args.quiet, record_dir=_record_folder(args.record))
        print(harness.format_results(result))
        if args.record:
            print(f"game records in {args.record} (skipbo replay FILE)")
    if args.json:
        try:
            write_whole(args.json, json.dumps(result, indent=1), replace=True)
        except OSError as e:
            raise ValueError(f"cannot write {args.json}: {e.strerror}") from None
    return result


def _record_folder(path: str | None) -> str | None:
    """A `--record DIR` checked before any game: a new or empty directory (records are never
    written over, and a folder already holding records would mix two runs), not a link;
    made by `tournament.check_record_folder`."""
    if path is None:
        return None
    if os.path.isdir(path) and not os.path.islink(os.path.normpath(path)) and os.listdir(path):
        raise ValueError(f"--record {path} is not empty: give a new or empty directory "
                         f"(records are never written over)")
    harness.check_record_folder(path, [])
    return path


def evaluate(args) -> dict:
    """Run the `skipbo evaluate` command: the checkpoint against each opponent."""
    given = args.checkpoint
    args.checkpoint = checkpoint_file(args.checkpoint)  # standard_2p: the shipped one
    check_checkpoint(args.checkpoint)
    card = model_card(args.checkpoint) or {}
    rules, why = _evaluation_rules(args, card)
    specs = parse_players(args.opponents.strip(", "), what="opponent")
    for spec in specs:  # a checkpoint for other rules is refused before any game
        bench.check_fits(spec, rules)
    names = [spec.name for spec in specs]
    labels = {args.checkpoint: given, **{spec.name: spec.label for spec in specs}}
    folder = _record_folder(args.record)
    results = {}
    print(f"{given}: {rules.variant}, {rules.num_players} players, stock {rules.stock_size}, "
          f"seat-rotated games (each deal played from every seat)\n"
          f"stalled games {STALLED[rules.stall_outcome]} ({why})")
    for i, name in enumerate(names):
        seats = harness.against(rules, args.checkpoint, name)  # as the model card's evaluation
        result = harness.run_games(rules, seats, args.games, args.seed, args.workers,
                                   not args.quiet, record_dir=folder,
                                   record_prefix=f"{i:02d}-vs-{bench.label(name)}-")
        print(f"\nagainst {labels[name]}\n" + harness.format_results(result, labels),
              flush=True)
        results[name] = result
    print(f"\n{EVALUATE_COLUMNS}\nsummary: {given} won "
          + ", ".join(f"{r['players'][args.checkpoint]['win_rate']:.1%} against {labels[n]}"
                      for n, r in results.items())
          + f" ({_games_said(results)})")
    if folder:
        print(f"game records in {folder} (skipbo replay FILE)")
    if args.json:
        try:
            write_whole(args.json, json.dumps({"checkpoint": args.checkpoint,
                                               "rules": rules.to_dict(),
                                               "opponents": results}, indent=1), replace=True)
        except OSError as e:
            raise ValueError(f"cannot write {args.json}: {e.strerror}") from None
    return results


EVALUATE_COLUMNS = ("columns: wins, the games each player won; win rate, wins over games "
                    "played (a drawn game is won by nobody); 95% interval, the Wilson score "
                    "interval of the win rate: the true rate lies in it 19 times in 20")


def _games_said(results: dict) -> str:
    counts = sorted({r["games"] for r in results.values()})
    return f"{counts[0]:,} games each" if len(counts) == 1 else \
        "games: " + ", ".join(f"{c:,}" for c in counts)


def _evaluation_rules(args, card: dict) -> tuple[Rules, str]:
    """The rules `skipbo evaluate` plays under and why its stall reading is the one it is."""
    overrides: dict[str, Any] = {}
    if args.stock_size is not None:
        overrides["stock_size"] = args.stock_size
    if args.stall_outcome is not None:
        overrides["stall_outcome"] = args.stall_outcome
    if args.variant is None and "rules" in card:
        rules = dataclasses.replace(card_rules(card, args.checkpoint), **overrides)  # as trained
        if args.stall_outcome is not None:
            why = "--stall-outcome"
        elif "stall_outcome" in card["rules"]:
            why = "as the model card's rules say"
        else:
            why = ("the model card was written before the stall option and its figures were "
                   "measured so; give --stall-outcome fewest_stock for today's default")
    else:
        rules = Rules.preset(args.variant or "standard", 2, **overrides)
        why = "--stall-outcome" if args.stall_outcome is not None else "the rules' default"
    return rules, why


def _benchmark_plan(args, t, best) -> tuple[int, str]:
    """Check `skipbo benchmark`'s arguments before any game: the --out directory, every
    --exploit target, and every result file the run will write (`files.check_target`: none
    there already unless --force, none a link). Returns the exploit budget and directory."""
    if not args.player and not args.exploit:
        raise ValueError("give --player (players to benchmark) or --exploit (a player to "
                         "train a best response against)")
    if args.out:  # refused before hours of games, not after
        try:
            os.makedirs(args.out, exist_ok=True)
        except OSError as e:
            raise ValueError(f"cannot write the results under {args.out}: "
                             f"{e.strerror}") from None
        if not os.path.isdir(args.out):
            raise ValueError(f"cannot write the results under {args.out}: not a directory")
    if args.exploit_steps is not None and not args.exploit:
        raise ValueError("--exploit-steps is the budget of --exploit: give --exploit PLAYER")
    steps = args.exploit_steps or best.EXPLOIT_STEPS
    exploit_dir = os.path.join(args.out or "runs", "exploit")
    names: dict[str, str] = {}
    for target in args.exploit or []:  # every target checked before any game or training
        name = best.exploit_config(t, target, steps, exploit_dir)["name"]
        if name in names:
            raise ValueError(f"--exploit {target} and --exploit {names[name]} would both write "
                             f"{name}: give each target once, or copy one checkpoint to "
                             f"another name")
        names[name] = target
    if args.out:
        for stem in ([t.name] if args.player else []) + list(names):
            for suffix in (".json", ".md"):
                check_target(os.path.join(args.out, stem + suffix), args.force)
    return steps, exploit_dir


def benchmark(args) -> dict:
    """Run the `skipbo benchmark` command: the players on a task, printed as Markdown and
    written as JSON and Markdown under --out."""
    from ..train import exploit as best  # the train extra: loaded for --exploit only

    t = bench.task(args.task)
    steps, exploit_dir = _benchmark_plan(args, t, best)

    def emit(stem: str, result: dict, text: str) -> dict:
        """Print one result and write it under --out at once (a later failure keeps it), each
        file whole (`files.write_whole`)."""
        print(text, end="", flush=True)
        if args.out:
            try:
                for suffix, body in ((".json", bench.to_json(result)), (".md", text)):
                    write_whole(os.path.join(args.out, stem + suffix), body, args.force)
            except OSError as e:
                raise ValueError(f"cannot write the results under {args.out}: "
                                 f"{e.strerror}") from None
        return result

    results = []
    if args.player:
        result = bench.run(t, args.player, args.games, args.workers, not args.quiet,
                           record_dir=_record_folder(args.record))
        results.append(emit(t.name, result, bench.to_markdown(result)))
    for target in args.exploit or []:
        found = best.exploit(t, target, steps, args.games, out_dir=exploit_dir,
                             workers=args.workers, progress=not args.quiet)
        stem = os.path.splitext(os.path.basename(found["learner"]))[0]
        results.append(emit(stem, found, best.exploit_markdown(found)))
    return results[0]


def _add_demo(sub) -> argparse.ArgumentParser:
    p = sub.add_parser("demo", help="play a seeded game between random players, as text")
    p.add_argument("--variant", choices=VARIANTS, default="short", help="the rules preset")
    p.add_argument("--players", type=_positive, default=2, help="number of players")
    p.add_argument("--seed", type=int, default=0, help="the deal's seed")
    p.add_argument("--stock-size", type=_positive, default=None,
                   help="override the variant's stock size")
    return p


def _add_tournament(sub) -> argparse.ArgumentParser:
    t = sub.add_parser("tournament", help="seat-rotated games between scripted players")
    t.add_argument("--variant", choices=VARIANTS, default="standard", help="the rules preset")
    t.add_argument("--players", required=True,
                   help="one agent name per seat, comma-separated (e.g. expert,naive), or with "
                        "--round-robin the agents to pair off")
    t.add_argument("--games", type=_games, default=1000,
                   help="games to play, rounded up to whole deals (each deal from every seat)")
    t.add_argument("--stock-size", type=_positive, default=None,
                   help="cards in each stock (default: the variant's)")
    t.add_argument("--stall-outcome", choices=STALL_OUTCOMES, default=None, help=STALL_HELP)
    t.add_argument("--seed", type=int, default=0, help="the tournament's seed (every deal and "
                                                       "player is seeded from it)")
    t.add_argument("--workers", type=_workers, default=None,
                   help="processes (default: all cores)")
    t.add_argument("--round-robin", action="store_true",
                   help="two-player matches between every pair, with Elo ratings")
    t.add_argument("--json", default=None, help="also write the results to this file")
    t.add_argument("--record", default=None, metavar="DIR", help=RECORD_HELP)
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    return t


def _add_evaluate(sub) -> argparse.ArgumentParser:
    ev = sub.add_parser("evaluate", help="a trained checkpoint against other players",
                        description="A trained checkpoint against each opponent in turn, "
                                    "seat-rotated; prints a table per opponent and a summary.",
                        formatter_class=Help)
    ev.add_argument("checkpoint", help="a .zip written by skipbo train, or a shipped "
                                      "checkpoint's name (standard_2p, short_2p, "
                                      "rllib_standard_2p)")
    ev.add_argument("--opponents", default="random,naive,greedy,expert",
                    help="players to play against in turn, comma-separated: any player name "
                         "(scripted, a shipped checkpoint's name, a checkpoint path)")
    ev.add_argument("--games", type=_games, default=2000, help="games against each opponent")
    ev.add_argument("--variant", choices=VARIANTS, default=None,
                    help="default: the variant in the checkpoint's model card")
    ev.add_argument("--stock-size", type=_positive, default=None,
                    help="default: the stock size in the model card")
    ev.add_argument("--stall-outcome", choices=STALL_OUTCOMES, default=None,
                    help="how a game nobody can finish ends (default: as in the model card; "
                         "a card written before the option: draw)")
    ev.add_argument("--seed", type=int, default=0, help="the evaluation's seed")
    ev.add_argument("--workers", type=_workers, default=None,
                    help="processes (default: all cores)")
    ev.add_argument("--json", default=None, help="also write the results to this file")
    ev.add_argument("--record", default=None, metavar="DIR", help=RECORD_HELP)
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    return ev


def _add_benchmark(sub) -> argparse.ArgumentParser:
    b = sub.add_parser("benchmark", help="players on a benchmark task: pairwise win rates and "
                                         "openskill ratings (docs/benchmark.md)")
    b.add_argument("task", choices=list(bench.TASKS), help="the benchmark task")
    b.add_argument("--player", action="append", default=None,
                   help="a player to benchmark: a scripted name, a checkpoint (or a shipped "
                        "one's name) or lookahead:CHECKPOINT (repeatable)")
    b.add_argument("--exploit", action="append", default=None, metavar="PLAYER",
                   help="the exploitability proxy of PLAYER: train a fresh MaskablePPO best "
                        "response against it, report its win rate (repeatable)")
    b.add_argument("--exploit-steps", type=_exploit_steps, default=None,
                   help="the best response's budget in learner steps (default 1,000,000)")
    b.add_argument("--games", type=_games, default=None,
                   help="games per pair (default: the task's; fewer is not the protocol)")
    b.add_argument("--workers", type=_workers, default=None,
                   help="processes (default: all cores)")
    b.add_argument("--record", default=None, metavar="DIR",
                   help=RECORD_HELP + " (the --player games)")
    b.add_argument("--out", default=None,
                   help="a directory to write TASK.json and TASK.md into (never over files "
                        "there already, unless --force; never through a link)")
    b.add_argument("--force", action="store_true",
                   help="replace result files already under --out")
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    return b


def _add_play(sub) -> argparse.ArgumentParser:
    pl = sub.add_parser("play", help="play against bots in the terminal")
    pl.add_argument("--variant", choices=VARIANTS, default="standard", help="the rules preset")
    pl.add_argument("--opponents", default="expert",
                    help="1-5 bots, comma-separated agent names or checkpoint paths")
    pl.add_argument("--stock-size", type=_positive, default=None,
                    help="cards in each stock (default: the variant's)")
    pl.add_argument("--stall-outcome", choices=STALL_OUTCOMES, default=None, help=STALL_HELP)
    pl.add_argument("--seed", type=int, default=None, help="default: a new deal every time")
    pl.add_argument("--fast", action="store_true", help="no pause between the bots' moves")
    pl.add_argument("--pause", type=_seconds, default=0.6,
                    help="seconds between the bots' moves (default 0.6)")
    pl.add_argument("--no-color", action="store_true", help="no colours")
    pl.add_argument("--log", default=None, help="write the game log to this file at the end")
    pl.add_argument("--record", default=None, metavar="FILE",
                    help="write the games played to this file as game records when you leave "
                         "(a new file; skipbo replay FILE steps through them)")
    pl.add_argument("--deck-style", choices=DECK_STYLES, default="skipbo",
                    help="name the cards as Skip-Bo's (1-12, SB) or as the playing cards that "
                         "stand in for them (A-Q, K for the wilds)")
    return pl


def _add_watch(sub) -> argparse.ArgumentParser:
    w = sub.add_parser("watch", help="watch bots play each other in the terminal")
    w.add_argument("--players", default="expert,greedy",
                   help="2-6 player names or checkpoint paths, comma-separated")
    w.add_argument("--variant", choices=VARIANTS, default="standard", help="the rules preset")
    w.add_argument("--stock-size", type=_positive, default=None,
                   help="cards in each stock (default: the variant's)")
    w.add_argument("--stall-outcome", choices=STALL_OUTCOMES, default=None, help=STALL_HELP)
    w.add_argument("--seed", type=int, default=0, help="the deal's seed")
    w.add_argument("--fast", action="store_true", help="no pause between moves")
    w.add_argument("--pause", type=_seconds, default=0.6, help="seconds between moves")
    w.add_argument("--no-color", action="store_true", help="no colours")
    w.add_argument("--deck-style", choices=DECK_STYLES, default="skipbo",
                   help="name the cards as Skip-Bo's or as playing cards")
    return w


def _add_replay(sub) -> argparse.ArgumentParser:
    r = sub.add_parser("replay", help="step through a recorded game in the terminal",
                       description="Step through a game record (written by --record) in the "
                                   "terminal, or print one position of it.")
    r.add_argument("file", help="a game record file (.jsonl)")
    r.add_argument("--game", type=_positive, default=1,
                   help="which game of the file, counting from 1")
    r.add_argument("--final", action="store_true",
                   help="print the final table and result, then exit")
    r.add_argument("--move", type=_ranged(int, "a move number from 0", 0), default=None,
                   help="print the table after this many moves, then exit")
    r.add_argument("--deck-style", choices=DECK_STYLES, default="skipbo",
                   help="name the cards as Skip-Bo's or as playing cards")
    return r


def _add_serve(sub) -> argparse.ArgumentParser:
    sv = sub.add_parser("serve", help="play against bots in the browser (web extra)")
    sv.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    sv.add_argument("--port", type=_port, default=8000, help="port to listen on")
    sv.add_argument("--checkpoint", action="append", default=[],
                    help="a checkpoint the page may choose as an opponent: a .zip or .npz, "
                         "or a shipped one's name such as standard_2p (repeatable; default: "
                         "every shipped checkpoint, the policies where the train extra is "
                         "installed)")
    sv.add_argument("--max-games", type=_positive, default=None,
                    help="games kept at once (default 200; when all are in play, new ones "
                         "are refused)")
    sv.add_argument("--allow-host", action="append", default=[], metavar="NAME[:PORT]",
                    help="another name the server may be reached by, as browsers send it in "
                         "the Host header (repeatable; the bound address and, on loopback, "
                         "localhost/127.0.0.1/[::1] are always allowed)")
    sv.add_argument("--deck-style", choices=DECK_STYLES, default="skipbo",
                    help="how the page names the cards at first (it can switch per game)")
    sv.add_argument("--stall-outcome", choices=STALL_OUTCOMES, default=None, help=STALL_HELP)
    return sv


def serve(args) -> int:
    """Run the `skipbo serve` command (the web extra, named when missing)."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401

        from .web.server import serve as run_server
    except ImportError as err:
        raise ValueError(f"skipbo serve needs the web extra ({err.name or err} is not "
                         f"installed): pip install -e '.[web]'") from None
    extra = {} if args.max_games is None else {"max_games": args.max_games}
    _check_port(args.host, args.port)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl+C stops the server
        run_server(args.host, args.port, tuple(args.checkpoint or served_checkpoints()),
                   allow_hosts=tuple(args.allow_host), deck_style=args.deck_style,
                   stall_outcome=args.stall_outcome, **extra)
    return 0


def served_checkpoints() -> list[str]:
    """The shipped checkpoints `skipbo serve` offers when none is named: the value players
    (numpy only) and, where the train extra is installed, the trained policies."""
    return [*SHIPPED_VALUE, *([] if missing_train_extra("skipbo serve") else SHIPPED)]


def _check_port(host: str, port: int) -> None:
    """Refuse a port that is taken before the server says its address (ValueError naming the
    port and what to do)."""
    import errno
    import socket

    if port == 0:
        return
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM)[0]
    except socket.gaierror as e:
        raise ValueError(f"cannot listen on --host {host}: {e.strerror}") from None
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
        try:
            probe.bind(address)
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                raise ValueError(f"port {port} on {host} is taken (another server is "
                                 f"listening there): choose another with --port, e.g. "
                                 f"--port {port + 1 if port < 65535 else 8001}") from None
            raise ValueError(f"cannot listen on {host}:{port}: {e.strerror}") from None


def play(args) -> int:
    """Run `skipbo play` or `skipbo watch` in the terminal."""
    try:
        return terminal.play(args) if args.command == "play" else terminal.watch(args)
    except KeyboardInterrupt:
        print("\ninterrupted: leaving the game")
        return 130


def train(argv: list[str], usage: argparse.ArgumentParser) -> int:
    """Run `skipbo train` (the train extra, named when missing) with its own arguments."""
    missing = missing_train_extra("skipbo train")  # named rather than a traceback
    if missing:
        if {"-h", "--help"} & set(argv):
            print(f"{usage.format_usage().strip()}\n\n{missing}")
            return 0
        usage.error(missing)
    from ..train.ppo import main as train_main

    return train_main(argv)


# Each command: what adds its arguments, and what runs it (a ValueError it raises is reported
# with the command's own usage line).
COMMANDS = {
    "demo": (_add_demo, lambda a: demo(a.variant, a.players, a.seed, a.stock_size)),
    "tournament": (_add_tournament, tournament),
    "evaluate": (_add_evaluate, evaluate),
    "benchmark": (_add_benchmark, benchmark),
    "play": (_add_play, play),
    "watch": (_add_watch, play),
    "serve": (_add_serve, serve),
    "replay": (_add_replay, lambda a: replay_app.replay(a)),
}


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``skipbo`` command."""
    parser = argparse.ArgumentParser(prog="skipbo",
                                     description="Skip-Bo for reinforcement learning")
    parser.add_argument("--version", action="version", version=f"skipbo-env {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    parsers = {name: add(sub) for name, (add, _) in COMMANDS.items()}
    for each in parsers.values():
        each.formatter_class = Help
    tr = sub.add_parser("train", help="train MaskablePPO from a YAML config (train extra)",
                        add_help=False, usage="skipbo train [-h] --config CONFIG [--quiet]")
    tr.add_argument("rest", nargs=argparse.REMAINDER)
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "train":
        return train(argv[1:], tr)
    args = parser.parse_args(argv)
    try:
        result = COMMANDS[args.command][1](args)
    except ValueError as e:
        parsers[args.command].error(str(e))
    except harness.WorkerDied as e:  # the games could not all be played: no result
        print(f"skipbo {args.command}: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader (say, `head`) went away: stop quietly, as command-line tools do.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (stdout stays open until the exit)
        return 0
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
