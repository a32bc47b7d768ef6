"""`skipbo serve`: Skip-Bo against bots in the browser (a Starlette app served by uvicorn).

The server keeps every game; the page only ever receives the human seat's view (the
`public_state` of `skipbo_env.apps.session`, built from that seat's `SeatView`: never other hands,
stock cards below the top or the draw order) and sends moves, which the server checks.

API (JSON):
- ``GET /``: the page.
- ``POST /api/games`` ``{"variant", "opponents": [names], "stock_size"?, "seed"?}``: a new
  table; answers ``{"id", "state"}``. The id is unguessable (128 random bits).
- ``GET /api/games/{id}``: ``{"id", "state"}``.
- ``POST /api/games/{id}/move`` ``{"action": n, "version": v}``: the human's move, then the
  bots' moves up to the human's next turn; answers ``{"state", "events": [{"seat", "text",
  "state"}, ...]}`` (each bot move with the table after it, for animation). ``version`` is
  the state's ``version`` (counted from a random start per table): a move made against an
  old state, or against another game's state, is refused (409).
- ``POST /api/games/{id}/undo`` ``{"version": v}``, ``POST /api/games/{id}/hint``,
  ``POST /api/games/{id}/next`` (the next game at the same table, scores kept).
Errors: 400 malformed JSON or fields, 404 unknown game, 409 not your turn / stale version /
game over, 413 request too large, 422 illegal move. A refused request changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import threading
from collections import OrderedDict
from typing import Any

from ... import checks
from ...players.registry import SCRIPTED, check_player, is_checkpoint
from ...rules import VARIANTS
from ..session import MAX_OPPONENTS, PlaySession

MAX_BODY = 4096  # bytes: every request the page sends is far smaller
MAX_TABLES = 200  # tables kept; the least recently used goes first
STATIC = os.path.join(os.path.dirname(__file__), "static")


class ApiError(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class Table:
    """A session behind an id, with a version that counts its changes, and a lock."""

    def __init__(self, session: PlaySession):
        self.session = session
        # Versions count the table's changes from a random start, so a state (and a move
        # chosen in it) from one table never carries a version another table has.
        self.version = secrets.randbelow(2**50)
        self.lock = asyncio.Lock()  # one request at a time per table

    def state(self) -> dict:
        state = self.session.public_state()
        state["version"] = self.version
        state["names"] = list(self.session.names)
        return state


class TableStore:
    """The games being played, by id."""

    def __init__(self, allowed_checkpoints: tuple[str, ...] = (), limit: int = MAX_TABLES):
        self._tables: OrderedDict[str, Table] = OrderedDict()
        self._lock = threading.Lock()
        self.allowed_checkpoints = allowed_checkpoints
        self.limit = limit

    def create(self, body: dict) -> tuple[str, Table]:
        variant = body.get("variant", "standard")
        if variant not in VARIANTS:
            raise ApiError(400, f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
        opponents = body.get("opponents", ["expert"])
        if not isinstance(opponents, list) or not 1 <= len(opponents) <= MAX_OPPONENTS:
            raise ApiError(400, f"opponents must be a list of 1 to {MAX_OPPONENTS} player names")
        for name in opponents:
            try:
                check_player(name, what="opponent", checkpoints=self.allowed_checkpoints,
                             exists=False)
            except ValueError as e:
                raise ApiError(400, str(e)) from None
        overrides: dict[str, Any] = {}
        stock = body.get("stock_size")
        if stock is not None:
            if not checks.is_integer(stock) or not 1 <= stock <= 50:
                raise ApiError(400, f"stock_size must be an integer from 1 to 50, got {stock!r}")
            overrides["stock_size"] = stock
        seed = body.get("seed")
        if seed is not None and (not checks.is_integer(seed) or seed < 0):
            raise ApiError(400, f"seed must be a non-negative integer, got {seed!r}")
        unknown = set(body) - {"variant", "opponents", "stock_size", "seed"}
        if unknown:
            raise ApiError(400, f"unknown field(s) {', '.join(sorted(unknown))}")
        try:
            session = PlaySession(variant, opponents, seed=seed, **overrides)
        except ValueError as e:
            raise ApiError(400, str(e)) from None
        table = Table(session)
        key = secrets.token_urlsafe(16)
        with self._lock:
            self._tables[key] = table
            while len(self._tables) > self.limit:
                self._tables.popitem(last=False)
        return key, table

    def get(self, key: str) -> Table:
        with self._lock:
            table = self._tables.get(key)
            if table is None:
                raise ApiError(404, "no such game (unknown or expired id)")
            self._tables.move_to_end(key)
            return table


def _version(body: dict, table: Table) -> None:
    version = body.get("version")
    if not checks.is_integer(version):
        raise ApiError(400, "version (an integer, the state's version) is required")
    if version != table.version:
        raise ApiError(409, f"the game has moved on (version {table.version}, not {version}); "
                            f"reload the state")


def _bots(table: Table) -> list[dict]:
    events = []
    for seat, bot_move in table.session.bot_moves():
        table.version += 1
        events.append({"seat": seat, **bot_move.to_dict(), "state": table.state()})
    return events


def move(table: Table, body: dict) -> dict:
    unknown = set(body) - {"action", "version"}
    if unknown:
        raise ApiError(400, f"unknown field(s) {', '.join(sorted(unknown))}")
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
    session.play(action)
    table.version += 1
    events = [{"seat": session.human, **played.to_dict(), "state": table.state()}]
    events += _bots(table)
    return {"state": table.state(), "events": events}


def undo(table: Table, body: dict) -> dict:
    _version(body, table)
    try:
        text = table.session.undo()
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    table.version += 1
    return {"state": table.state(), "undone": text}


def hint(table: Table) -> dict:
    try:
        return {"hint": table.session.hint().to_dict()}
    except ValueError as e:
        raise ApiError(409, str(e)) from None


def next_game(table: Table) -> dict:
    try:
        table.session.new_game()
    except ValueError as e:
        raise ApiError(409, str(e)) from None
    table.version += 1
    events = _bots(table)
    return {"state": table.state(), "events": events}


def create_app(checkpoints: tuple[str, ...] = (), limit: int = MAX_TABLES):
    """The Starlette app; `checkpoints` are the checkpoint paths the page may choose as
    opponents (besides the scripted players)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.requests import Request
    from starlette.responses import FileResponse, JSONResponse
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    tables = TableStore(tuple(checkpoints), limit)

    async def body_of(request: Request) -> dict:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise ApiError(413, f"request body over {MAX_BODY} bytes")
        raw = b""
        async for chunk in request.stream():
            raw += chunk
            if len(raw) > MAX_BODY:
                raise ApiError(413, f"request body over {MAX_BODY} bytes")
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ApiError(400, f"malformed JSON: {e}") from None
        if not isinstance(data, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return data

    def error(e: ApiError) -> JSONResponse:
        return JSONResponse({"error": e.message}, status_code=e.status)

    async def page(request: Request):
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def options(request: Request):
        return JSONResponse({"variants": list(VARIANTS), "players": list(SCRIPTED),
                             "checkpoints": list(checkpoints), "max_opponents": MAX_OPPONENTS})

    async def new(request: Request):
        try:
            body = await body_of(request)
            key, table = tables.create(body)
            async with table.lock:
                events = await run_in_threadpool(_bots, table)  # bots who start first
                return JSONResponse({"id": key, "state": table.state(), "events": events})
        except ApiError as e:
            return error(e)

    def handler(action):
        async def endpoint(request: Request):
            try:
                body = await body_of(request)
                table = tables.get(request.path_params["id"])
                async with table.lock:  # bots think in a worker thread, not the event loop
                    result = await run_in_threadpool(action, table, body)
                return JSONResponse(result)
            except ApiError as e:
                return error(e)
        return endpoint

    routes = [
        Route("/", page),
        Route("/api/options", options),
        Route("/api/games", new, methods=["POST"]),
        Route("/api/games/{id}", handler(lambda t, b: {"state": t.state()})),
        Route("/api/games/{id}/move", handler(move), methods=["POST"]),
        Route("/api/games/{id}/undo", handler(undo), methods=["POST"]),
        Route("/api/games/{id}/hint", handler(lambda t, b: hint(t)), methods=["POST"]),
        Route("/api/games/{id}/next", handler(lambda t, b: next_game(t)), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.tables = tables  # for tests and tools
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, checkpoints: tuple[str, ...] = ()) -> None:
    """Run the server until interrupted (prints the address first)."""
    import uvicorn

    for path in checkpoints:
        if not is_checkpoint(path) or not os.path.isfile(path):
            raise ValueError(f"checkpoint {path} does not exist")
    app = create_app(tuple(checkpoints))
    print(f"Skip-Bo at http://{host}:{port}/  (Ctrl+C stops the server)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
