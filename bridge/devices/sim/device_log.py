"""The simulated device's own log: one line per command it performs, read by ``logs``.

Every action the device performs (a tap, typed text, an app opened, a package installed)
writes a line saying what it did and how it ended, attributed to the app in front (or the
app the command names). Lines are numbered from 1; at most ``MAX_LINES`` are kept (the
oldest go first), so a hub that polls slowly misses old lines instead of growing the sim.
Like a careless real app, the simulated one logs the text it was asked to type: the hub must
mask the secrets it typed before a line reaches a client.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from bridge.wire.agent_link import (
    AppCommand,
    ClearCommand,
    GestureCommand,
    GlobalCommand,
    HubToAgent,
    InstallCommand,
    KeyCommand,
    NodeActionCommand,
    OrientationCommand,
    Reply,
    TerminateCommand,
    TextCommand,
    UninstallCommand,
)
from bridge.wire.device_media import MAX_LOG_TEXT, LogLevel, LogLine

MAX_LINES = 4096
TAG = "mobridge.sim"


class DeviceLog:
    def __init__(self, max_lines: int = MAX_LINES) -> None:
        self.lines: deque[LogLine] = deque(maxlen=max_lines)
        self.seq = 0

    def write(self, level: LogLevel, text: str, *, app: str | None, tag: str = TAG) -> None:
        self.seq += 1
        self.lines.append(
            LogLine(seq=self.seq, level=level, text=text[:MAX_LOG_TEXT], tag=tag, app=app)
        )

    def after(self, seq: int, limit: int) -> tuple[LogLine, ...]:
        """Lines numbered above ``seq``, oldest first, at most ``limit``."""
        if not self.lines or self.lines[-1].seq <= seq:
            return ()
        first = self.lines[0].seq
        start = max(0, seq + 1 - first)
        return tuple(self.lines[i] for i in range(start, min(len(self.lines), start + limit)))

    def performed(self, command: HubToAgent, reply: Reply | None, front: str) -> None:
        """Log one performed command and its outcome (module docstring)."""
        what = describe(command)
        if what is None:
            return
        app = getattr(command, "app_id", None) or front
        if reply is None or reply.ok:
            self.write("info", what, app=app)
        else:
            self.write("error", f"{what} failed ({reply.code}): {reply.message}", app=app)


def describe(command: HubToAgent) -> str | None:
    """One line saying what ``command`` asks (None for reads, which are not logged)."""
    match command:
        case GestureCommand(kind=kind, points=points):
            at = " -> ".join(f"{p.x},{p.y}" for p in points[:4])
            return f"gesture {_name(kind).lower()} at {at}"
        case NodeActionCommand(action=action, handle=handle, text=text):
            typed = f": {text!r}" if text is not None else ""
            return f"{_name(action)} on view #{handle}{typed}"
        case TextCommand(text=text):
            return f"input: commitText {text!r}"
        case KeyCommand(key=key):
            return f"key {_name(key)}"
        case GlobalCommand(action=action):
            return f"global {_name(action)}"
        case AppCommand(action=action, app_id=app_id, uri=uri):
            return f"app {_name(action)} {app_id or uri or ''}".rstrip()
        case TerminateCommand(app_id=app_id):
            return f"force-stop {app_id}"
        case ClearCommand(app_id=app_id):
            return f"clear data of {app_id}"
        case InstallCommand(path=path):
            return f"install package {path.rsplit('/', 1)[-1]}"
        case UninstallCommand(app_id=app_id):
            return f"uninstall {app_id}"
        case OrientationCommand(orientation=orientation):
            return f"rotate to {_name(orientation).lower()}"
    return None


def _name(value: Any) -> str:
    return str(getattr(value, "value", value))
