// Skip-Bo in the browser: draws the table from the server's state (the human seat's view
// only) and sends moves; the server checks every move and plays the bots.
"use strict";
const $ = (sel) => document.querySelector(sel);
let gameId = null, state = null, selected = null, busy = false, options = null;
let replay = null;  // {positions, moves, at}: a record being stepped through

function srcKey(s) {
  if (!s) return null;
  const part = s.card !== undefined ? "c" + s.card : s.stack !== undefined ? "s" + s.stack
    : s.pile !== undefined ? "p" + s.pile : "";
  return `${s.zone}:${s.seat}:${part}`;
}
function tgtKey(t) {
  if (!t) return null;
  return t.zone === "building" ? `building::p${t.pile}` : `discard:${t.seat}:p${t.pile}`;
}

async function api(path, body) {
  const init = body === undefined ? {} : {method: "POST", body: JSON.stringify(body),
    headers: {"Content-Type": "application/json"}};
  const res = await fetch(path, init);
  const data = await res.json();
  if (!res.ok) throw new Error(data.error || res.statusText);
  return data;
}

function cardEl(card, small) {
  const el = document.createElement("div");
  el.className = "card" + (small ? " small" : "");
  if (!card) { el.classList.add("back"); return el; }
  if (card.id === -1) { el.classList.add("coin"); el.textContent = "coin"; return el; }
  // As playing cards (the rule documents' stand-in deck) a card shows its name: A..Q, K wild.
  const playing = state && state.deck_style === "playing-cards";
  const face = card.name.split(" ")[0];
  if (card.wild) {
    el.classList.add("wild"); el.textContent = playing ? face : "SKIP-BO";
    el.dataset.label = playing ? face : "SB";
  } else {
    const r = card.rank, max = state ? state.max_rank : 12;
    el.classList.add(r <= max / 3 ? "r-low" : r <= 2 * max / 3 ? "r-mid" : "r-high");
    el.textContent = playing ? face : r; el.dataset.label = playing ? face : r;
  }
  if (card.toll) {
    const t = document.createElement("span"); t.className = "toll";
    t.textContent = "$".repeat(card.toll); el.appendChild(t);
  }
  el.dataset.cardId = card.id;
  return el;
}

function zone(label, inner, key, small) {
  // A pile of small cards (a fanned discard pile, a hand stack) is outlined at their size.
  const z = document.createElement("div"); z.className = "zone";
  const p = document.createElement("div"); p.className = "pile" + (small ? " small" : "");
  p.dataset.key = key;
  if (inner) p.appendChild(inner);
  const l = document.createElement("div"); l.className = "badge"; l.textContent = label;
  z.append(p, l); return z;
}

function fan(cards, small) {
  const f = document.createElement("div"); f.className = "fan";
  cards.forEach((c) => f.appendChild(cardEl(c, small)));
  return f;
}

function seatEl(p) {
  const me = p.seat === state.seat;
  const box = document.createElement("div");
  box.className = "seat" + (p.seat === state.current_player && !state.result ? " to-act" : "");
  box.id = "seat-" + p.seat;
  const h = document.createElement("h3");
  h.textContent = `${me ? "You" : p.name} (player ${p.seat}` +
    (p.team !== undefined ? `, team ${p.team}` : "") + ")" +
    (p.coins !== undefined ? ` - ${p.coins} coins` : "");
  box.appendChild(h);
  const row = document.createElement("div"); row.className = "row";
  row.appendChild(zone(`stock ${p.stock_size}`, p.stock_top ? cardEl(p.stock_top) : null,
                       `stock:${p.seat}:`));
  if (!state.stacked) {
    p.discards.forEach((pile, i) => row.appendChild(
      zone(`discard ${i}`, pile.length ? fan(pile.slice(-4), true) : null,
           `discard:${p.seat}:p${i}`, true)));
  }
  if (state.stacked) {
    p.hand_stacks.forEach((stack, i) => row.appendChild(
      zone(`stack ${i}`, stack.length ? fan(stack.slice(-4), true) : null, `hand:${p.seat}:s${i}`,
           true)));
  } else if (me) {
    const hand = document.createElement("div"); hand.className = "row"; hand.id = "hand";
    state.hand.forEach((c) => {
      const el = cardEl(c); el.dataset.key = `hand:${p.seat}:c${c.id}`; hand.appendChild(el);
    });
    const z = document.createElement("div"); z.className = "zone";
    const l = document.createElement("div"); l.className = "badge"; l.textContent = "your hand";
    z.append(hand, l); row.appendChild(z);
  } else {
    const backs = fan(Array(p.hand_size).fill(null), true);
    row.appendChild(zone(`hand ${p.hand_size}`, backs, `hand:${p.seat}:`, true));
  }
  if (me && state.coins) {
    const c = cardEl({id: -1}); c.dataset.key = `coins:${p.seat}:`; c.textContent = p.coins;
    row.appendChild(c);
  }
  box.appendChild(row);
  return box;
}

function render() {
  const opp = $("#opponents"); opp.replaceChildren();
  state.players.filter((p) => p.seat !== state.seat).forEach((p) => opp.appendChild(seatEl(p)));
  const b = $("#building"); b.replaceChildren(); b.className = "row";
  state.building.forEach((pile, i) => {
    const top = pile.top ? cardEl(pile.top) : null;
    const z = zone(`pile ${i}: ${pile.size ? "at " + pile.size : "empty"}` +
                   (pile.coins ? ` (${pile.coins} coins)` : ""), top, `building::p${i}`);
    b.appendChild(z);
  });
  $("#draw").textContent = `draw pile ${state.draw_pile_size}`;
  const me = state.players.find((p) => p.seat === state.seat);
  $("#me").replaceChildren(seatEl(me));
  const names = state.names;
  $("#score").textContent = "games won: " + names.map((n, i) => `${n} ${state.wins[i]}`)
    .join(", ") + " | points: " + state.points.join(" / ");
  const status = state.result ? `Game over: ${state.result}.`
    : state.current_player === state.seat ? "Your turn: click or drag a card onto a pile."
    : `Player ${state.current_player} (${names[state.current_player]}) is playing...`;
  $("#status").textContent = status;
  $("#next").hidden = !state.result || replay !== null;
  const link = $("#download");
  // Only finished games are given out (a record holds every hidden card of its game).
  link.hidden = !gameId || replay !== null || (!state.result && state.games < 2);
  if (gameId) link.href = `/api/games/${gameId}/record`;
  $("#undo").disabled = !state.can_undo || busy;
  $("#hint").disabled = !state.moves.length || busy;
  const special = $("#special"); special.replaceChildren();
  state.moves.filter((m) => !m.source).forEach((m) => {
    const btn = document.createElement("button"); btn.type = "button"; btn.textContent = m.text;
    btn.className = "special-move"; btn.disabled = busy;
    btn.onclick = () => send(m.action); special.appendChild(btn);
  });
  markSources();
}

function markSources() {
  document.querySelectorAll(".source, .selected, .legal-target, .hint-source, .hint-target")
    .forEach((el) => el.classList.remove("source", "selected", "legal-target", "hint-source",
                                         "hint-target"));
  if (busy) return;
  const keys = new Set(state.moves.map((m) => srcKey(m.source)).filter(Boolean));
  document.querySelectorAll("[data-key]").forEach((el) => {
    if (!keys.has(el.dataset.key)) return;
    el.classList.add("source"); el.draggable = true;
  });
  if (selected) {
    document.querySelectorAll(`[data-key="${selected}"]`).forEach((el) =>
      el.classList.add("selected"));
    state.moves.filter((m) => srcKey(m.source) === selected).forEach((m) => {
      const t = document.querySelector(`[data-key="${tgtKey(m.target)}"]`);
      if (t) t.classList.add("legal-target");
    });
  }
}

function moveFor(src, tgt) {
  return state.moves.find((m) => srcKey(m.source) === src && tgtKey(m.target) === tgt);
}

document.addEventListener("click", (ev) => {
  if (busy || !state) return;
  const el = ev.target.closest("[data-key]");
  if (!el) { selected = null; markSources(); return; }
  const key = el.dataset.key;
  if (selected && el.classList.contains("legal-target")) {
    const m = moveFor(selected, key);
    if (m) { selected = null; send(m.action); return; }
  }
  if (el.classList.contains("source")) {
    selected = selected === key ? null : key;
  } else if (selected && /^(building|discard)/.test(key)) {
    $("#message").textContent = "That move is not allowed: the highlighted piles are the legal ones.";
    selected = null;
  } else {
    selected = null;
  }
  markSources();
});
document.addEventListener("dragstart", (ev) => {
  const el = ev.target.closest("[data-key]");
  if (busy || !el || !el.classList.contains("source")) { ev.preventDefault(); return; }
  selected = el.dataset.key; ev.dataTransfer.setData("text/plain", selected); markSources();
});
document.addEventListener("dragover", (ev) => {
  const el = ev.target.closest(".legal-target");
  if (el) ev.preventDefault();
});
document.addEventListener("drop", (ev) => {
  const el = ev.target.closest(".legal-target");
  if (!el || !selected) return;
  ev.preventDefault();
  const m = moveFor(selected, el.dataset.key);
  selected = null;
  if (m) send(m.action);
});

// Whether the page is waiting for the person (tests wait for this).
window.skipboIdle = () => !busy && !pending && state !== null &&
  (state.result !== null || state.current_player === state.seat);
let pending = false;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function animate(ev) {
  const from = document.querySelector(`[data-key="${srcKey(ev.source)}"]`) ||
    document.querySelector(`[data-key="${(ev.source || {}).zone}:${ev.seat}:"]`);
  const to = document.querySelector(`[data-key="${tgtKey(ev.target)}"]`);
  if (from && to) {
    const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
    const flyer = $("#flyer");
    const card = from.classList.contains("card") ? from.cloneNode(true)
      : (from.querySelector(".card:last-child") || cardEl(null)).cloneNode(true);
    card.classList.remove("source", "selected", "small");
    flyer.replaceChildren(card);
    flyer.style.transition = "none";
    flyer.style.left = a.left + "px"; flyer.style.top = a.top + "px"; flyer.hidden = false;
    void flyer.offsetWidth;
    flyer.style.transition = window.SKIPBO_FAST ? "left 20ms, top 20ms" : "";
    flyer.style.left = b.left + "px"; flyer.style.top = b.top + "px";
    await sleep(window.SKIPBO_FAST ? 20 : 480);
    flyer.hidden = true;
  }
  state = ev.state; render();
  const t = document.querySelector(`[data-key="${tgtKey(ev.target)}"]`);
  if (t) t.classList.add("flash");
}

function logLine(ev) {
  const li = document.createElement("li");
  li.textContent = `${ev.seat === state.seat ? "you" : state.names[ev.seat]}: ${ev.text}`;
  $("#log").appendChild(li); li.scrollIntoView({block: "nearest"});
}

async function play(events, final) {
  busy = true; render();
  for (const ev of events) {
    logLine(ev);
    await animate(ev);
    if (ev.seat !== state.seat) await sleep(window.SKIPBO_FAST ? 0 : 250);
  }
  busy = false; state = final; render();
}

function clearHint() { const box = $("#hint-box"); box.hidden = true; box.textContent = ""; }

async function send(action) {
  $("#message").textContent = ""; clearHint();
  pending = true;
  try {
    const data = await api(`/api/games/${gameId}/move`, {action, version: state.version});
    await play(data.events, data.state);
  } catch (e) { busy = false; $("#message").textContent = e.message; render(); }
  pending = false;
}

async function newGame(ev) {
  if (ev) ev.preventDefault();
  const opponents = [...document.querySelectorAll("#opponent-choices select")].map((s) => s.value);
  const body = {variant: $("#variant").value, opponents, deck_style: $("#deck-style").value};
  const stock = $("#stock").value.trim();
  if (stock) body.stock_size = Number(stock);
  const seed = new URLSearchParams(location.search).get("seed");  // ?seed=N repeats a deal
  if (seed !== null) body.seed = Number(seed);
  $("#message").textContent = "";
  pending = true;
  try {
    const data = await api("/api/games", body);
    gameId = data.id; state = data.state; selected = null; $("#log").replaceChildren();
    history.replaceState(null, "", "#" + gameId);
    await play(data.events, data.state);
  } catch (e) { $("#message").textContent = e.message; }
  pending = false;
}

// A bot that is the strongest of one setting only (a value player), named with that setting.
function strongestIn(p) {
  const best = options.strongest_in.find((e) => e.name === p);
  return best ? `${p} (strongest in ${best.setting})` : p;
}

function opponentChoices() {
  const box = $("#opponent-choices"); const n = Number($("#count").value);
  while (box.children.length > n) box.lastChild.remove();
  while (box.children.length < n) {
    const s = document.createElement("select");
    [...options.players, ...options.checkpoints].forEach((p) => s.add(new Option(
      p === options.strongest.name ? `${p} (strongest)` : strongestIn(p), p)));
    s.value = options.players.includes("expert") ? "expert" : options.players[0];
    box.appendChild(s);
  }
}

$("#hint").onclick = async () => {
  try {
    const h = (await api(`/api/games/${gameId}/hint`, {})).hint;
    // The suggested move itself: its card and its pile marked, its words in the hint box.
    selected = null; markSources();
    const box = $("#hint-box"); box.textContent = `Hint: ${h.text}`; box.hidden = false;
    const from = h.source && document.querySelector(`[data-key="${srcKey(h.source)}"]`);
    const to = h.target && document.querySelector(`[data-key="${tgtKey(h.target)}"]`);
    if (from) from.classList.add("hint-source");
    if (to) to.classList.add("hint-target");
  } catch (e) { $("#message").textContent = e.message; }
};
$("#undo").onclick = async () => {
  try {
    const data = await api(`/api/games/${gameId}/undo`, {version: state.version});
    state = data.state; selected = null; render();
    const li = document.createElement("li"); li.textContent = `you took back: ${data.undone}`;
    $("#log").appendChild(li);
  } catch (e) { $("#message").textContent = e.message; }
};
$("#next").onclick = async () => {
  try {
    const data = await api(`/api/games/${gameId}/next`, {});
    state = data.state; $("#log").replaceChildren(); await play(data.events, data.state);
  } catch (e) { $("#message").textContent = e.message; }
};
$("#new-game").addEventListener("submit", (ev) => { closeReplay(); newGame(ev); });

function showReplay() {
  const n = replay.positions.length - 1, k = replay.at;
  state = replay.positions[k]; selected = null; render();
  const next = k < n ? `next: ${replay.moves[k]}` : `end: ${replay.result || "not finished"}`;
  const last = k ? `last: ${replay.moves[k - 1]}; ` : "";
  $("#replay-status").textContent = `move ${k} of ${n}; ${last}${next}`;
  $("#status").textContent = `Replay of ${replay.players.join(" vs ")}`;
  $("#hint").disabled = true; $("#undo").disabled = true;
}
function stepReplay(to) {
  if (!replay) return;
  replay.at = Math.max(0, Math.min(replay.positions.length - 1, to)); showReplay();
}
function closeReplay() {
  if (!replay) return;
  replay = null; $("#replay-bar").hidden = true; state = saved; render();
}
let saved = null;  // the game in play while a replay is shown
$("#open-record").addEventListener("change", async (ev) => {
  const file = ev.target.files[0];
  if (!file) return;
  $("#message").textContent = ""; clearHint();
  try {
    const data = await api("/api/replay", {record: await file.text()});
    if (!replay) saved = state;
    replay = {...data, at: 0}; $("#replay-bar").hidden = false; showReplay();
  } catch (e) { $("#message").textContent = `Cannot replay ${file.name}: ${e.message}`; }
  ev.target.value = "";
});
$("#replay-start").onclick = () => stepReplay(0);
$("#replay-back").onclick = () => stepReplay(replay.at - 1);
$("#replay-next").onclick = () => stepReplay(replay.at + 1);
$("#replay-end").onclick = () => stepReplay(replay.positions.length - 1);
$("#replay-close").onclick = closeReplay;
$("#count").addEventListener("change", opponentChoices);

(async function init() {
  options = await api("/api/options");
  options.how_to_play.forEach((line) => {
    const li = document.createElement("li"); li.textContent = line; $("#rules-list").appendChild(li);
  });
  $("#strongest").textContent = [`Strongest bot: ${options.strongest.name}, ${options.strongest.said}.`,
    ...options.strongest_in.map((e) => `In ${e.setting}: ${e.name}, ${e.said}.`)].join(" ");
  options.variants.forEach((v) => $("#variant").add(new Option(v, v)));
  $("#variant").value = "standard";
  $("#deck-style").value = options.deck_style || "skipbo";
  for (let i = 1; i <= options.max_opponents; i++) $("#count").add(new Option(i, i));
  opponentChoices();
  const saved = location.hash.slice(1);
  if (saved) {
    try {
      const data = await api(`/api/games/${saved}`);
      gameId = saved; state = data.state; render(); return;
    } catch (e) { /* an old id: start afresh */ }
  }
  await newGame();
})();
