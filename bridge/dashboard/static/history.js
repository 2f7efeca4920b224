"use strict";
// Time travel (issue 22): a scrubber over the selected device's recorded timeline (the hub's
// journal, `journal.timeline`) shows the picture (the nearest screenshot kept), the element
// tree and the activity as they were at that moment (`journal.at`); "Compare with now"
// (`journal.diff`) marks what changed since. Uses the page's `state`, `request`, `make` and
// `el`; device texts go through textContent only. A hub without a journal says so here.
(function timeTravel() {
  const tt = { device: null, entries: [], min: 0, max: 0, at: null, shotUrl: null, seq: 0 };
  const style = make("style");
  style.textContent = [
    "#tt { position: fixed; top: 2.6em; right: .6em; bottom: .6em; width: min(760px, 62vw); background: #fff;",
    "  border: 1px solid #d6d9e0; border-radius: 6px; box-shadow: 0 8px 30px rgba(0,0,0,.25); display: none;",
    "  grid-template-rows: auto auto auto auto minmax(0, 1fr); grid-template-columns: 240px 1fr; gap: .4em; padding: .6em; z-index: 5; }",
    "#tt.shown { display: grid; }",
    "#tt .bar { grid-column: 1 / span 2; display: flex; gap: .6em; align-items: center; }",
    "#tt input[type=range] { flex: 1 1 auto; }",
    "#tt .when { font-family: ui-monospace, monospace; font-size: 12px; }",
    "#tt .note { grid-column: 1 / span 2; color: #5a6275; font-size: 12px; min-height: 1.2em; }",
    "#tt-picture { overflow: hidden; display: flex; align-items: flex-start; justify-content: center; }",
    "#tt-picture img { max-width: 100%; max-height: 100%; border: 1px solid #e2e4ea; }",
    "#tt-right { display: grid; grid-template-rows: minmax(0, 2fr) minmax(0, 1fr); gap: .4em; min-height: 0; }",
    "#tt-tree, #tt-activity { overflow: auto; font-size: 12px; border: 1px solid #eef0f4; padding: .2em; }",
    "#tt-tree .node.changed { background: #fff3c4; } #tt-tree .node.added { background: #dff5e1; }",
    "#tt-tree .gone { background: #fde2e0; text-decoration: line-through; }",
    "#tt-activity .row.later { color: #a0a6b3; }",
    "#tt-open { margin-left: .6em; }",
    "@media (max-width: 700px) { #tt { left: .3em; right: .3em; width: auto; grid-template-columns: 1fr; overflow: auto; }",
    "  #tt .bar, #tt .note, #tt .age, #tt-compare { grid-column: 1; } #tt-compare { grid-template-columns: 1fr 1fr; } }",
    "#tt .age { grid-column: 1 / span 2; font-size: 12px; min-height: 1.2em; }",
    "#tt .age.stale { color: #9a5b00; font-weight: 600; }",
    "#tt-compare { grid-column: 1 / span 2; display: none; gap: .6em; grid-template-columns: 1fr 1fr 1.2fr; min-height: 0; max-height: 48vh; }",
    "#tt-compare.shown { display: grid; }",
    "#tt-compare figure { margin: 0; min-height: 0; display: flex; flex-direction: column; }",
    "#tt-compare figure img { max-width: 100%; max-height: 40vh; object-fit: contain; border: 1px solid #e2e4ea; }",
    "#tt-compare figcaption { font-size: 12px; color: #5a6275; }",
    "#tt-changes { overflow: auto; font-size: 12px; }",
    "#tt-changes h3 { font-size: 12px; margin: .3em 0 .1em; }",
    "#tt-changes ul { margin: 0; padding-left: 1.2em; }",
  ].join("\n");
  document.head.append(style);

  const panel = make("section");
  panel.id = "tt";
  panel.dataset.testid = "time-travel";
  const bar = make("div", null, "bar");
  const range = make("input");
  range.type = "range"; range.min = "0"; range.max = "0"; range.step = "1"; range.dataset.testid = "scrubber";
  const when = make("span", "", "when"); when.dataset.testid = "tt-time";
  const compare = make("button", "Compare with now"); compare.type = "button"; compare.dataset.testid = "tt-compare";
  const reload = make("button", "Reload"); reload.type = "button";
  const close = make("button", "Close"); close.type = "button";
  bar.append(range, when, compare, reload, close);
  const note = make("div", "", "note"); note.dataset.testid = "tt-note";
  const age = make("div", "", "age"); age.dataset.testid = "tt-shot-age";
  const comparison = make("div"); comparison.id = "tt-compare"; comparison.dataset.testid = "tt-comparison";
  const picture = make("div"); picture.id = "tt-picture";
  const img = make("img"); img.alt = "the screen as it was"; img.dataset.testid = "tt-shot"; img.hidden = true;
  picture.append(img);
  const right = make("div"); right.id = "tt-right";
  const tree = make("div"); tree.id = "tt-tree"; tree.dataset.testid = "tt-tree";
  const activity = make("div"); activity.id = "tt-activity"; activity.dataset.testid = "tt-activity";
  right.append(tree, activity);
  panel.append(bar, note, age, comparison, picture, right);
  document.body.append(panel);

  const open = make("button", "Time travel"); open.id = "tt-open"; open.type = "button";
  open.dataset.testid = "tt-open";
  const signout = el("signout");
  signout.parentNode.insertBefore(open, signout);

  const stamp = (ms) => new Date(ms).toISOString().replace("T", " ").replace("Z", " UTC");
  const fail = (err) => { note.textContent = String((err && err.message) || err); };

  async function load() {
    const device = state.selected;
    if (!device || !state.ws) { note.textContent = "select a device first"; return; }
    tt.device = device;
    note.textContent = "reading the journal…";
    try {
      const got = await request("journal.timeline", { device, limit: 1000 });
      tt.entries = got.entries.slice().reverse(); // oldest first
      tt.min = tt.entries.length ? tt.entries[0].atMs : got.untilMs;
      tt.max = got.untilMs;
      range.min = String(tt.min); range.max = String(tt.max); range.value = String(tt.max);
      note.textContent = tt.entries.length + " recorded moments of " + device + (got.truncated ? " (the newest 1000)" : "");
      await show(tt.max);
    } catch (err) { fail(err); }
  }

  async function show(at) {
    const mine = ++tt.seq, device = tt.device;
    tt.at = at;
    when.textContent = stamp(at);
    let got;
    try {
      got = await request("journal.at", { device, at: String(at), compact: true });
    } catch (err) { if (mine === tt.seq) fail(err); return; }
    if (mine !== tt.seq) return;
    comparison.classList.remove("shown");
    renderTree(got.snapshot, null);
    renderActivity(at);
    sayAge(got);
    await renderShot(got.screenshot);
    if (mine === tt.seq) img.dataset.moment = String(at);  // this moment's picture is shown
  }

  // A journal picture's name starts with the time it was first kept (.../j_<ms>-<hex>.png); a
  // hub that says when (screenshotMs: the same pixels may be kept again later) is believed.
  function shotMs(url) { const m = /\/j_(\d+)-[0-9a-f]+\.png$/.exec(url || ""); return m ? Number(m[1]) : null; }

  // Say how the picture shown relates to the moment: of this screen (taken after the screen
  // was recorded), or older than it (it may show an earlier screen), or none kept.
  function sayAge(got) {
    const taken = got.screenshotMs !== undefined && got.screenshotMs !== null ? got.screenshotMs : shotMs(got.screenshot);
    age.className = "age";
    img.dataset.shotMs = taken === null ? "" : String(taken);
    img.dataset.recordedMs = String(got.recordedMs);
    if (!got.screenshot) { age.textContent = "no picture kept at or before this moment"; age.classList.add("stale"); return; }
    if (taken === null) { age.textContent = ""; return; }
    const lag = got.recordedMs - taken;
    if (lag > 0) {
      age.textContent = "the nearest picture is " + (lag / 1000).toFixed(1) + " s older than this screen: it may show an earlier screen";
      age.classList.add("stale");
    } else {
      age.textContent = "picture of this screen (taken " + ((got.atMs - taken) / 1000).toFixed(1) + " s before this moment)";
    }
  }

  function renderTree(snap, diff) {
    tree.replaceChildren();
    const changed = new Set(diff ? diff.changed.map((c) => c.node) : []);
    const added = new Set(diff ? diff.added.map((n) => n.nodeId) : []);
    const depth = new Map();
    for (const n of snap.nodes) {
      const d = n.parentId && depth.has(n.parentId) ? depth.get(n.parentId) + 1 : 0;
      depth.set(n.nodeId, d);
      const words = [n.nodeId, n.role];
      const name = n.label || n.text || n.hint;
      if (name) words.push(JSON.stringify(name));
      if (n.value) words.push("=" + JSON.stringify(n.value));
      const s = n.state || {};
      if (s.checked === true) words.push("checked");
      if (s.checked === false) words.push("unchecked");
      const line = make("div", "  ".repeat(d) + words.join(" "), "node");
      line.style.whiteSpace = "pre";
      line.dataset.node = n.nodeId;
      if (changed.has(n.nodeId)) line.classList.add("changed");
      if (added.has(n.nodeId)) line.classList.add("added");
      tree.append(line);
    }
    if (diff) {
      for (const id of diff.removed) tree.append(make("div", id + " (gone now)", "gone"));
    }
  }

  function renderActivity(at) {
    activity.replaceChildren();
    for (const e of tt.entries.slice(-200)) {
      const row = make("div", stamp(e.atMs).slice(11, 23) + "  " + e.kind + "  " + e.summary + (e.client ? "  [" + e.client + "]" : ""), "row");
      row.dataset.kind = e.kind;
      row.dataset.at = String(e.atMs);
      row.title = "show this moment";
      row.style.cursor = "pointer";
      row.onclick = () => { range.value = String(e.atMs); show(e.atMs); };  // jump to its moment
      if (e.atMs > at) row.classList.add("later");
      activity.append(row);
    }
    const last = [...activity.children].filter((r) => !r.classList.contains("later")).pop();
    if (last) last.scrollIntoView({ block: "nearest" });
  }

  async function renderShot(url) {
    if (!url) { img.hidden = true; img.removeAttribute("src"); return; }
    try {
      const response = await fetch(url.replace(/^https?:\/\/[^/]+/, ""), { headers: { Authorization: "Bearer " + state.token } });
      if (!response.ok) throw new Error("screenshot " + response.status);
      const blobUrl = URL.createObjectURL(await response.blob());
      if (tt.shotUrl) URL.revokeObjectURL(tt.shotUrl);
      tt.shotUrl = blobUrl;
      img.src = blobUrl;
      img.hidden = false;
    } catch (err) { img.hidden = true; fail(err); }
  }

  async function pictureOf(url, into) {
    if (!url) { into.hidden = true; return; }
    const response = await fetch(url.replace(/^https?:\/\/[^/]+/, ""), { headers: { Authorization: "Bearer " + state.token } });
    if (!response.ok) throw new Error("screenshot " + response.status);
    into.src = URL.createObjectURL(await response.blob());
    into.hidden = false;
  }

  const named = (n) => n.role + (n.text || n.label || n.hint ? " " + JSON.stringify(n.text || n.label || n.hint) : "") + (n.resourceId ? " #" + n.resourceId.split(":id/").pop() : "");

  // Then and now side by side, and what was added, removed and changed (by name).
  async function compareWithNow() {
    if (tt.at === null) return;
    try {
      // one after the other: the hub runs at most two history queries per session at once
      const got = await request("journal.diff", { device: tt.device, since: String(tt.at), until: "now" });
      const past = await request("journal.at", { device: tt.device, at: String(tt.at), compact: false });
      const now = await request("journal.at", { device: tt.device, at: "now", compact: false });
      const d = got.diff;
      renderTree(past.snapshot, d);
      note.textContent = "since " + stamp(tt.at) + ": " + d.changed.length + " changed, " + d.added.length +
        " added, " + d.removed.length + " removed" + (d.screenChanged ? ", another screen" : "");
      const before = new Map(past.snapshot.nodes.map((n) => [n.nodeId, n]));
      const after = new Map(now.snapshot.nodes.map((n) => [n.nodeId, n]));
      const changedIds = new Set(d.changed.map((c) => c.node));
      // a picture with the differences outlined: on "then" what went away (red) and what
      // changed (amber); on "now" what came (green) and what changed
      const figure = (caption, testid, snap, marks) => {
        const f = make("figure"), box = make("div"), i = make("img");
        box.style.position = "relative"; box.style.display = "inline-block";
        i.alt = caption; i.dataset.testid = testid; i.hidden = true; i.style.display = "block";
        const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
        const root = snap.nodes.length ? snap.nodes[0].bounds : null;
        svg.setAttribute("style", "position:absolute;left:0;top:0;width:100%;height:100%;pointer-events:none");
        svg.dataset.testid = testid + "-marks";
        if (root) svg.setAttribute("viewBox", root[0] + " " + root[1] + " " + (root[2] - root[0]) + " " + (root[3] - root[1]));
        svg.setAttribute("preserveAspectRatio", "none");
        for (const n of snap.nodes) {
          const colour = marks(n);
          if (!colour || !n.bounds) continue;
          const r = document.createElementNS("http://www.w3.org/2000/svg", "rect");
          const b = n.bounds;
          r.setAttribute("x", b[0]); r.setAttribute("y", b[1]);
          r.setAttribute("width", Math.max(1, b[2] - b[0])); r.setAttribute("height", Math.max(1, b[3] - b[1]));
          r.setAttribute("fill", "none"); r.setAttribute("stroke", colour); r.setAttribute("stroke-width", "3");
          r.setAttribute("vector-effect", "non-scaling-stroke");
          r.dataset.node = n.nodeId;
          svg.append(r);
        }
        box.append(i, svg);
        f.append(make("figcaption", caption), box);
        return [f, i];
      };
      const removedIds = new Set(d.removed), addedIds = new Set(d.added.map((n) => n.nodeId));
      const [thenFig, thenImg] = figure("then · " + stamp(tt.at), "tt-then", past.snapshot,
        (n) => removedIds.has(n.nodeId) ? "#d93025" : changedIds.has(n.nodeId) ? "#e8a317" : null);
      const [nowFig, nowImg] = figure("now · " + stamp(now.atMs), "tt-now", now.snapshot,
        (n) => addedIds.has(n.nodeId) ? "#1c9b3b" : changedIds.has(n.nodeId) ? "#e8a317" : null);
      const changes = make("div"); changes.id = "tt-changes"; changes.dataset.testid = "tt-changes";
      const list = (title, items, testid) => {
        changes.append(make("h3", title + " (" + items.length + ")"));
        const ul = make("ul"); ul.dataset.testid = testid;
        for (const text of items) ul.append(make("li", text));
        changes.append(ul);
      };
      list("added", d.added.map(named), "tt-added");
      list("removed", d.removed.map((id) => before.has(id) ? named(before.get(id)) : id), "tt-removed");
      list("changed", d.changed.map((c) => {
        const n = after.get(c.node) || before.get(c.node);
        const what = Object.entries(c.fields).map(([k, v]) => k + " " + JSON.stringify(v.before) + " → " + JSON.stringify(v.after));
        return (n ? named(n) : c.node) + ": " + what.join(", ");
      }), "tt-changed");
      comparison.replaceChildren(thenFig, nowFig, changes);
      comparison.classList.add("shown");
      await Promise.all([pictureOf(past.screenshot, thenImg), pictureOf(now.screenshot, nowImg)]);
    } catch (err) { fail(err); }
  }

  let timer = null;
  range.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => show(Number(range.value)), 80);
  });
  compare.addEventListener("click", compareWithNow);
  reload.addEventListener("click", load);
  close.addEventListener("click", () => panel.classList.remove("shown"));
  open.addEventListener("click", () => { panel.classList.add("shown"); load(); });
  // an activity row of the page: time travel to its moment
  window.mobridgeTimeTravel = async (device, atMs) => {
    if (device && device !== state.selected) selectDevice(device);
    panel.classList.add("shown");
    await load();
    const at = Math.min(Math.max(atMs, tt.min), tt.max);
    range.value = String(at);
    await show(at);
  };
  setInterval(() => {
    if (panel.classList.contains("shown") && state.selected && state.selected !== tt.device) load();
  }, 1000);
})();
