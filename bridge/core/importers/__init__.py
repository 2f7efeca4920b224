"""Importers: every dump format -> one model, ``bridge.wire.raw.RawTree``.

Entry points: ``import_dump(data, source_name) -> RawTree | ImportFailure`` and
``detect_format(data) -> str | None``. Formats (detected from content, see ``entry``):

=============================  =========================================================
``agent-raw-tree``             a ``RawTree`` JSON object from our agents
``agent-tree-push``            an agent-link ``{"type": "tree", ...}`` push; its ``tree``
``android-uiautomator``        ``uiautomator dump`` XML (``<hierarchy><node ...>``)
``android-appium-pagesource``  Appium UiAutomator2 page source (elements named by class)
``android-a11ynode``           AccessibilityNodeInfo XML with ``raw=`` (AppCrawler)
``android-maestro-json``       Maestro hierarchy JSON from an Android device
``ios-wda-xml``                WebDriverAgent / Appium XCUITest XML
``ios-maestro-json``           Maestro hierarchy JSON from an iOS device
``ios-wda-json-legacy``        legacy WDA ``/source`` JSON with ``UIA*`` types
``ios-idb-json``               idb ``describe-all`` JSON (flat or nested)
``rico-json``                  Rico / Enrico view-hierarchy JSON
=============================  =========================================================

Invariants shared by all importers:
- nodes are in pre-order; ``parent`` is an earlier index or -1; for foreign formats
  ``handle`` = index and ``capture`` = 0; wrapper elements (``hierarchy``, ``AppiumAUT``) and
  document envelopes are not nodes;
- an empty string in a dump means "not set" and becomes None; every other string is kept
  verbatim (no trimming, no NFC) and capped at ``MAX_RAW_TEXT`` code points (``limits.cap_text``:
  first 8191 code points + '…');
- flags are the format's own; where a format has none (iOS actions, Android ``editable``) the
  documented rules of ``android_rules`` / ``ios_rules`` apply; values such as passwords are kept
  as given (``password`` marks them; redaction belongs to normalization);
- zero-size, inverted, negative and off-screen bounds are kept; ``visible`` is false only when
  the format says so;
- limits (``limits``, ``safe_xml``, ``safe_json``): 32 MiB input, ``MAX_RAW_NODES`` nodes,
  depth 256, no DTD or entity in XML, bounded JSON nesting, containers and strings; breaking
  one is an ``ImportFailure``, never a truncated tree.
"""

from __future__ import annotations

from bridge.core.importers.entry import detect_format, import_dump
from bridge.core.importers.failure import ImportFailure

FORMATS = (
    "agent-raw-tree",
    "agent-tree-push",
    "android-uiautomator",
    "android-appium-pagesource",
    "android-a11ynode",
    "android-maestro-json",
    "ios-wda-xml",
    "ios-maestro-json",
    "ios-wda-json-legacy",
    "ios-idb-json",
    "rico-json",
)

__all__ = ["FORMATS", "ImportFailure", "detect_format", "import_dump"]
