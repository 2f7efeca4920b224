"""Whether a snapshot shows a system alert, the way the agents find one, and what it says
(pure).

Rules (the Android agent's ``Alerts`` and the iOS agent's alert finder agree with them):
- an alert's *parts* are the subtree of a node whose role is DIALOG (an iOS ``Alert`` /
  ``Sheet``, a window typed ``dialog``), and the whole window (top-level root) of a node whose
  resource id ends with a platform dialog part (``:id/alertTitle``, ``:id/button1``,
  ``:id/parentPanel``) or belongs to a permission controller (``<package>:id/...``);
- a snapshot whose main window is a permission controller's shows an alert even when its
  nodes carry no id; its parts are then every node;
- an alert's *words* are its parts' texts and labels in document order.

``alert_answered`` is the intrinsic check of an answer (``alert.respond``): the alert the
screen before showed is no longer there — no alert shows, or one with other words does (the
next prompt of a chain). Nothing outside the parts counts: an app ticking beneath a
permission prompt does not answer it. It applies only when the screen before showed an alert;
an alert the agent finds outside the tree is answered on the agent's word.
"""

from __future__ import annotations

from bridge.wire.enums import Role
from bridge.wire.snapshot import ScreenSnapshot

PERMISSION_PACKAGES = (
    "com.android.permissioncontroller",
    "com.google.android.permissioncontroller",
)
_PERMISSION_IDS = tuple(f"{p}:id/" for p in PERMISSION_PACKAGES)
DIALOG_ID_ENDS = (":id/alertTitle", ":id/button1", ":id/parentPanel")
"""Resource-id ends of a platform dialog's parts (an ``AlertDialog``'s title, first button,
panel); the normalizer's dialog test uses them too."""


def alert_words(snapshot: ScreenSnapshot) -> tuple[str, ...] | None:
    """The words of the alerts ``snapshot`` shows, None when it shows none (module rules)."""
    nodes = snapshot.nodes
    root_of: dict[str, str] = {}
    in_dialog: set[str] = set()
    marked: set[str] = set()
    for node in nodes:  # pre-order: a parent comes before its children
        nid, parent = node.node_id, node.parent_id
        root_of[nid] = root_of.get(parent, parent) if parent is not None else nid
        if node.role is Role.DIALOG or (parent is not None and parent in in_dialog):
            in_dialog.add(nid)
        rid = node.resource_id
        if rid is not None and (rid.endswith(DIALOG_ID_ENDS) or rid.startswith(_PERMISSION_IDS)):
            marked.add(root_of[nid])
    whole = not in_dialog and not marked
    if whole and snapshot.package_name not in PERMISSION_PACKAGES:
        return None
    words: list[str] = []
    for node in nodes:
        if whole or node.node_id in in_dialog or root_of[node.node_id] in marked:
            words.extend(w for w in (node.text, node.label) if w)
    return tuple(words)


def alert_shown(snapshot: ScreenSnapshot) -> bool:
    """Whether ``snapshot`` shows a system alert (module rules)."""
    return alert_words(snapshot) is not None


def alert_answered(shown: tuple[str, ...], after: ScreenSnapshot) -> bool:
    """Whether the alert whose words were ``shown`` (``alert_words`` of the screen before,
    taken once) is gone in ``after`` (module rules)."""
    now = alert_words(after)
    return now is None or now != shown
