"""Which token role each client request needs: the one table the hub checks before it handles
a request (``HubService.handle``), and that docs/design.md ("Roles: who may send what")
repeats row for row (a test compares them and walks the table with an observer token).

The role is the token's (``Principal.role``), never the kind a client declares in ``hello``:
declared kinds only order priority among controllers (``bridge.hub.intents``). A request type
missing from ``OBSERVER_MAY`` needs a controller, so a new request is closed until it is
listed here. Observers may read (snapshots, queries, waits, history, logs, recordings of the
screen, screenshots) and nothing that changes the device, a lease, an objection or another
session's action: ``veto``, ``lease.release`` and approvals (``confirm`` rides on ``act`` and
the other mutating requests) need a controller.
"""

from __future__ import annotations

from typing import Final, Literal

Role = Literal["observer", "controller"]

OBSERVER_MAY: Final = frozenset(
    {
        "hello",
        "ping",
        "cancel",
        "devices.list",
        "subscribe",
        "unsubscribe",
        "snapshot.get",
        "find",
        "resolve",
        "wait",
        "screenshot",
        "history",
        "display.get",
        "network.get",
        "apps.list",
        "alert.list",
        "clipboard.get",
        "crashes.list",
        "logs.subscribe",
        "logs.unsubscribe",
        "record.start",
        "record.stop",
        "record.read",
        "journal.at",
        "journal.diff",
        "journal.timeline",
        "journal.when",
    }
)
"""Request types an observer token may send; every other type needs a controller token."""


def required_role(request_type: str) -> Role:
    return "observer" if request_type in OBSERVER_MAY else "controller"


def refused_for(role: str | None, request_type: str) -> str | None:
    """Why a session with ``role`` may not send ``request_type`` (None: it may)."""
    if required_role(request_type) == "controller" and role != "controller":
        return (
            f"{request_type} needs a controller token; this session's token is "
            f"{role or 'not yet authenticated'} (the role comes from the token, not from the "
            "client kind said in hello)"
        )
    return None
