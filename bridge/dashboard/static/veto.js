// Veto bar (issue 23): actions the hub announced and holds for a person's veto.
// The hub sends an `intent` event before every action; with a veto window (`vetoMs` > 0,
// `mobridge serve --veto-window`) a mutating action waits that long. This bar lists those,
// counts down, and sends `veto` for the one a person stops. The dashboard says hello as kind
// "dashboard", which outranks scripts and agents; vetoing needs a controller token (an observer
// token is refused FORBIDDEN, shown in the bar). Device text goes in with textContent only.
// An observer's page shows the countdown but no working Veto button (only a controller may
// veto). When the action's outcome arrives (from this page's veto, another page's, or the
// window running out) every page stops its countdown: a refusal says who vetoed it.
(function () {
  "use strict";
  const bar = document.createElement("div");
  bar.id = "veto-bar";
  bar.dataset.testid = "veto-bar";
  bar.style.cssText = "position:fixed;bottom:12px;right:12px;z-index:50;display:flex;" +
    "flex-direction:column;gap:6px;max-width:420px;font:14px system-ui,sans-serif";
  const rows = new Map();

  const observer = () => !!(state.hello && state.hello.role !== "controller");

  // The action event of a held intent: the one carrying its id, or (a refusal raised before
  // dispatch carries none) the next one of the same session, device and action.
  function settle(msg) {
    for (const [intent, row] of rows) {
      const ev = row.intentEvent;
      const same = msg.intent ? msg.intent === intent
        : msg.session === ev.session && msg.device === ev.device && msg.action === ev.action;
      if (!same || row.settled) continue;
      row.settled = true;
      const button = row.querySelector("button");
      button.disabled = true;
      row.countdown.textContent = "";
      const vetoed = msg.error === "POLICY_BLOCKED" && /vetoed/.test(msg.message || "");
      row.say.textContent = vetoed ? "Vetoed by " + (msg.message || "").split(" vetoed")[0] + ": " + ev.message
        : msg.error ? "Refused (" + msg.error + "): " + ev.message : "Done: " + ev.message;
      row.dataset.outcome = vetoed ? "vetoed" : msg.error ? "refused" : "done";
      setTimeout(() => remove(intent), 3000);
      return;
    }
  }

  function remove(intent) {
    const row = rows.get(intent);
    if (row) { row.remove(); rows.delete(intent); }
  }

  function show(ev) {
    if (rows.has(ev.intent) || rows.size >= 20) return;
    const row = document.createElement("div");
    row.dataset.testid = "veto-intent";
    row.style.cssText = "background:#fff3cd;border:1px solid #c9a227;border-radius:6px;" +
      "padding:8px;display:flex;gap:8px;align-items:center";
    const text = document.createElement("span");
    text.textContent = ev.message;
    text.style.flex = "1";
    const left = document.createElement("span");
    const button = document.createElement("button");
    button.textContent = "Veto";
    button.dataset.testid = "veto";
    if (observer()) {
      button.disabled = true;
      button.title = "an observer cannot veto: sign in with a controller token";
      left.title = button.title;
    }
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        const answer = await request("veto", { device: ev.device, intent: ev.intent });
        if (!row.settled) text.textContent = answer.vetoed ? "Vetoed: " + ev.message : "Too late: " + ev.message;
      } catch (err) {
        const why = err && err.error ? err.error.message : err && err.message ? err.message : String(err);
        text.textContent = "Veto refused: " + why;
      }
      left.textContent = "";
      setTimeout(() => remove(ev.intent), 3000);
    });
    row.intentEvent = ev; row.say = text; row.countdown = left;
    row.append(text, left, button);
    bar.appendChild(row);
    rows.set(ev.intent, row);
    const until = Date.now() + ev.vetoMs;
    const tick = setInterval(() => {
      const ms = until - Date.now();
      if (ms <= 0 || !rows.has(ev.intent) || row.settled) {
        clearInterval(tick);
        if (!row.settled && !button.disabled) remove(ev.intent);
        if (ms <= 0 && !row.settled) left.textContent = "";
        return;
      }
      left.textContent = (ms / 1000).toFixed(1) + " s";
    }, 100);
  }

  let hooked = null;
  setInterval(() => {
    if (typeof state === "undefined" || !state.ws || state.ws === hooked) return;
    hooked = state.ws;
    hooked.addEventListener("message", (e) => {
      if (typeof e.data !== "string") return;
      let msg;
      try { msg = JSON.parse(e.data); } catch (_) { return; }
      if (msg.type === "intent" && msg.vetoMs > 0) show(msg);
      else if (msg.type === "action") settle(msg);
    });
  }, 100);
  document.body.appendChild(bar);
})();
