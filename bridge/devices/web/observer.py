"""The page script that says a page changed, shared by the Chrome DevTools and the WebKit
Web Inspector paths (``observer_script``).

It calls ``notify`` (a JavaScript statement: a CDP binding call, or a console marker that
WebKit carries as ``Console.messageAdded``) at most once per task in which the DOM mutated or
the user typed, scrolled, focused or an animation ended, in the page and in every same-origin
frame (cross-origin frames are skipped; CDP reads those through their own targets).

Invariants: running it twice in one document does nothing the second time; a frame's
document is hooked whenever it appears, whether the frame was in the page when the script
ran, was added later, or navigated (each frame's ``load`` is listened to once, so a frame
first seen on its initial ``about:blank`` document still has its real one hooked).
"""

from __future__ import annotations

_TEMPLATE = """(() => {
  if (window.__mobridgeObserving) return;
  window.__mobridgeObserving = true;
  let queued = false;
  let rehook = () => {};
  const tell = () => {
    if (queued) return;
    queued = true;
    setTimeout(rehook, 0);
    Promise.resolve().then(() => { queued = false; try { %NOTIFY% } catch (e) {} });
  };
  const hooked = new WeakSet();
  const frames = new WeakSet();
  const hook = (win) => {
    let doc;
    try { doc = win.document; } catch (e) { return; }
    if (!doc) return;
    if (!hooked.has(doc)) {
      hooked.add(doc);
      new MutationObserver(tell).observe(doc, {subtree: true, childList: true,
        attributes: true, characterData: true});
      for (const type of ["input", "change", "scroll", "transitionend", "animationend",
                          "focusin", "focusout", "toggle", "close"]) {
        win.addEventListener(type, tell, true);
      }
    }
    for (const frame of doc.querySelectorAll("iframe")) {
      if (!frames.has(frame)) {
        frames.add(frame);
        frame.addEventListener("load", () => { hook(frame.contentWindow); tell(); });
      }
      if (frame.contentWindow) hook(frame.contentWindow);
    }
  };
  rehook = () => { try { hook(window); } catch (e) {} };
  hook(window);
  %START%
})()"""


def observer_script(notify: str, *, tell_at_start: bool) -> str:
    """The observer calling ``notify`` (one JavaScript statement); ``tell_at_start``: also
    once when installed (a new document is a change)."""
    return _TEMPLATE.replace("%NOTIFY%", notify).replace(
        "%START%", "tell();" if tell_at_start else ""
    )


__all__ = ["observer_script"]
