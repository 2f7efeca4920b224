"""Agentless mode, sans I/O: captures from ``uiautomator dump`` and agent-link commands
translated into ``input`` / ``am`` / ``monkey`` command lines.

``Captures`` numbers the imported dumps (``capture`` = 1, 2, ... per server) and keeps the
last ``KEEP`` of them; ``plan_command`` turns one command into either an immediate ``Reply``
(refusals, ping) or a ``Plan``: argument lists to run in order, each with the output markers
that mean it failed.

Invariants:
- password fields never leave the host with their text: ``text`` and ``value`` are None in
  every stored capture (only the length is kept, to know how many characters to delete);
- a node action names (capture, handle); the capture must be one of the kept ones and the
  handle's node in the *latest* dump must match the command's identity (class and resource
  id equal; text/label, when given, among the live node's names, not compared for editable
  fields) and the node the hub saw in that capture — otherwise NOT_FOUND or
  IDENTITY_MISMATCH, and nothing is tapped;
- every node action is a gesture at the centre of the node's on-screen bounds, so the reply's
  method is always ``GESTURE_FALLBACK``; verbs a gesture cannot express are UNSUPPORTED;
- text typed with ``input text`` goes through ``shell_text.input_text_chunks`` (printable
  ASCII only); every argv is later quoted by ``shell_text.shell_command``;
- app management uses the package manager and activity manager: ``pm list packages`` (user
  apps with ``-3``, system apps with ``-s``; the reply's ``apps`` are read from both
  outputs), ``am force-stop``, ``pm uninstall``, ``pm install -r -t`` of a path under
  ``/data/local/tmp/`` only (where the hub staged it; deleted afterwards); the orientation
  is locked with ``settings put system accelerometer_rotation 0`` and ``user_rotation`` 0
  (portrait) or 1 (landscape);
- a double tap is UNSUPPORTED: every ``input`` command starts a process, so two taps are
  further apart than the platform's double-tap timeout.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

import msgspec

from bridge.devices.android.capability_shell import (
    ANDROID_PERMISSIONS,
    location_argv,
    network_argv,
    permission_argv,
)
from bridge.devices.android.shell_text import (
    Refused,
    check_key,
    check_package,
    check_uri,
    input_text_chunks,
)
from bridge.wire.agent_link import (
    AgentPing,
    AlertCommand,
    AppCommand,
    AppsCommand,
    ClearCommand,
    ClipboardCommand,
    GestureCommand,
    GlobalCommand,
    HubToAgent,
    InstallCommand,
    InstalledApp,
    KeyboardCommand,
    KeyCommand,
    LocationCommand,
    MultiTouchCommand,
    NetworkCommand,
    NodeActionCommand,
    NodeIdentity,
    OrientationCommand,
    PermissionCommand,
    Reply,
    TerminateCommand,
    TextCommand,
    UninstallCommand,
)
from bridge.wire.base import Bounds
from bridge.wire.enums import ActionMethod, ActionVerb, AppAction, GlobalAction, Orientation
from bridge.wire.raw import RawNode, RawTree, ScreenSize

KEEP = 16
LONG_PRESS_MS = 800
SWIPE_MS = 300
MAX_DELETE = 512
KEYS_PER_COMMAND = 50
LAUNCHER_CATEGORY = "android.intent.category.LAUNCHER"
_FAILURE_MARKERS = ("Error", "Exception", "aborted", "No activities found")
_PM_MARKERS = (*_FAILURE_MARKERS, "Failure", "Unknown package")
_CLEAR_MARKERS = (*_PM_MARKERS, "Failed")
"""``pm clear`` prints ``Success`` or ``Failed`` (an unknown package, a protected app)."""
STAGED_PREFIX = "/data/local/tmp/"
_STAGED = re.compile(r"/data/local/tmp/[A-Za-z0-9._-]{1,128}")


@dataclass(frozen=True)
class Step:
    argv: tuple[str, ...]
    timeout_s: float = 10.0
    fail_markers: tuple[str, ...] = _FAILURE_MARKERS

    def failure(self, output: str) -> str | None:
        """The output's complaint when it shows that the command failed."""
        for marker in self.fail_markers:
            if marker in output:
                return output.strip()[:500]
        return None


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...]
    method: ActionMethod | None = None
    lists_apps: bool = False
    """The steps' outputs are ``pm list packages -3`` then ``-s``: the reply lists apps."""
    reads_network: bool = False
    """The last three outputs read airplane mode, Wi-Fi and data: the reply's text says them
    (``bridge.wire.device_network.state_text``)."""


def parse_packages(output: str) -> list[str]:
    """The package names of a ``pm list packages`` output (``package:<name>`` lines)."""
    names: list[str] = []
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("package:"):
            name = line.removeprefix("package:")
            if not isinstance(check_package(name), Refused):
                names.append(name)
    return names


def apps_from(outputs: list[str]) -> tuple[InstalledApp, ...]:
    """The reply's ``apps`` from the outputs of ``pm list packages -3`` and ``-s``."""
    user = parse_packages(outputs[0]) if outputs else []
    system = parse_packages(outputs[1]) if len(outputs) > 1 else []
    seen: dict[str, InstalledApp] = {}
    for name in user:
        seen[name] = InstalledApp(app_id=name)
    for name in system:
        seen.setdefault(name, InstalledApp(app_id=name, system=True))
    return tuple(list(seen.values())[:4096])


def _refuse(cid: int, code: str, message: str) -> Reply:
    return Reply(id=cid, ok=False, code=code, message=message)


def _redact(node: RawNode) -> RawNode:
    if node.password and (node.text is not None or node.value is not None):
        return msgspec.structs.replace(node, text=None, value=None)
    return node


class Captures:
    """The last ``KEEP`` captures of one agentless server."""

    def __init__(self) -> None:
        self._trees: OrderedDict[int, RawTree] = OrderedDict()
        self._lengths: dict[int, tuple[int, ...]] = {}
        self._next = 1

    @property
    def latest(self) -> RawTree | None:
        return next(reversed(self._trees.values())) if self._trees else None

    def get(self, capture: int) -> RawTree | None:
        return self._trees.get(capture)

    def text_length(self, capture: int, handle: int) -> int:
        lengths = self._lengths.get(capture, ())
        return lengths[handle] if 0 <= handle < len(lengths) else 0

    def add(self, imported: RawTree, screen: ScreenSize | None = None) -> RawTree:
        """Number an imported dump as the next capture (passwords redacted)."""
        number = self._next
        self._next += 1
        if screen is not None and imported.rotation in (90, 270):
            screen = ScreenSize(width=screen.height, height=screen.width)
        tree = msgspec.structs.replace(
            imported,
            capture=number,
            nodes=tuple(_redact(n) for n in imported.nodes),
            screen=imported.screen or screen,
        )
        self._trees[number] = tree
        self._lengths[number] = tuple(len(n.text or n.value or "") for n in imported.nodes)
        while len(self._trees) > KEEP:
            old, _ = self._trees.popitem(last=False)
            self._lengths.pop(old, None)
        return tree


def identity_problem(identity: NodeIdentity, live: RawNode) -> str | None:
    """Why ``live`` is not the node ``identity`` describes, or None."""
    if identity.class_name is not None and identity.class_name != live.class_name:
        return "class"
    if identity.automation_id is not None and identity.automation_id != live.automation_id:
        return "resource id"
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


def _describe(node: RawNode) -> str:
    name = node.text or node.label
    return f"{node.class_name or '?'} {name!r}" if name else (node.class_name or "?")


def visible_centre(bounds: Bounds | None, screen: ScreenSize | None) -> tuple[int, int] | None:
    """The centre of ``bounds`` clipped to the screen, or None when nothing is on screen."""
    if bounds is None:
        return None
    left, top, right, bottom = bounds
    if screen is not None:
        left, top = max(left, 0), max(top, 0)
        right, bottom = min(right, screen.width), min(bottom, screen.height)
    if right <= left or bottom <= top:
        return None
    return (left + right) // 2, (top + bottom) // 2


def _tap(x: int, y: int) -> Step:
    return Step(("input", "tap", str(x), str(y)))


def _keys(*codes: str) -> list[Step]:
    return [
        Step(("input", "keyevent", *codes[i : i + KEYS_PER_COMMAND]))
        for i in range(0, len(codes), KEYS_PER_COMMAND)
    ]


def _typing(chunks: list[str]) -> list[Step]:
    return [Step(("input", "text", chunk)) for chunk in chunks]


def _clear(count: int) -> list[Step]:
    return _keys("KEYCODE_MOVE_END", *(["KEYCODE_DEL"] * min(count, MAX_DELETE)))


def _scroll(bounds: Bounds, forward: bool) -> Step:
    left, top, right, bottom = bounds
    x, y = (left + right) // 2, (top + bottom) // 2
    if bottom - top >= right - left:
        near, far = top + (bottom - top) // 4, bottom - (bottom - top) // 4
        y1, y2 = (far, near) if forward else (near, far)
        return Step(("input", "swipe", str(x), str(y1), str(x), str(y2), str(SWIPE_MS)))
    near, far = left + (right - left) // 4, right - (right - left) // 4
    x1, x2 = (far, near) if forward else (near, far)
    return Step(("input", "swipe", str(x1), str(y), str(x2), str(y), str(SWIPE_MS)))


def plan_node_action(cmd: NodeActionCommand, captures: Captures) -> Plan | Reply:
    seen_tree = captures.get(cmd.capture)
    latest = captures.latest
    if seen_tree is None or latest is None:
        return _refuse(
            cmd.id, "NOT_FOUND", f"capture {cmd.capture} is unknown (agentless mode keeps {KEEP})"
        )
    if not 0 <= cmd.handle < len(seen_tree.nodes):
        return _refuse(cmd.id, "NOT_FOUND", f"handle {cmd.handle} is not in capture {cmd.capture}")
    if cmd.handle >= len(latest.nodes):
        return _refuse(
            cmd.id, "NOT_FOUND", f"handle {cmd.handle} is no longer on screen (latest dump)"
        )
    live = latest.nodes[cmd.handle]
    problem = identity_problem(cmd.identity, live)
    seen = seen_tree.nodes[cmd.handle]
    if problem is None and (seen.class_name, seen.automation_id) != (
        live.class_name,
        live.automation_id,
    ):
        problem = "class or resource id since that capture"
    if problem is not None:
        return _refuse(
            cmd.id,
            "IDENTITY_MISMATCH",
            f"handle {cmd.handle} is now {_describe(live)} in the latest dump ({problem} differs)",
        )
    centre = visible_centre(live.bounds, latest.screen)
    if centre is None or live.bounds is None:
        return _refuse(cmd.id, "FAILED", f"{_describe(live)} has no on-screen bounds to tap")
    x, y = centre
    verb = cmd.action
    steps: list[Step]
    if verb in (ActionVerb.CLICK, ActionVerb.FOCUS):
        steps = [_tap(x, y)]
    elif verb is ActionVerb.LONG_CLICK:
        steps = [Step(("input", "swipe", str(x), str(y), str(x), str(y), str(LONG_PRESS_MS)))]
    elif verb in (ActionVerb.SET_TEXT, ActionVerb.CLEAR_TEXT):
        chunks: list[str] | Refused = []
        if verb is ActionVerb.SET_TEXT:
            if cmd.text is None:
                return _refuse(cmd.id, "BAD_COMMAND", "SET_TEXT needs text")
            chunks = input_text_chunks(cmd.text)
        if isinstance(chunks, Refused):
            return _refuse(cmd.id, "UNSUPPORTED", chunks.reason)
        existing = captures.text_length(latest.capture, cmd.handle)
        steps = [_tap(x, y), *_clear(existing), *_typing(chunks)]
    elif verb in (ActionVerb.SCROLL_FORWARD, ActionVerb.SCROLL_BACKWARD):
        steps = [_scroll(live.bounds, verb is ActionVerb.SCROLL_FORWARD)]
    else:
        return _refuse(
            cmd.id,
            "UNSUPPORTED",
            f"agentless mode cannot {verb.value}: it has no accessibility actions, only "
            "taps, swipes and key events (install the agent APK)",
        )
    return Plan(tuple(steps), ActionMethod.GESTURE_FALLBACK)


def _gesture(cmd: GestureCommand) -> Plan | Reply:
    points = cmd.points
    if any(p.x < 0 or p.y < 0 for p in points):
        return _refuse(cmd.id, "BAD_COMMAND", "gesture points must not be negative")
    first = points[0]
    if cmd.kind == "tap":
        return Plan((_tap(first.x, first.y),))
    if cmd.kind == "long_press":
        ms = str(max(cmd.duration_ms, LONG_PRESS_MS))
        xy = (str(first.x), str(first.y))
        return Plan((Step(("input", "swipe", *xy, *xy, ms)),))
    if cmd.kind == "double_tap":
        return _refuse(
            cmd.id,
            "UNSUPPORTED",
            "agentless mode cannot double-tap: each adb 'input' command starts a process, so "
            "two taps land further apart than the double-tap timeout (install the agent APK)",
        )
    if cmd.kind == "swipe":
        if len(points) != 2:
            return _refuse(
                cmd.id, "UNSUPPORTED", "agentless swipes go from one point to another (2 points)"
            )
        last = points[1]
        ms = str(cmd.duration_ms or SWIPE_MS)
        argv = ("input", "swipe", str(first.x), str(first.y), str(last.x), str(last.y), ms)
        return Plan((Step(argv),))
    return _refuse(cmd.id, "UNSUPPORTED", f"gesture kind {cmd.kind!r} is not supported")


_GLOBAL_KEYS = {GlobalAction.BACK: "4", GlobalAction.HOME: "3", GlobalAction.RECENTS: "187"}


def _app(cmd: AppCommand) -> Plan | Reply:
    if cmd.action is AppAction.APP_CLOSE_UI:
        return Plan(tuple(_keys("3")))
    if cmd.action is AppAction.APP_DEEP_LINK:
        uri = check_uri(cmd.uri)
        if isinstance(uri, Refused):
            return _refuse(cmd.id, "BAD_COMMAND", uri.reason)
        argv = ["am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", uri]
        if cmd.app_id is not None:
            package = check_package(cmd.app_id)
            if isinstance(package, Refused):
                return _refuse(cmd.id, "BAD_COMMAND", package.reason)
            argv += ["-p", package]
        return Plan((Step(tuple(argv), 20.0),))
    package = check_package(cmd.app_id)
    if isinstance(package, Refused):
        return _refuse(cmd.id, "BAD_COMMAND", package.reason)
    launch = ("monkey", "-p", package, "-c", LAUNCHER_CATEGORY, "1")
    return Plan((Step(launch, 20.0),))


def plan_command(cmd: HubToAgent, captures: Captures) -> Plan | Reply | None:
    """The plan for ``cmd`` (capture, screenshot and hello are the server's own: None)."""
    match cmd:
        case AgentPing(id=cid):
            return Reply(id=cid, ok=True)
        case NodeActionCommand():
            return plan_node_action(cmd, captures)
        case GestureCommand():
            return _gesture(cmd)
        case GlobalCommand(id=cid, action=action):
            if action is GlobalAction.NOTIFICATION_SHADE:
                return Plan((Step(("cmd", "statusbar", "expand-notifications")),))
            return Plan(tuple(_keys(_GLOBAL_KEYS[action])))
        case PermissionCommand(id=cid, action=act, app_id=app_id, permission=perm):
            package = check_package(app_id)
            if isinstance(package, Refused):
                return _refuse(cid, "BAD_COMMAND", package.reason)
            if perm not in ANDROID_PERMISSIONS:
                return _refuse(cid, "BAD_COMMAND", f"unknown permission {perm!r}")
            # pm grant/revoke print nothing on success, an exception otherwise
            refusals = (*_PM_MARKERS, "not a changeable permission", "has not requested")
            pm = permission_argv(act, package, perm)
            return Plan(tuple(Step(a, fail_markers=refusals) for a in pm))
        case LocationCommand(id=cid, latitude=lat, longitude=lon):
            where = location_argv(lat, lon)
            failing = (*_FAILURE_MARKERS, "Unknown command", "unknown command")
            return Plan(tuple(Step(a, fail_markers=failing) for a in where))
        case NetworkCommand(airplane=airplane, wifi=wifi, data=data):
            radios = (*_FAILURE_MARKERS, "Unknown command", "unknown command", "not found")
            steps = network_argv(airplane, wifi, data)
            return Plan(tuple(Step(a, fail_markers=radios) for a in steps), reads_network=True)
        case AlertCommand(id=cid) | KeyboardCommand(id=cid) | MultiTouchCommand(id=cid):
            what = type(cmd).__name__.removesuffix("Command").lower()
            return _refuse(
                cid, "UNSUPPORTED", f"agentless mode cannot do {what} (install the agent)"
            )
        case KeyCommand(id=cid, key=key):
            code = check_key(key)
            if isinstance(code, Refused):
                return _refuse(cid, "BAD_COMMAND", code.reason)
            return Plan(tuple(_keys(code)))
        case TextCommand(id=cid, text=text):
            chunks = input_text_chunks(text)
            if isinstance(chunks, Refused):
                return _refuse(cid, "UNSUPPORTED", chunks.reason)
            return Plan(tuple(_typing(chunks)))
        case AppCommand():
            return _app(cmd)
        case ClipboardCommand(id=cid):
            return _refuse(
                cid, "UNSUPPORTED", "agentless mode has no clipboard access (install the agent)"
            )
        case AppsCommand():
            markers = ("Error:", "Exception:")  # package names may hold "Error"
            listing = (
                Step(("pm", "list", "packages", "-3"), fail_markers=markers),
                Step(("pm", "list", "packages", "-s"), fail_markers=markers),
            )
            return Plan(listing, lists_apps=True)
        case (
            TerminateCommand(id=cid, app_id=app_id)
            | ClearCommand(id=cid, app_id=app_id)
            | UninstallCommand(id=cid, app_id=app_id)
        ):
            package = check_package(app_id)
            if isinstance(package, Refused):
                return _refuse(cid, "BAD_COMMAND", package.reason)
            if isinstance(cmd, TerminateCommand):
                return Plan((Step(("am", "force-stop", package)),))
            if isinstance(cmd, ClearCommand):  # stops the app and wipes its data and caches
                return Plan((Step(("pm", "clear", package), 60.0, _CLEAR_MARKERS),))
            return Plan((Step(("pm", "uninstall", package), 60.0, _PM_MARKERS),))
        case InstallCommand(id=cid, path=path):
            if not _STAGED.fullmatch(path) or ".." in path:
                return _refuse(cid, "BAD_COMMAND", f"packages are installed from {STAGED_PREFIX}")
            install = Step(("pm", "install", "-r", "-t", path), 120.0, _PM_MARKERS)
            return Plan((install, Step(("rm", "-f", path), fail_markers=())))
        case OrientationCommand(orientation=orientation):
            turn = "0" if orientation is Orientation.PORTRAIT else "1"
            return Plan(
                (
                    Step(("settings", "put", "system", "accelerometer_rotation", "0")),
                    Step(("settings", "put", "system", "user_rotation", turn)),
                )
            )
    return None
