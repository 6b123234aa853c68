// The table view: renders each view model pushed by /events; on a bench table its controls POST
// to /api/* (the simulators send the same wire events a device would). Nothing here ever sees a
// face-down card: the server sends null for one.
"use strict";
// The page runs under a CSP with no inline script: everything it needs is in data attributes.
const BENCH = document.body.dataset.bench === "true";
const FAULTS = JSON.parse(document.body.dataset.faults || "{}");
const STALE_MS = 2000; // no view and no heartbeat for this long: the page is not live
const SUITS = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };
const $ = (id) => document.getElementById(id);
let view = null;
const faultShown = new Map(); // fault key -> when this page first showed it (ms, page clock)

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function money(cents) {
  const s = (Math.abs(cents) / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return (cents < 0 ? "-" : "") + "$" + s;
}
// One 24-hour clock on the whole page (the header, the faults, the stale banner).
function clockText(d) { return d.toLocaleTimeString("en-GB", { hourCycle: "h23" }); }
function signed(cents) { return (cents > 0 ? "+" : "") + money(cents); }
function cardEl(c) {
  if (!c) { const b = el("div", "pc back"); b.title = "face down"; return b; }
  if (c === "JK") return el("div", "pc joker", "JOKER");
  const rank = c[0] === "T" ? "10" : c[0];
  const e = el("div", "pc" + (c[1] === "h" || c[1] === "d" ? " red" : ""));
  e.append(el("span", "r", rank), el("span", "s", SUITS[c[1]]));
  return e;
}
function spotLabel(spot) { return spot.replace("_", " ").replace("envy marker", "envy"); }

// Not live, a device's last known state is not its state: its dot says "unknown" until the
// stream resumes.
function renderLinks(links) {
  const box = $("links"); box.replaceChildren();
  for (const [role, known] of Object.entries(links)) {
    const state = stale ? "unknown" : known;
    const s = el("span", "link"); s.dataset.role = role; s.dataset.state = state;
    s.append(el("span", "led " + state), document.createTextNode(role.replace("_", " ") + " " + state + "  "));
    box.append(s);
  }
}

// Seats and their spots are built once and then updated in place, so a click is never lost to a
// redraw (the cards inside are redrawn: they are not controls).
let seatsBuilt = "";
function buildSeats(v) {
  const box = $("seats"); box.replaceChildren();
  for (const seat of v.seats) {
    const s = el("div", "seat"); s.id = "seat-" + seat.number;
    const head = el("div", "seat-head");
    const tags = el("span", "tags"); tags.id = "tags-" + seat.number;
    head.append(el("span", "seat-no", "Seat " + seat.number), tags);
    const cards = el("div", "cards"); cards.id = "cards-" + seat.number;
    const spots = el("div", "spots");
    for (const spot of v.table.spots) {
      // a button: reached with Tab, pressed with Enter or Space, its focus drawn (common.css)
      const sp = el("button", "spot"); sp.type = "button"; sp.id = "spot-" + seat.number + "-" + spot;
      sp.setAttribute("aria-label", "Seat " + seat.number + " " + spotLabel(spot));
      if (!BENCH) sp.tabIndex = -1;
      const amt = el("span", "amt");
      sp.append(el("span", "", spotLabel(spot)), amt);
      if (BENCH) sp.addEventListener("click", () => {
        if (stale) return;
        const now = view.seats[seat.number - 1];
        openSpot(seat.number, spot, now.wagers[spot] || 0, now.wagers);
      });
      spots.append(sp);
    }
    s.append(head, cards, spots);
    box.append(s);
  }
  seatsBuilt = v.table.name + "|" + v.seats.length;
}
function renderSeats(v) {
  if (seatsBuilt !== v.table.name + "|" + v.seats.length) buildSeats(v);
  for (const seat of v.seats) {
    const s = $("seat-" + seat.number);
    const empty = Object.keys(seat.wagers).length === 0 && seat.cards.length === 0;
    s.classList.toggle("folded", seat.folded); s.classList.toggle("empty", empty);
    const tags = $("tags-" + seat.number); tags.replaceChildren();
    if (seat.folded) tags.append(el("span", "tag fold", "folded"));
    if (seat.exposed) tags.append(el("span", "tag exposed", "bonus exposed"));
    if (seat.envy_marker) tags.append(el("span", "tag envy", "envy"));
    $("cards-" + seat.number).replaceChildren(...seat.cards.map(cardEl));
    for (const spot of v.table.spots) {
      const cents = seat.wagers[spot] || 0;
      const sp = $("spot-" + seat.number + "-" + spot);
      sp.className = "spot lamp-" + (seat.lamps[spot] || "off") + (cents ? " has-chips" : "");
      sp.dataset.cents = cents;
      sp.lastChild.textContent = cents ? money(cents) : "";
    }
  }
}

let shownSettlement = "";
function renderSettlement(ls) {
  const key = JSON.stringify(ls);
  if (key === shownSettlement) return; // unchanged: no redraw
  shownSettlement = key;
  const box = $("settlement"); box.replaceChildren();
  if (!ls) { box.className = "muted"; box.textContent = "no round settled yet"; return; }
  box.className = ""; box.dataset.round = ls.round;
  if (ls.void) { box.append(el("div", "", "Round " + ls.round + ": void, every wager returned")); return; }
  box.append(el("div", "muted", "Round " + ls.round));
  const t = el("table", "grid"); const head = el("tr");
  head.append(el("th", "", "Seat"), el("th", "", "Wagers"), el("th", "num", "Net"));
  t.append(head);
  for (const [n, s] of Object.entries(ls.seats)) {
    const tr = el("tr"); tr.dataset.seat = n; tr.dataset.net = s.net;
    const w = Object.entries(s.wagers).map(([spot, r]) => spotLabel(spot) + " " + r.result).join(", ");
    tr.append(el("td", "", n), el("td", "muted", w), el("td", "num " + (s.net > 0 ? "pos" : s.net < 0 ? "neg" : ""), signed(s.net)));
    t.append(tr);
  }
  box.append(t);
  const house = el("div", "house", "House net " + signed(ls.house_net)); house.id = "house-net"; house.dataset.cents = ls.house_net;
  box.append(house);
}

let shownFaults = "";
function renderFaults(faults) {
  const key = JSON.stringify(faults);
  if (key === shownFaults) return;
  shownFaults = key;
  const box = $("faults"); box.replaceChildren();
  if (!faults.length) { box.append(el("li", "muted", "none")); return; }
  for (const f of faults) {
    const key = f.at + "|" + f.text;
    if (!faultShown.has(key)) faultShown.set(key, Date.now());
    const li = el("li", "fault"); li.dataset.at = f.at; li.dataset.shownAt = faultShown.get(key);
    li.append(el("span", "when", clockText(new Date(f.at * 1000))), document.createTextNode(f.device + ": " + f.text));
    box.append(li);
  }
}

function renderPanel(v) {
  if (stale) { for (const b of document.querySelectorAll("#panel button")) b.disabled = true; }
  const box = $("panel");
  if (!BENCH) return;
  if (!box.childElementCount) {
    const buttons = ["no_more_bets", "deal", "reveal", "confirm", "next", "previous", "fold", "settle", "void", "clear_fault"];
    for (let n = 1; n <= v.table.seats; n++) buttons.push("seat_" + n);
    for (const b of buttons) {
      const btn = el("button", "", b.replace(/_/g, " ")); btn.id = "btn-" + b;
      btn.addEventListener("click", () => post("press", { button: b }));
      box.append(btn);
    }
  }
  for (const [b, on] of Object.entries(v.panel_lamps)) { const e = $("btn-" + b); if (e) e.classList.toggle("lit", on); }
  const key = $("key"); key.classList.toggle("on", v.supervisor); key.classList.toggle("off", !v.supervisor);
  key.textContent = v.supervisor ? "Key ON" : "Key off"; key.dataset.on = v.supervisor;
}

function render(v) {
  view = v;
  $("table-name").textContent = v.table.name; $("game").textContent = v.table.game_name || v.table.game;
  document.title = "tablectl · " + v.table.name;
  $("round").textContent = "Round " + v.round;
  $("step").textContent = v.step_label;
  const playing = v.seats.filter((s) => Object.keys(s.wagers).length && !s.folded).length;
  const layout = v.seats.reduce((sum, s) => sum + Object.entries(s.wagers)
    .filter(([spot]) => spot !== "envy_marker").reduce((a, [, c]) => a + c, 0), 0);
  const meta = $("meta"); meta.replaceChildren();
  meta.append(el("b", "", String(playing)), document.createTextNode((playing === 1 ? " seat" : " seats") + " in play \u00b7 "),
    el("b", "", money(layout)), document.createTextNode(" on the layout"));
  if (v.supervisor) meta.append(el("div", "key-on", "supervisor key ON"));
  if (v.signed_in) {
    const who = el("div", "signed-in", "dealer: " + (v.signed_in.dealer || "nobody signed in") +
      (v.signed_in.supervisor ? " \u00b7 supervisor: " + v.signed_in.supervisor : "") +
      (v.signed_in.next_dealer ? " \u00b7 next dealer: " + v.signed_in.next_dealer : ""));
    who.id = "signed-in"; meta.append(who);
  }
  const hold = $("hold");
  hold.hidden = !v.hold;
  if (v.hold) { $("hold-reason").textContent = v.hold.reason; $("hold-clears").textContent = v.hold.clears; }
  $("dealer-label").textContent = v.dealer.label;
  const dc = $("dealer-cards"); dc.replaceChildren(...v.dealer.cards.map(cardEl));
  renderLinks(v.links); renderSeats(v); renderSettlement(v.last_settlement); renderFaults(v.faults); renderPanel(v);
  $("screen").textContent = v.screen.join("\n");
  $("recent").replaceChildren(...v.recent.slice(0, -1).reverse().map((line) => el("div", "", line)));
  Object.assign(document.body.dataset, { step: v.step, round: v.round, version: v.version, hold: v.hold ? "yes" : "no" });
}

let chain = Promise.resolve();
let pending = 0;
let posts = 0; // requests made since the page opened (a test tells a click that did nothing from one that did)
// One request at a time, in click order: "seat 3" then "fold" must reach the panel in that order.
function post(action, body) {
  pending += 1; posts += 1; Object.assign(document.body.dataset, { pending, posts });
  chain = chain.then(async () => {
    const headers = { "content-type": "application/json", "x-csrf-token": SESSION.secret(), accept: "application/json" };
    try {
      const r = await fetch("/api/" + action, { method: "POST", headers, body: JSON.stringify(body), credentials: "same-origin" });
      if (r.status === 401 || r.status === 403) { // said in words, with the way back
        const e = await r.json().catch(() => ({}));
        SESSION.denied(r.status, e.error);
      } else if (!r.ok) {
        const e = await r.json().catch(() => ({ error: r.status + " " + r.statusText }));
        if (r.status === 429) document.body.dataset.busy = String(Date.now());
        showError(e.error);
      }
    } catch (err) { showError(String(err)); }
    pending -= 1; document.body.dataset.pending = pending;
  });
  return chain;
}
function showError(text) {
  const box = $("error"); box.textContent = text; box.hidden = false;
  clearTimeout(showError.timer); showError.timer = setTimeout(() => { box.hidden = true; }, 6000);
}

let spotTarget = null;
function openSpot(seat, spot, cents, wagers) {
  spotTarget = { seat, spot };
  $("spot-title").textContent = "Seat " + seat + " · " + spotLabel(spot);
  const amount = $("spot-amount");
  const ante = wagers.ante || wagers.first || wagers.pai_gow || 0;
  const suggested = spot === "second" ? (wagers.first || 0) : ["third", "fourth", "fifth"].includes(spot) ? (wagers.ante || 0) : cents;
  amount.value = ((suggested || 500) / 100).toFixed(2);
  const quick = $("spot-quick"); quick.replaceChildren();
  const choices = ["third", "fourth", "fifth"].includes(spot) && wagers.ante
    ? [[1, "1x"], [2, "2x"], [3, "3x"]].map(([m, l]) => [m * wagers.ante, l + " ante"])
    : [[100, "$1"], [500, "$5"], [1000, "$10"], [2500, "$25"], [10000, "$100"]];
  for (const [c, label] of choices) {
    const b = el("button", "", label); b.type = "button";
    b.addEventListener("click", () => { amount.value = (c / 100).toFixed(2); });
    quick.append(b);
  }
  $("spot-dialog").showModal();
  amount.focus(); amount.select();
  void ante;
}
// Enter in the amount places the chips (a form's implicit submission would press its first
// button, Cancel); Escape closes the dialog.
$("spot-amount").addEventListener("keydown", (ev) => {
  if (ev.key === "Enter") { ev.preventDefault(); $("spot-place").click(); }
});
$("spot-form").addEventListener("submit", (ev) => {
  const action = ev.submitter ? ev.submitter.value : "place";
  if (!spotTarget || action === "cancel") return;
  const cents = action === "take" ? 0 : Math.round(parseFloat($("spot-amount").value || "0") * 100);
  post("spot", { seat: spotTarget.seat, spot: spotTarget.spot, cents });
});

if (BENCH) {
  $("deal-1").addEventListener("click", () => post("deal", { count: 1 }));
  $("deal-7").addEventListener("click", () => post("deal", { count: 7 }));
  $("key").addEventListener("click", () => post("key", { on: !(view && view.supervisor) }));
  const sel = $("fault-kind");
  for (const [k, text] of Object.entries(FAULTS)) { const o = el("option", "", text); o.value = k; sel.append(o); }
  $("fault-go").addEventListener("click", () => {
    document.body.dataset.faultClickedAt = Date.now();
    post("fault", { kind: sel.value, seat: 1 });
  });
}

// Live or stale: every view and every heartbeat (a "beat" each second) is a sign of life. With
// none for STALE_MS the page says since when it is not live, greys the device dots and turns its
// controls off; it recovers by itself when the stream does (EventSource reconnects; a stream
// that was refused is opened again every few seconds).
let lastAlive = 0;
let stale = true;
function alive() {
  lastAlive = Date.now();
  if (stale) setStale(false);
}
function setStale(on) {
  stale = on;
  document.body.dataset.live = on ? "no" : "yes";
  document.body.classList.toggle("not-live", on);
  $("stale").hidden = !on;
  if (on) $("stale-since").textContent = lastAlive ? clockText(new Date(lastAlive)) : "the page opened";
  for (const b of document.querySelectorAll("button, select")) {
    if (b.closest("dialog") || b.id === "logout" || b.id === "way-back") continue;
    b.disabled = on;
  }
  if (view) renderLinks(view.links);
  if (on && $("spot-dialog").open) $("spot-dialog").close();
}
let source = null;
function connect() {
  source = new EventSource("/events");
  source.addEventListener("view", (ev) => { render(JSON.parse(ev.data)); alive(); });
  source.addEventListener("beat", alive);
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) { // refused (e.g. 503, or the session ended)
      setTimeout(async () => {
        const r = await fetch("/state", { credentials: "same-origin" }).catch(() => null);
        if (r && r.status === 401) { location.reload(); return; }
        connect();
      }, 3000);
    }
  };
}
const tick = () => {
  $("clock").textContent = clockText(new Date());
  if (!stale && Date.now() - lastAlive > STALE_MS) setStale(true);
};
tick(); setInterval(tick, 250);
connect();
