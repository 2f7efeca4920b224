"""Every closed vocabulary of the wire, as string-valued enums.

Values are exactly the spellings of the Mobile Semantic reference schemas; an enum member's
value is what travels on the wire. Adding a member is a compatible change for readers that
treat unknown values as errors only where the reference does (see protocol/README.md).
"""

from __future__ import annotations

import enum


class WireEnum(enum.Enum):
    """The base of the wire's enums: a member hashes by identity, as it compares (``Enum``
    compares by identity but hashes its name in Python code, and the normalizer looks members
    up in sets and dicts several times a node). A set of members iterates in no fixed order
    either way (string hashes are salted per process): sort where order shows."""

    __hash__ = object.__hash__


class Role(WireEnum):
    """Normalized role of a node. Raw platform class names are never roles."""

    SCREEN = "SCREEN"
    DIALOG = "DIALOG"
    LIST = "LIST"
    LIST_ITEM = "LIST_ITEM"
    BUTTON = "BUTTON"
    TEXT = "TEXT"
    INPUT = "INPUT"
    IMAGE = "IMAGE"
    CHECKBOX = "CHECKBOX"
    RADIO = "RADIO"
    SWITCH = "SWITCH"
    TAB = "TAB"
    MENU = "MENU"
    LINK = "LINK"
    SLIDER = "SLIDER"
    PROGRESS = "PROGRESS"
    WEB_VIEW = "WEB_VIEW"
    CANVAS = "CANVAS"
    UNKNOWN = "UNKNOWN"


class Source(WireEnum):
    """Where a node's data came from."""

    ACCESSIBILITY = "ACCESSIBILITY"
    APP_SDK = "APP_SDK"
    VISION = "VISION"


class Platform(WireEnum):
    ANDROID = "ANDROID"
    IOS = "IOS"


class Orientation(WireEnum):
    PORTRAIT = "portrait"
    LANDSCAPE = "landscape"


class ActionVerb(WireEnum):
    """Primitive actions on a node."""

    CLICK = "CLICK"
    LONG_CLICK = "LONG_CLICK"
    SET_TEXT = "SET_TEXT"
    CLEAR_TEXT = "CLEAR_TEXT"
    FOCUS = "FOCUS"
    SCROLL_FORWARD = "SCROLL_FORWARD"
    SCROLL_BACKWARD = "SCROLL_BACKWARD"
    SELECT = "SELECT"
    EXPAND = "EXPAND"
    COLLAPSE = "COLLAPSE"
    DISMISS = "DISMISS"
    COPY = "COPY"
    PASTE = "PASTE"


class GlobalAction(WireEnum):
    BACK = "BACK"
    HOME = "HOME"
    RECENTS = "RECENTS"
    NOTIFICATION_SHADE = "NOTIFICATION_SHADE"


class AppAction(WireEnum):
    """APP_CLOSE_UI is Back/Home: it never guarantees process death."""

    APP_OPEN = "APP_OPEN"
    APP_DEEP_LINK = "APP_DEEP_LINK"
    APP_BRING_TO_FRONT = "APP_BRING_TO_FRONT"
    APP_CLOSE_UI = "APP_CLOSE_UI"


class VerificationPolicy(WireEnum):
    NODE_STATE_CHANGED = "NODE_STATE_CHANGED"
    NODE_VALUE_EQUALS = "NODE_VALUE_EQUALS"
    NODE_DISAPPEARED = "NODE_DISAPPEARED"
    NODE_APPEARED = "NODE_APPEARED"
    PACKAGE_CHANGED = "PACKAGE_CHANGED"
    WINDOW_CHANGED = "WINDOW_CHANGED"
    COLLECTION_POSITION_CHANGED = "COLLECTION_POSITION_CHANGED"
    CLIPBOARD_EQUALS = "CLIPBOARD_EQUALS"
    EXPLICIT_CONDITION = "EXPLICIT_CONDITION"
    DISPATCH_ONLY = "DISPATCH_ONLY"


class DispatchStatus(WireEnum):
    """Whether the native action was sent; never business success."""

    DISPATCHED = "DISPATCHED"
    REJECTED = "REJECTED"
    FAILED = "FAILED"


class VerificationResult(WireEnum):
    CONDITION_MET = "CONDITION_MET"
    CONDITION_NOT_MET = "CONDITION_NOT_MET"
    CONDITION_UNKNOWN = "CONDITION_UNKNOWN"


class Stability(WireEnum):
    STABLE = "STABLE"
    TRANSITIONING = "TRANSITIONING"
    UNKNOWN = "UNKNOWN"


class ActionMethod(WireEnum):
    ACCESSIBILITY_ACTION = "ACCESSIBILITY_ACTION"
    ACCESSIBILITY_ACTION_ANCESTOR = "ACCESSIBILITY_ACTION_ANCESTOR"
    GESTURE_FALLBACK = "GESTURE_FALLBACK"


class FallbackType(WireEnum):
    VISION_COORDINATE = "VISION_COORDINATE"
    GESTURE = "GESTURE"


class MutationClass(WireEnum):
    """Ordered from least to most mutating."""

    READ_ONLY = "READ_ONLY"
    REVERSIBLE = "REVERSIBLE"
    SIDE_EFFECT = "SIDE_EFFECT"
    EXTERNAL_SIDE_EFFECT = "EXTERNAL_SIDE_EFFECT"
    DESTRUCTIVE = "DESTRUCTIVE"


class PredicateSource(WireEnum):
    CALLER = "CALLER"
    INTRINSIC = "INTRINSIC"


class FocusChange(WireEnum):
    UNCHANGED = "UNCHANGED"
    CHANGED = "CHANGED"
    UNKNOWN = "UNKNOWN"


class NodeRefSource(WireEnum):
    SEMANTIC = "SEMANTIC"
    VISION = "VISION"
    COORDINATE = "COORDINATE"


class MatchMode(WireEnum):
    EXACT = "EXACT"
    NORMALIZED_EXACT = "NORMALIZED_EXACT"
    CONTAINS = "CONTAINS"
    REGEX = "REGEX"
    SEMANTIC_SYNONYM = "SEMANTIC_SYNONYM"


class ErrorCode(WireEnum):
    """Domain error codes of the reference error envelope."""

    DEVICE_OFFLINE = "DEVICE_OFFLINE"
    SESSION_EXPIRED = "SESSION_EXPIRED"
    PERMISSION_REQUIRED = "PERMISSION_REQUIRED"
    WINDOW_UNAVAILABLE = "WINDOW_UNAVAILABLE"
    SECURE_WINDOW = "SECURE_WINDOW"
    NODE_NOT_FOUND = "NODE_NOT_FOUND"
    AMBIGUOUS_MATCH = "AMBIGUOUS_MATCH"
    STALE_NODE_REF = "STALE_NODE_REF"
    WEAK_REFERENCE_UNRESOLVABLE = "WEAK_REFERENCE_UNRESOLVABLE"
    ACTION_UNSUPPORTED = "ACTION_UNSUPPORTED"
    ACTION_REJECTED = "ACTION_REJECTED"
    NO_EFFECT = "NO_EFFECT"
    VERIFY_TIMEOUT = "VERIFY_TIMEOUT"
    VISION_REQUIRED = "VISION_REQUIRED"
    POLICY_BLOCKED = "POLICY_BLOCKED"
    USER_CONFIRMATION_REQUIRED = "USER_CONFIRMATION_REQUIRED"


class ProtocolErrorCode(WireEnum):
    """Transport-level failures the reference vocabulary has no code for.

    These travel in a ``protocol_error`` message, never in the reference envelope.
    """

    MALFORMED = "MALFORMED"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    INVALID_PARAMS = "INVALID_PARAMS"
    UNAUTHENTICATED = "UNAUTHENTICATED"
    FORBIDDEN = "FORBIDDEN"
    TOO_LARGE = "TOO_LARGE"
    RATE_LIMITED = "RATE_LIMITED"
    UNKNOWN_DEVICE = "UNKNOWN_DEVICE"
    UNKNOWN_SUBSCRIPTION = "UNKNOWN_SUBSCRIPTION"
    UNSUPPORTED_PROTOCOL = "UNSUPPORTED_PROTOCOL"
    CANCELLED = "CANCELLED"
    INTERNAL = "INTERNAL"


class GestureKind(WireEnum):
    """A gesture at screen points (``gesture`` request, agent-link ``gesture`` command)."""

    TAP = "tap"
    DOUBLE_TAP = "double_tap"
    LONG_PRESS = "long_press"
    SWIPE = "swipe"


class KeyName(WireEnum):
    """Keys a ``key`` request may press (Android ``KeyEvent`` names without ``KEYCODE_``).
    A device that cannot press one refuses it ACTION_UNSUPPORTED (iOS has no DPAD or MENU)."""

    ENTER = "ENTER"
    DEL = "DEL"
    """Backspace: deletes the character before the cursor."""
    FORWARD_DEL = "FORWARD_DEL"
    TAB = "TAB"
    SPACE = "SPACE"
    ESCAPE = "ESCAPE"
    BACK = "BACK"
    HOME = "HOME"
    APP_SWITCH = "APP_SWITCH"
    MENU = "MENU"
    SEARCH = "SEARCH"
    VOLUME_UP = "VOLUME_UP"
    VOLUME_DOWN = "VOLUME_DOWN"
    VOLUME_MUTE = "VOLUME_MUTE"
    DPAD_UP = "DPAD_UP"
    DPAD_DOWN = "DPAD_DOWN"
    DPAD_LEFT = "DPAD_LEFT"
    DPAD_RIGHT = "DPAD_RIGHT"
    DPAD_CENTER = "DPAD_CENTER"
    MOVE_HOME = "MOVE_HOME"
    MOVE_END = "MOVE_END"
    PAGE_UP = "PAGE_UP"
    PAGE_DOWN = "PAGE_DOWN"
    MEDIA_PLAY_PAUSE = "MEDIA_PLAY_PAUSE"
