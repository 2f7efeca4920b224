"use strict";
// Acting from the inspector, and how to say the picked element elsewhere.
//
// Loaded after index.html's own script and uses its globals (state, request, el, make,
// snapshotOf, describeError). Everything the page does goes through the hub like any
// client's request, on the page's own websocket with the token it signed in with: the hub
// checks the role and the lease, and broadcasts each action to every watcher (the timeline
// shows it like anyone else's). An observer gets no act controls at all; a controller gets:
// - on the picture, in "Act" mode: click = tap, hold still = long-press (held as long as the
//   button), drag = swipe along the drag; in "Pick" mode clicks pick elements as before;
// - keys (Back, Home, Recents, Enter, Tab, Del) and the device's lease (hold / release),
//   with who holds it; while another session holds it exclusively the controls are off
//   (the hub would refuse them anyway);
// - for a picked element: tap it, long-press it, and for a field type into it (the hub
//   resolves the element's stable query when the action runs).
// suggestions() gives the picked element's CLI command (by its stable query; the handle only
// when no query names it alone), a flow step in YAML and a Python line.

(() => {
const ACT = { mode: "pick", last: "", busy: false, down: null };
const LONG_PRESS_MS = 500;
const SWIPE_MIN_PX = 24;

function isController() { return !!(state.hello && state.hello.role === "controller"); }

// ---- suggestions: CLI, flow YAML, Python -------------------------------------------------
function shellWord(s) {
  return /^[A-Za-z0-9_.,:\/@%+=-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}
function yamlScalar(s) {
  return /^[A-Za-z0-9][A-Za-z0-9 _.,\/()-]*$/.test(s) && !/^(true|false|null|yes|no|on|off)$/i.test(s) && !/ $/.test(s)
    ? s : JSON.stringify(s);
}
function pyString(s) { return JSON.stringify(s); }

// A flow target for a query: a bare text, or {text, label, id, role, within, nth}.
function yamlTarget(query) {
  const parts = [];
  if (query.text) parts.push("text: " + yamlScalar(query.text.value));
  if (query.label) parts.push("label: " + yamlScalar(query.label.value));
  if (query.resourceId) parts.push("id: " + yamlScalar(query.resourceId));
  if (query.role) parts.push("role: " + query.role);
  if (query.within && query.within.text) parts.push("within: " + yamlScalar(query.within.text.value));
  if (query.nth !== undefined) parts.push("nth: " + query.nth);
  return parts.length === 1 && query.text ? yamlScalar(query.text.value) : "{" + parts.join(", ") + "}";
}

function verbFor(n) { return n.role === "INPUT" ? "type" : "tap"; }

// [label, text, testid] rows for the details panel; query null: only the handle names it.
function suggestions(device, n, query) {
  const verb = verbFor(n);
  const value = n.role === "INPUT" ? " --value TEXT" : "";
  if (!query) {
    return [["command line (by handle: it changes with the screen)",
      "mobridge " + verb + " " + shellWord(device) + " " + n.nodeId + value, "cli"]];
  }
  const cli = ["mobridge", verb, shellWord(device)];
  const yaml = [], py = [];
  if (query.text) { cli.push(shellWord(query.text.value)); yaml.push("text: " + yamlScalar(query.text.value)); py.push("text=" + pyString(query.text.value)); }
  if (query.label) { cli.push("--label", shellWord(query.label.value)); yaml.push("label: " + yamlScalar(query.label.value)); py.push("label=" + pyString(query.label.value)); }
  if (query.resourceId) { cli.push("--id", shellWord(query.resourceId)); yaml.push("id: " + yamlScalar(query.resourceId)); py.push("resource_id=" + pyString(query.resourceId)); }
  if (query.role) { cli.push("--role", query.role); yaml.push("role: " + query.role); py.push("role=" + pyString(query.role)); }
  const within = query.within && query.within.text ? query.within.text.value : null;
  if (within !== null) { cli.push("--within", shellWord(within)); yaml.push("within: " + yamlScalar(within)); }
  if (query.nth !== undefined) { cli.push("--nth", String(query.nth)); yaml.push("nth: " + query.nth); }
  const target = yamlTarget(query);
  let step, line;
  const narrow = [];
  if (within !== null) narrow.push("within=Within(text=TextMatch(value=" + pyString(within) + "))");
  if (query.nth !== undefined) narrow.push("nth=" + query.nth);
  const q = narrow.length
    ? "msgspec.structs.replace(build_query(" + py.join(", ") + "), " + narrow.join(", ") + ")"
    : "build_query(" + py.join(", ") + ")";
  if (verb === "type") {
    step = "- inputText: {into: " + target + ", text: TEXT}";
    line = "await dev.type_text(" + q + ", \"TEXT\")";
  } else {
    step = "- tap: " + target;
    line = "await dev.tap(" + q + ")";
  }
  return [
    ["command line (by its stable query)", cli.join(" ") + value, "cli"],
    ["flow step (YAML)", step, "yaml"],
    ["Python (dev = hub.device(" + pyString(device) + "))", line, "python"],
  ];
}

// ---- acting --------------------------------------------------------------------------------
function leaseOf(device) { const d = state.devices.get(device); return d ? d.lease : null; }
function mine(lease) { return !!(lease && state.hello && lease.holders.includes(state.hello.session)); }
function blockedBy(device) {
  const lease = leaseOf(device);
  return lease && lease.mode === "exclusive" && !mine(lease) ? lease.holderNames.join(", ") || "another session" : null;
}

function say(text, bad) {
  const out = el("act-result");
  if (!out) return;
  out.textContent = text;
  out.className = bad ? "bad" : "";
}

// step: what a recording keeps of this action when it succeeds (record.js), or null.
async function send(what, type, params, step) {
  const device = state.selected;
  if (!device || !isController()) return null;
  ACT.busy = true;
  say(what + " …");
  try {
    const result = await request(type, Object.assign({ device }, params));
    const status = result && result.dispatch ? result.dispatch.status : "done";
    say(what + ": " + status);
    if (window.mobridgeRecord) window.mobridgeRecord(step || { kind: "comment", text: "not recordable: " + what });
    return result;
  } catch (err) {
    say(what + ": refused — " + describeError(err), true);
    return null;
  } finally {
    ACT.busy = false;
  }
}

function pointOf(e) {
  const snap = snapshotOf(state.selected);
  const root = snap && snap.nodes.length ? snap.nodes[0].bounds : null;
  if (!root) return null;
  const r = el("outlines").getBoundingClientRect();
  const fx = Math.min(Math.max((e.clientX - r.left) / r.width, 0), 0.9999);
  const fy = Math.min(Math.max((e.clientY - r.top) / r.height, 0), 0.9999);
  return { x: Math.round(root[0] + fx * (root[2] - root[0])), y: Math.round(root[1] + fy * (root[3] - root[1])) };
}

function acting() { return ACT.mode === "act" && isController() && !blockedBy(state.selected); }
window.mobridgeActing = acting;

function onPointerDown(e) {
  if (!acting() || e.button !== 0) return;
  const at = pointOf(e);
  if (!at) return;
  ACT.down = { at, t: performance.now(), x: e.clientX, y: e.clientY };
  e.preventDefault();
}

function onPointerUp(e) {
  if (!ACT.down) return;
  const start = ACT.down;
  ACT.down = null;
  const end = pointOf(e) || start.at;
  const held = Math.round(performance.now() - start.t);
  const dx = end.x - start.at.x, dy = end.y - start.at.y;
  if (Math.hypot(dx, dy) >= SWIPE_MIN_PX) {
    send("swipe from (" + start.at.x + ", " + start.at.y + ") to (" + end.x + ", " + end.y + ")", "gesture",
      { kind: "swipe", points: [start.at, end], durationMs: Math.min(Math.max(held, 100), 2000) });
  } else if (held >= LONG_PRESS_MS) {
    send("long-press at (" + start.at.x + ", " + start.at.y + ")", "gesture",
      { kind: "long_press", points: [start.at], durationMs: Math.min(held, 5000) });
  } else {
    tapUnder(start);
  }
}

// A tap in Act mode is a tap on the element under the pointer, by its stable query (so a
// recording replays it on any screen size); a point with no tappable element under it, or no
// query that names it alone, is a tap at that point.
async function tapUnder(start) {
  const device = state.selected;
  const n = nodeAt({ clientX: start.x, clientY: start.y });
  const tappable = n && (n.role === "INPUT" || (n.actions || []).includes("CLICK"));
  let got = null;
  if (tappable) { try { got = await generateQuery(device, n, snapshotOf(device)); } catch (_) { got = null; } }
  if (!got) {
    await send("tap at (" + start.at.x + ", " + start.at.y + ")", "gesture", { kind: "tap", points: [start.at] });
    return;
  }
  const name = n.text || n.label || n.hint || n.nodeId;
  await send("tap " + JSON.stringify(name), "act", { query: got.query, request: { action: "CLICK" } },
    { kind: "tap", query: got.query });
  if (n.role === "INPUT") focusTypeBox();
}

// ---- typing in Act mode: the type box types into the field that has the focus -------------
function focusedField() {
  const snap = snapshotOf(state.selected);
  return snap ? snap.nodes.find((n) => n.role === "INPUT" && (n.state || {}).focused) || null : null;
}

function focusTypeBox() {
  const box = el("act-type-box");
  if (!box) return;
  const field = focusedField();
  box.type = field && (field.state || {}).password ? "password" : "text";
  box.focus();
}

// Enter: set the text, then ENTER on the device; Tab: set it, then TAB (the next field).
// Typing runs in order (one after another) and waits for the screen to show each key's effect
// (the focus moved) before the next text picks its field.
let typing = Promise.resolve();
function typeFromBox(box, key) {
  const text = box.value;
  box.value = "";
  typing = typing.then(() => typeText(box, text, key)).catch(() => {});
}

function nextScreen(device, generation, ms, moved) {
  return new Promise((resolve) => {
    const until = performance.now() + ms;
    const poll = () => {
      const s = streamOf(device);
      if (!s || (moved ? moved() : s.generation !== generation) || performance.now() > until) resolve();
      else setTimeout(poll, 30);
    };
    poll();
  });
}

async function typeText(box, text, key) {
  const device = state.selected;
  // the tap that focused a field may not be on the page's screen yet: wait for it (1.5 s)
  if (!focusedField()) await nextScreen(device, null, 1500, () => !!focusedField());
  const field = focusedField();
  if (text) {
    if (!field) { say("no field has the focus: tap one first", true); return; }
    const got = await generateQuery(device, field, snapshotOf(device));
    const target = got ? { query: got.query, request: { action: "SET_TEXT", value: text } }
      : { request: { action: "SET_TEXT", value: text, target: null } };
    if (!got) { say("no query names the focused field alone", true); return; }
    const secret = !!(field.state || {}).password;
    const name = field.hint || field.label || field.nodeId;
    const done = await send("type into " + JSON.stringify(name), "act", target,
      { kind: "type", query: got.query, text: secret ? null : text, secret: secret ? shortId(field.resourceId || name).replace(/[^A-Za-z0-9_]/g, "_").toLowerCase() : null });
    if (!done) return;
  }
  if (key) {
    const before = streamOf(device);
    const generation = before ? before.generation : null;
    const done = await send("press " + key.toLowerCase(), "key", { key }, { kind: "key", key });
    const was = field;
    // TAB: until another field has the focus; else until the screen changes
    const moved = key === "TAB" && was ? () => { const f = focusedField(); return !!f && f.nodeId !== was.nodeId; } : null;
    if (done) await nextScreen(device, generation, 1500, moved);
  }
  focusTypeBox();
}

// In Act mode the picture's clicks act instead of picking (index.html picks on click); while
// another session holds the lease they pick, as in Pick mode.
function swallowClick(e) { if (acting()) { e.stopPropagation(); e.preventDefault(); } }

function button(label, testid, onclick) {
  const b = make("button", label);
  b.type = "button";
  b.dataset.testid = testid;
  b.onclick = onclick;
  return b;
}

function renderBar() {
  let bar = el("act-bar");
  if (!isController()) { if (bar) bar.remove(); return; }
  if (!bar) {
    bar = make("div");
    bar.id = "act-bar";
    bar.dataset.testid = "act-bar";
    el("picture").before(bar);
  }
  const device = state.selected;
  const lease = device ? leaseOf(device) : null;
  const blocker = device ? blockedBy(device) : null;
  const modes = make("span", null, "act-modes");
  for (const [mode, label, tip] of [["pick", "Pick", "click the picture to pick an element"],
    ["act", "Act", "click: tap · hold: long-press · drag: swipe"]]) {
    const b = button(label, "mode-" + mode, () => { ACT.mode = mode; renderBar(); });
    b.title = tip;
    b.className = ACT.mode === mode ? "on" : "";
    modes.append(b);
  }
  const keys = make("span", null, "act-keys");
  for (const [label, type, params] of [["Back", "global", { action: "BACK" }], ["Home", "global", { action: "HOME" }],
    ["Recents", "global", { action: "RECENTS" }], ["Enter", "key", { key: "ENTER" }], ["Tab", "key", { key: "TAB" }],
    ["Del", "key", { key: "DEL" }]]) {
    const step = type === "global" ? { kind: "key", key: params.action } : { kind: "key", key: params.key };
    keys.append(button(label, "key-" + label.toLowerCase(), () => send("press " + label.toLowerCase(), type, params, step)));
  }
  const typeBox = make("input");
  typeBox.id = "act-type-box";
  typeBox.dataset.testid = "act-type-box";
  typeBox.placeholder = "type into the focused field (Enter: submit · Tab: next)";
  typeBox.autocomplete = "off";
  typeBox.title = "Act mode: tap a field on the picture, then type here";
  const keep = el("act-type-box");
  if (keep) { typeBox.value = keep.value; typeBox.type = keep.type; }
  typeBox.addEventListener("keydown", (e) => {
    if (e.key !== "Enter" && e.key !== "Tab") return;
    e.preventDefault();
    typeFromBox(typeBox, e.key === "Enter" ? "ENTER" : "TAB");
  });
  const leaseBox = make("span", null, "act-lease");
  leaseBox.dataset.testid = "act-lease";
  if (mine(lease)) {
    leaseBox.append(make("span", "lease: yours (" + lease.mode + ")"), button("Release", "lease-release", async () => {
      try { await request("lease.release", { device }); } catch (err) { say("release: " + describeError(err), true); }
    }));
  } else if (lease) {
    leaseBox.append(make("span", "lease: " + lease.mode + ", held by " + lease.holderNames.join(", ") + (blocker ? " — you cannot act" : "")));
  } else {
    leaseBox.append(make("span", "lease: free"), button("Hold", "lease-hold", async () => {
      try { await request("lease.acquire", { device, mode: "exclusive" }); } catch (err) { say("lease: " + describeError(err), true); }
    }));
  }
  const result = make("span", ACT.last);
  result.id = "act-result";
  result.dataset.testid = "act-result";
  const hadFocus = document.activeElement && document.activeElement.id === "act-type-box";
  bar.replaceChildren(modes, keys, typeBox, leaseBox, result);
  if (hadFocus) typeBox.focus();
  // Pick and Act stay usable: while another session holds the lease, Act-mode clicks pick
  for (const b of modes.children) b.disabled = !device;
  for (const b of keys.children) b.disabled = !!blocker || !device;
  typeBox.disabled = !!blocker || !device;
  typeBox.hidden = ACT.mode !== "act";
  el("picture").classList.toggle("acting", ACT.mode === "act" && !blocker);
  if (blocker && ACT.mode === "act") say("Act is off while " + blocker + " holds the lease: clicks pick elements", true);
}

// Act buttons for the picked element (controllers only), under its facts.
function renderPicked(detail) {
  const box = el("details");
  const old = el("act-picked");
  const oldInput = el("act-text");
  const kept = oldInput && old && old.dataset.node === (detail && detail.node ? detail.node.nodeId : "")
    ? { value: oldInput.value, focused: document.activeElement === oldInput } : null;
  if (old) old.remove();
  if (!isController() || !detail || !detail.node) return;
  const { device, node, query } = detail;
  const wrap = make("div");
  wrap.id = "act-picked";
  wrap.dataset.testid = "act-picked";
  wrap.dataset.node = node.nodeId;
  const blocker = blockedBy(device);
  const target = query ? { query } : { request: { target: detail.ref } };
  const secret = !!(node.state || {}).password;
  const stepOf = (verb, value) => !query ? null : verb === "CLICK" ? { kind: "tap", query }
    : verb === "LONG_CLICK" ? { kind: "longPress", query }
    : { kind: "type", query, text: secret ? null : value, secret: secret ? shortId(node.resourceId || node.nodeId).replace(/[^A-Za-z0-9_]/g, "_").toLowerCase() : null };
  const act = (verb, what, value) => send(what, "act", Object.assign({}, target.query ? { query: target.query } : {},
    { request: Object.assign({ action: verb }, target.request || {}, value !== undefined ? { value } : {}) }), stepOf(verb, value));
  if (!query && !detail.ref) return;
  const name = node.text || node.label || node.hint || node.nodeId;
  wrap.append(button("Tap it", "act-tap", () => act("CLICK", "tap " + JSON.stringify(name))));
  wrap.append(button("Long-press it", "act-long-press", () => act("LONG_CLICK", "long-press " + JSON.stringify(name))));
  if (node.role === "INPUT") {
    const input = make("input");
    input.type = (node.state || {}).password ? "password" : "text";
    input.placeholder = "text to type into " + name;
    input.id = "act-text";
    input.dataset.testid = "act-text";
    const go = button("Type", "act-type", () => act("SET_TEXT", "type into " + JSON.stringify(name), input.value));
    input.addEventListener("keydown", (e) => { if (e.key === "Enter") go.click(); });
    wrap.append(input, go);
    if (kept) input.value = kept.value;
  }
  for (const b of wrap.querySelectorAll("button, input")) b.disabled = !!blocker;
  box.prepend(wrap);
  // a picked field's text box takes the focus (typing goes straight to it)
  const input = el("act-text");
  if (input && !blocker && (!kept || kept.focused) && !(document.activeElement && document.activeElement.id === "act-type-box")) input.focus();
}

const style = document.createElement("style");
style.textContent = `
  #act-bar { flex: 0 0 auto; display: flex; flex-wrap: wrap; gap: .3em .6em; align-items: center; margin-bottom: .4em; font-size: 12px; }
  #act-bar button, #act-picked button { border: 1px solid #c5cbd8; background: #f4f5f8; border-radius: 4px; padding: .1em .5em; cursor: pointer; font-size: 12px; }
  #act-bar button.on { background: #3d6df2; border-color: #3d6df2; color: #fff; }
  #act-bar button:disabled, #act-picked button:disabled { opacity: .45; cursor: not-allowed; }
  #act-bar .act-modes, #act-bar .act-keys, #act-bar .act-lease { display: inline-flex; gap: .25em; align-items: center; }
  #act-result { color: #1c6b2b; font-family: ui-monospace, monospace; flex-basis: 100%; min-height: 1.3em; }
  #act-result.bad { color: #b3261e; }
  #picture.acting #outlines { cursor: pointer; }
  #act-picked { display: flex; flex-wrap: wrap; gap: .3em; align-items: center; margin: 0 0 .5em; }
  #act-picked input { flex: 1; min-width: 8em; padding: .15em .3em; }
`;
document.head.append(style);
window.mobridgeSuggestions = suggestions;
window.mobridgeMode = (mode) => { if (!isController()) return; ACT.mode = mode; renderBar(); if (mode === "act") focusTypeBox(); };
document.addEventListener("mobridge:connected", renderBar);
document.addEventListener("mobridge:event", (e) => { if (e.detail.type !== "action") renderBar(); });
document.addEventListener("mobridge:device", renderBar);
document.addEventListener("mobridge:picked", (e) => renderPicked(e.detail));
el("outlines").addEventListener("pointerdown", onPointerDown);
window.addEventListener("pointerup", onPointerUp);
el("picture").addEventListener("click", swallowClick, true);
})();
