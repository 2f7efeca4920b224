"""The page walker: a script that reads, inside the page, what an accessibility tree would
say (role, name, value, state, box) for engines whose inspector has no accessibility-tree
command (WebKit's Web Inspector on iOS). Its result is ``bridge.wire.web_walk.PageWalk``
as a JSON string; ``bridge.core.web_tree.walk_items`` turns it into web items.

Rules (the names a screen reader would read, simplified): the ``role`` attribute wins, then
the element's own semantics (an element whose content scrolls without one: ``group``, flag
``L``; ``a[href]`` link, ``button`` and button-type inputs, text-like
inputs and ``textarea`` textbox, ``select`` combobox, checkbox, radio, ``h1``-``h6`` heading,
``img``, ``ul``/``ol`` list, ``li`` listitem, ``dialog``); the name from ``aria-label``,
``aria-labelledby``, the element's ``<label>``, ``alt``, ``title``, else (buttons, links,
headings, list items) its text; a placeholder is the hint. Hidden elements (``hidden``,
``display: none``, ``visibility: hidden``, ``aria-hidden``) and, while a modal dialog is
open, everything outside it are left out. Text directly inside other elements becomes
``StaticText``. Each element keeps one walker id (``k``) for the page's life (a
``WeakMap``, so the DOM is never written to); ``window.__mobridgeById`` maps ids back to
elements for acting. A same-origin frame (``iframe``: role ``Iframe``, named by its title)
has its document walked under it, boxes moved to where the frame is (a cross-origin frame
stays one node; frames' elements are not clipped to the frame's box). At most ``LIMIT``
nodes.
"""

from __future__ import annotations

LIMIT = 3000

WALKER = (
    """(() => {
  const LIMIT = %LIMIT%;
  const ids = window.__mobridgeIds || (window.__mobridgeIds = new WeakMap());
  const byId = window.__mobridgeById || (window.__mobridgeById = new Map());
  window.__mobridgeNext = window.__mobridgeNext || 1;
  const idOf = (el) => {
    let k = ids.get(el);
    if (!k) { k = window.__mobridgeNext++; ids.set(el, k); byId.set(k, new WeakRef(el)); }
    return k;
  };
  const TEXTY = ["text", "email", "password", "search", "tel", "url", "number", ""];
  const roleOf = (el) => {
    const own = el.getAttribute("role");
    if (own) return own.split(" ")[0];
    const tag = el.tagName.toLowerCase();
    if (tag === "a" && el.hasAttribute("href")) return "link";
    if (tag === "button") return "button";
    if (tag === "input") {
      const t = (el.getAttribute("type") || "").toLowerCase();
      if (["button", "submit", "reset", "image"].includes(t)) return "button";
      if (t === "checkbox") return "checkbox";
      if (t === "radio") return "radio";
      if (t === "range") return "slider";
      if (TEXTY.includes(t)) return "textbox";
      return null;
    }
    if (tag === "textarea") return "textbox";
    if (tag === "select") return "combobox";
    if (/^h[1-6]$/.test(tag)) return "heading";
    if (tag === "img") return "img";
    if (tag === "ul" || tag === "ol") return "list";
    if (tag === "li") return "listitem";
    if (tag === "dialog") return "dialog";
    if (tag === "progress") return "progressbar";
    if (tag === "iframe" || tag === "frame") return "Iframe";
    return null;
  };
  const LEAF = ["button", "link", "textbox", "checkbox", "radio", "combobox", "slider",
                "heading", "img", "progressbar", "switch", "tab", "menuitem", "option"];
  const NAMED_BY_TEXT = ["button", "link", "heading", "listitem", "tab", "menuitem", "option",
                         "dialog"];
  const clean = (s) => (s || "").replace(/\\s+/g, " ").trim().slice(0, 1000) || null;
  const nameOf = (el, role) => {
    const label = el.getAttribute("aria-label");
    if (label) return clean(label);
    const by = el.getAttribute("aria-labelledby");
    if (by) return clean(by.split(" ").map((i) => document.getElementById(i))
      .filter(Boolean).map((e) => e.textContent).join(" "));
    if (el.labels && el.labels.length) return clean(el.labels[0].textContent);
    if (el.getAttribute("alt")) return clean(el.getAttribute("alt"));
    if (el.getAttribute("title")) return clean(el.getAttribute("title"));
    if (NAMED_BY_TEXT.includes(role) && role !== "dialog") return clean(el.textContent);
    return null;
  };
  const styleOf = (el) => (el.ownerDocument.defaultView || window).getComputedStyle(el);
  const hidden = (el) => {
    if (el.hidden || el.getAttribute("aria-hidden") === "true") return true;
    const style = styleOf(el);
    return style.display === "none" || style.visibility === "hidden";
  };
  const sx = window.scrollX, sy = window.scrollY;
  const vv = window.visualViewport;
  const out = {title: document.title || "", url: location.href, sx: sx, sy: sy,
               vw: vv ? vv.width : innerWidth, vh: vv ? vv.height : innerHeight,
               sh: (document.scrollingElement || document.documentElement).scrollHeight,
               nodes: []};
  const scrolls = (el) => {
    if (el.scrollHeight <= el.clientHeight + 1) return false;
    const oy = styleOf(el).overflowY;
    return oy === "auto" || oy === "scroll";
  };
  const push = (node) => { out.nodes.push(node); return out.nodes.length - 1; };
  // ox, oy: where the element's document's viewport is in the top one (frames: their box)
  const boxOf = (el, node, ox, oy) => {
    const r = el.getBoundingClientRect();
    node.x = r.left + ox + sx; node.y = r.top + oy + sy; node.w = r.width; node.ht = r.height;
    return node;
  };
  const frameDoc = (el) => { try { return el.contentDocument; } catch (e) { return null; } };
  const modal = document.querySelector("dialog[open]:modal");
  const walk = (el, parent, ox, oy) => {
    if (out.nodes.length >= LIMIT) return;
    for (const child of el.childNodes) {
      if (out.nodes.length >= LIMIT) return;
      if (child.nodeType === 3) {
        const text = clean(child.textContent);
        if (text && el !== el.ownerDocument.documentElement) {
          const range = el.ownerDocument.createRange(); range.selectNodeContents(child);
          const r = range.getBoundingClientRect();
          push({p: parent, k: idOf(child), r: "StaticText", n: text,
                x: r.left + ox + sx, y: r.top + oy + sy, w: r.width, ht: r.height, f: ""});
        }
        continue;
      }
      if (child.nodeType !== 1) continue;
      const tag = child.tagName.toLowerCase();
      if (["script", "style", "template", "noscript", "head"].includes(tag)) continue;
      if (hidden(child)) continue;
      if (tag === "dialog" && !child.open) continue;
      if (modal && !child.contains(modal) && !modal.contains(child)) continue;
      const role = roleOf(child) || (scrolls(child) ? "group" : null);
      if (!role) { walk(child, parent, ox, oy); continue; }
      let f = "";
      if (child.tabIndex >= 0 || LEAF.includes(role)) f += "F";
      if (child.ownerDocument.activeElement === child) f += "S";
      if (child.disabled || child.getAttribute("aria-disabled") === "true") f += "D";
      if (role === "checkbox" || role === "radio" || role === "switch") {
        const on = child.checked || child.getAttribute("aria-checked") === "true";
        f += on ? "C" : "U";
      }
      if (child.selected || child.getAttribute("aria-selected") === "true") f += "E";
      const type = (child.getAttribute("type") || "").toLowerCase();
      if (tag === "input" && type === "password") f += "P";
      const inner = role === "Iframe" ? frameDoc(child) : null;
      if (scrolls(child) || (inner && inner.documentElement &&
          inner.documentElement.scrollHeight > child.clientHeight + 1)) f += "L";
      const node = boxOf(child, {p: parent, k: idOf(child), r: role, n: nameOf(child, role),
                                 f: f}, ox, oy);
      if (child.id) node.i = child.id.slice(0, 200);
      if (role === "textbox" || role === "combobox" || role === "slider") {
        if (!f.includes("P")) node.v = clean(child.value);
        if (child.getAttribute("placeholder")) node.h = clean(child.getAttribute("placeholder"));
      }
      const here = push(node);
      if (inner && inner.documentElement) {  // a same-origin frame: its document, under it
        const fr = child.getBoundingClientRect();
        walk(inner.documentElement, here, ox + fr.left + child.clientLeft,
             oy + fr.top + child.clientTop);
        continue;
      }
      if (!LEAF.includes(role) && !(NAMED_BY_TEXT.includes(role) && role !== "dialog"))
        walk(child, here, ox, oy);
    }
  };
  walk(document.documentElement, -1, 0, 0);
  return JSON.stringify(out);
})()"""
).replace("%LIMIT%", str(LIMIT))

BY_ID = "(window.__mobridgeById && window.__mobridgeById.get(%d) || {deref: () => null}).deref()"
"""The element with a walker id (``% id``), or null."""
