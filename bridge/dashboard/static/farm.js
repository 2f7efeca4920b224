// Farm view (issue 25): every hub of the farm, its devices, who holds each lease, and this
// hub's devices.acquire queue. It asks devices.list every 2 s (the list carries each device's
// owner hub and lease, the hub's farm link and its queue) and draws a panel under the device
// list; outside a farm it shows only a non-empty queue. Text goes in with textContent only.
(function () {
  "use strict";
  const REFRESH_MS = 2000;
  const panel = document.createElement("div");
  panel.id = "farm";
  panel.dataset.testid = "farm";
  panel.style.cssText = "border-top:1px solid #e3e5eb;margin-top:.6em;padding-top:.4em;font-size:12px";
  panel.hidden = true;

  function line(text, style) {
    const div = document.createElement("div");
    div.textContent = text;
    if (style) div.style.cssText = style;
    return div;
  }

  function leaseText(d) {
    if (!d.lease) return "free";
    const who = (d.lease.holderNames && d.lease.holderNames.length ? d.lease.holderNames : d.lease.holders);
    return "leased by " + who.join(", ");
  }

  function render(list) {
    const farm = list.farm || null;
    const waiting = list.waiting || [];
    if (!farm && !waiting.length) { panel.hidden = true; return; }
    panel.hidden = false;
    panel.replaceChildren();
    if (farm) {
      const state = farm.state + (farm.reason ? " (" + farm.reason + ")" : "");
      const head = line("Farm · this hub " + farm.hub + ": " + state + " · " + (farm.hubs || 0) +
        " other hub" + (farm.hubs === 1 ? "" : "s") + " heard", "font-weight:600");
      head.dataset.testid = "farm-link";
      head.style.color = farm.state === "connected" ? "#1c6b2b" : "#b3261e";
      panel.appendChild(head);
      const byHub = new Map();
      for (const d of list.devices) {
        const hub = d.owner || farm.hub;
        if (!byHub.has(hub)) byHub.set(hub, []);
        byHub.get(hub).push(d);
      }
      for (const hub of [...byHub.keys()].sort()) {
        const box = document.createElement("div");
        box.dataset.testid = "farm-hub";
        box.appendChild(line("hub " + hub + (hub === farm.hub ? " (this hub)" : ""), "font-weight:600;margin-top:.3em"));
        for (const d of byHub.get(hub)) {
          const row = line(d.id + " · " + String(d.platform).toLowerCase() +
            (d.osVersion ? " " + d.osVersion : "") + " · " + (d.online ? (d.health || "online") : "offline") +
            " · " + leaseText(d) + (d.tags && d.tags.length ? " · tags " + d.tags.join(",") : ""),
            "padding-left:1em;font-family:ui-monospace,monospace");
          row.dataset.testid = "farm-device";
          box.appendChild(row);
        }
        panel.appendChild(box);
      }
    }
    const queue = line("Queue (devices.acquire on this hub): " + (waiting.length ? "" : "empty"), "font-weight:600;margin-top:.4em");
    queue.dataset.testid = "farm-queue";
    panel.appendChild(queue);
    waiting.forEach((w, i) => {
      const row = line((i + 1) + ". " + w.client + " wants " + w.selector + " · waiting " +
        (w.waitedMs / 1000).toFixed(1) + " s", "padding-left:1em");
      row.dataset.testid = "farm-waiter";
      panel.appendChild(row);
    });
  }

  async function refresh() {
    if (typeof state === "undefined" || !state.ws || !state.hello || state.ws.readyState !== 1) return;
    try { render(await request("devices.list")); } catch (_) { /* the next round retries */ }
  }

  setInterval(refresh, REFRESH_MS);
  setTimeout(refresh, 300);
  const attach = setInterval(() => {
    const host = document.getElementById("devices-panel");
    if (host) { host.appendChild(panel); clearInterval(attach); }
  }, 50);
})();
