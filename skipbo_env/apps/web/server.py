"""`skipbo serve`: Skip-Bo against bots in the browser (a Starlette app served by uvicorn).

The server keeps every game; the page only ever receives the human seat's view (the
`public_state` of `skipbo_env.apps.session`, built from that seat's `SeatView`: never other hands,
stock cards below the top or the draw order) and sends moves, which the server checks.

API (JSON):
- ``GET /``: the page.
- ``GET /api/options``: the variants, players and checkpoints a game may use.
- ``POST /api/games`` ``{"variant", "opponents": [names], "stock_size"?, "seed"?,
  "deck_style"?}``: a new
  table; answers ``{"id", "state", "events"}``. The id is unguessable (128 random bits).
- ``GET /api/games/{id}``: ``{"id", "state"}`` (the state after the last finished request).
- ``POST /api/games/{id}/move`` ``{"action": n, "version": v}``: the human's move, then the
  bots' moves up to the human's next turn; answers ``{"state", "events": [{"seat", "text",
  "state"}, ...]}`` (each bot move with the table after it, for animation). ``version`` is
  the state's ``version`` (counted from a random start per table): a move made against an
  old state, or against another game's state, is refused (409).
- ``POST /api/games/{id}/undo`` ``{"version": v}``, ``POST /api/games/{id}/hint``,
  ``POST /api/games/{id}/next`` (the next game at the same table, scores kept).
- ``GET /api/games/{id}/record``: the table's finished games as a game record file
  (docs/records.md), a download; never the game in play (a record holds the deal's seed, so
  every hidden card).
- ``POST /api/replay`` ``{"record": text, "game"?: n, "seat"?: s}``: a game record read and
  checked (`records.loads`; at most `MAX_REPLAY_BODY` bytes, a game of at most
  `MAX_REPLAY_MOVES` moves), answered with every position of game n (from 1) as seat s sees
  it: ``{"positions": [state, ...], "moves": [text, ...],
  "players", "result"}``. Nothing is kept.
Errors, always ``{"error": "..."}``: 400 malformed JSON or fields (or a Host header missing or
not one served), 403 a POST from another origin, 404 unknown game, 408 a body not sent in
time, 409 not your turn / stale version / game over, 413 request too large, 415 a POST that
is not ``application/json``, 422 illegal move, 500 a bot failed (the request is taken back
whole), 503 every table is in play. A refused request changes nothing.

Security model (docs/play.md, "The web server's safeguards"):
- Requests must name a served address in ``Host`` (stops DNS rebinding); POSTs must carry
  ``Content-Type: application/json`` and no foreign ``Origin`` (stops other sites' pages
  from driving the server: a cross-site form or a no-CORS fetch cannot send that type).
- Every response carries a strict Content-Security-Policy (the page has no inline script or
  style), ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY``,
  ``Referrer-Policy: no-referrer`` and ``Cross-Origin-Resource-Policy: same-origin``.
- Tables: at most `MAX_TABLES`, at most `MAX_PER_CLIENT` per client (`client_key`: an
  address, an IPv6 /64), dropped when untouched for `IDLE_SECONDS`. A client's next game
  past its share, or when every table is taken, replaces its own least recently used one;
  a newcomer to a full server gets the least recently used game untouched for
  `EVICT_IDLE_SECONDS`, else one of the client holding the most games (if more than one);
  only when every client holds one game, all in play, is it refused (503).
- Connections: at most `MAX_CONNECTIONS_PER_CLIENT` open at once per client (more are
  answered 503 and closed), so one client cannot hold uvicorn's `MAX_CONNECTIONS`.
- Bots think, and checkpoints load, in a small dedicated thread pool (`WORKERS`), never on
  the event loop; `lookahead` bots get a rollout budget per decision (`SEARCH_ROLLOUTS`).
  A move sequence in which a bot fails is undone whole (500).
- Connections: a request head must arrive within `HEAD_TIMEOUT` seconds and a body within
  `BODY_TIMEOUT` (408); idle keep-alive connections close after `KEEP_ALIVE` seconds; heads
  over `MAX_HEADER_BYTES` are refused (431) and more than `MAX_CONNECTIONS` at once by uvicorn
  (503); proxy headers (X-Forwarded-For) are ignored, so a client cannot pose as many.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import os
import re
import secrets
import socket
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ... import checks, records
from ...players.registry import SCRIPTED, SEARCH, checkpoint_file, is_value_file, parse_player
from ...rules import STALL_OUTCOMES, VARIANTS
from ...text import DECK_STYLES, check_deck_style
from ..session import (
    HOW_TO_PLAY,
    MAX_OPPONENTS,
    STRONGEST,
    STRONGEST_IN,
    PlaySession,
    public_state,
    result_text,
)

MAX_BODY = 4096  # bytes: every request the page sends is far smaller (but a replay)
MAX_REPLAY_BODY = 2 * 2**20  # bytes: a record to replay (a long game's is under 100 KiB)
MAX_REPLAY_MOVES = 2000  # moves of a game replayed in the page (its answer holds each position)
MAX_TABLES = 200  # tables kept in all
MAX_PER_CLIENT = 20  # tables kept per client address
IDLE_SECONDS = 3600.0  # a table untouched this long is dropped
EVICT_IDLE_SECONDS = 300.0  # when every table is in play, one untouched this long makes room
MAX_CONNECTIONS_PER_CLIENT = 16  # connections one client (`client_key`) holds open at once
BODY_TIMEOUT = 10.0  # seconds to send a request body
HEAD_TIMEOUT = 10.0  # seconds to send a request head (uvicorn has no such limit itself)
KEEP_ALIVE = 5  # seconds an idle keep-alive connection stays open
MAX_HEADER_BYTES = 16 * 1024  # a request head larger than this is refused
MAX_CONNECTIONS = 100  # connections and requests at once; more get 503 from uvicorn
WORKERS = 4  # threads for bots and checkpoint loading
SEARCH_ROLLOUTS = 64  # rollouts a `lookahead` bot may spend per decision
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
STATIC = os.path.join(os.path.dirname(__file__), "static")

CSP = ("default-src 'self'; img-src 'self' data:; object-src 'none'; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'self'")
SECURITY_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_HOST_NAME = re.compile(r"[a-z0-9_.-]+")
_PORT = re.compile(r"[0-9]{1,5}")

log = logging.getLogger(__name__)


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class BotFailed(Exception):
    """A bot raised while choosing its move."""

    def __init__(self, seat: int, name: str, error: BaseException):
        super().__init__(f"player {seat} ({name}) failed to move: {type(error).__name__}: "
                         f"{error}")


def client_key(host: str) -> str:
    """Who a request comes from, for the per-client limits. An IPv4 address is its own key
    (an IPv4 address mapped into IPv6 too); a global IPv6 address counts by its /64 network,
    since one host picks its addresses freely inside it (the loopback ::1 is its own).
    Anything else (a test client's name) is its own key, shortened."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return host[:100]
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        if not address.is_loopback:
            return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def to_json(data: Any) -> bytes:
    """`data` as JSON bytes, every non-ASCII character escaped (so a lone surrogate from a
    request, quoted back in an error message, cannot break the encoding)."""
    return json.dumps(data, ensure_ascii=True, separators=(",", ":")).encode("ascii")


# -- hosts and origins ----------------------------------------------------------------------------
def parse_host(text: str) -> tuple[str, int | None] | None:
    """``name[:port]`` (a Host header, or an allowed host) as (lower-case name, port or None);
    an IPv6 address in brackets; None if malformed."""
    text = text.strip().lower()
    port_text: str | None
    if text.startswith("["):
        name, sep, rest = text.partition("]")
        name += "]"
        try:
            ipaddress.IPv6Address(name[1:-1])
        except ValueError:
            return None
        if not sep or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else None
    else:
        name, sep, port_text = text.partition(":")
        if not sep:
            port_text = None
        if not _HOST_NAME.fullmatch(name):
            return None
    if port_text is None:
        return name, None
    if not _PORT.fullmatch(port_text) or not 0 < int(port_text) < 65536:
        return None
    return name, int(port_text)


def _is_ipv6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _bracket(name: str) -> str:
    return f"[{name}]" if ":" in name and not name.startswith("[") else name


def served_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """The ``Host`` values a server bound to `host`:`port` answers: that address, its
    loopback equivalents (``localhost``, ``127.0.0.1``, ``[::1]``) when it is a loopback or
    wildcard address, the machine's names when it is a wildcard address, and `extra`. Port 0
    (any free port) allows any port."""
    names = {_bracket(host)}
    wildcard = host in ("", "0.0.0.0", "::")
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        loopback = False
    if loopback or wildcard:
        names.update(LOOPBACK)
    if wildcard:  # the machine's own names, those that are valid host names
        names.update(n.lower() for n in (socket.gethostname(), socket.getfqdn())
                     if parse_host(n) is not None)
    names.discard("")
    return sorted(f"{n}:{port}" if port else n for n in names) + list(extra)


class Guard:
    """Pure ASGI middleware: refuses a request whose Host is not served (400), a POST from a
    foreign Origin (403) or not of type application/json (415); adds `SECURITY_HEADERS`
    (and ``Cache-Control: no-store`` under /api/) to every response."""

    state: Any = None  # the wrapped app's state (tests and tools reach the tables there)

    def __init__(self, app, allowed_hosts: Collection[str]):
        self.app = app
        self.allowed: set[tuple[str, int | None]] = set()
        for spec in allowed_hosts:
            parsed = parse_host(_bracket(spec) if _is_ipv6(spec) else spec)
            if parsed is None:
                raise ValueError(f"not a host[:port]: {spec!r}")
            self.allowed.add(parsed)

    def host_ok(self, host: tuple[str, int | None], scheme: str) -> bool:
        name, port = host
        default = 443 if scheme == "https" else 80
        return (name, None) in self.allowed or (name, port) in self.allowed or \
            (port is None and (name, default) in self.allowed)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        api = scope["path"].startswith("/api/")

        async def send_secure(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                headers += [(k, v) for k, v in SECURITY_HEADERS if k not in present]
                if api and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        refusal = self.refusal(scope)
        if refusal is not None:
            status, text = refusal
            body = to_json({"error": text})
            await send_secure({"type": "http.response.start", "status": status, "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode())]})
            await send_secure({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send_secure)

    def refusal(self, scope) -> tuple[int, str] | None:
        raw_headers = scope.get("headers", [])
        # h11 bounds only a head that arrives in pieces; a whole oversized head is refused here.
        if sum(len(k) + len(v) + 4 for k, v in raw_headers) > MAX_HEADER_BYTES:
            return 431, f"the request's headers are over {MAX_HEADER_BYTES} bytes"
        headers: dict[str, list[str]] = {}
        for k, v in raw_headers:
            headers.setdefault(k.decode("latin-1").lower(), []).append(v.decode("latin-1"))
        scheme = scope.get("scheme", "http")
        hosts = headers.get("host", [])
        if len(hosts) != 1:
            return 400, "the request needs exactly one Host header"
        host = parse_host(hosts[0])
        if host is None or not self.host_ok(host, scheme):
            return 400, (f"this server does not answer for host {hosts[0]!r} (a page reaching "
                         f"it under another name is refused; see skipbo serve --allow-host)")
        if scope["method"] in SAFE_METHODS:
            return None
        origins = headers.get("origin", [])
        if origins:
            origin = origins[0].strip().lower()
            o_scheme, sep, o_host = origin.partition("://")
            parsed = parse_host(o_host) if sep and o_scheme in ("http", "https") else None
            default = 443 if o_scheme == "https" else 80
            norm = None if parsed is None else (parsed[0], parsed[1] or default)
            own = (host[0], host[1] or (443 if scheme == "https" else 80))
            if len(origins) != 1 or o_scheme != scheme or norm != own:
                return 403, (f"cross-origin request refused: Origin {origins[0]!r} is not "
                             f"this server")
        types = headers.get("content-type", [])
        media = types[0].split(";", 1)[0].strip().lower() if len(types) == 1 else ""
        if media != "application/json":
            return 415, "a POST must have Content-Type: application/json"
        return None


# -- tables ----------------------------------------------------------------------------------------
class Table:
    """A session behind an id, with a version that counts its changes, a lock, the state
    after its last change (for readers while a move is under way), its client and when it
    was last touched."""

    def __init__(self, session: PlaySession, client: str = "local", now: float = 0.0):
        self.session = session
        # Versions count the table's changes from a random start, so a state (and a move
        # chosen in it) from one table never carries a version another table has.
        self.version = secrets.randbelow(2**50)
        self.lock = asyncio.Lock()  # one changing request at a time per table
        self.client, self.touched = client, now
        self.opening: list[dict] = []  # the bots' moves before the person's first turn
        self.published = self.state()

    def state(self) -> dict:
        state = self.session.public_state()
        state["version"] = self.version
        state["names"] = list(self.session.names)
        return state

    def publish(self) -> dict:
        self.published = self.state()
        return self.published


class TableStore:
    """The games being played, by id: at most `limit` in all and `per_client` per client; a
    game untouched for `idle` seconds (by `clock`) is dropped. Who makes room for a new game
    when there is none: `_room`."""

    def __init__(self, allowed_checkpoints: tuple[str, ...] = (), limit: int = MAX_TABLES,
                 per_client: int = MAX_PER_CLIENT, idle: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.monotonic,
                 search_rollouts: int | None = SEARCH_ROLLOUTS, stall_outcome: str | None = None,
                 evict_idle: float = EVICT_IDLE_SECONDS):
        self._tables: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self.allowed_checkpoints = allowed_checkpoints
        self.limit = checks.integer(limit, "limit", minimum=1)
        self.per_client = checks.integer(per_client, "per_client", minimum=1)
        if not idle > 0:
            raise ValueError(f"idle must be a positive number of seconds, got {idle!r}")
        self.idle, self.clock, self.search_rollouts = idle, clock, search_rollouts
        if not evict_idle > 0:
            raise ValueError(f"evict_idle must be a positive number of seconds, got "
                             f"{checks.shown(evict_idle)}")
        self.evict_idle = min(evict_idle, idle)
        if stall_outcome is not None:
            checks.one_of(stall_outcome, STALL_OUTCOMES, "stall_outcome")
        self.stall_outcome = stall_outcome  # every game's reading of a stall (None: default)

    def __len__(self) -> int:
        """The games in play (those not idle)."""
        with self._lock:
            self._sweep(self.clock())
            return len(self._tables)

    def _sweep(self, now: float) -> None:
        """Drop the games untouched for `idle` seconds (the lock is held)."""
        while self._tables:
            key, table = next(iter(self._tables.items()))
            if now - table.touched < self.idle:
                break
            del self._tables[key]

    def _room(self, client: str, now: float) -> str | None:
        """The game to drop to make room for a new one of `client` (the lock is held), None
        if there is room already; 503 if none may go. In turn: the client's own least
        recently used game (past its share, or when every table is taken: a client that has a
        game can always start its next); the least recently used game untouched for
        `evict_idle` seconds (the idle go first); the least recently used game of the client
        holding the most, if it holds more than one (nobody keeps others out; a person with
        one game keeps it). Only when every client holds one game, all in play, is a new
        client refused."""
        self._sweep(now)
        mine = [k for k, t in self._tables.items() if t.client == client]
        if len(mine) >= self.per_client:
            return mine[0]
        if len(self._tables) < self.limit:
            return None
        if mine:
            return mine[0]
        key, table = next(iter(self._tables.items()))  # the least recently used
        if now - table.touched >= self.evict_idle:
            return key
        held = Counter(t.client for t in self._tables.values())
        most, count = held.most_common(1)[0]
        if count > 1:
            return next(k for k, t in self._tables.items() if t.client == most)
        raise ApiError(503, f"the server is full ({self.limit} games in play, one each); try "
                            f"again later")

    def has_room(self, client: str) -> None:
        """Raise 503 if a new game of `client` could not be kept now (a cheap check before a
        game is built; nothing is dropped yet)."""
        with self._lock:
            self._room(client, self.clock())

    def build(self, body: dict) -> Table:
        """A new table from a POST /api/games body (not kept yet: see `add`); its bots' moves
        before the person's first turn are made (`Table.opening`)."""
        variant = body.get("variant", "standard")
        if variant not in VARIANTS:
            raise ApiError(400, f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
        opponents = body.get("opponents", ["expert"])
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= MAX_OPPONENTS:
            raise ApiError(400, f"opponents must be a list of 1 to {MAX_OPPONENTS} player names")
        for name in opponents:
            try:
                parse_player(name, what="opponent", checkpoints=self.allowed_checkpoints,
                             exists=False)
            except ValueError as e:
                raise ApiError(400, str(e)) from None
        overrides: dict[str, Any] = {}
        if self.stall_outcome is not None:
            overrides["stall_outcome"] = self.stall_outcome
        stock = body.get("stock_size")
        if stock is not None:
            if not checks.is_integer(stock) or not 1 <= stock <= 50:
                raise ApiError(400, f"stock_size must be an integer from 1 to 50, got {stock!r}")
            overrides["stock_size"] = stock
        seed = body.get("seed")
        if seed is not None and (not checks.is_integer(seed) or not 0 <= seed < 2**128):
            raise ApiError(400, f"seed must be an integer from 0 to 2**128 - 1, got {seed!r}")
        style = body.get("deck_style", "skipbo")
        try:
            check_deck_style(style)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        unknown = set(body) - {"variant", "opponents", "stock_size", "seed", "deck_style"}
        if unknown:
            raise ApiError(400, f"unknown field(s) {', '.join(map(repr, sorted(unknown)))}")
        try:
            # Every opponent is built now against these rules: a checkpoint is loaded and
            # refused here if its spaces do not fit, not at its first move.
            session = PlaySession(variant, opponents, seed=seed,
                                  search_rollouts=self.search_rollouts, deck_style=style,
                                  **overrides)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        table = Table(session)
        try:
            table.opening = _bots(table)  # bots who start first
        except BotFailed as e:
            raise ApiError(500, f"{e}; no game was made") from None
        table.publish()
        return table

    def add(self, table: Table, client: str = "local") -> str:
        """Keep `table` for `client`; its id."""
        key = secrets.token_urlsafe(16)
        with self._lock:
            now = self.clock()
            while (gone := self._room(client, now)) is not None:
                del self._tables[gone]
            table.client, table.touched = client, now
            self._tables[key] = table
        return key

    def create(self, body: dict, client: str = "local") -> tuple[str, Table]:
        """`build` and `add` at once (for tools and tests)."""
        self.has_room(client)
        table = self.build(body)
        return self.add(table, client), table

    def get(self, key: str) -> Table:
        with self._lock:
            now = self.clock()
            table = self._tables.get(key)
            if table is not None and now - table.touched >= self.idle:
                del self._tables[key]
                table = None
            if table is None:
                raise ApiError(404, "no such game (unknown or expired id)")
            table.touched = now
            self._tables.move_to_end(key)
            return table


# -- requests -------------------------------------------------------------------------------------
def _version(body: dict, table: Table) -> None:
    version = body.get("version")
    if not checks.is_integer(version):
        raise ApiError(400, "version (an integer, the state's version) is required")
    if version != table.version:
        raise ApiError(409, f"the game has moved on (version {table.version}, not {version}); "
                            f"reload the state")


def _bots(table: Table) -> list[dict]:
    """The bots' moves up to the person's turn, as events; BotFailed if one raises."""
    session = table.session
    events: list[dict] = []
    moves = session.bot_moves()
    while True:
        seat = session.game.current_player
        try:
            item = next(moves, None)
        except Exception as e:
            raise BotFailed(seat, session.names[seat], e) from e
        if item is None:
            return events
        seat, bot_move = item
        table.version += 1
        events.append({"seat": seat, **bot_move.to_dict(), "state": table.state()})


def atomic(action: Callable[[Table, dict], dict]) -> Callable[[Table, dict], dict]:
    """`action` made all or nothing: if it raises, the table is put back as it was (a bot
    that fails takes the person's move back with it), and the error is an ApiError."""
    def run(table: Table, body: dict) -> dict:
        before, version = table.session.snapshot(), table.version
        try:
            result = action(table, body)
        except ApiError:
            table.session.restore(before)
            table.version = version
            raise
        except BotFailed as e:
            table.session.restore(before)
            table.version = version
            raise ApiError(500, f"{e}; the request was taken back, the game is as it was "
                                f"before it") from None
        except Exception as e:
            log.exception("request failed")
            table.session.restore(before)
            table.version = version
            raise ApiError(500, f"internal error ({type(e).__name__}); the request was taken "
                                f"back, the game is as it was before it") from None
        table.publish()
        return result
    return run


def _fields(body: dict, allowed: set[str]) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(map(repr, sorted(unknown)))}")


@atomic
def move(table: Table, body: dict) -> dict:
    _fields(body, {"action", "version"})
    action = body.get("action")
    if not checks.is_integer(action):
        raise ApiError(400, "action (an integer, one of the state's moves) is required")
    _version(body, table)
    session = table.session
    if session.game.is_over:
        raise ApiError(409, "the game is over; start the next game")
    if not session.human_to_move:
        raise ApiError(409, "it is not your turn")
    played = next((m for m in session.legal_moves() if m.action == action), None)
    if played is None:
        raise ApiError(422, f"move {action} is not legal now")
    session.play(played.action)
    table.version += 1
    events = [{"seat": session.human, **played.to_dict(), "state": table.state()}]
    events += _bots(table)
    return {"state": table.state(), "events": events}


@atomic
def undo(table: Table, body: dict) -> dict:
    _fields(body, {"version"})
    _version(body, table)
    try:
        text = table.session.undo()
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    table.version += 1
    return {"state": table.state(), "undone": text}


def hint(table: Table, body: dict) -> dict:
    _fields(body, set())
    try:
        return {"hint": table.session.hint().to_dict()}
    except ValueError as e:
        raise ApiError(409, str(e)) from None


@atomic
def next_game(table: Table, body: dict) -> dict:
    _fields(body, set())
    try:
        table.session.new_game()
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    table.version += 1
    events = _bots(table)
    return {"state": table.state(), "events": events}


def replay_positions(body: dict) -> dict:
    """Every position of one game of a record as a seat sees it (``POST /api/replay``)."""
    _fields(body, {"record", "game", "seat"})
    text, number, seat = body.get("record"), body.get("game", 1), body.get("seat", 0)
    if not isinstance(text, str):
        raise ApiError(400, "record (the text of a game record file) is required")
    try:
        games = records.loads(text, "the record")
    except records.RecordError as e:
        raise ApiError(422, str(e)) from None
    if not checks.is_integer(number) or not 1 <= number <= len(games):
        raise ApiError(400, f"game must be from 1 to {len(games)}, got {checks.shown(number)}")
    record = games[number - 1]
    if len(record.actions) > MAX_REPLAY_MOVES:
        raise ApiError(413, f"game {number} has {len(record.actions):,} moves, over the "
                            f"{MAX_REPLAY_MOVES:,} the page replays: step through it with "
                            f"skipbo replay")
    n = record.rules.num_players
    if not checks.is_integer(seat) or not 0 <= seat < n:
        raise ApiError(400, f"seat must be from 0 to {n - 1}, got {checks.shown(seat)}")
    names = list(record.players)
    positions, moves = [], []
    game = record.deal()
    for k in range(len(record.actions) + 1):
        state = public_state(game.view(seat), names)
        state.update(moves=[], can_undo=False, result=result_text(game, names),
                     wins=[0] * n, points=list(game.scores), games=1, names=names,
                     version=0)
        positions.append(state)
        if k < len(record.actions):
            who, action = record.actions[k]
            moves.append(f"{names[who]}: {game.describe(action)}")
            game.step(action)
    return {"positions": positions, "moves": moves, "players": names,
            "result": result_text(game, names), "games": len(games)}


class Json(JSONResponse):
    """A JSON response written by `to_json` (non-ASCII escaped)."""

    def render(self, content: Any) -> bytes:
        return to_json(content)


def error_response(e: ApiError) -> JSONResponse:
    """An API error as its JSON answer."""
    return Json({"error": e.message}, status_code=e.status)


def guarded(endpoint: Callable[[Request], Awaitable[Response]]) -> Callable:
    """`endpoint` answering an `ApiError` with its status and any other error with 500."""
    async def run(request: Request) -> Response:
        try:
            return await endpoint(request)
        except ApiError as e:
            return error_response(e)
        except Exception as e:
            log.exception("request failed")
            return error_response(ApiError(500, f"internal error ({type(e).__name__})"))
    return run


async def _read(request: Request, limit: int = MAX_BODY) -> bytes:
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            raise ApiError(413, f"request body over {limit} bytes")
    return bytes(raw)


async def body_of(request: Request, timeout: float, limit: int = MAX_BODY) -> dict:
    """The request's JSON object body (empty: {}), read within `timeout` seconds and at most
    `limit` bytes, else an `ApiError` naming the problem."""
    length = request.headers.get("content-length")
    if length is not None and (not (length.isascii() and length.isdigit())
                               or int(length) > limit):
        raise ApiError(413, f"request body over {limit} bytes")
    try:
        raw = await asyncio.wait_for(_read(request, limit), timeout)
    except asyncio.TimeoutError:
        raise ApiError(408, f"the request body did not arrive within {timeout:g} "
                            f"seconds") from None
    except ClientDisconnect:
        raise ApiError(400, "the client went away while sending the body") from None
    if not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ApiError(400, f"malformed JSON: {e}") from None
    except RecursionError:
        raise ApiError(400, "malformed JSON: nested too deeply") from None
    except ValueError as e:  # e.g. an integer over Python's digit limit
        raise ApiError(400, f"malformed JSON: {e}") from None
    if not isinstance(data, dict):
        raise ApiError(400, "the request body must be a JSON object")
    return data


async def http_error(request: Request, exc: Exception) -> Response:
    """Starlette's own errors (404 of an unknown path, 405) as the API's JSON errors."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
    return Json({"error": detail}, status_code=status, headers=getattr(exc, "headers", None))


class Api:
    """The API's endpoints over one `TableStore`: the bots think in `pool`, never on the event
    loop; a request body must arrive within `body_timeout` seconds."""

    def __init__(self, tables: TableStore, pool: ThreadPoolExecutor, body_timeout: float,
                 checkpoints: tuple[str, ...], deck_style: str):
        self.tables, self.pool, self.body_timeout = tables, pool, body_timeout
        # A served value player is offered with the search around it too (lookahead:NAME).
        self.checkpoints = (*checkpoints, *(SEARCH + c for c in checkpoints
                                            if is_value_file(checkpoint_file(c))))
        self.deck_style = deck_style

    async def off_loop(self, fn: Callable, *args: Any) -> Any:
        """`fn(*args)` in the bots' pool, not on the event loop."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def page(self, request: Request) -> Response:
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def options(self, request: Request) -> Response:
        return Json({"variants": list(VARIANTS), "players": list(SCRIPTED),
                     "checkpoints": list(self.checkpoints), "max_opponents": MAX_OPPONENTS,
                     "deck_styles": list(DECK_STYLES), "deck_style": self.deck_style,
                     "strongest": STRONGEST,
                     "strongest_in": [e for e in STRONGEST_IN if e["name"] in self.checkpoints],
                     "how_to_play": list(HOW_TO_PLAY)})

    async def record(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])
        async with table.lock:  # not while a move is under way
            games = table.session.records(finished_only=True)
            if not games:
                raise ApiError(409, "no game has finished yet: a game in play is not given "
                                    "out (its record would show every hidden card)")
            text = await self.off_loop(records.dumps, games)
        return Response(text, media_type="application/x-ndjson",
                        headers={"content-disposition": 'attachment; filename="skipbo-game.jsonl"'})

    async def replay(self, request: Request) -> Response:
        body = await body_of(request, self.body_timeout, MAX_REPLAY_BODY)
        return Json(await self.off_loop(replay_positions, body))

    async def new(self, request: Request) -> Response:
        body = await body_of(request, self.body_timeout)
        client = client_key(request.client.host) if request.client else "unknown"
        self.tables.has_room(client)
        table = await self.off_loop(self.tables.build, body)  # loads checkpoints, plays bots
        key = self.tables.add(table, client)
        return Json({"id": key, "state": table.published, "events": table.opening})

    async def show(self, request: Request) -> Response:
        table = self.tables.get(request.path_params["id"])
        # The state after the last finished request: answered at once, even while a move
        # of this table is under way.
        return Json({"id": request.path_params["id"], "state": table.published})

    def handler(self, action: Callable[[Table, dict], dict]) -> Callable:
        """The endpoint running `action` on the table the path names, one request at a time
        per table, in the bots' pool."""
        async def endpoint(request: Request) -> Response:
            body = await body_of(request, self.body_timeout)
            table = self.tables.get(request.path_params["id"])
            async with table.lock:
                return Json(await self.off_loop(action, table, body))
        return guarded(endpoint)

    def routes(self) -> list:
        return [
            Route("/", self.page),
            Route("/api/options", self.options),
            Route("/api/games", guarded(self.new), methods=["POST"]),
            Route("/api/games/{id}", guarded(self.show)),
            Route("/api/games/{id}/move", self.handler(move), methods=["POST"]),
            Route("/api/games/{id}/undo", self.handler(undo), methods=["POST"]),
            Route("/api/games/{id}/hint", self.handler(hint), methods=["POST"]),
            Route("/api/games/{id}/next", self.handler(next_game), methods=["POST"]),
            Route("/api/games/{id}/record", guarded(self.record)),  # its own lock
            Route("/api/replay", guarded(self.replay), methods=["POST"]),
            Mount("/static", StaticFiles(directory=STATIC), name="static"),
        ]


def create_app(checkpoints: tuple[str, ...] = (), limit: int = MAX_TABLES, *,
               allowed_hosts: Collection[str] = LOOPBACK, per_client: int = MAX_PER_CLIENT,
               idle: float = IDLE_SECONDS, clock: Callable[[], float] = time.monotonic,
               body_timeout: float = BODY_TIMEOUT, workers: int = WORKERS,
               search_rollouts: int | None = SEARCH_ROLLOUTS, deck_style: str = "skipbo",
               stall_outcome: str | None = None) -> Guard:
    """The Starlette app (wrapped in `Guard`). `checkpoints` are the checkpoint paths the page
    may choose as opponents (besides the scripted players); `allowed_hosts` the ``Host``
    values answered, each ``name`` (any port) or ``name:port`` (default: the loopback names
    on any port; `serve` gives the address it binds; tests give ``testserver``); `limit`,
    `per_client`, `idle` and `clock` go to the `TableStore`; `body_timeout` bounds reading a
    body (408); `workers` threads run the bots; `search_rollouts` caps a `lookahead` bot's
    rollouts per decision (None: no cap); `deck_style` is the page's default way of naming
    the cards (`text.DECK_STYLES`; a game may ask for the other); `stall_outcome` how every
    game ends when nobody can finish it (`Rules.stall_outcome`; None: the rules' default)."""
    check_deck_style(deck_style)
    # The page lists the checkpoints as given (a shipped one by its name, never its installed
    # path); the store checks a request's choice against their files.
    files = tuple(checkpoint_file(c) for c in checkpoints)
    tables = TableStore(files, limit, per_client, idle, clock, search_rollouts, stall_outcome)
    pool = ThreadPoolExecutor(max_workers=checks.integer(workers, "workers", minimum=1),
                              thread_name_prefix="skipbo-bots")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        pool.shutdown(wait=False, cancel_futures=True)

    api = Api(tables, pool, body_timeout, checkpoints, deck_style)
    inner = Starlette(routes=api.routes(), exception_handlers={HTTPException: http_error},
                      lifespan=lifespan)
    inner.state.tables = tables  # for tests and tools
    inner.state.pool = pool
    app = Guard(inner, allowed_hosts)
    app.state = inner.state
    return app


_BUSY_BODY = b'{"error": "too many connections from your address at once"}'
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n"
        b"connection: close\r\ncontent-length: " + str(len(_BUSY_BODY)).encode() +
        b"\r\n\r\n" + _BUSY_BODY)


class ClientConnections:
    """Open connections by client (`client_key`), at most `per_client` each (one server's
    event loop uses it: no lock)."""

    def __init__(self, per_client: int):
        self.per_client = checks.integer(per_client, "per_client", minimum=1)
        self.open: dict[str, int] = {}

    def take(self, key: str) -> bool:
        """Count a new connection of `key`; False (not counted) if it has its share open."""
        if self.open.get(key, 0) >= self.per_client:
            return False
        self.open[key] = self.open.get(key, 0) + 1
        return True

    def give(self, key: str) -> None:
        """A counted connection of `key` closed."""
        left = self.open[key] - 1
        if left:
            self.open[key] = left
        else:
            del self.open[key]


def head_timeout_protocol(timeout: float = HEAD_TIMEOUT,
                          per_client: int = MAX_CONNECTIONS_PER_CLIENT):
    """uvicorn's h11 protocol, closing a connection whose request head has not fully arrived
    `timeout` seconds after it opened or after its last response (uvicorn times out only an
    idle keep-alive connection, not a slow or silent one), and answering 503 to, then
    closing, a connection past `per_client` open at once from one client (`client_key`):
    uvicorn's own limit counts every client together, so one could take it all."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    counted = ClientConnections(per_client)  # this server's connections

    class HeadTimeoutProtocol(H11Protocol):
        _head_timer: asyncio.TimerHandle | None = None
        _client: str | None = None  # the key counted for this connection

        def connection_made(self, transport):  # type: ignore[override]
            super().connection_made(transport)
            peer = transport.get_extra_info("peername")
            key = client_key(str(peer[0])) if peer else "unknown"
            if not counted.take(key):
                transport.write(BUSY)
                transport.close()
                return
            self._client = key
            self._arm()

        def data_received(self, data: bytes) -> None:
            if self._between_requests():
                self._arm()
            super().data_received(data)
            if not self._between_requests():
                self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._client is not None:
                counted.give(self._client)
                self._client = None
            super().connection_lost(exc)

        def _between_requests(self) -> bool:
            return self.cycle is None or self.cycle.response_complete

        def _arm(self) -> None:
            if self._head_timer is None:
                self._head_timer = self.loop.call_later(timeout, self._expire)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _expire(self) -> None:
            self._head_timer = None
            if self._between_requests() and not self.transport.is_closing():
                self.transport.close()

    return HeadTimeoutProtocol


def server_config(app, host: str = "127.0.0.1", port: int = 8000, *,
                  head_timeout: float = HEAD_TIMEOUT, keep_alive: int = KEEP_ALIVE,
                  max_connections: int = MAX_CONNECTIONS,
                  per_client: int = MAX_CONNECTIONS_PER_CLIENT):
    """The uvicorn configuration `serve` runs `app` with: the connection limits above."""
    import uvicorn

    return uvicorn.Config(app, host=host, port=port, log_level="warning",
                          http=head_timeout_protocol(head_timeout, per_client),
                          timeout_keep_alive=keep_alive,
                          h11_max_incomplete_event_size=MAX_HEADER_BYTES,
                          limit_concurrency=max_connections, timeout_graceful_shutdown=5,
                          # Clients are told apart by their address: never by a header they
                          # could forge (X-Forwarded-For), even from the loopback.
                          proxy_headers=False)


def serve(host: str = "127.0.0.1", port: int = 8000, checkpoints: tuple[str, ...] = (), *,
          max_games: int = MAX_TABLES, allow_hosts: tuple[str, ...] = (),
          deck_style: str = "skipbo", stall_outcome: str | None = None) -> None:
    """Run the server until interrupted (prints the address first). It answers only requests
    naming `host`:`port` (or its loopback equivalents, or `allow_hosts`) in their Host."""
    import uvicorn

    for path in checkpoints:  # a shipped checkpoint may be named: standard_2p
        if not os.path.isfile(checkpoint_file(path)):
            raise ValueError(f"checkpoint {path} does not exist")
    for spec in allow_hosts:
        if parse_host(_bracket(spec) if _is_ipv6(spec) else spec) is None:
            raise ValueError(f"--allow-host takes NAME or NAME:PORT, got {spec!r}")
    app = create_app(tuple(checkpoints), max_games,
                     allowed_hosts=served_hosts(host, port, allow_hosts), deck_style=deck_style,
                     stall_outcome=stall_outcome)
    shown = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "[::1]"}.get(host, _bracket(host))
    print(f"Skip-Bo at http://{shown}:{port}/  (Ctrl+C stops the server)", flush=True)
    uvicorn.Server(server_config(app, host, port)).run()
