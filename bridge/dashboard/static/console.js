"use strict";
// The console (issue 39): one line runs a mobridge action on the selected device and shows what
// the hub answered (the ActionResult, a find's matches, or the refusal). It takes
// - a flow step, in the flow's short form: `tap: Login`, `- tap: {id: login}`,
//   `inputText: {into: {id: username}, text: demo}`, `longPress: ...`, `pressKey: enter`,
//   `back`, `home`, `assertVisible: Sign in`;
// - a command line: `mobridge tap [DEVICE] TEXT [--id ID] [--role R] [--label L] [--within W]
//   [--nth N]`, `type ... --value V`, `find ...`, `key NAME`, `back`, `home`, `recents`;
// - a request of the protocol as JSON (`{"type": "find", "query": {...}}`; `device` defaults
//   to the selected one).
// Everything goes through the hub on the page's own session (an observer's mutating requests
// are refused by the hub, and the console says so). Successful taps, typing and keys are also
// recording steps (record.js). Text goes in with textContent only.
(() => {
const MAX_LINES = 200;
const panel = make("section");
panel.id = "console";
panel.dataset.testid = "console";
panel.hidden = true;
const out = make("div");
out.id = "console-out";
out.dataset.testid = "console-out";
const form = make("form");
const input = make("input");
input.id = "console-in";
input.dataset.testid = "console-in";
input.placeholder = "tap: Login · mobridge type --id username --value demo · {\"type\": \"find\", \"query\": {\"role\": \"INPUT\"}}";
input.autocomplete = "off";
input.setAttribute("aria-label", "console: a flow step, a mobridge command or a JSON request");
const run = make("button", "Run");
run.type = "submit";
const close = make("button", "Close");
close.type = "button";
form.append(input, run, close);
panel.append(make("h2", "Console"), out, form);
document.body.append(panel);

const style = make("style");
style.textContent = `
  #console { position: fixed; left: .6em; right: .6em; bottom: .6em; max-height: 45vh; z-index: 6; box-shadow: 0 8px 30px rgba(0,0,0,.25); }
  #console-out { flex: 1 1 auto; overflow: auto; font-family: ui-monospace, monospace; font-size: 12px; white-space: pre-wrap; min-height: 4em; }
  #console-out .in { color: #3d6df2; } #console-out .bad { color: #b3261e; } #console-out .ok { color: #1c6b2b; }
  #console form { display: flex; gap: .4em; margin-top: .3em; }
  #console input { flex: 1; font-family: ui-monospace, monospace; }
`;
document.head.append(style);

const openButton = make("button", "Console");
openButton.type = "button";
openButton.id = "console-open";
openButton.dataset.testid = "console-open";
openButton.title = "run a flow step, a mobridge command or a request (key c)";
el("signout").before(openButton);

function toggle(show) {
  panel.hidden = show === undefined ? !panel.hidden : !show;
  if (!panel.hidden) input.focus();
}
openButton.addEventListener("click", () => toggle());
close.addEventListener("click", () => toggle(false));
window.mobridgeConsole = toggle;

function print(text, cls) {
  const line = make("div", text, cls);
  out.append(line);
  while (out.childNodes.length > MAX_LINES) out.removeChild(out.firstChild);
  line.scrollIntoView({ block: "nearest" });
  return line;
}

// ---- a small reader for the flow's one-line YAML: scalars, {flow: maps} and [lists] ----------
function readFlow(text) {
  let i = 0;
  const ws = () => { while (i < text.length && text[i] === " ") i++; };
  function scalar(stop) {
    ws();
    if (text[i] === '"' || text[i] === "'") {
      const q = text[i++];
      let s = "";
      while (i < text.length && text[i] !== q) { if (text[i] === "\\" && q === '"') i++; s += text[i++]; }
      i++;
      return s;
    }
    let s = "";
    while (i < text.length && !stop.includes(text[i])) s += text[i++];
    s = s.trim();
    return /^-?\d+$/.test(s) ? Number(s) : s;
  }
  function value(stop) {
    ws();
    if (text[i] === "{") {
      i++;
      const obj = {};
      for (;;) {
        ws();
        if (text[i] === "}") { i++; return obj; }
        const key = scalar(":}");
        if (text[i] !== ":") throw new Error("expected ':' after " + key);
        i++;
        obj[key] = value(",}");
        ws();
        if (text[i] === ",") i++;
      }
    }
    if (text[i] === "[") {
      i++;
      const list = [];
      for (;;) {
        ws();
        if (text[i] === "]") { i++; return list; }
        list.push(value(",]"));
        ws();
        if (text[i] === ",") i++;
      }
    }
    return scalar(stop);
  }
  return value("");
}

// A flow target: a bare text, or {text, label, id, role, within, nth}.
function queryOf(target) {
  if (typeof target !== "object") return { text: { value: String(target) } };
  const q = {};
  if (target.text !== undefined) q.text = { value: String(target.text) };
  if (target.label !== undefined) q.label = { value: String(target.label) };
  if (target.id !== undefined) q.resourceId = String(target.id);
  if (target.role !== undefined) q.role = String(target.role).toUpperCase();
  if (target.within !== undefined) q.within = { text: { value: String(target.within) } };
  if (target.nth !== undefined) q.nth = Number(target.nth);
  return q;
}

const GLOBALS = { back: "BACK", home: "HOME", recents: "RECENTS" };

// [request type, params, recording step or null, what it is] for one console line.
function parse(line) {
  line = line.trim().replace(/^- /, "");
  if (line.startsWith("{")) {
    const msg = JSON.parse(line);
    const type = msg.type;
    delete msg.type;
    delete msg.id;
    return [type, msg, null, type];
  }
  if (/^(mobridge\s+)?[a-z]+(\s|$)/.test(line) && !/^[A-Za-z]+:/.test(line)) return parseCli(line);
  const colon = line.indexOf(":");
  const name = colon < 0 ? line : line.slice(0, colon).trim();
  const arg = colon < 0 ? null : readFlow(line.slice(colon + 1));
  if (GLOBALS[name]) return ["global", { action: GLOBALS[name] }, { kind: "key", key: GLOBALS[name] }, name];
  switch (name) {
    case "tap": case "tapOn": { const q = queryOf(arg); return ["act", { query: q, request: { action: "CLICK" } }, { kind: "tap", query: q }, "tap"]; }
    case "longPress": { const q = queryOf(arg); return ["act", { query: q, request: { action: "LONG_CLICK" } }, { kind: "longPress", query: q }, "longPress"]; }
    case "inputText": {
      if (typeof arg !== "object" || !arg.into) throw new Error("inputText here needs {into: TARGET, text: ...}");
      const q = queryOf(arg.into);
      return ["act", { query: q, request: { action: "SET_TEXT", value: String(arg.text) } }, { kind: "type", query: q, text: String(arg.text), secret: null }, "inputText"];
    }
    case "pressKey": {
      const key = String(arg).toUpperCase();
      if (GLOBALS[String(arg).toLowerCase()]) return ["global", { action: key }, { kind: "key", key }, "pressKey"];
      return ["key", { key }, { kind: "key", key }, "pressKey"];
    }
    case "assertVisible": return ["find", { query: queryOf(arg) }, null, "assertVisible"];
    default: throw new Error("not a step this console runs: " + name + " (tap, longPress, inputText, pressKey, back, home, recents, assertVisible)");
  }
}

function words(line) {
  const out = [];
  const re = /'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g;
  let m;
  while ((m = re.exec(line))) out.push(m[1] !== undefined ? m[1] : m[2] !== undefined ? m[2] : m[3]);
  return out;
}

function parseCli(line) {
  const w = words(line);
  if (w[0] === "mobridge") w.shift();
  const verb = w.shift();
  if (GLOBALS[verb]) return ["global", { action: GLOBALS[verb] }, { kind: "key", key: GLOBALS[verb] }, verb];
  if (verb === "key") { const key = String(w.pop()).toUpperCase(); return ["key", { key }, { kind: "key", key }, "key"]; }
  const q = {};
  let value = null;
  const loose = [];
  for (let k = 0; k < w.length; k++) {
    const flag = w[k];
    if (flag === "--id") q.resourceId = w[++k];
    else if (flag === "--role") q.role = String(w[++k]).toUpperCase();
    else if (flag === "--label") q.label = { value: w[++k] };
    else if (flag === "--text") q.text = { value: w[++k] };
    else if (flag === "--within") q.within = { text: { value: w[++k] } };
    else if (flag === "--nth") q.nth = Number(w[++k]);
    else if (flag === "--value") value = w[++k];
    else loose.push(flag);
  }
  if (loose.length && loose[0] === state.selected) loose.shift();  // the device, as the CLI takes it
  if (loose.length) q.text = { value: loose.join(" ") };
  if (!Object.keys(q).length) throw new Error("name a target: TEXT, --id, --role, --label");
  switch (verb) {
    case "tap": return ["act", { query: q, request: { action: "CLICK" } }, { kind: "tap", query: q }, "tap"];
    case "type": return ["act", { query: q, request: { action: "SET_TEXT", value: value || "" } }, { kind: "type", query: q, text: value || "", secret: null }, "type"];
    case "find": return ["find", { query: q }, null, "find"];
    default: throw new Error("not a command this console runs: " + verb + " (tap, type, find, key, back, home, recents)");
  }
}

function summary(type, what, result) {
  if (what === "assertVisible") return result.count > 0 ? "PASS: " + result.count + " visible" : "FAIL: nothing matches";
  if (type === "find") return result.count + " match" + (result.count === 1 ? "" : "es") + ": " + result.matches.map((m) => m.node.nodeId + " " + m.node.role + " " + JSON.stringify(m.node.text || m.node.label || m.node.hint || "")).join(", ");
  if (result && result.dispatch) return (result.dispatch.status || "") + (result.verification ? " · verified " + (result.verification.status || "") : "");
  return "ok";
}

async function runLine(line) {
  print("> " + line, "in");
  let parsed;
  try { parsed = parse(line); } catch (err) { print(String(err.message || err), "bad").dataset.testid = "console-result"; return; }
  const [type, params, step, what] = parsed;
  if (!type) { print("a JSON request needs its \"type\"", "bad").dataset.testid = "console-result"; return; }
  if (params.device === undefined && type !== "devices.list" && type !== "ping") params.device = state.selected;
  try {
    const result = await request(type, params);
    const head = print(summary(type, what, result), what === "assertVisible" && !(result.count > 0) ? "bad" : "ok");
    head.dataset.testid = "console-result";
    const body = print(JSON.stringify(result, null, 1).slice(0, 4000));
    body.dataset.testid = "console-json";
    if (step && window.mobridgeRecord) window.mobridgeRecord(step);
  } catch (err) {
    const line2 = print("refused: " + describeError(err), "bad");
    line2.dataset.testid = "console-result";
  }
}

const past = [];
let back = 0;
form.addEventListener("submit", (e) => {
  e.preventDefault();
  const line = input.value.trim();
  if (!line) return;
  past.push(line);
  if (past.length > 100) past.shift();
  back = past.length;
  input.value = "";
  runLine(line);
});
input.addEventListener("keydown", (e) => {
  if (e.key === "ArrowUp" && back > 0) { input.value = past[--back]; e.preventDefault(); }
  if (e.key === "ArrowDown" && back < past.length) { back += 1; input.value = past[back] || ""; e.preventDefault(); }
  if (e.key === "Escape") toggle(false);
});
})();
