"""End to end in headless Chromium (Debian's chromium, driven by Playwright): the page plays
a short game by clicking, highlights the legal targets, refuses an illegal move, never
receives a hidden card, and runs under the server's Content-Security-Policy without a
violation. Needs the web and test extras and /usr/bin/chromium (.ci/run
installs them); skipped elsewhere unless CI is set, where a missing browser fails."""

import contextlib
import json
import os
import shutil
import socket
import threading
import time

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's chromium for the browser tests (.ci/run installs it)")
    pytest.skip("chromium is not installed", allow_module_level=True)

from skipbo_env.apps.web.server import create_app

PLAYER_KEYS = {"seat", "name", "stock_top", "stock_size", "hand_size", "discards", "team",
               "coins", "hand_stacks"}


@contextlib.contextmanager
def _served(app):
    """`app` served by uvicorn on a free loopback port, in a thread, while the block runs."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(100):
        if srv.started:
            break
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def server():
    app = create_app()
    with _served(app) as url:
        yield url, app


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        yield b
        b.close()


def _states(message):
    """Every table state in a server message."""
    out = [message["state"]] if "state" in message else []
    out += [e["state"] for e in message.get("events", [])]
    return out


def _open(browser, url, messages, seed=3):
    page = browser.new_page(viewport={"width": 1300, "height": 900})
    page.add_init_script("window.SKIPBO_FAST = true; window.cspViolations = [];"
                         "document.addEventListener('securitypolicyviolation', (e) => "
                         "window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));")

    def record(response):
        if "/api/" in response.url:
            try:
                messages.append(response.json())
            except Exception:  # a non-JSON answer would fail the checks below
                messages.append({"raw": response.text()})
    page.on("response", record)
    page.goto(f"{url}/?seed={seed}")
    page.wait_for_selector(".source")
    _wait_settled(page)
    # A short game against naive: two stock cards each.
    page.select_option("#variant", "short")
    page.fill("#stock", "2")
    page.select_option("#opponent-choices select", "naive")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#start")
    page.wait_for_function("() => document.querySelector('#draw').textContent !== ''")
    _wait_settled(page)
    assert _last_state(messages)["variant"] == "short"
    return page


def _wait_settled(page):
    """Until the page has shown every move it was sent (it is the person's turn again, or
    the game is over)."""
    # (a function, not an expression: the page's CSP forbids eval, which Playwright would use)
    page.wait_for_function("() => window.skipboIdle && window.skipboIdle()")


def _last_state(messages):
    return [s for m in messages for s in _states(m)][-1]


def test_a_short_game_is_played_to_the_end_by_clicking(server, browser):
    url, app = server
    messages = []
    page = _open(browser, url, messages)
    checked_highlights = False
    for _ in range(400):
        if page.locator("#next").is_visible():
            break
        state = _last_state(messages)
        moves = state["moves"]
        # Prefer a card onto a building pile; else a discard (ends the turn).
        move = next((m for m in moves if m["source"] and m["target"]["zone"] == "building"),
                    None) or next(m for m in moves if m["source"])
        src = page.locator(f'#me [data-key="{_src_key(move["source"])}"]').first
        src.click()
        want = {_tgt_key(m["target"]) for m in moves
                if m["source"] and _src_key(m["source"]) == _src_key(move["source"])}
        shown = set(page.eval_on_selector_all(".legal-target",
                                              "els => els.map(e => e.dataset.key)"))
        assert shown == want  # exactly the legal targets of the chosen card are highlighted
        checked_highlights = True
        page.locator(f'[data-key="{_tgt_key(move["target"])}"]').first.click()
        _wait_settled(page)
    assert checked_highlights
    assert page.locator("#next").is_visible()
    assert page.locator("#status").text_content().startswith("Game over")
    assert page.locator("#log li").count() > 0
    final = _last_state(messages)
    assert final["result"] and sum(final["wins"]) == 1
    _no_hidden_card(page, messages, app)
    _no_csp_violation(page)
    page.close()


def _no_csp_violation(page):
    assert "default-src 'self'" in page.evaluate(
        "fetch('/').then(r => r.headers.get('content-security-policy'))")
    assert page.evaluate("window.cspViolations") == []


def _src_key(s):
    part = f"c{s['card']}" if "card" in s else f"s{s['stack']}" if "stack" in s else \
        f"p{s['pile']}" if "pile" in s else ""
    return f"{s['zone']}:{s['seat']}:{part}"


def _tgt_key(t):
    return f"building::p{t['pile']}" if t["zone"] == "building" else \
        f"discard:{t['seat']}:p{t['pile']}"


def _no_hidden_card(page, messages, app):
    assert messages and all("raw" not in m for m in messages)
    for message in messages:
        for state in _states(message):
            for p in state["players"]:
                assert set(p) <= PLAYER_KEYS  # of another seat only sizes and public piles
            assert "draw_pile" not in state and "stocks" not in state
    # The person's hand in the last message is the server's; the opponents' hands are on the
    # page only as card backs, and only public cards carry a face.
    game = app.state.tables.get(page.evaluate("location.hash.slice(1)")).session.game
    final = _last_state(messages)
    assert sorted(c["id"] for c in final["hand"]) == sorted(game.hands[0])
    html = page.content()
    assert "card back" in html or game.is_over
    faces = page.eval_on_selector_all("#opponents [data-card-id]", "els => els.length")
    public = sum((p["stock_top"] is not None) + sum(min(len(d), 4) for d in p["discards"])
                 for p in final["players"] if p["seat"] != final["seat"])
    assert faces == public


def test_an_illegal_move_is_refused_and_changes_nothing(server, browser):
    url, app = server
    messages = []
    page = _open(browser, url, messages)
    state = _last_state(messages)
    # In the page: a card dropped on a pile that is not highlighted is refused on the spot.
    hand = [m for m in state["moves"] if m["source"] and m["source"]["zone"] == "hand"]
    move = next(m for m in hand if not any(
        o["source"] == m["source"] and o["target"]["zone"] == "building" for o in hand))
    page.locator(f'#me [data-key="{_src_key(move["source"])}"]').first.click()
    targets = set(page.eval_on_selector_all(".legal-target", "els => els.map(e => e.dataset.key)"))
    assert targets and not any(t.startswith("building") for t in targets)
    before = len(messages)
    page.locator('[data-key="building::p0"]').click()
    assert "not allowed" in page.locator("#message").text_content()
    assert len(messages) == before  # nothing was sent
    # And the server refuses an illegal move sent anyway, leaving the game as it was.
    gid = page.evaluate("location.hash.slice(1)")
    legal = {m["action"] for m in state["moves"]}
    illegal = next(a for a in range(200) if a not in legal)
    answer = page.evaluate(
        """async ([gid, action, version]) => {
             const r = await fetch(`/api/games/${gid}/move`, {method: 'POST',
               headers: {'Content-Type': 'application/json'},
               body: JSON.stringify({action, version})});
             return [r.status, await r.json()];
           }""", [gid, illegal, state["version"]])
    assert answer[0] == 422 and "not legal" in answer[1]["error"]
    now = page.evaluate(f"fetch('/api/games/{gid}').then(r => r.json())")
    assert json.dumps(now["state"], sort_keys=True) == json.dumps(state, sort_keys=True)
    _no_csp_violation(page)
    page.close()


def test_boxes_fit_their_cards_the_log_shows_its_last_line_and_cards_may_be_playing_cards(
        server, browser):
    url, _ = server
    messages = []
    page = browser.new_page(viewport={"width": 1300, "height": 760})
    page.add_init_script("window.SKIPBO_FAST = true;")
    page.goto(f"{url}/?seed=11")
    page.wait_for_selector(".source")
    _wait_settled(page)
    page.on("response", lambda r: messages.append(r.json()) if "/api/" in r.url else None)
    page.select_option("#deck-style", "playing-cards")
    with page.expect_response(lambda r: r.url.endswith("/api/games")):
        page.click("#start")
    _wait_settled(page)
    for _ in range(30):  # discards fan out and the log grows past its box
        page.click("#hint")  # then play the hinted move: its card, then its pile
        page.wait_for_function("() => document.querySelector('.hint-target') !== null")
        target = page.get_attribute(".hint-target", "data-key")
        page.locator(".hint-source").first.click()
        page.locator(f'.legal-target[data-key="{target}"]').first.click()
        _wait_settled(page)
    assert _last_state(messages)["deck_style"] == "playing-cards"
    faces = page.eval_on_selector_all(".card[data-label]",
                                      "els => els.map(e => e.dataset.label)")
    assert faces and set(faces) <= {"A", *map(str, range(2, 11)), "J", "Q", "K"}
    assert set(faces) & {"A", "J", "Q", "K"}  # the court cards are shown as such
    # Every seat box is as tall as its heading and its row of cards, not stretched by the log.
    spare = page.eval_on_selector_all(".seat", """els => els.map(e => e.getBoundingClientRect()
        .height - e.querySelector('h3').offsetHeight - e.querySelector('.row').offsetHeight)""")
    assert spare and max(spare) < 40, spare
    assert page.locator("#centre h2").text_content() == "Building piles"
    assert page.get_attribute("#stock", "placeholder") == "default"
    # The log's last line lies inside the log's visible box.
    inside = page.eval_on_selector("#log li:last-child", """li => {
        const a = li.closest('aside').getBoundingClientRect(), r = li.getBoundingClientRect();
        return r.bottom <= a.bottom + 1 && r.top >= a.top - 1; }""")
    assert inside
    page.close()


def test_the_page_explains_how_to_play_and_names_the_strongest_bot(server, browser):
    url, _ = server
    page = _open(browser, url, [])
    assert not page.locator("#rules-list").is_visible()  # folded until asked for
    page.click("#how-to-play summary")
    assert page.locator("#rules-list li").first.text_content().startswith("Goal:")
    assert page.locator("#rules-list li").count() >= 5
    assert "Strongest bot: lookahead" in page.locator("#strongest").text_content()
    labels = page.eval_on_selector_all("#opponent-choices option", "els => els.map(e => e.text)")
    assert "lookahead (strongest)" in labels
    _no_csp_violation(page)
    page.close()


def test_the_search_around_a_served_value_player_is_named_the_strongest_of_its_setting(
        browser):
    with _served(create_app(("value_short_2p",))) as url:
        page = _open(browser, url, [])
        page.click("#how-to-play summary")
        said = page.locator("#strongest").text_content()
        assert "Strongest bot: lookahead" in said
        assert "In the two-player short game (stock 10): lookahead:value_short_2p, it won" in said
        labels = page.eval_on_selector_all("#opponent-choices option",
                                           "els => els.map(e => e.text)")
        assert "lookahead:value_short_2p (strongest in the two-player short game (stock 10))" \
            in labels
        assert "value_short_2p" in labels  # the value player alone is offered too
        assert "lookahead (strongest)" in labels
        _no_csp_violation(page)
        page.close()


def test_the_hint_shows_the_suggested_move_itself_in_its_own_style(server, browser):
    url, _ = server
    messages = []
    page = _open(browser, url, messages)
    with page.expect_response(lambda r: r.url.endswith("/hint")) as answer:
        page.click("#hint")
    hint = answer.value.json()["hint"]
    page.wait_for_selector("#hint-box:not([hidden])")
    assert page.locator("#hint-box").text_content() == f"Hint: {hint['text']}"
    assert page.locator("#message").text_content() == ""  # not shown as an error
    assert page.locator(".legal-target").count() == 0  # not every legal pile lit
    marked = page.eval_on_selector_all(".hint-source, .hint-target",
                                       "els => els.map(e => e.dataset.key)")
    assert _src_key(hint["source"]) in marked and _tgt_key(hint["target"]) in marked
    colours = page.evaluate("() => [getComputedStyle(document.querySelector('#hint-box')).color,"
                            " getComputedStyle(document.querySelector('#message')).color]")
    assert colours[0] != colours[1]
    page.close()


def test_the_game_just_played_downloads_and_opens_in_the_replay_view(server, browser, tmp_path):
    url, _ = server
    messages = []
    page = _open(browser, url, messages)
    assert not page.locator("#replay-bar").is_visible()  # until a record is opened
    for _ in range(400):  # to the end of the game: no game in play is given out
        if page.locator("#next").is_visible():
            break
        assert not page.locator("#download").is_visible()
        moves = _last_state(messages)["moves"]
        move = next((m for m in moves if m["source"] and m["target"]["zone"] == "building"),
                    None) or next(m for m in moves if m["source"])
        page.locator(f'#me [data-key="{_src_key(move["source"])}"]').first.click()
        page.locator(f'[data-key="{_tgt_key(move["target"])}"]').first.click()
        _wait_settled(page)
    with page.expect_download() as download:
        page.click("#download")
    path = tmp_path / "game.jsonl"
    download.value.save_as(path)
    assert path.read_text().startswith('{"record": "skipbo-game"')
    page.set_input_files("#open-record", str(path))
    page.wait_for_selector("#replay-bar:not([hidden])")
    status = page.locator("#replay-status")
    assert status.text_content().startswith("move 0 of ")
    total = int(status.text_content().split(" of ")[1].split(";")[0])
    page.click("#replay-next")
    assert status.text_content().startswith(f"move 1 of {total}; last: you:")
    page.click("#replay-back")
    assert status.text_content().startswith("move 0 of ")
    page.click("#replay-end")
    assert status.text_content().startswith(f"move {total} of {total}")
    page.click("#replay-close")
    assert not page.locator("#replay-bar").is_visible()
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    page.set_input_files("#open-record", str(bad))
    page.wait_for_function("() => document.querySelector('#message').textContent !== ''")
    assert "line 1" in page.locator("#message").text_content()
    _no_csp_violation(page)
    page.close()
