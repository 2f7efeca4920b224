"use strict";
// Keyboard shortcuts (issue 39), outside text boxes: "/" search the elements, "p" Pick mode,
// "a" Act mode (its type box takes the focus), "r" start / stop recording, "c" the console,
// "+" / "-" zoom the
// picture, "t" time travel, "?" this list. Escape leaves a text box. The tab order follows the
// page: header, devices, screen controls, elements, details, activity.
(() => {
const HELP = "keys: / search · p pick · a act · r record · c console · + − zoom · t time travel · Esc leave a text box";
const typing = (t) => t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable);
document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  if (typing(e.target)) { if (e.key === "Escape") e.target.blur(); return; }
  if (document.body.classList.contains("offline")) return;
  const run = {
    "/": () => el("search").focus(),
    p: () => window.mobridgeMode && window.mobridgeMode("pick"),
    a: () => window.mobridgeMode && window.mobridgeMode("act"),
    r: () => window.mobridgeRecording && window.mobridgeRecording.toggle(),
    "+": () => setZoom(Math.min(2, (state.zoom || Number(el("picture").dataset.scale) || 0.3) * 1.25)),
    "=": () => setZoom(Math.min(2, (state.zoom || Number(el("picture").dataset.scale) || 0.3) * 1.25)),
    "-": () => setZoom(Math.max(0.1, (state.zoom || Number(el("picture").dataset.scale) || 0.3) * 0.8)),
    "0": () => setZoom(0),
    t: () => { const b = el("tt-open"); if (b) b.click(); },
    c: () => window.mobridgeConsole && window.mobridgeConsole(true),
    "?": () => { el("status").title = HELP; el("keys-help").hidden = !el("keys-help").hidden; },
  }[e.key];
  if (!run) return;
  e.preventDefault();
  run();
});
const help = make("span", HELP, "hint");
help.id = "keys-help";
help.dataset.testid = "keys-help";
help.hidden = true;
el("signout").before(help);
})();
