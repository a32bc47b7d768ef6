"""The web server behind `skipbo serve`: every refused request gets a 4xx answer and leaves
the game as it was."""

import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient

from skipbo_env.apps.web.server import MAX_BODY, create_app

JSON = {"content-type": "application/json"}


def app_for_tests(**kw):
    """The app answering the TestClient's host (``testserver``)."""
    return create_app(allowed_hosts=("testserver",), **kw)


@pytest.fixture
def client():
    return TestClient(app_for_tests())


def _new(client, **body):
    body = {"variant": "short", "opponents": ["naive"], "stock_size": 3, "seed": 1, **body}
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["state"]


def _unchanged(client, gid, state):
    assert client.get(f"/api/games/{gid}").json()["state"] == state


def test_a_new_game_answers_with_an_unguessable_id_and_the_persons_view(client):
    gid, state = _new(client)
    other, _ = _new(client)
    assert gid != other and len(gid) >= 22  # 128 random bits, URL-safe
    assert state["seat"] == 0 and state["current_player"] == 0 and state["moves"]
    assert state["names"] == ["you", "naive"]
    assert all("hand" not in p for p in state["players"])


def _discarded(client):
    """A new table where the person has discarded: (id, state before, the discard, answer)."""
    gid, state = _new(client)
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    r = client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                    "version": state["version"]})
    return gid, state, discard, r


def test_a_legal_move_is_made_and_the_bots_answer(client):
    _, state, discard, r = _discarded(client)
    assert r.status_code == 200
    data = r.json()
    assert data["events"][0]["seat"] == 0 and data["events"][0]["text"] == discard["text"]
    assert all(e["seat"] == 1 for e in data["events"][1:]) and len(data["events"]) > 1
    assert data["state"]["version"] == state["version"] + len(data["events"])
    assert data["state"]["current_player"] == 0 or data["state"]["result"]


def test_malformed_json_is_refused_with_400(client):
    gid, state = _new(client)
    for body in (b"{not json", b"[1, 2]", b"\xff\xfe", b'"text"'):
        r = client.post(f"/api/games/{gid}/move", content=body, headers=JSON)
        assert r.status_code == 400 and "error" in r.json()
    for body in ({"action": "3", "version": 0}, {"action": 1.5, "version": 0},
                 {"action": 0}, {"action": 0, "version": 0, "extra": 1}):
        assert client.post(f"/api/games/{gid}/move", json=body).status_code == 400
    _unchanged(client, gid, state)


def test_a_bad_new_game_request_is_refused_with_400(client):
    for body in ({"variant": "chess"}, {"opponents": []}, {"opponents": ["wizard"]},
                 {"opponents": ["naive"] * 6}, {"stock_size": 0}, {"stock_size": "5"},
                 {"seed": -1}, {"colour": "red"}, {"variant": "partnership"}):
        r = client.post("/api/games", json=body)
        assert r.status_code == 400, body
        assert r.json()["error"]


def test_a_game_may_name_its_cards_as_the_playing_cards_that_stand_in_for_them(client):
    court = {1: "A", 11: "J", 12: "Q", 0: "K"}
    for seed in range(20):  # a deal whose hand holds an ace, a jack, a queen or a wild
        _, state = _new(client, variant="standard", deck_style="playing-cards", seed=seed)
        if any(c["rank"] in court for c in state["hand"]):
            break
    assert state["deck_style"] == "playing-cards"
    _, plain = _new(client, variant="standard", seed=seed)
    assert plain["deck_style"] == "skipbo"
    for card, same in zip(state["hand"], plain["hand"]):
        assert card["rank"] == same["rank"]
        assert card["name"] == court.get(card["rank"], str(card["rank"]))
    assert any(c["rank"] in court for c in state["hand"])
    assert not any("Skip-Bo" in m["text"] for m in state["moves"])
    if any(c["rank"] == 0 for c in plain["hand"]):
        assert any("Skip-Bo" in m["text"] for m in plain["moves"])
    for body in ({"deck_style": "tarot"}, {"deck_style": 1}, {"deck_style": None},
                 {"deck_style": "playing-cards", "variant": "masters"}):
        r = client.post("/api/games", json={"variant": "short", "opponents": ["naive"],
                                            **body})
        assert r.status_code == 400 and "deck" in r.json()["error"], body
    options = client.get("/api/options").json()
    assert options["deck_styles"] == ["skipbo", "playing-cards"]
    assert options["deck_style"] == "skipbo"


def test_the_page_lists_a_shipped_checkpoint_by_its_name_and_plays_it():
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    client = TestClient(app_for_tests(checkpoints=("standard_2p",)))
    assert client.get("/api/options").json()["checkpoints"] == ["standard_2p"]
    r = client.post("/api/games", json={"variant": "standard", "opponents": ["standard_2p"],
                                        "seed": 1})
    assert r.status_code == 200, r.text
    assert r.json()["state"]["names"] == ["you", "standard_2p"]


def test_an_unknown_game_id_is_refused_with_404(client):
    gid, _ = _new(client)
    for path in ("/api/games/nope", "/api/games/nope/move", "/api/games/" + gid[:-1] + "x"):
        r = client.post(path, json={"action": 0, "version": 0}) if path.endswith("move") \
            else client.get(path)
        assert r.status_code == 404


def test_a_move_out_of_turn_or_against_an_old_state_is_refused_with_409(client):
    gid, state = _new(client)
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                "version": state["version"]})
    now = client.get(f"/api/games/{gid}").json()["state"]
    r = client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                    "version": state["version"]})
    assert r.status_code == 409 and "moved on" in r.json()["error"]
    _unchanged(client, gid, now)


def test_a_move_chosen_in_another_games_state_is_refused_with_409(client):
    gid, state = _new(client, seed=1)
    other, other_state = _new(client, seed=1)  # the same deal, so the same moves
    move = other_state["moves"][0]
    r = client.post(f"/api/games/{gid}/move", json={"action": move["action"],
                                                    "version": other_state["version"]})
    assert r.status_code == 409
    _unchanged(client, gid, state)
    _unchanged(client, other, other_state)


def test_a_move_once_the_game_is_over_is_refused_with_409(client):
    gid, state = _new(client, stock_size=1)
    while not state["result"]:
        move = state["moves"][0]
        state = client.post(f"/api/games/{gid}/move", json={"action": move["action"],
                                                            "version": state["version"]}
                            ).json()["state"]
    r = client.post(f"/api/games/{gid}/move", json={"action": 0, "version": state["version"]})
    assert r.status_code == 409 and "over" in r.json()["error"]
    _unchanged(client, gid, state)
    r = client.post(f"/api/games/{gid}/next", json={})
    assert r.status_code == 200 and r.json()["state"]["games"] == 2


def test_an_illegal_move_is_refused_with_422(client):
    gid, state = _new(client)
    legal = {m["action"] for m in state["moves"]}
    illegal = next(a for a in range(500) if a not in legal)
    for action in (illegal, -1, 10**9):
        r = client.post(f"/api/games/{gid}/move", json={"action": action,
                                                        "version": state["version"]})
        assert r.status_code == 422 and "not legal" in r.json()["error"]
    _unchanged(client, gid, state)


def test_an_oversized_request_is_refused_with_413(client):
    gid, state = _new(client)
    big = json.dumps({"action": 0, "version": 0, "pad": "x" * MAX_BODY})
    r = client.post(f"/api/games/{gid}/move", content=big,
                    headers={"content-type": "application/json"})
    assert r.status_code == 413
    _unchanged(client, gid, state)


def test_undo_and_hint_answer_and_refuse_as_the_rules_say(client):
    gid, state = _new(client)
    r = client.post(f"/api/games/{gid}/undo", json={"version": state["version"]})
    assert r.status_code == 409 and "nothing to undo" in r.json()["error"]
    hint = client.post(f"/api/games/{gid}/hint", json={}).json()["hint"]
    assert hint["action"] in {m["action"] for m in state["moves"]}
    _unchanged(client, gid, state)


def test_several_games_run_at_once_apart(client):
    games = [_new(client, seed=s) for s in range(3)]
    gid, state = games[0]
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                "version": state["version"]})
    for other, other_state in games[1:]:
        _unchanged(client, other, other_state)


def test_the_page_and_its_scripts_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>Skip-Bo</title>" in page.text
    assert client.get("/static/app.js").status_code == 200
    options = client.get("/api/options").json()
    assert "expert" in options["players"] and "standard" in options["variants"]


def test_skipbo_serve_binds_localhost_prints_the_address_and_serves_the_page():
    import socket
    import subprocess
    import sys
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "skipbo_env.apps.cli", "serve", "--port",
                             str(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        line = proc.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                    assert r.status == 200 and b"Skip-Bo" in r.read()
                break
            except OSError:
                import time
                time.sleep(0.1)
        else:
            raise AssertionError("the server did not answer")
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("args, message", [
    (["--port", "70000"], "expected a port from 0 to 65535"),
    (["--checkpoint", "nowhere/missing.zip"], "checkpoint nowhere/missing.zip does not exist")])
def test_skipbo_serve_refuses_bad_arguments_naming_them(args, message):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-m", "skipbo_env.apps.cli", "serve", *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr


# -- what a state may hold ------------------------------------------------------------------------
PLAYER_KEYS = {"seat", "name", "stock_top", "stock_size", "hand_size", "discards", "team",
               "coins", "hand_stacks"}


def states_of(message):
    """Every table state in a server answer."""
    out = [message["state"]] if "state" in message else []
    out += [e["state"] for e in message.get("events", [])]
    return out


def _card_ids(hand):
    return sorted(c["id"] for x in hand for c in (x if isinstance(x, list) else [x]))


def assert_no_hidden_card(message, game=None):
    """No state in `message` holds a card the person's seat cannot see: of the other seats
    only public piles and sizes, no draw pile or stock below the top; and the hand sent is
    exactly the seat's hand in `game` (the server's game, when given)."""
    for state in states_of(message):
        for p in state["players"]:
            assert set(p) <= PLAYER_KEYS, set(p) - PLAYER_KEYS
        assert not {"draw_pile", "stocks", "hands", "set_aside", "rng"} & set(state)
    if game is not None and "state" in message:
        seat = message["state"]["seat"]
        hand = game.hands[seat]
        mine = [c for s in hand for c in s] if game.rules.stacked else list(hand)
        assert _card_ids(message["state"]["hand"]) == sorted(mine)


# -- cross-site requests ---------------------------------------------------------------------------
def test_a_request_naming_another_host_is_refused(client):
    """DNS rebinding: a page of evil.example whose name now points at 127.0.0.1 sends
    Host: evil.example. Only the served names are answered."""
    tables = client.app.state.tables
    for host in ("evil.example", "evil.example:8000", "testserver.evil.example", "", "a b"):
        for method, path in (("GET", "/"), ("GET", "/api/options"), ("POST", "/api/games")):
            r = client.request(method, path, headers={"host": host, **JSON}, content=b"{}")
            assert r.status_code == 400 and "host" in r.json()["error"].lower(), (host, path)
    assert len(tables) == 0
    # The default answers the loopback names (any port), not the TestClient's name.
    default = TestClient(create_app())
    assert default.get("/api/options").status_code == 400
    for host in ("127.0.0.1:8123", "localhost", "LOCALHOST:80", "[::1]:9000"):
        assert default.get("/api/options", headers={"host": host}).status_code == 200, host


def test_the_servers_stall_outcome_holds_for_every_game_it_makes():
    for given, played in ((None, "fewest_stock"), ("draw", "draw")):
        _, state = _new(TestClient(app_for_tests(stall_outcome=given)))
        assert state["stall_outcome"] == played
    for bad in ("nobody", ["draw"], 1):
        with pytest.raises(ValueError, match="stall_outcome must be 'draw' or 'fewest_stock'"):
            app_for_tests(stall_outcome=bad)


def test_serve_answers_its_own_address_and_its_loopback_names_only():
    from skipbo_env.apps.web.server import Guard, served_hosts

    guard = Guard(None, served_hosts("127.0.0.1", 8000))
    for host in ("127.0.0.1:8000", "localhost:8000", "[::1]:8000"):
        assert guard.host_ok(parse(host), "http"), host
    for host in ("127.0.0.1:8001", "localhost", "example.com:8000", "10.0.0.1:8000"):
        assert not guard.host_ok(parse(host), "http"), host
    lan = served_hosts("192.168.1.5", 8000, ["skipbo.lan"])
    assert "192.168.1.5:8000" in lan and "skipbo.lan" in lan and "localhost:8000" not in lan
    assert "[::1]:8080" in served_hosts("::1", 8080)


def parse(host):
    from skipbo_env.apps.web.server import parse_host

    parsed = parse_host(host)
    assert parsed is not None, host
    return parsed


def test_a_post_from_another_site_is_refused(client):
    body = {"variant": "short", "opponents": ["naive"]}
    for origin in ("http://evil.example", "null", "http://testserver:8080",
                   "https://testserver", "https://testserver:80", "http://testserver.evil.example",
                   "file://"):
        r = client.post("/api/games", json=body, headers={"origin": origin})
        assert r.status_code == 403 and "cross-origin" in r.json()["error"], origin
    assert len(client.app.state.tables) == 0
    gid, state = _new(client)
    r = client.post(f"/api/games/{gid}/move", headers={"origin": "http://evil.example"},
                    json={"action": state["moves"][0]["action"], "version": state["version"]})
    assert r.status_code == 403
    _unchanged(client, gid, state)
    # The page's own origin (and no Origin at all, as from curl) is fine.
    r = client.post("/api/games", json=body, headers={"origin": "http://testserver"})
    assert r.status_code == 200


def test_a_post_whose_origin_has_another_scheme_is_refused_even_on_the_same_port(client):
    body = {"variant": "short", "opponents": ["naive"]}
    r = client.post("/api/games", json=body, headers={"origin": "https://testserver:80"})
    assert r.status_code == 403 and len(client.app.state.tables) == 0


def test_a_post_with_two_origin_headers_is_refused_whatever_the_first_says(client):
    body = {"variant": "short", "opponents": ["naive"]}
    for pair in (["http://testserver", "http://evil.example"],
                 ["http://testserver", "http://testserver"]):
        r = client.post("/api/games", json=body,
                        headers=[("origin", pair[0]), ("origin", pair[1])])
        assert r.status_code == 403, pair
    assert len(client.app.state.tables) == 0


def test_a_post_that_is_not_json_is_refused_with_415(client):
    """A cross-site form or a no-CORS fetch can send text/plain, a form or multipart, never
    application/json: the server takes only the latter."""
    body = json.dumps({"variant": "short", "opponents": ["naive"]})
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                 "application/jsonp", None):
        headers = {} if kind is None else {"content-type": kind}
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["error"], kind
    assert len(client.app.state.tables) == 0
    r = client.post("/api/games", content=body,
                    headers={"content-type": "Application/JSON; charset=utf-8"})
    assert r.status_code == 200


def test_every_response_carries_the_security_headers(client):
    gid, _ = _new(client)
    answers = [client.get("/"), client.get("/static/app.js"), client.get("/static/style.css"),
               client.get("/api/options"), client.get(f"/api/games/{gid}"),
               client.get("/api/games/nope"), client.get("/static/missing.js"),
               client.get("/", headers={"host": "evil.example"}),
               client.post("/api/games", content=b"x"), client.get("/api/games")]
    assert [r.status_code for r in answers] == [200] * 5 + [404, 404, 400, 415, 405]
    for r in answers:
        h = r.headers
        assert "default-src 'self'" in h["content-security-policy"]
        assert "frame-ancestors 'none'" in h["content-security-policy"]
        assert "base-uri 'none'" in h["content-security-policy"]
        assert "unsafe-inline" not in h["content-security-policy"]
        assert h["x-content-type-options"] == "nosniff" and h["x-frame-options"] == "DENY"
        assert h["referrer-policy"] == "no-referrer"
    for r in answers[3:]:
        assert r.headers["content-type"].startswith("application/json")
        assert r.status_code == 200 or r.json()["error"]
    assert answers[3].headers["cache-control"] == "no-store"


def test_the_page_sends_json_on_every_post_and_has_no_inline_code():
    import re

    from skipbo_env.apps.web.server import STATIC

    with open(f"{STATIC}/app.js") as f:
        js = f.read()
    with open(f"{STATIC}/index.html") as f:
        html = f.read()
    # One fetch in the page, in api(), which sends every body as JSON with its type.
    assert js.count("fetch(") == 1 and "XMLHttpRequest" not in js and "sendBeacon" not in js
    api = js[js.index("async function api("):js.index("fetch(")]
    assert 'method: "POST"' in api and '"Content-Type": "application/json"' in api
    assert "JSON.stringify(body)" in api
    # Nothing the CSP would block: no inline script, style or handler in the page.
    assert re.findall(r"<script\b[^>]*>", html) == ['<script src="/static/app.js">']
    assert "<style" not in html and not re.search(r"\s(style|on\w+)=", html)
    assert "innerHTML" not in js and "eval(" not in js and "setAttribute(\"style" not in js


# -- one client cannot wipe the others -------------------------------------------------------------
def _clients(app, *hosts):
    return [TestClient(app, client=(h, 5000)) for h in hosts]


def _gone(client, gid):
    return client.get(f"/api/games/{gid}").status_code == 404


def test_one_client_cannot_evict_another_clients_games():
    app = app_for_tests(limit=10, per_client=3)
    alice, mallory = _clients(app, "10.0.0.1", "10.0.0.2")
    mine, _ = _new(alice)
    theirs = [_new(mallory, seed=s)[0] for s in range(50)]
    assert not _gone(alice, mine)  # however many games another client makes
    # A client's games beyond its share replace its own least recently used ones.
    assert [_gone(mallory, g) for g in theirs] == [True] * 47 + [False] * 3
    assert len(app.state.tables) == 4


def test_when_every_client_holds_one_game_in_play_a_newcomer_is_refused_with_503():
    app = app_for_tests(limit=3, per_client=2)
    a, b, c, d = _clients(app, "10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4")
    kept = [_new(a)[0], _new(b)[0], _new(c)[0]]
    r = d.post("/api/games", json={"variant": "short", "opponents": ["naive"]})
    assert r.status_code == 503 and "full" in r.json()["error"]
    assert not any(_gone(x, g) for x, g in zip((a, b, c), kept))


def test_a_client_that_has_a_game_can_start_its_next_when_every_table_is_taken():
    app = app_for_tests(limit=3, per_client=2)
    a, b, c = _clients(app, "10.0.0.1", "10.0.0.2", "10.0.0.3")
    kept = [_new(a)[0], _new(b)[0], _new(c)[0]]
    newest, _ = _new(a)  # its own game makes room, nobody else's
    assert _gone(a, kept[0]) and not _gone(b, kept[1]) and not _gone(c, kept[2])
    assert not _gone(a, newest)


def test_a_client_holding_several_games_gives_one_up_to_a_newcomer_when_full():
    app = app_for_tests(limit=3, per_client=2)
    a, b, c = _clients(app, "10.0.0.1", "10.0.0.2", "10.0.0.3")
    first, second, other = _new(a)[0], _new(a)[0], _new(b)[0]
    assert _new(c)[0]  # a held two: its least recently used one went
    assert _gone(a, first) and not _gone(a, second) and not _gone(b, other)


def test_ten_addresses_cannot_keep_everyone_else_out():
    """Ten addresses of one host fill every table; a newcomer still gets a game, and a person
    playing one game keeps it."""
    app = app_for_tests(limit=20, per_client=2)
    hosts = _clients(app, *(f"127.0.0.{i}" for i in range(2, 12)))
    held = [(h, _new(h, seed=s)[0]) for h in hosts for s in range(2)]
    assert len(app.state.tables) == 20
    alice, bob = _clients(app, "10.0.0.1", "10.0.0.2")
    mine, _ = _new(alice)
    assert _new(bob)[0]
    assert not _gone(alice, mine)
    assert sum(_gone(h, g) for h, g in held) == 2  # one game each from two of the ten


def test_an_idle_game_makes_room_before_anyone_active_is_refused():
    now = [1000.0]
    app = app_for_tests(limit=2, idle=3600.0, clock=lambda: now[0])
    a, b, c = _clients(app, "10.0.0.1", "10.0.0.2", "10.0.0.3")
    old, _ = _new(a)
    now[0] += 10
    active, _ = _new(b)
    now[0] += 295  # a's game 305 s untouched, past EVICT_IDLE_SECONDS (300); b's 295 s
    assert _new(c)[0]
    assert _gone(a, old) and not _gone(b, active)
    d, = _clients(app, "10.0.0.4")
    r = d.post("/api/games", json={"variant": "short", "opponents": ["naive"]})
    assert r.status_code == 503  # b and c each hold one game, in play


@pytest.mark.parametrize("host,key", [
    ("10.1.2.3", "10.1.2.3"), ("127.0.0.5", "127.0.0.5"), ("::1", "::1"),
    ("::ffff:10.1.2.3", "10.1.2.3"), ("2001:db8:1:2:aaaa::1", "2001:db8:1:2::/64"),
    ("2001:db8:1:2:bbbb::9", "2001:db8:1:2::/64"), ("testclient", "testclient")])
def test_a_client_is_an_address_or_an_ipv6_host_network(host, key):
    from skipbo_env.apps.web.server import client_key

    assert client_key(host) == key


def test_a_game_untouched_for_the_idle_age_is_dropped():
    now = [1000.0]
    app = app_for_tests(limit=2, idle=60.0, clock=lambda: now[0])
    a, b = _clients(app, "10.0.0.1", "10.0.0.2")
    kept, state = _new(a)
    idle, _ = _new(b)
    now[0] += 59
    assert a.get(f"/api/games/{kept}").status_code == 200  # touched: kept alive
    c, = _clients(app, "10.0.0.3")
    r = c.post("/api/games", json={"variant": "short", "opponents": ["naive"]})
    assert r.status_code == 503  # both games still in play, one each
    now[0] += 2  # b's game is 61 s untouched, a's 2 s
    assert _new(c)[0]  # the idle game was dropped
    assert _gone(b, idle) and not _gone(a, kept)
    now[0] += 60
    assert _gone(a, kept)
    assert len(app.state.tables) == 0


# -- a bot that fails -----------------------------------------------------------------------------
def test_an_opponent_that_does_not_fit_the_games_rules_is_refused_when_the_game_is_made():
    """A checkpoint trained for two players offered a seat of a three-player game: refused
    at creation (its spaces are checked then), not at its first move."""
    ckpt = "checkpoints/short_2p.zip"
    client = TestClient(app_for_tests(checkpoints=(ckpt,)))
    r = client.post("/api/games", json={"variant": "short", "opponents": [ckpt, "naive"]})
    assert r.status_code == 400, r.text
    try:
        import torch  # noqa: F401
    except ImportError:  # without the train extra no checkpoint loads at all
        assert "train extra" in r.json()["error"]
    else:
        assert ckpt in r.json()["error"]  # its spaces do not fit three players
    assert len(client.app.state.tables) == 0


def test_a_bot_that_fails_takes_the_persons_move_back(client, monkeypatch):
    from skipbo_env.players.scripted import NaiveAgent

    gid, state = _new(client)
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    session = client.app.state.tables.get(gid).session
    log = list(session.log)

    def broken(self, game):
        raise RuntimeError("the bot broke")
    monkeypatch.setattr(NaiveAgent, "act", broken)
    body = {"action": discard["action"], "version": state["version"]}
    r = client.post(f"/api/games/{gid}/move", json=body)
    assert r.status_code == 500
    assert "player 1 (naive) failed" in r.json()["error"] and "taken back" in r.json()["error"]
    _unchanged(client, gid, state)  # the person's move too
    assert session.log == log and session.human_to_move
    monkeypatch.undo()
    r = client.post(f"/api/games/{gid}/move", json=body)  # the same move now goes through
    assert r.status_code == 200 and len(r.json()["events"]) > 1


def test_a_session_snapshot_restores_the_game_scores_log_and_generators():
    from skipbo_env.apps.session import PlaySession

    session = PlaySession("short", ["random", "naive"], seed=4, stock_size=1)
    snap = session.snapshot()
    before = (session.public_state(), list(session.log), session.match.rng.random())
    session.restore(snap)
    while session.games < 3:  # play on, across games
        if session.game.is_over:
            session.new_game()
        elif session.human_to_move:
            session.play(session.legal_moves()[-1].action)
        else:
            session.play_bots()
    session.restore(snap)
    assert (session.public_state(), list(session.log), session.match.rng.random()) == before
    assert session.games == 1 and session.wins == [0, 0, 0]


# -- load and timeouts -----------------------------------------------------------------------------
class running:
    """`app` served by uvicorn (with `serve`'s settings) on a free loopback port."""

    def __init__(self, app, **config):
        self.app, self.config = app, config

    def __enter__(self):
        import socket
        import threading
        import time

        import uvicorn

        from skipbo_env.apps.web.server import server_config

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.server = uvicorn.Server(server_config(self.app, "127.0.0.1", self.port,
                                                   **self.config))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.server.started:
                break
            time.sleep(0.05)
        return f"http://127.0.0.1:{self.port}"

    def __exit__(self, *exc):
        self.server.should_exit = True
        self.thread.join(timeout=10)


def test_cheap_requests_are_answered_while_bots_think(monkeypatch):
    """Three moves against search bots are under way (their bots held mid-thought); the
    options, and the state of a table whose move is under way, are answered meanwhile. The
    bots think in the app's own pool, not on the event loop."""
    import threading

    import httpx2 as httpx

    from skipbo_env.players.lookahead import LookaheadAgent

    gate, thinking, where = threading.Event(), threading.Semaphore(0), set()
    act = LookaheadAgent.act

    def held(self, game):
        where.add(threading.current_thread().name)
        thinking.release()
        assert gate.wait(60)
        return act(self, game)
    monkeypatch.setattr(LookaheadAgent, "act", held)
    app = create_app(workers=2)
    with running(app) as url, httpx.Client(base_url=url, timeout=60) as http:
        games = []
        for seed in range(3):
            r = http.post("/api/games", json={"variant": "short", "stock_size": 3, "seed": seed,
                                              "opponents": ["lookahead", "lookahead"]})
            games.append((r.json()["id"], r.json()["state"]))
        answers = {}

        def move(gid, state):
            discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
            answers[gid] = http.post(f"/api/games/{gid}/move", json={
                "action": discard["action"], "version": state["version"]})
        movers = [threading.Thread(target=move, args=g) for g in games]
        for t in movers:
            t.start()
        try:
            for _ in range(2):  # both workers hold a thinking bot
                assert thinking.acquire(timeout=30)
            for _ in range(3):
                assert http.get("/api/options", timeout=5).status_code == 200
                for gid, state in games:
                    r = http.get(f"/api/games/{gid}", timeout=5)
                    assert r.json()["state"] == state  # the last finished state
            assert not answers  # every move was still under way
        finally:
            gate.set()
            for t in movers:
                t.join(timeout=60)
    assert sorted(answers) == sorted(g for g, _ in games)
    assert all(r.status_code == 200 and len(r.json()["events"]) > 1 for r in answers.values())
    assert where and all(name.startswith("skipbo-bots") for name in where)


def test_a_search_bot_in_the_server_thinks_within_its_rollout_budget(monkeypatch):
    from skipbo_env.apps.session import PlaySession
    from skipbo_env.apps.web.server import SEARCH_ROLLOUTS
    from skipbo_env.players.lookahead import LookaheadAgent

    assert LookaheadAgent(0).rollouts is None  # lookahead's own play is unchanged
    counts, rollout = [], LookaheadAgent._rollout

    def counted(self, game, view):
        counts[-1] += 1
        return rollout(self, game, view)
    choose = LookaheadAgent.choose

    def one_decision(self, view):
        counts.append(0)
        return choose(self, view)
    monkeypatch.setattr(LookaheadAgent, "_rollout", counted)
    monkeypatch.setattr(LookaheadAgent, "choose", one_decision)

    def play(budget):
        session = PlaySession("masters", ["lookahead"] * 2, seed=5, stock_size=4,
                              search_rollouts=budget)
        for _ in range(6):
            if session.game.is_over:
                break
            session.play(session.legal_moves()[-1].action)
            session.play_bots()
        return session.log
    counts.clear()
    log = play(SEARCH_ROLLOUTS)
    assert max(counts) <= SEARCH_ROLLOUTS and sum(c > 0 for c in counts) > 3
    assert play(SEARCH_ROLLOUTS) == log  # a rollout budget keeps play a function of the seed
    with pytest.raises(ValueError):
        LookaheadAgent(0, rollouts=1)


def test_a_body_that_does_not_arrive_in_time_is_answered_408():
    import asyncio

    app = app_for_tests(body_timeout=0.2)
    sent = []

    async def main():
        chunks = [{"type": "http.request", "body": b'{"variant": "sh', "more_body": True}]

        async def receive():
            if chunks:
                return chunks.pop()
            await asyncio.sleep(60)  # the rest never comes

        async def send(message):
            sent.append(message)
        scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
                 "method": "POST", "scheme": "http", "path": "/api/games",
                 "raw_path": b"/api/games", "query_string": b"", "root_path": "",
                 "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                             (b"content-length", b"40")],
                 "client": ("10.0.0.1", 5000), "server": ("testserver", 80)}
        await asyncio.wait_for(app(scope, receive, send), 10)
    asyncio.run(main())
    assert sent[0]["status"] == 408
    assert "did not arrive" in json.loads(sent[1]["body"])["error"]
    assert len(app.state.tables) == 0


def test_a_silent_or_slow_connection_is_closed():
    import socket
    import time

    from skipbo_env.apps.web.server import (
        KEEP_ALIVE,
        MAX_CONNECTIONS,
        MAX_HEADER_BYTES,
        server_config,
    )

    config = server_config(create_app())
    assert (config.timeout_keep_alive, config.limit_concurrency,
            config.h11_max_incomplete_event_size) == (KEEP_ALIVE, MAX_CONNECTIONS,
                                                      MAX_HEADER_BYTES)

    def closed_after(sock, sent):
        """Seconds until the server closes `sock` after `sent`, and what it answered."""
        sock.settimeout(10)
        start = time.monotonic()
        sock.sendall(sent)
        data = b""
        while chunk := sock.recv(4096):  # a timeout here fails the test
            data += chunk
        return time.monotonic() - start, data

    with running(create_app(), head_timeout=0.5, keep_alive=1) as url:
        port = int(url.rsplit(":", 1)[1])
        for sent in (b"", b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "):
            with socket.create_connection(("127.0.0.1", port)) as sock:
                took, data = closed_after(sock, sent)
                assert data == b"" and took < 5, sent
        # After an answer an idle keep-alive connection closes too.
        with socket.create_connection(("127.0.0.1", port)) as sock:
            took, data = closed_after(sock, b"GET /api/options HTTP/1.1\r\n"
                                            b"Host: 127.0.0.1\r\n\r\n")
            assert data.startswith(b"HTTP/1.1 200") and took < 5
        with socket.create_connection(("127.0.0.1", port)) as big:
            big.settimeout(10)
            # A head growing past the limit is refused before it is complete.
            big.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " +
                        b"x" * (MAX_HEADER_BYTES + 100))
            assert big.recv(4096).startswith(b"HTTP/1.1 4")


# -- no 500 from odd bodies -----------------------------------------------------------------------
def test_deeply_nested_json_or_a_lone_surrogate_is_refused_with_400(client):
    gid, state = _new(client)
    paths = ["/api/games"] + [f"/api/games/{gid}/{a}" for a in ("move", "undo", "hint", "next")]
    bodies = [b"[" * 3000, b'{"a":' * 600 + b"1" + b"}" * 600, b'{"\\ud800": 1}',
              b'{"\\udfff\\ud800x": [1], "version": 0}', b'{"variant": "\\ud800"}',
              b'{"opponents": ["\\udc00"]}']
    for path in paths:
        for body in bodies:
            r = client.post(path, content=body, headers=JSON)
            assert r.status_code == 400, (path, body[:20], r.text)
            assert r.json()["error"]
        r = client.post(path, content=b"[" * 100000, headers=JSON)
        assert r.status_code == 413
    _unchanged(client, gid, state)


def test_a_request_head_over_the_header_limit_is_refused_with_431(client):
    from skipbo_env.apps.web.server import MAX_HEADER_BYTES

    r = client.get("/api/options", headers={"X-Padding": "a" * (MAX_HEADER_BYTES + 1)})
    assert r.status_code == 431 and "headers are over" in r.json()["error"]


def test_a_client_cannot_pose_as_others_through_proxy_headers():
    from skipbo_env.apps.web.server import server_config

    assert server_config(app_for_tests()).proxy_headers is False


def test_one_client_cannot_hold_every_connection():
    import socket
    import time

    from skipbo_env.apps.web.server import MAX_CONNECTIONS_PER_CLIENT, server_config

    assert 1 < MAX_CONNECTIONS_PER_CLIENT < server_config(create_app()).limit_concurrency
    get = b"GET /api/options HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    def answer(sock) -> bytes:
        sock.settimeout(10)
        data = b""
        while chunk := sock.recv(4096):
            data += chunk
        return data

    with running(create_app(), per_client=3, head_timeout=30) as url:
        port = int(url.rsplit(":", 1)[1])

        def connect(source: str):
            return socket.create_connection(("127.0.0.1", port), source_address=(source, 0))

        idle = [connect("127.0.0.2") for _ in range(3)]  # held open, silent
        time.sleep(0.2)
        with connect("127.0.0.2") as extra:
            busy = answer(extra)
        assert busy.startswith(b"HTTP/1.1 503") and b"too many connections" in busy
        with connect("127.0.0.3") as other:  # another client is served meanwhile
            other.sendall(get)
            assert answer(other).startswith(b"HTTP/1.1 200")
        for sock in idle:
            sock.close()
        time.sleep(0.2)
        with connect("127.0.0.2") as again:  # closed connections are given back
            again.sendall(get)
            assert answer(again).startswith(b"HTTP/1.1 200")


# -- a first hour without stumbling (issue 37) ---------------------------------------------------
def test_the_test_client_runs_on_httpx2_as_starlette_asks_without_a_warning():
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-W", "error", "-c",
                             "import starlette.testclient"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_options_explain_the_game_and_name_the_strongest_bot(client):
    options = client.get("/api/options").json()
    assert any(line.startswith("Goal:") for line in options["how_to_play"])
    assert options["strongest"]["name"] in options["players"]
    assert "against expert" in options["strongest"]["said"]
    assert options["strongest_in"] == []  # no value player served


def test_the_options_name_the_search_around_a_served_value_player_the_strongest_of_its_setting():
    options = TestClient(app_for_tests(checkpoints=("value_short_2p",))).get(
        "/api/options").json()
    [entry] = options["strongest_in"]
    assert entry["name"] == "lookahead:value_short_2p" and entry["name"] in options["checkpoints"]
    assert (entry["variant"], entry["num_players"], entry["stock_size"]) == ("short", 2, 10)
    assert "against expert" in entry["said"] and "short game" in entry["setting"]


def test_skipbo_serve_offers_every_shipped_checkpoint_by_default():
    from skipbo_env.apps.cli import served_checkpoints
    from skipbo_env.players.registry import SHIPPED, SHIPPED_VALUE

    offered = served_checkpoints()
    assert set(SHIPPED_VALUE) <= set(offered)
    assert set(SHIPPED) <= set(offered)  # the train extra is installed here
    options = TestClient(app_for_tests(checkpoints=tuple(offered))).get("/api/options").json()
    assert options["checkpoints"] == [*offered, *(f"lookahead:{c}" for c in SHIPPED_VALUE)]


def test_a_served_value_player_is_offered_with_its_search_and_plays_with_it():
    client = TestClient(app_for_tests(checkpoints=("value_short_2p",)))
    assert client.get("/api/options").json()["checkpoints"] == [
        "value_short_2p", "lookahead:value_short_2p"]
    gid, state = _new(client, opponents=["lookahead:value_short_2p"])
    assert state["names"] == ["you", "lookahead:value_short_2p"]
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    r = client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                    "version": state["version"]})
    assert r.status_code == 200, r.text
    assert [e["seat"] for e in r.json()["events"][1:]][:1] == [1]  # the search bot moved


def test_the_search_around_a_value_player_that_is_not_served_is_refused():
    client = TestClient(app_for_tests(checkpoints=("value_short_2p",)))
    r = client.post("/api/games", json={"variant": "short", "seed": 1,
                                        "opponents": ["lookahead:value_standard_2p"]})
    assert r.status_code == 400 and "lookahead:value_standard_2p" in r.json()["error"]


def _played(client):
    gid, _, _, r = _discarded(client)
    assert r.status_code == 200
    return gid


def _finished(client):
    """A table whose first game is over (stock 1 against naive, the first move each turn
    that plays a card, else a discard)."""
    gid, state = _new(client, stock_size=1)
    while not state["result"]:
        move = next((m for m in state["moves"] if m["target"]["zone"] == "building"), None) \
            or state["moves"][0]
        r = client.post(f"/api/games/{gid}/move", json={"action": move["action"],
                                                        "version": state["version"]})
        assert r.status_code == 200, r.text
        state = r.json()["state"]
    return gid, state


def test_the_finished_games_download_as_a_record_that_replays(client):
    from skipbo_env.records import loads

    gid, _ = _new(client, opponents=["greedy"])
    assert client.get(f"/api/games/{gid}/record").status_code == 409  # nothing played yet
    gid = _played(client)
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 409 and "hidden card" in r.json()["error"]  # a game in play
    gid, state = _finished(client)
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    (record,) = loads(r.text)
    assert record.players == ("you", "naive") and record.actions[0][0] == 0
    assert record.replay().turn == state["turn"] and record.result["phase"] != "play"
    assert client.post(f"/api/games/{gid}/next", json={}).status_code == 200
    (again,) = loads(client.get(f"/api/games/{gid}/record").text)  # the new game: not given
    assert again == record
    assert client.get("/api/games/nope/record").status_code == 404


def test_a_record_replays_as_positions_from_the_seats_view(client):
    gid, _ = _finished(client)
    text = client.get(f"/api/games/{gid}/record").text
    r = client.post("/api/replay", json={"record": text})
    assert r.status_code == 200, r.text
    data = r.json()
    assert len(data["positions"]) == len(data["moves"]) + 1 and data["moves"][0].startswith("you:")
    assert all(p["seat"] == 0 and p["moves"] == [] for p in data["positions"])
    assert all("hand" not in p for s in data["positions"] for p in s["players"])
    other = client.post("/api/replay", json={"record": text, "seat": 1}).json()
    assert other["positions"][0]["hand"] != data["positions"][0]["hand"]


def test_a_replay_of_a_tampered_or_oversized_record_is_refused_naming_the_problem(client):
    from skipbo_env.apps.web.server import MAX_REPLAY_BODY

    gid, _ = _finished(client)
    lines = client.get(f"/api/games/{gid}/record").text.splitlines()
    lines[1] = lines[1].replace('"seat": 0', '"seat": 1')
    r = client.post("/api/replay", json={"record": "\n".join(lines)})
    assert r.status_code == 422 and "line 2" in r.json()["error"]
    r = client.post("/api/replay", json={"record": "x" * (MAX_REPLAY_BODY + 10)})
    assert r.status_code == 413
    for body, needle in (({"record": 5}, "record"), ({"record": "\n".join(lines), "seat": 9},
                                                     "seat"), ({"record": "", "extra": 1}, "")):
        r = client.post("/api/replay", json=body)
        assert r.status_code in (400, 422) and needle in r.json()["error"]
    r = client.post("/api/games", json={"variant": "short", "opponents": ["naive"],
                                        "extra": "x" * (MAX_BODY + 10)})
    assert r.status_code == 413  # only the replay takes the larger body


def test_a_replay_of_a_game_too_long_for_the_page_is_refused(client, monkeypatch):
    from skipbo_env.apps.web import server

    gid, _ = _finished(client)
    text = client.get(f"/api/games/{gid}/record").text
    monkeypatch.setattr(server, "MAX_REPLAY_MOVES", 3)
    r = client.post("/api/replay", json={"record": text})
    assert r.status_code == 413 and "skipbo replay" in r.json()["error"]
