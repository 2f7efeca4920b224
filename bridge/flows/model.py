"""The flow file format as typed definitions (msgspec Structs): the one source of truth for
what a flow may say. ``bridge.flows.compile`` converts each step with these types (strict:
unknown keys, wrong types and out-of-range values are refused with the file and line), and
``bridge.flows.schema`` generates ``protocol/flows/flow.schema.json`` from them for editors.

A flow file is YAML with two documents: a header mapping (``FlowHeader``), then ``---`` and
a list of steps. Each step is a mapping with exactly one key, the step's name, whose value
has that step's type (``STEPS``). Steps with nothing to say may be written as a bare word
(``- back`` is not one; ``- launchApp`` is). Targets are written as a ``Query``: a bare
string means "the node showing this text"; a mapping gives ``text``, ``label``, ``id``,
``role``, ``within``, ``nth``, ... (the same fields as the hub's SemanticQuery, in short form).
Any step may add ``optional`` and ``when`` (``Guarded``), beside its name or inside its
mapping. Blocks (``runFlow`` with ``commands``, ``repeat``, ``retry``, ``expectRefusal``) hold
``commands``, typed ``list[Any]`` here and checked as steps by the loader (the schema types
them as steps). Keys are camelCase. See docs/flows.md for every step with an example.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from bridge.wire.enums import ErrorCode, MatchMode, Orientation, Role, VerificationPolicy

TIMEOUT_CAP_MS = 600_000
VERIFY_CAP_MS = 60_000
Text = Annotated[str, msgspec.Meta(max_length=1024)]
Timeout = Annotated[int, msgspec.Meta(ge=0, le=TIMEOUT_CAP_MS)]
AppId = Annotated[str, msgspec.Meta(min_length=1, max_length=255)]
ScreenshotName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]
SecretRef = Annotated[str, msgspec.Meta(pattern=r"^secret://[A-Za-z0-9._/-]{1,200}$")]
VariableName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
Point = Annotated[str, msgspec.Meta(pattern=r"^\s*\d{1,5}\s*,\s*\d{1,5}\s*$")]
"""A point on the screen in device pixels, written ``X,Y`` (as ``mobridge tap --at X,Y``)."""
Duration = Annotated[str, msgspec.Meta(pattern=r"^\s*\d{1,7}(\.\d{1,3})?\s*(ms|s|m)\s*$")]
"""A duration with its unit: ``500ms``, ``90s``, ``2m``."""
MAX_TIMES = 1000
"""The most iterations a ``repeat`` may run (``times``, or a ``while`` that stays true)."""
MAX_RETRIES = 10
MAX_TEST_TIMEOUT_S = 3600


class FlowStruct(msgspec.Struct, forbid_unknown_fields=True, rename="camel", frozen=True):
    pass


# ---- targets ---------------------------------------------------------------------------------


class WithinSpec(FlowStruct, frozen=True):
    """Inside (or, for a text, beside) the element matching every given field."""

    text: Text | None = None
    role: Role | None = None
    id: Text | None = None


class StateSpec(FlowStruct, frozen=True):
    enabled: bool | None = None
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None
    clickable: bool | None = None


class Query(FlowStruct, frozen=True):
    """A semantic target, resolved by the hub: exactly one match, or the step fails with the
    refusal (none: NODE_NOT_FOUND; several: AMBIGUOUS_MATCH with every candidate)."""

    text: Text | None = None
    """The node showing this text (an input: its value or its hint)."""
    label: Text | None = None
    """The accessibility label (content description)."""
    id: Text | None = None
    """Resource id / accessibility identifier (``login`` also finds ``pkg:id/login``)."""
    role: Role | None = None
    within: Text | WithinSpec | None = None
    """Inside, or beside, the element showing this text (or matching these fields)."""
    nth: Annotated[int, msgspec.Meta(ge=0, le=10_000)] | None = None
    """The n-th match, 0-based, in document order."""
    match: MatchMode | None = None
    """How ``text``, ``label`` and ``within`` text compare (default NORMALIZED_EXACT)."""
    state: StateSpec | None = None
    first_visible: bool | None = None


Target = Text | Query


# ---- wait conditions (the hub's, with queries in the short form) ------------------------------


class _Cond(FlowStruct, tag_field="kind", frozen=True):
    pass


class PresentCond(_Cond, tag="present", frozen=True):
    query: Target


class AbsentCond(_Cond, tag="absent", frozen=True):
    query: Target


class ValueCond(_Cond, tag="value", frozen=True):
    equals: Text
    query: Target | None = None


class StateCond(_Cond, tag="state", frozen=True):
    query: Target
    state: StateSpec


class ScreenCond(_Cond, tag="screen", frozen=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]


class AppCond(_Cond, tag="app", frozen=True):
    app_id: AppId


class StableCond(_Cond, tag="stable", frozen=True):
    for_ms: Timeout


class ClipboardCond(_Cond, tag="clipboard", frozen=True):
    equals: Text


class AllOfCond(_Cond, tag="allOf", frozen=True):
    conditions: Annotated[list[Condition], msgspec.Meta(min_length=1, max_length=32)]


class AnyOfCond(_Cond, tag="anyOf", frozen=True):
    conditions: Annotated[list[Condition], msgspec.Meta(min_length=1, max_length=32)]


class NotCond(_Cond, tag="not", frozen=True):
    condition: Condition


Condition = (
    PresentCond
    | AbsentCond
    | ValueCond
    | StateCond
    | ScreenCond
    | AppCond
    | StableCond
    | ClipboardCond
    | AllOfCond
    | AnyOfCond
    | NotCond
)


class VerifySpec(FlowStruct, frozen=True):
    """How the hub checks an action's effect (protocol/README.md §8)."""

    policy: VerificationPolicy
    expected: Condition | None = None
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=VERIFY_CAP_MS)] | None = None
    stable_for_ms: Annotated[int, msgspec.Meta(ge=0, le=VERIFY_CAP_MS)] | None = None


class WhenSpec(FlowStruct, frozen=True):
    """A step or block runs only when every given test holds (checked when it would start):
    ``visible`` (a target is present now), ``notVisible``, ``platform`` (the device's), and
    ``true`` (a text, usually ``${VAR}``: false when empty, ``false``, ``0``, ``no`` or
    ``off``)."""

    visible: Target | None = None
    not_visible: Target | None = None
    platform: Literal["android", "ios"] | None = None
    true: Annotated[str, msgspec.Meta(max_length=1024)] | bool | None = None


# ---- step values -----------------------------------------------------------------------------


class Guarded(FlowStruct, frozen=True, kw_only=True):
    """The keys any step's mapping may add: ``optional`` and ``when``."""

    optional: bool = False
    when: WhenSpec | None = None


class TapSpec(Query, frozen=True):
    verify: VerifySpec | None = None
    gesture_fallback: bool = False
    """Allow a tap gesture at the node's centre when it has no click action."""
    point: Point | None = None
    """Instead of a target: a point on the screen, ``X,Y`` in device pixels."""
    hold_ms: Annotated[int, msgspec.Meta(ge=0, le=10_000)] | None = None
    """longPress at a point: how long it is held (default: the hub's 800 ms)."""
    optional: bool = False
    when: WhenSpec | None = None


class PointSpec(Guarded, frozen=True):
    """A gesture at a point on the screen (``doubleTap``)."""

    point: Point


class InputSpec(Guarded, frozen=True):
    """Set the text of one field: ``text`` (literal, may use ``${VARS}``) or ``secret`` (a
    ``secret://NAME`` the hub resolves; the value never reaches the runner or the report).
    Without ``into``: typed into the input that has the focus (``submit``: ENTER after)."""

    into: Target | None = None
    text: Annotated[str, msgspec.Meta(max_length=16384)] | None = None
    secret: SecretRef | None = None
    verify: VerifySpec | None = None
    submit: bool = False


class EraseSpec(Query, frozen=True):
    verify: VerifySpec | None = None
    optional: bool = False
    when: WhenSpec | None = None


Direction = Literal["forward", "backward"]
SwipeDirection = Literal["up", "down", "left", "right"]


class ScrollSpec(Guarded, frozen=True):
    in_: Target | None = msgspec.field(default=None, name="in")
    """The container; default: the screen's only scrollable one."""
    direction: Direction = "forward"


class SwipeSpec(Guarded, frozen=True):
    direction: SwipeDirection
    in_: Target | None = msgspec.field(default=None, name="in")
    from_: Point | None = msgspec.field(default=None, name="from")
    """Swipe on the screen from this point instead of scrolling a container."""
    distance: Annotated[int, msgspec.Meta(ge=1, le=65_535)] | None = None
    """With ``from``: how far, in pixels (default: 30% of the screen)."""


class ScrollUntilVisibleSpec(Guarded, frozen=True):
    element: Target
    in_: Target | None = msgspec.field(default=None, name="in")
    direction: Direction = "forward"
    max_scrolls: Annotated[int, msgspec.Meta(ge=1, le=200)] = 20


class LaunchSpec(Guarded, frozen=True):
    app_id: AppId | None = None
    clear_state: bool = False


class AssertSpec(Query, frozen=True):
    timeout_ms: Timeout | None = None
    optional: bool = False
    when: WhenSpec | None = None


class AssertValueSpec(Guarded, frozen=True):
    element: Target
    equals: Text
    timeout_ms: Timeout | None = None


class AssertStateSpec(Guarded, frozen=True):
    element: Target
    enabled: bool | None = None
    checked: bool | None = None
    selected: bool | None = None
    focused: bool | None = None
    clickable: bool | None = None
    timeout_ms: Timeout | None = None


class AssertScreenSpec(Guarded, frozen=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
    timeout_ms: Timeout | None = None


class WaitForSpec(Guarded, frozen=True):
    condition: Condition
    timeout_ms: Timeout | None = None


class RunFlowSpec(Guarded, frozen=True):
    """Another flow file (``file``, with ``env``), or inline ``commands``: exactly one."""

    file: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    env: dict[VariableName, Text] = msgspec.field(default_factory=dict)
    commands: list[Any] | None = None
    """Steps (typed as steps by the schema; checked like them)."""


class RepeatSpec(Guarded, frozen=True):
    """Run ``commands`` ``times`` times and/or while ``while`` holds (checked before each
    iteration); at most ``MAX_TIMES`` iterations."""

    commands: list[Any]
    times: Annotated[int, msgspec.Meta(ge=1, le=MAX_TIMES)] | None = None
    while_: WhenSpec | None = msgspec.field(default=None, name="while")


class RetrySpec(Guarded, frozen=True):
    """Run ``commands``; when one fails, run them again from the first, up to
    ``maxRetries`` more times."""

    commands: list[Any]
    max_retries: Annotated[int, msgspec.Meta(ge=0, le=MAX_RETRIES)] = 1


class ExpectRefusalSpec(Guarded, frozen=True):
    """Passes only when the hub refuses one of ``commands`` with ``code`` (the steps after it
    do not run); fails when they all pass, or one fails another way."""

    code: ErrorCode
    commands: list[Any]


class TerminateSpec(Guarded, frozen=True):
    app_id: AppId | None = None
    approve: bool = False
    """Answer the hub's confirmation request (a force-stop is DESTRUCTIVE) with approve."""


class InstallSpec(Guarded, frozen=True):
    package: (
        Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$")]
        | None
    ) = None
    """A file in the hub's install directory (``mobridge serve --install-dir``)."""
    file: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    """Or a local file (relative to the flow file), streamed to the hub. Exactly one."""
    sha256: Annotated[str, msgspec.Meta(pattern=r"^[0-9a-f]{64}$")] | None = None
    approve: bool = False

    def __post_init__(self) -> None:
        if (self.package is None) == (self.file is None):
            raise ValueError("installApp takes a package or a file (exactly one)")


LogLevelName = Literal["verbose", "debug", "info", "warn", "error", "fatal"]


class AssertLogSpec(Guarded, frozen=True):
    """A device log line matching ``grep`` (RE2), written since the test began or within
    ``timeoutMs`` (default 5000)."""

    grep: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    app: Annotated[str, msgspec.Meta(min_length=1, max_length=255)] | None = None
    level: LogLevelName | None = None
    timeout_ms: Timeout | None = None


GlobalKey = Literal["back", "home", "recents", "notifications"]
Key = Literal[
    "back",
    "home",
    "recents",
    "notifications",
    "enter",
    "del",
    "forward_del",
    "tab",
    "space",
    "escape",
    "app_switch",
    "menu",
    "search",
    "volume_up",
    "volume_down",
    "volume_mute",
    "dpad_up",
    "dpad_down",
    "dpad_left",
    "dpad_right",
    "dpad_center",
    "move_home",
    "move_end",
    "page_up",
    "page_down",
    "media_play_pause",
]
"""``back``, ``home``, ``recents``, ``notifications``: the global actions; the others: the
hub's ``key`` request (KeyName, lower case)."""


class KeySpec(Guarded, frozen=True):
    key: Key


# ---- device capabilities (issue 21): alerts, permissions, location, multi-touch, clipboard --

AlertChoice = Literal["accept", "dismiss"]
PermissionName = Literal[
    "camera", "microphone", "location", "photos", "contacts", "calendar", "notifications"
]


class AlertSpec(Guarded, frozen=True):
    """Answer the alert on screen: ``accept``, ``dismiss`` or press ``button`` (its text)."""

    choice: AlertChoice | None = None
    button: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None


class PermissionSpec(Guarded, frozen=True):
    permission: PermissionName
    action: Literal["grant", "revoke", "reset"] = "grant"
    app_id: AppId | None = None
    approve: bool = False
    """Answer the hub's confirmation request (a grant always asks) with approve."""


class LocationSpec(Guarded, frozen=True):
    latitude: Annotated[float, msgspec.Meta(ge=-90.0, le=90.0)]
    longitude: Annotated[float, msgspec.Meta(ge=-180.0, le=180.0)]


class PinchSpec(Guarded, frozen=True):
    """Two fingers on ``element`` (a target) or at ``point`` (``X,Y``); ``scale`` above 1 zooms
    in (``pinch`` only)."""

    element: Target | None = None
    point: Point | None = None
    scale: Annotated[float, msgspec.Meta(ge=0.1, le=10.0)] = 2.0


class ClipboardSpec(Guarded, frozen=True):
    text: Annotated[str, msgspec.Meta(max_length=16384)] | None = None
    secret: SecretRef | None = None


class AssertAlertSpec(Guarded, frozen=True):
    """An alert whose title contains ``title`` is on screen (none given: any alert)."""

    title: Text | None = None
    timeout_ms: Annotated[int, msgspec.Meta(ge=0, le=600_000)] | None = None


# ---- steps: one key each (plus ``optional`` / ``when`` beside it) ----------------------------


class LaunchAppStep(FlowStruct, frozen=True):
    launch_app: AppId | LaunchSpec | None


class StopAppStep(FlowStruct, frozen=True):
    stop_app: AppId | None


class ClearStateStep(FlowStruct, frozen=True):
    clear_state: AppId | None


class OpenLinkStep(FlowStruct, frozen=True):
    open_link: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)]


class TapStep(FlowStruct, frozen=True):
    tap: Text | TapSpec


class LongPressStep(FlowStruct, frozen=True):
    long_press: Text | TapSpec


class InputTextStep(FlowStruct, frozen=True):
    input_text: InputSpec


class EraseTextStep(FlowStruct, frozen=True):
    erase_text: Text | EraseSpec


class ScrollStep(FlowStruct, frozen=True):
    scroll: ScrollSpec | None


class SwipeStep(FlowStruct, frozen=True):
    swipe: SwipeDirection | SwipeSpec


class ScrollUntilVisibleStep(FlowStruct, frozen=True):
    scroll_until_visible: ScrollUntilVisibleSpec


class PressKeyStep(FlowStruct, frozen=True):
    press_key: Key | KeySpec


class DoubleTapStep(FlowStruct, frozen=True):
    double_tap: Point | PointSpec


class SetOrientationStep(FlowStruct, frozen=True):
    set_orientation: Orientation


class TerminateAppStep(FlowStruct, frozen=True):
    terminate_app: AppId | TerminateSpec | None


class InstallAppStep(FlowStruct, frozen=True):
    install_app: InstallSpec


class UninstallAppStep(FlowStruct, frozen=True):
    uninstall_app: AppId | TerminateSpec


class AssertLogStep(FlowStruct, frozen=True):
    assert_log: Annotated[str, msgspec.Meta(min_length=1, max_length=256)] | AssertLogSpec


RecordingName = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")]


class StartRecordingStep(FlowStruct, frozen=True):
    start_recording: RecordingName


class StopRecordingStep(FlowStruct, frozen=True):
    stop_recording: None


class RepeatStep(FlowStruct, frozen=True):
    repeat: RepeatSpec


class RetryStep(FlowStruct, frozen=True):
    retry: RetrySpec


class ExpectRefusalStep(FlowStruct, frozen=True):
    expect_refusal: ExpectRefusalSpec


class AssertVisibleStep(FlowStruct, frozen=True):
    assert_visible: Text | AssertSpec


class AssertNotVisibleStep(FlowStruct, frozen=True):
    assert_not_visible: Text | AssertSpec


class AssertValueStep(FlowStruct, frozen=True):
    assert_value: AssertValueSpec


class AssertStateStep(FlowStruct, frozen=True):
    assert_state: AssertStateSpec


class AssertScreenStep(FlowStruct, frozen=True):
    assert_screen: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | AssertScreenSpec


class WaitForStep(FlowStruct, frozen=True):
    wait_for: WaitForSpec


class TakeScreenshotStep(FlowStruct, frozen=True):
    take_screenshot: ScreenshotName


class RunFlowStep(FlowStruct, frozen=True):
    run_flow: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | RunFlowSpec


class AlertStep(FlowStruct, frozen=True):
    alert: AlertChoice | AlertSpec


class AssertAlertStep(FlowStruct, frozen=True):
    assert_alert: Text | AssertAlertSpec | None


class SetPermissionStep(FlowStruct, frozen=True):
    set_permission: PermissionSpec


class SetLocationStep(FlowStruct, frozen=True):
    set_location: LocationSpec


class ClearLocationStep(FlowStruct, frozen=True):
    clear_location: None


class PinchStep(FlowStruct, frozen=True):
    pinch: PinchSpec


class TwoFingerTapStep(FlowStruct, frozen=True):
    two_finger_tap: Text | PinchSpec


class SetClipboardStep(FlowStruct, frozen=True):
    set_clipboard: Annotated[str, msgspec.Meta(max_length=16384)] | ClipboardSpec


class AssertClipboardStep(FlowStruct, frozen=True):
    assert_clipboard: Text


class HideKeyboardStep(FlowStruct, frozen=True):
    hide_keyboard: None


STEPS: dict[str, type[FlowStruct]] = {
    "launchApp": LaunchAppStep,
    "stopApp": StopAppStep,
    "clearState": ClearStateStep,
    "openLink": OpenLinkStep,
    "tap": TapStep,
    "longPress": LongPressStep,
    "inputText": InputTextStep,
    "eraseText": EraseTextStep,
    "scroll": ScrollStep,
    "swipe": SwipeStep,
    "scrollUntilVisible": ScrollUntilVisibleStep,
    "pressKey": PressKeyStep,
    "assertVisible": AssertVisibleStep,
    "assertNotVisible": AssertNotVisibleStep,
    "assertValue": AssertValueStep,
    "assertState": AssertStateStep,
    "assertScreen": AssertScreenStep,
    "waitFor": WaitForStep,
    "takeScreenshot": TakeScreenshotStep,
    "runFlow": RunFlowStep,
    "doubleTap": DoubleTapStep,
    "setOrientation": SetOrientationStep,
    "terminateApp": TerminateAppStep,
    "installApp": InstallAppStep,
    "uninstallApp": UninstallAppStep,
    "assertLog": AssertLogStep,
    "startRecording": StartRecordingStep,
    "stopRecording": StopRecordingStep,
    "repeat": RepeatStep,
    "retry": RetryStep,
    "expectRefusal": ExpectRefusalStep,
    "alert": AlertStep,
    "assertAlert": AssertAlertStep,
    "setPermission": SetPermissionStep,
    "setLocation": SetLocationStep,
    "clearLocation": ClearLocationStep,
    "pinch": PinchStep,
    "twoFingerTap": TwoFingerTapStep,
    "setClipboard": SetClipboardStep,
    "assertClipboard": AssertClipboardStep,
    "hideKeyboard": HideKeyboardStep,
}
"""Step name -> its one-key Struct (the key is the step name, camelCase)."""

BARE_STEPS = frozenset(
    {
        "launchApp",
        "stopApp",
        "clearState",
        "scroll",
        "terminateApp",
        "assertAlert",
        "clearLocation",
        "hideKeyboard",
        "stopRecording",
    }
)
MODIFIERS = ("optional", "when")
"""Keys a step may carry beside its name (``- tap: OK`` then ``  optional: true``) or inside
its mapping value (``- tap: {text: OK, optional: true}``)."""
"""Steps that may be written as a bare word (their value is then null)."""

Reset = Literal["relaunch", "clearState", "none"]


class FlowHeader(FlowStruct, frozen=True):
    """The first document of a flow file."""

    app_id: AppId
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=200)] | None = None
    tags: list[Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")]] = (
        msgspec.field(default_factory=list)
    )
    """Words ``mobridge test --include-tags/--exclude-tags`` select tests by."""
    env: dict[VariableName, Text] = msgspec.field(default_factory=dict)
    """Defaults for ``${NAME}`` variables (the environment, --env and runFlow env win)."""
    reset: Reset = "relaunch"
    """Before the test (not before a flow it runs): relaunch the app (default; its stored
    data stays), clear its data and relaunch (``clearState``), or leave the device as is."""
    setup: list[Any] = msgspec.field(default_factory=list)
    """Steps run after the reset and before the flow's own steps (typed as steps by the
    schema; checked like them)."""
    on_flow_start: list[Any] = msgspec.field(default_factory=list)
    """Steps run first (after the reset, before ``setup``) when the file runs as a test."""
    on_flow_complete: list[Any] = msgspec.field(default_factory=list)
    """Steps run last when the file runs as a test, even when a step failed or the test
    timed out (teardown)."""
    timeout: Duration | Annotated[float, msgspec.Meta(gt=0, le=MAX_TEST_TIMEOUT_S)] | None = None
    """The test's time limit (``90s``, ``2m``, or seconds); its hooks' teardown runs after it."""
