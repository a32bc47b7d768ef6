"""The web server behind `skipbo serve`: every refused request gets a 4xx answer and leaves
the game as it was."""

import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from starlette.testclient import TestClient  # noqa: E402

from skipbo_env.apps.web.server import MAX_BODY, create_app  # noqa: E402


@pytest.fixture
def client():
    return TestClient(create_app())


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


def test_a_legal_move_is_made_and_the_bots_answer(client):
    gid, state = _new(client)
    discard = next(m for m in state["moves"] if m["target"]["zone"] == "discard")
    r = client.post(f"/api/games/{gid}/move", json={"action": discard["action"],
                                                    "version": state["version"]})
    assert r.status_code == 200
    data = r.json()
    assert data["events"][0]["seat"] == 0 and data["events"][0]["text"] == discard["text"]
    assert all(e["seat"] == 1 for e in data["events"][1:]) and len(data["events"]) > 1
    assert data["state"]["version"] == state["version"] + len(data["events"])
    assert data["state"]["current_player"] == 0 or data["state"]["result"]


def test_malformed_json_is_refused_with_400(client):
    gid, state = _new(client)
    for body in (b"{not json", b"[1, 2]", b"\xff\xfe", b'"text"'):
        r = client.post(f"/api/games/{gid}/move", content=body)
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
