"""`skipbo replay FILE`: step through a recorded game in the terminal (docs/records.md).

The table is shown in full (a record holds the whole game: every hand and stock is shown).
Keys: Enter or ``n`` the next move, ``b`` back one move, ``t`` to the next turn, ``g N`` to
move N, ``s`` the start, ``e`` the end, ``?`` help, ``q`` quit. End of input leaves.
``--final`` (or ``--move N``) prints one position and exits, for scripts.
"""

from __future__ import annotations

import sys
from typing import TextIO

from .. import records
from ..engine import Game
from ..text import render_table
from .session import result_text

KEYS = ("keys: Enter or n next move, b back, t next turn, g N go to move N, s start, e end, "
        "? help, q quit")


def position(record: records.GameRecord, moves: int, style: str = "skipbo") -> str:
    """The table after the first `moves` moves of `record`, the last move and what comes next,
    as text."""
    game = record.replay(moves)
    total = len(record.actions)
    lines = [f"move {moves} of {total}"]
    if moves:
        before = record.replay(moves - 1)
        seat, action = record.actions[moves - 1]
        lines.append(f"last: player {seat} ({record.players[seat]}): "
                     f"{before.describe(action, style)}")
    lines.append(render_table(game))
    if moves < total:
        seat, action = record.actions[moves]
        lines.append(f"next: player {seat} ({record.players[seat]}): "
                     f"{game.describe(action, style)}")
    else:
        lines.append(_ending(record, game))
    return "\n".join(lines)


def _ending(record: records.GameRecord, game: Game) -> str:
    said = result_text(game, list(record.players))
    return f"end: {said}" if said else "end of the record (the game was not finished)"


def _next_turn(record: records.GameRecord, moves: int) -> int:
    """The move count at which the turn after the one at `moves` begins (or the end)."""
    total = len(record.actions)
    if moves >= total:
        return total
    seat = record.actions[moves][0]
    k = moves
    while k < total and record.actions[k][0] == seat:
        k += 1
    return k


def browse(record: records.GameRecord, stream: TextIO | None = None,
           out: TextIO | None = None, style: str = "skipbo", start: int = 0) -> int:
    """Step through `record` with keys read from `stream` (module docstring; default: standard
    input and output)."""
    stream, out = stream or sys.stdin, out or sys.stdout
    total, moves = len(record.actions), start
    print(f"{record.rules.variant}, {record.rules.num_players} players, stock "
          f"{record.rules.stock_size}, seed {record.seed}: "
          + ", ".join(f"player {i} {name}" for i, name in enumerate(record.players)), file=out)
    print(KEYS, file=out)
    print(position(record, moves, style), file=out)
    while True:
        print("> ", end="", file=out, flush=True)
        line = stream.readline()
        if not line:
            return 0
        key = line.strip().lower()
        if key == "q":
            return 0
        if key == "?":
            print(KEYS, file=out)
            continue
        target = _target(key, moves, total, record)
        if isinstance(target, str):
            print(target, file=out)
            continue
        moves = target
        print(position(record, moves, style), file=out)


def _target(key: str, moves: int, total: int, record: records.GameRecord) -> int | str:
    """The move count a key leads to, or a message saying why it leads nowhere."""
    if key in ("", "n"):
        return min(total, moves + 1) if moves < total else "at the end: b goes back, q quits"
    if key == "b":
        return moves - 1 if moves else "at the start: Enter goes forward"
    if key == "t":
        return _next_turn(record, moves)
    if key == "s":
        return 0
    if key == "e":
        return total
    if key.startswith("g"):
        number = key[1:].strip()
        if number.isascii() and number.isdigit() and int(number) <= total:
            return int(number)
        return f"g needs a move number from 0 to {total}, e.g. g 12"
    return f"unknown key {key!r}: {KEYS}"


def replay(args, stream: TextIO | None = None, out: TextIO | None = None) -> int:
    """Run `skipbo replay`."""
    out = out or sys.stdout
    games = records.read(args.file)
    if not 1 <= args.game <= len(games):
        raise ValueError(f"{args.file} holds {len(games)} game(s): --game must be from 1 to "
                         f"{len(games)}, got {args.game}")
    record = games[args.game - 1]
    total = len(record.actions)
    if args.move is not None and args.move > total:
        raise ValueError(f"game {args.game} of {args.file} has {total} moves: --move must be "
                         f"from 0 to {total}, got {args.move}")
    if args.final or args.move is not None:
        print(position(record, total if args.move is None else args.move, args.deck_style),
              file=out)
        return 0
    return browse(record, stream, out, args.deck_style)
