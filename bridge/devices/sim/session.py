"""One agent-link session of the simulated device, sans I/O: commands in, replies and trees out.

The websocket server feeds each decoded ``HubToAgent`` command to ``AgentSession.handle`` and
sends back the returned ``Reply``; it asks ``observe`` for the current screen and ``register``
to turn it into a numbered capture.

Invariants:
- capture numbers increase by one per capture (pushes and capture replies) on one session;
- a ``node_action`` names a capture and a handle; the session keeps the handle -> (view,
  bound content) records of its last ``KEEP_CAPTURES`` captures. It acts only when that
  capture is known, the handle's view is still on screen, the view still shows the same
  content (a recycled row showing another item is refused) and the live node matches the
  command's ``identity``; otherwise ``NOT_FOUND`` or ``IDENTITY_MISMATCH`` — a stale handle
  never acts on another element;
- identity: ``class_name`` and ``automation_id`` must equal the live node's; ``text`` and
  ``label`` must each equal one of the live node's text, label or value (platforms and
  normalizers disagree on which field carries a name); the text of an editable node is its
  value, not its identity, and is not compared;
- every command gets exactly one reply carrying its id.
"""

from __future__ import annotations

from collections import OrderedDict

from bridge.devices.sim.capture import Flat, HandleRegistry, flatten
from bridge.devices.sim.device import DemoDevice, Outcome, failed
from bridge.wire.agent_link import (
    AgentHubHello,
    AgentPing,
    AlertCommand,
    AppCommand,
    AppsCommand,
    CaptureCommand,
    ClearCommand,
    ClipboardCommand,
    GestureCommand,
    GlobalCommand,
    HubToAgent,
    KeyboardCommand,
    KeyCommand,
    LocationCommand,
    MultiTouchCommand,
    NetworkCommand,
    NodeActionCommand,
    NodeIdentity,
    OptionsCommand,
    OrientationCommand,
    PermissionCommand,
    Reply,
    ScreenshotCommand,
    TerminateCommand,
    TextCommand,
    UninstallCommand,
)
from bridge.wire.device_network import state_text
from bridge.wire.raw import RawNode, RawTree

KEEP_CAPTURES = 64

_Record = tuple[str, str | None]
"""(view key, bound content) of one handle in one capture."""


def reply_of(command_id: int, outcome: Outcome) -> Reply:
    return Reply(
        id=command_id,
        ok=outcome.ok,
        method=outcome.method,
        code=outcome.code,
        message=outcome.message,
        text=outcome.text,
    )


def _describe(class_name: str | None, name: str | None) -> str:
    return f"{class_name or '?'} {name!r}" if name else (class_name or "?")


def identity_problem(identity: NodeIdentity, live: RawNode) -> str | None:
    """Why ``live`` is not the node ``identity`` describes, or None when it matches."""
    if identity.class_name is not None and identity.class_name != live.class_name:
        return "class"
    if identity.automation_id is not None and identity.automation_id != live.automation_id:
        return "automation id"
    names = {n for n in (live.text, live.label, live.value) if n is not None}
    if identity.label is not None and identity.label not in names:
        return "label"
    if (
        identity.text is not None
        and not (live.editable or live.password)
        and identity.text not in names
    ):
        return "text"
    return None


class AgentSession:
    """Per-connection agent state over a shared ``DemoDevice``."""

    def __init__(self, device: DemoDevice, registry: HandleRegistry) -> None:
        self.device = device
        self.registry = registry
        self._capture = 0
        self._records: OrderedDict[int, dict[int, _Record]] = OrderedDict()

    @property
    def last_capture(self) -> int:
        return self._capture

    def observe(self, now: float) -> Flat:
        """The current screen, flattened but not yet numbered."""
        return flatten(self.device.scene(now), self.registry, self.device.platform)

    def register(self, flat: Flat) -> RawTree:
        """Number ``flat`` as the next capture and remember its handles."""
        self._capture += 1
        self._records[self._capture] = {
            node.handle: (key, content)
            for node, key, content in zip(flat.nodes, flat.keys, flat.contents, strict=True)
        }
        while len(self._records) > KEEP_CAPTURES:
            self._records.popitem(last=False)
        return flat.tree(self._capture)

    def capture(self, now: float) -> RawTree:
        return self.register(self.observe(now))

    def handle(self, command: HubToAgent, now: float) -> Reply | None:
        """The reply to ``command`` (None for a repeated ``hello``, which has no id).

        ``ScreenshotCommand`` and ``InstallCommand`` are answered by the server (it renders
        the PNG, or reads the package, off the loop)."""
        device = self.device
        match command:
            case AgentHubHello():
                return None
            case AgentPing(id=cid):
                return Reply(id=cid, ok=True)
            case CaptureCommand(id=cid):
                return Reply(id=cid, ok=True, tree=self.capture(now))
            case NodeActionCommand():
                return reply_of(command.id, self._node_action(command, now))
            case GestureCommand():
                return reply_of(command.id, self._gesture(command, now))
            case GlobalCommand(id=cid, action=action):
                return reply_of(cid, device.global_action(action, now))
            case KeyCommand(id=cid, key=key):
                return reply_of(cid, device.key(key, now))
            case TextCommand(id=cid, text=text):
                return reply_of(cid, device.type_text(text, now))
            case AppCommand(id=cid):
                return reply_of(
                    cid,
                    device.app(command.action, command.app_id, command.uri, now, command.arguments),
                )
            case ClipboardCommand(id=cid, set=value):
                if value is None:
                    return Reply(id=cid, ok=True, text=device.clipboard)
                return reply_of(cid, device.set_clipboard(value, now))
            case ScreenshotCommand(id=cid):
                return Reply(id=cid, ok=False, code="FAILED", message="screenshot not rendered")
            case OptionsCommand(id=cid):
                return Reply(id=cid, ok=True)  # the link's server applies the options
            case AppsCommand(id=cid):
                return Reply(id=cid, ok=True, apps=device.installed())
            case TerminateCommand(id=cid, app_id=app_id):
                return reply_of(cid, device.terminate(app_id, now))
            case ClearCommand(id=cid, app_id=app_id):
                return reply_of(cid, device.clear(app_id, now))
            case UninstallCommand(id=cid, app_id=app_id):
                return reply_of(cid, device.uninstall(app_id, now))
            case OrientationCommand(id=cid, orientation=orientation):
                return reply_of(cid, device.rotate(orientation, now))
            case AlertCommand(id=cid, action="list"):
                return Reply(id=cid, ok=True, alerts=device.alerts(now))
            case AlertCommand(id=cid, action=action, button=button):
                return reply_of(cid, device.answer_alert(action, button, now))
            case PermissionCommand(id=cid, action=action, app_id=app_id, permission=perm):
                return reply_of(cid, device.set_permission(action, app_id, perm, now))
            case LocationCommand(id=cid, latitude=lat, longitude=lon):
                return reply_of(cid, device.set_location(lat, lon, now))
            case NetworkCommand(id=cid, airplane=airplane, wifi=wifi, data=data):
                if airplane is not None or wifi is not None or data is not None:
                    outcome = device.set_network(airplane, wifi, data, now)
                    if not outcome.ok:
                        return reply_of(cid, outcome)
                net = device.network
                said = state_text(net["airplane"], net["wifi"], net["data"])
                return Reply(id=cid, ok=True, text=said)
            case MultiTouchCommand(id=cid, kind=kind, center=c, scale=scale):
                return reply_of(cid, device.multi_touch(kind, c.x, c.y, scale, now))
            case KeyboardCommand(id=cid):
                return reply_of(cid, device.hide_keyboard(now))
        return Reply(id=command.id, ok=False, code="FAILED", message="not handled here")

    def _node_action(self, cmd: NodeActionCommand, now: float) -> Outcome:
        records = self._records.get(cmd.capture)
        if records is None:
            return failed(
                "NOT_FOUND",
                f"capture {cmd.capture} is unknown (this link keeps its last "
                f"{KEEP_CAPTURES} captures, newest {self._capture})",
            )
        record = records.get(cmd.handle)
        if record is None:
            return failed("NOT_FOUND", f"handle {cmd.handle} is not in capture {cmd.capture}")
        key, content = record
        scene = self.device.scene(now)
        flat = flatten(scene, self.registry, self.device.platform)
        index = flat.index_of_handle(cmd.handle)
        path = scene.find(key)
        if index is None or path is None:
            return failed(
                "NOT_FOUND",
                f"handle {cmd.handle} of capture {cmd.capture} is no longer on screen",
            )
        live = flat.nodes[index]
        problem = identity_problem(cmd.identity, live)
        if problem is None and flat.contents[index] != content:
            problem = "content (the recycled view now shows another item)"
        if problem is not None:
            now_is = _describe(live.class_name, live.text or live.label)
            expected = _describe(cmd.identity.class_name, cmd.identity.text or cmd.identity.label)
            return failed(
                "IDENTITY_MISMATCH",
                f"handle {cmd.handle} of capture {cmd.capture} is now {now_is}, "
                f"expected {expected} ({problem} differs)",
            )
        return self.device.node_action(
            path,
            cmd.action,
            cmd.text,
            allow_ancestor=cmd.allow_ancestor,
            allow_gesture=cmd.allow_gesture,
            now=now,
        )

    def install(self, cid: int, package: bytes | None, problem: str | None, now: float) -> Reply:
        """The reply to ``install`` once the server has read the staged package."""
        if package is None:
            return Reply(id=cid, ok=False, code="FAILED", message=problem or "no package")
        outcome = self.device.install(package, now)
        if not outcome.ok:
            return reply_of(cid, outcome)
        return Reply(id=cid, ok=True, app_id=outcome.text)

    def _gesture(self, cmd: GestureCommand, now: float) -> Outcome:
        first = cmd.points[0]
        if cmd.kind != "swipe" and len(cmd.points) != 1:
            return failed("BAD_COMMAND", f"a {cmd.kind} takes one point")
        match cmd.kind:
            case "tap":
                return self.device.tap(first.x, first.y, now)
            case "double_tap":
                return self.device.double_tap(first.x, first.y, now)
            case "long_press":
                return self.device.long_press(first.x, first.y, now, cmd.duration_ms)
            case "swipe":
                if len(cmd.points) < 2:
                    return failed("BAD_COMMAND", "a swipe needs at least two points")
                last = cmd.points[-1]
                return self.device.swipe(first.x, first.y, last.x, last.y, now)
        return failed("UNSUPPORTED", f"gesture kind {cmd.kind!r} is not simulated")
