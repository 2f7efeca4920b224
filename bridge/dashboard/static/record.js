"use strict";
// Recording in the page (issue 39): Record / Stop in the activity panel; while recording, every
// action this page makes that succeeds (act.js calls window.mobridgeRecord with its step: a tap
// or long-press on an element by its stable query, text typed into a field, a key) is listed
// as it is made, and the recording exports as a mobridge flow (YAML, runs with `mobridge
// test`), a Maestro flow (plain Maestro syntax) or a Python script (bridge.client). Text typed
// into a password field is never kept: it is exported as `secret://<field>` (mobridge), an
// environment variable (Maestro) or a value_ref (Python), to be provided at replay.
// Uses the page's globals (state, el, make, snapshotOf, describeQuery); text via textContent.
(() => {
const MAX_STEPS = 500;
const REC = { on: false, steps: [], device: null, appId: null };

const panel = make("div");
panel.id = "rec";
panel.dataset.testid = "recorder";
const toggle = make("button", "● Record");
toggle.type = "button";
toggle.dataset.testid = "rec-toggle";
toggle.title = "record this page's actions as a flow (key r)";
const clear = make("button", "Clear");
clear.type = "button";
clear.dataset.testid = "rec-clear";
const format = make("select");
format.dataset.testid = "rec-format";
for (const [value, label] of [["mobridge", "mobridge YAML"], ["maestro", "Maestro YAML"], ["python", "Python"]]) {
  const o = make("option", label);
  o.value = value;
  format.append(o);
}
const exportButton = make("button", "Export");
exportButton.type = "button";
exportButton.dataset.testid = "rec-export-button";
exportButton.title = "download the recording in the chosen format";
const head = make("div", null, "rec-head");
head.append(toggle, clear, format, exportButton);
const list = make("ol");
list.dataset.testid = "rec-steps";
const out = make("pre");
out.dataset.testid = "rec-export";
out.hidden = true;
panel.append(head, list, out);

const style = make("style");
style.textContent = `
  #rec { flex: 0 0 auto; border-bottom: 1px solid #e3e5eb; margin-bottom: .4em; padding-bottom: .3em; font-size: 12px; }
  #rec .rec-head { display: flex; gap: .3em; align-items: center; flex-wrap: wrap; }
  #rec button, #rec select { font-size: 12px; }
  #rec button.on { background: #e2336b; color: #fff; border-color: #e2336b; }
  #rec ol { margin: .2em 0; padding-left: 2em; max-height: 9em; overflow: auto; font-family: ui-monospace, monospace; }
  #rec pre { max-height: 12em; overflow: auto; background: #f4f5f8; padding: .3em; margin: .2em 0 0; font-size: 11.5px; }
`;
document.head.append(style);
el("filters").before(panel);

function shortId(id) { return id ? id.split(":id/").pop() : id; }

function yamlScalar(s) {
  return /^[A-Za-z0-9][A-Za-z0-9 _.,\/()-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|y|n)$/i.test(s) && !/ $/.test(s)
    ? s : JSON.stringify(s);
}

function target(q) {
  const parts = [];
  if (q.text) parts.push("text: " + yamlScalar(q.text.value));
  if (q.label) parts.push("label: " + yamlScalar(q.label.value));
  if (q.resourceId) parts.push("id: " + yamlScalar(q.resourceId));
  if (q.role) parts.push("role: " + q.role);
  if (q.within && q.within.text) parts.push("within: " + yamlScalar(q.within.text.value));
  if (q.nth !== undefined) parts.push("nth: " + q.nth);
  return parts.length === 1 && q.text ? yamlScalar(q.text.value) : "{" + parts.join(", ") + "}";
}

function describe(step) {
  switch (step.kind) {
    case "tap": return "tap " + describeQuery(step.query);
    case "longPress": return "long-press " + describeQuery(step.query);
    case "type": return "type " + (step.secret ? "secret://" + step.secret : JSON.stringify(step.text)) + " into " + describeQuery(step.query);
    case "key": return "press " + step.key.toLowerCase();
    default: return "# " + step.text;
  }
}

function secrets() { return [...new Set(REC.steps.filter((s) => s.secret).map((s) => s.secret))]; }

function mobridgeYaml() {
  const lines = ["# Recorded in the mobridge inspector on " + REC.device + "."];
  for (const name of secrets()) lines.push("# Needs secret://" + name + " at replay (MOBRIDGE_SECRET_" + name.toUpperCase() + "=...).");
  lines.push("appId: " + yamlScalar(REC.appId || "app"), "name: Recorded in the inspector", "---");
  for (const s of REC.steps) {
    if (s.kind === "tap") lines.push("- tap: " + target(s.query));
    else if (s.kind === "longPress") lines.push("- longPress: " + target(s.query));
    else if (s.kind === "type" && s.secret) lines.push("- inputText: {into: " + target(s.query) + ", secret: secret://" + s.secret + "}");
    else if (s.kind === "type") lines.push("- inputText: {into: " + target(s.query) + ", text: " + JSON.stringify(s.text) + "}");
    else if (s.kind === "key") lines.push("- pressKey: " + s.key.toLowerCase());
    else lines.push("# " + s.text);
  }
  return lines.join("\n") + "\n";
}

const MAESTRO_KEYS = { ENTER: "Enter", TAB: "Tab", DEL: "Backspace", BACK: "Back", HOME: "Home" };

function maestroSelector(q) {
  const parts = [];
  if (q.resourceId) parts.push("id: " + JSON.stringify(q.resourceId));
  if (q.text) parts.push("text: " + JSON.stringify(q.text.value));
  else if (q.label) parts.push("text: " + JSON.stringify(q.label.value));
  if (q.nth !== undefined) parts.push("index: " + q.nth);
  if (q.within && q.within.text) parts.push("childOf: {text: " + JSON.stringify(q.within.text.value) + "}");
  return "{" + parts.join(", ") + "}";
}

function maestroYaml() {
  const lines = ["# Recorded in the mobridge inspector on " + REC.device + "."];
  for (const name of secrets()) lines.push("# Needs ${" + name.toUpperCase() + "} at replay (maestro test -e " + name.toUpperCase() + "=...).");
  lines.push("appId: " + (REC.appId || "app"), "---");
  let focused = null;
  for (const s of REC.steps) {
    if (s.kind === "tap") { lines.push("- tapOn: " + maestroSelector(s.query)); focused = JSON.stringify(s.query); }
    else if (s.kind === "longPress") lines.push("- longPressOn: " + maestroSelector(s.query));
    else if (s.kind === "type") {
      if (focused !== JSON.stringify(s.query)) lines.push("- tapOn: " + maestroSelector(s.query));
      lines.push("- inputText: " + (s.secret ? "${" + s.secret.toUpperCase() + "}" : JSON.stringify(s.text)));
    } else if (s.kind === "key") {
      lines.push(s.key === "BACK" ? "- back" : "- pressKey: " + (MAESTRO_KEYS[s.key] || s.key));
      if (s.key === "TAB") focused = null;
    } else lines.push("# " + s.text);
  }
  return lines.join("\n") + "\n";
}

function pyQuery(q) {
  const args = [];
  if (q.text) args.push("text=" + JSON.stringify(q.text.value));
  if (q.label) args.push("label=" + JSON.stringify(q.label.value));
  if (q.resourceId) args.push("resource_id=" + JSON.stringify(q.resourceId));
  if (q.role) args.push("role=" + JSON.stringify(q.role));
  const narrow = [];
  if (q.within && q.within.text) narrow.push("within=Within(text=TextMatch(value=" + JSON.stringify(q.within.text.value) + "))");
  if (q.nth !== undefined) narrow.push("nth=" + q.nth);
  const built = "build_query(" + args.join(", ") + ")";
  return narrow.length ? "msgspec.structs.replace(" + built + ", " + narrow.join(", ") + ")" : built;
}

function python() {
  const body = [];
  for (const s of REC.steps) {
    if (s.kind === "tap") body.push("await dev.tap(" + pyQuery(s.query) + ")");
    else if (s.kind === "longPress") body.push("await dev.act_on(" + pyQuery(s.query) + ", \"LONG_CLICK\")");
    else if (s.kind === "type" && s.secret) body.push("await dev.type_text(" + pyQuery(s.query) + ", value_ref=\"secret://" + s.secret + "\")");
    else if (s.kind === "type") body.push("await dev.type_text(" + pyQuery(s.query) + ", " + JSON.stringify(s.text) + ")");
    else if (s.kind === "key" && ["BACK", "HOME", "RECENTS"].includes(s.key)) body.push("await dev.global_action(" + JSON.stringify(s.key) + ")");
    else if (s.kind === "key") body.push("await dev.press_key(" + JSON.stringify(s.key) + ")");
    else body.push("# " + s.text);
  }
  return [
    "\"\"\"Recorded in the mobridge inspector on " + REC.device + ": MOBRIDGE_URL and MOBRIDGE_TOKEN name the hub.\"\"\"",
    "",
    "import asyncio",
    "import os",
    "",
    "import msgspec",
    "",
    "from bridge.client import build_query, connect",
    "from bridge.wire.query import TextMatch, Within",
    "",
    "",
    "async def main() -> None:",
    "    async with connect(os.environ[\"MOBRIDGE_URL\"], token=os.environ.get(\"MOBRIDGE_TOKEN\"), name=\"recorded\") as hub:",
    "        dev = hub.device(" + JSON.stringify(REC.device) + ")",
    ...body.map((line) => "        " + line),
    "",
    "",
    "asyncio.run(main())",
    "",
  ].join("\n");
}

function exported() {
  return format.value === "maestro" ? maestroYaml() : format.value === "python" ? python() : mobridgeYaml();
}

function render() {
  toggle.textContent = REC.on ? "■ Stop" : "● Record";
  toggle.className = REC.on ? "on" : "";
  list.replaceChildren(...REC.steps.map((s) => make("li", describe(s))));
  if (list.lastChild) list.lastChild.scrollIntoView({ block: "nearest" });
  out.hidden = !REC.steps.length;
  out.textContent = REC.steps.length ? exported() : "";
}

function setRecording(on) {
  REC.on = on;
  if (on && !REC.steps.length) {
    REC.device = state.selected;
    const snap = snapshotOf(state.selected);
    REC.appId = snap ? snap.appId || snap.packageName : null;
  }
  render();
}

window.mobridgeRecord = (step) => {
  if (!REC.on || !step || REC.device !== state.selected || REC.steps.length >= MAX_STEPS) return;
  REC.steps.push(step);
  render();
};
window.mobridgeRecording = { toggle: () => setRecording(!REC.on), exported };

toggle.addEventListener("click", () => setRecording(!REC.on));
clear.addEventListener("click", () => { REC.steps = []; render(); });
format.addEventListener("change", render);
exportButton.addEventListener("click", () => {
  const text = exported();
  const name = format.value === "python" ? "recorded.py" : format.value === "maestro" ? "recorded.maestro.yaml" : "recorded.yaml";
  const a = make("a");
  a.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
  a.download = name;
  document.body.append(a);
  a.click();
  setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
});
render();
})();
