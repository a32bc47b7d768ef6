"""Game records: a played game as JSON Lines that replays exactly (docs/records.md).

A record file holds one or more games, one after another. Each game is a header line (the
format and its version, the package version, the full rules, the deal's seed, the first
player, the match scores before the game, the players' names), one line per action (the seat,
the action and the move in words) and an end line (the phase, the winners, the turns, the
points and the returns). Reading checks a record as strictly as state loading does: every line
is parsed and checked, the game is replayed from its seed, every action must be legal for the
seat that made it and the end line must be what the replay gives; the first fault is a
`RecordError` naming the file and line. Nothing in a record is run: the players' names are
labels, never loaded.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from . import checks
from .engine import Game
from .files import write_whole
from .observation import PILE_DEPTH, ObservationEncoder
from .rules import Rules
from .state import Phase
from .state_io import MAX_SCORE
from .version import __version__

FORMAT = "skipbo-game"
FORMAT_VERSION = 1
MAX_RECORD_BYTES = 64 * 2**20  # a record file read, at most (a long game is under 100 KiB)
MAX_LINE_BYTES = 64 * 2**10  # one line, at most (the header, with the rules, is about 1 KiB)
MAX_SEED = 2**128 - 1
MAX_NAME = 200  # characters of a player's name
HEADER_KEYS = {"record", "format", "package", "rules", "seed", "first_player", "scores",
               "players"}
END_KEYS = {"phase", "winners", "turns", "points", "returns"}


class RecordError(ValueError):
    """A record that cannot be read: the message names the file and line and what is wrong."""


@dataclass(frozen=True)
class GameRecord:
    """One recorded game: how it was dealt, who sat where, every action and how it ended."""

    rules: Rules
    seed: int
    players: tuple[str, ...]
    actions: tuple[tuple[int, int], ...]  # (seat, action), in the order played
    result: dict  # the end line: phase, winners, turns, points, returns
    first_player: int = 0
    scores: tuple[int, ...] | None = None  # match points before the game (None: all 0)
    package: str = f"skipbo-env {__version__}"

    @classmethod
    def of(cls, game: Game, seed: int, players: Sequence[str],
           actions: Sequence[tuple[int, int]], scores: Sequence[int] | None = None
           ) -> GameRecord:
        """The record of `game` (as it stands now: over or not), dealt from `seed` with match
        points `scores` before it, after `actions` were played."""
        return cls(game.rules, int(seed), tuple(str(p) for p in players),
                   tuple((int(s), int(a)) for s, a in actions), result_of(game),
                   game.first_player, None if scores is None else tuple(scores))

    def deal(self) -> Game:
        """The game as dealt, before the first action."""
        return Game(self.rules, self.seed, self.first_player,
                    None if self.scores is None else list(self.scores))

    def replay(self, moves: int | None = None) -> Game:
        """The game after its first `moves` actions (all of them by default)."""
        game = self.deal()
        for _, action in self.actions[:moves]:
            game.step(action)
        return game

    def positions(self) -> Iterator[tuple[Game, int, int]]:
        """Each position before an action, as (game, seat, action); the game is the one being
        replayed, stepped after each yield (clone it to keep it)."""
        game = self.deal()
        for seat, action in self.actions:
            yield game, seat, action
            game.step(action)

    def lines(self) -> list[str]:
        """The record as JSON Lines (no newline at the ends)."""
        header = {"record": FORMAT, "format": FORMAT_VERSION, "package": self.package,
                  "rules": self.rules.to_dict(), "seed": self.seed,
                  "first_player": self.first_player,
                  "scores": None if self.scores is None else list(self.scores),
                  "players": list(self.players)}
        out = [json.dumps(header)]
        game = self.deal()
        for seat, action in self.actions:
            out.append(json.dumps({"seat": seat, "action": action,
                                   "move": game.describe(action)}))
            game.step(action)
        out.append(json.dumps({"end": self.result}))
        return out


def result_of(game: Game) -> dict:
    """How `game` stands: its phase, winners, turns, points and returns (the end line)."""
    return {"phase": game.phase.value, "winners": sorted(game.winners), "turns": game.turn,
            "points": game.points(), "returns": game.returns()}


def dumps(records: Sequence[GameRecord]) -> str:
    """The records as the text of one record file."""
    return "".join(line + "\n" for record in records for line in record.lines())


def write(path: str, records: GameRecord | Sequence[GameRecord], replace: bool = False) -> None:
    """Write a record file whole (`files.write_whole`: never through a link, never over a file
    there already unless `replace`)."""
    if isinstance(records, GameRecord):
        records = [records]
    write_whole(path, dumps(records), replace)


def read(path: str) -> list[GameRecord]:
    """Every game in the record file `path`, each checked by replaying it (`RecordError`)."""
    try:
        size = os.path.getsize(path)
        if size > MAX_RECORD_BYTES:
            raise RecordError(f"{path} is {size:,} bytes, over the {MAX_RECORD_BYTES:,} a "
                              f"record file may have")
        with open(path, "rb") as f:
            data = f.read(MAX_RECORD_BYTES + 1)
    except OSError as e:
        raise RecordError(f"cannot read {path}: {e.strerror}") from None
    if len(data) > MAX_RECORD_BYTES:  # grew while being read
        raise RecordError(f"{path} is over the {MAX_RECORD_BYTES:,} bytes a record file may have")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise RecordError(f"{path} is not UTF-8 text (byte {e.start})") from None
    return loads(text, path)


def read_one(path: str) -> GameRecord:
    """The one game in the record file `path` (`RecordError` if it holds several)."""
    games = read(path)
    if len(games) != 1:
        raise RecordError(f"{path} holds {len(games)} games; one was expected")
    return games[0]


def loads(text: str, source: str = "record") -> list[GameRecord]:
    """Every game in the text of a record file (`source` names it in errors)."""
    if len(text) > MAX_RECORD_BYTES:  # characters: each at least a byte
        raise RecordError(f"{source} is over the {MAX_RECORD_BYTES:,} bytes a record may have")
    reader = _Reader(source)
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            reader.line(number, line)
    return reader.finish()


class _Reader:
    """Reads a record file line by line, replaying each game as its lines come."""

    def __init__(self, source: str):
        self.source = source
        self.games: list[GameRecord] = []
        self.header: dict | None = None
        self.game: Game | None = None
        self.actions: list[tuple[int, int]] = []
        self.at = 0

    def fail(self, why: str) -> RecordError:
        return RecordError(f"{self.source} line {self.at}: {why}")

    def line(self, number: int, line: str) -> None:
        self.at = number
        try:
            size = len(line.encode())
        except UnicodeEncodeError:  # a lone surrogate: no UTF-8 text has one
            raise self.fail("not UTF-8 text (a lone surrogate)") from None
        if size > MAX_LINE_BYTES:
            raise self.fail(f"the line is over the {MAX_LINE_BYTES:,} bytes a line may have")
        try:
            item = json.loads(line, object_pairs_hook=_unique)
        except _DuplicateKey as e:
            raise self.fail(f"the key {checks.shown(e.args[0])} is given twice") from None
        except (ValueError, RecursionError) as e:
            raise self.fail(f"not JSON ({type(e).__name__}: {str(e)[:80]})") from None
        if not isinstance(item, dict):
            raise self.fail(f"expected a JSON object, got {checks.shown(item)}")
        if "record" in item:
            self._header(item)
        elif "end" in item:
            self._end(item)
        else:
            self._action(item)

    def _header(self, item: dict) -> None:
        if self.header is not None:
            raise self.fail("a new game's header before the last game's end line")
        if item.get("record") != FORMAT:
            raise self.fail(f"not a Skip-Bo game record (record {checks.shown(item['record'])}, "
                            f"expected {FORMAT!r})")
        if type(item.get("format")) is not int or item.get("format") != FORMAT_VERSION:
            raise self.fail(f"record format {checks.shown(item.get('format'))}: this version "
                            f"reads format {FORMAT_VERSION}")
        if set(item) != HEADER_KEYS:
            raise self.fail(f"the header's keys are {checks.shown_keys(set(item))}, expected "
                            f"{checks.shown_keys(HEADER_KEYS)}")
        try:
            rules = Rules.from_dict(item["rules"])
        except (TypeError, ValueError) as e:
            raise self.fail(f"bad rules: {e}") from None
        n = rules.num_players
        seed, first = item["seed"], item["first_player"]
        if not checks.is_integer(seed) or not 0 <= seed <= MAX_SEED:
            raise self.fail(f"seed must be an integer from 0 to 2**128 - 1, got "
                            f"{checks.shown(seed)}")
        if not checks.is_integer(first) or not 0 <= first < n:
            raise self.fail(f"first_player must be a seat from 0 to {n - 1}, got "
                            f"{checks.shown(first)}")
        players = item["players"]
        if not (isinstance(players, list) and len(players) == n and all(
                isinstance(p, str) and 0 < len(p) <= MAX_NAME and p.isprintable()
                for p in players)):
            raise self.fail(f"players must be {n} names (printable strings of 1 to {MAX_NAME} "
                            f"characters), got {checks.shown(players)}")
        scores = item["scores"]
        if scores is not None and not (isinstance(scores, list) and len(scores) == n and all(
                checks.is_integer(x) and 0 <= x <= MAX_SCORE for x in scores)):
            raise self.fail(f"scores must be null or {n} integers from 0 to {MAX_SCORE:,}, got "
                            f"{checks.shown(scores)}")
        if not isinstance(item["package"], str) or len(item["package"]) > MAX_NAME:
            raise self.fail(f"package must be a short string, got {checks.shown(item['package'])}")
        self.game = Game(rules, seed, first, scores)
        self.header, self.actions = item, []

    def _action(self, item: dict) -> None:
        if self.game is None:
            raise self.fail("an action before any game's header")
        if set(item) - {"seat", "action", "move"} or not {"seat", "action"} <= set(item):
            raise self.fail(f"an action line has the keys seat, action and move, got "
                            f"{checks.shown_keys(set(item))}")
        seat, action, game = item["seat"], item["action"], self.game
        if game.is_over:
            raise self.fail(f"an action after the game ended ({game.phase.value})")
        if not checks.is_integer(seat) or seat != game.current_player:
            raise self.fail(f"seat {checks.shown(seat)} cannot act: it is seat "
                            f"{game.current_player}'s turn")
        if not checks.is_integer(action) or action not in game.legal_actions():
            raise self.fail(f"action {checks.shown(action)} is not legal for seat {seat} here")
        if "move" in item and item["move"] != game.describe(action):
            raise self.fail(f"the move says {checks.shown(item['move'])} but action {action} is "
                            f"{game.describe(action)!r}")
        game.step(action)
        self.actions.append((seat, action))

    def _end(self, item: dict) -> None:
        if self.game is None or self.header is None:
            raise self.fail("an end line before any game's header")
        end = item["end"]
        if set(item) != {"end"} or not isinstance(end, dict) or set(end) != END_KEYS:
            raise self.fail(f"an end line is {{\"end\": {{{', '.join(sorted(END_KEYS))}}}}}, "
                            f"got {checks.shown(item)}")
        replayed = result_of(self.game)
        for key in sorted(END_KEYS):  # compared as JSON writes them: 86.0 is not 86
            if json.dumps(end[key]) != json.dumps(replayed[key]):
                raise self.fail(f"the record says {key} {checks.shown(end[key])}, but the "
                                f"replayed game gives {checks.shown(replayed[key])}")
        h = self.header
        self.games.append(GameRecord(
            self.game.rules, h["seed"], tuple(h["players"]), tuple(self.actions), replayed,
            h["first_player"], None if h["scores"] is None else tuple(h["scores"]),
            h["package"]))
        self.header = self.game = None

    def finish(self) -> list[GameRecord]:
        if self.header is not None:
            raise RecordError(f"{self.source}: the last game has no end line (the file is cut "
                              f"short?)")
        if not self.games:
            raise RecordError(f"{self.source} holds no game")
        return self.games


class _DuplicateKey(ValueError):
    pass


def _unique(pairs: list) -> dict:
    """A JSON object whose keys are each given once (json's `object_pairs_hook`)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def finished(record: GameRecord) -> bool:
    """Whether the recorded game ended (won or drawn), not stopped by the turn limit or left
    unfinished."""
    return record.result["phase"] in (Phase.WON.value, Phase.DRAWN.value)


# -- training data ------------------------------------------------------------------------------
DATA_KEYS = ("obs", "mask", "action", "reward", "done", "truncated", "seat", "game")


def training_data(records: Sequence[GameRecord], seat: int | None = None,
                  pile_depth: int = PILE_DEPTH) -> dict[str, np.ndarray]:
    """The decisions in `records` from the acting seat's view, as arrays for imitation or
    offline RL: ``obs`` (the observation the envs give, float32), ``mask`` (legal actions),
    ``action``, ``reward`` (the game's return for the seat on its last decision of the game,
    else 0), ``done`` (that last decision), ``truncated`` (that last decision, where the game
    did not end there: stopped at the turn limit or left unfinished, `finished`), ``seat``,
    ``game`` (the record's index). `seat`
    keeps one seat's decisions (None: every seat's). Every record must share one rules set."""
    if not records:
        raise ValueError("no records to turn into training data")
    rules = records[0].rules
    if any(r.rules != rules for r in records):
        raise ValueError("the records are of several rules sets; give one rules set's records "
                         "(each rules set has its own observation and action sizes)")
    if seat is not None:
        seat = checks.seat(seat, rules.num_players)
    encoder = ObservationEncoder(rules, pile_depth)
    out: dict[str, list] = {k: [] for k in DATA_KEYS}
    for index, record in enumerate(records):
        start = len(out["seat"])
        for game, who, action in record.positions():
            if seat is None or who == seat:
                out["obs"].append(encoder.encode(game, who))
                out["mask"].append(game.action_mask())
                out["action"].append(action)
                out["seat"].append(who)
        returns = record.result["returns"]
        seats = out["seat"][start:]
        last = {s: start + i for i, s in enumerate(seats)}
        out["reward"] += [0.0] * len(seats)
        out["done"] += [False] * len(seats)
        out["truncated"] += [False] * len(seats)
        out["game"] += [index] * len(seats)
        for s, i in last.items():
            out["reward"][i] = float(returns[s])
            out["done"][i] = True
            out["truncated"][i] = not finished(record)
    return {
        "obs": (np.stack(out["obs"]).astype(np.float32) if out["obs"]
                else np.zeros((0, encoder.size), np.float32)),
        "mask": (np.stack(out["mask"]) if out["mask"]
                 else np.zeros((0, encoder.spec.layout.size), np.int8)),
        "action": np.array(out["action"], dtype=np.int64),
        "reward": np.array(out["reward"], dtype=np.float32),
        "done": np.array(out["done"], dtype=np.bool_),
        "truncated": np.array(out["truncated"], dtype=np.bool_),
        "seat": np.array(out["seat"], dtype=np.int64),
        "game": np.array(out["game"], dtype=np.int64),
    }
