"""Random requests to the web server: any body, field types and headers on every POST of the
API get a 2xx or a 4xx with a JSON {"error": ...}, never a 500, and no answer holds a card
the person's seat cannot see."""

import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient
from test_web import app_for_tests, assert_no_hidden_card

from skipbo_env.rules import VARIANTS

FIELDS = ["variant", "opponents", "stock_size", "seed", "action", "version", "extra"]
ACTIONS = ["move", "undo", "hint", "next"]
ASCII = st.characters(min_codepoint=32, max_codepoint=126)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner,
                                                                 max_size=4),
    max_leaves=12)
field_values = st.one_of(
    json_values, st.sampled_from(VARIANTS),
    st.lists(st.sampled_from(["naive", "random", "expert", "lookahead", "wizard", "", "a/b.zip"]),
             max_size=6),
    st.integers(-3, 60))
json_bodies = st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), field_values,
                              max_size=5)
raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"", b"[" * 3000, b'{"\\ud800": 1}', b'{"version": "\\udfff"}', b"null",
                     b"NaN", b'{"action": 1e400}', b'{"seed": ' + b"9" * 4000 + b"}",
                     b"\xef\xbb\xbf{}", b'{"a": 1, "a": 2}']),
    st.text(max_size=40).map(lambda t: t.encode("utf-8", "surrogatepass")))
content_types = st.sampled_from([
    "application/json", "application/json; charset=utf-8", "text/plain",
    "application/x-www-form-urlencoded", "", None]) | st.text(ASCII, max_size=20)
origins = st.sampled_from([None, None, "http://testserver", "http://evil.example", "null",
                           "https://testserver", b"http://testserver:\xb2"]) \
    | st.text(ASCII, max_size=20)
hosts = st.sampled_from([None, None, None, "testserver", "evil.example", "testserver:99",
                         "", "[::1]:x", b"testserver:\xb2", b"t\xe9st"]) \
    | st.text(ASCII, max_size=12)


@pytest.fixture(scope="module")
def client():
    return TestClient(app_for_tests(search_rollouts=8), raise_server_exceptions=False)


def _game(client):
    """A fresh short game to aim requests at: its id and state."""
    r = client.post("/api/games", json={"variant": "short", "opponents": ["expert"],
                                        "stock_size": 2, "seed": 7})
    assert r.status_code == 200, r.text
    return r.json()["id"], r.json()["state"]


def _check(client, r):
    assert r.status_code < 500, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    data = r.json()
    assert isinstance(data, dict)
    if r.status_code >= 400:
        assert isinstance(data.get("error"), str) and data["error"]
        return
    assert 200 <= r.status_code < 300
    gid = data.get("id")
    game = client.app.state.tables.get(gid).session.game if gid else None
    assert_no_hidden_card(data, game)


@settings(max_examples=120, deadline=None, suppress_health_check=[
    HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_no_request_gets_a_500_or_a_hidden_card(client, data):
    gid, state = _game(client)
    action = data.draw(st.sampled_from(["new", *ACTIONS]), label="endpoint")
    path = "/api/games" if action == "new" else f"/api/games/{gid}/{action}"
    if action != "new" and data.draw(st.integers(0, 9)) == 0:
        path = f"/api/games/{data.draw(st.text(ASCII, min_size=1, max_size=30))}/{action}"
    kind = data.draw(st.sampled_from(["fields", "legal", "raw"]), label="body")
    if kind == "legal" and action != "new":  # a well-formed request, mostly
        v = state["version"]
        body = {"version": data.draw(st.sampled_from([v, v, v, v - 1, 0, "1"]))}
        if action == "move":
            body["action"] = data.draw(st.sampled_from([m["action"] for m in state["moves"]]
                                                       + [-1, 10**6, True]))
        raw = json.dumps(body).encode()
    elif kind == "raw":
        raw = data.draw(raw_bodies)
    else:
        raw = json.dumps(data.draw(json_bodies)).encode()
    headers = {"content-type": "application/json"}
    for name, strategy in (("content-type", content_types), ("origin", origins),
                           ("host", hosts)):
        if data.draw(st.integers(0, 3), label=f"odd {name}") == 0:  # mostly the page's own
            value = data.draw(strategy, label=name)
            headers.pop(name, None)
            if value is not None:
                headers[name] = value
    r = client.post(path, content=raw, headers=headers)
    event(f"{action} {r.status_code}")
    _check(client, r)
    # And the game the requests were aimed at still answers with a sound state.
    after = client.get(f"/api/games/{gid}")
    _check(client, after)
    if r.status_code >= 400 and path.startswith(f"/api/games/{gid}/"):
        assert after.json()["state"] == state  # a refused request changes nothing
