"""W3C WebDriver errors: the error code, its HTTP status, and mobridge's reason as message.

Invariant: every failure a command can meet leaves the server as one ``WebDriverError``
(``code`` one of W3C's error codes, ``message`` one line saying why and what to do); hub
refusals keep the hub's code at the start of the message (``AMBIGUOUS_MATCH: ...``).
"""

from __future__ import annotations

STATUS: dict[str, int] = {
    "element click intercepted": 400,
    "element not interactable": 400,
    "insecure certificate": 400,
    "invalid argument": 400,
    "invalid cookie domain": 400,
    "invalid element state": 400,
    "invalid selector": 400,
    "invalid session id": 404,
    "javascript error": 500,
    "move target out of bounds": 500,
    "no such alert": 404,
    "no such cookie": 404,
    "no such element": 404,
    "no such frame": 404,
    "no such window": 404,
    "no such context": 400,
    "script timeout": 500,
    "session not created": 500,
    "stale element reference": 404,
    "timeout": 500,
    "unable to set cookie": 500,
    "unable to capture screen": 500,
    "unexpected alert open": 500,
    "unknown command": 404,
    "unknown error": 500,
    "unknown method": 405,
    "unsupported operation": 500,
}
"""W3C error code -> HTTP status (WebDriver §6.6; ``no such context`` is Appium's)."""

MAX_MESSAGE = 2000


class WebDriverError(Exception):
    """A failed command: ``code`` is a W3C error code (a key of ``STATUS``)."""

    def __init__(self, code: str, message: str) -> None:
        if code not in STATUS:
            code = "unknown error"
        super().__init__(message)
        self.code = code
        self.message = message[:MAX_MESSAGE]

    @property
    def status(self) -> int:
        return STATUS[self.code]

    def body(self) -> dict[str, object]:
        """The W3C error body: ``{"value": {"error", "message", "stacktrace"}}``."""
        return {"value": {"error": self.code, "message": self.message, "stacktrace": ""}}


def invalid_argument(message: str) -> WebDriverError:
    return WebDriverError("invalid argument", message)


def hub_code_to_w3c(hub_code: str, *, on_element: bool) -> str:
    """The W3C code for a hub refusal. ``on_element``: the command named an element the
    caller found earlier, so a node that is gone (not found, stale) is a stale reference."""
    if hub_code in ("NODE_NOT_FOUND", "STALE_NODE_REF", "WEAK_REFERENCE_UNRESOLVABLE"):
        return "stale element reference" if on_element else "no such element"
    return {
        "AMBIGUOUS_MATCH": "invalid selector",
        "POLICY_BLOCKED": "invalid element state",
        "USER_CONFIRMATION_REQUIRED": "invalid element state",
        "ACTION_UNSUPPORTED": "unsupported operation",
        "ACTION_REJECTED": "invalid element state",
        "NO_EFFECT": "invalid element state",
        "VERIFY_TIMEOUT": "timeout",
        "DEVICE_OFFLINE": "unknown error",
        "SESSION_EXPIRED": "invalid session id",
        "SECURE_WINDOW": "unable to capture screen",
        "WINDOW_UNAVAILABLE": "no such window",
    }.get(hub_code, "unknown error")
