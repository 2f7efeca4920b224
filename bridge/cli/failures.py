"""LAYER 4 — every mistake a person can make with the CLI, as one line that says what to do.

``explain`` turns what a command raised into ``(exit status, line)``: 2 for bad usage, an
unreachable or refusing hub, a device that does not exist, invalid input; the caller prints
the line to stderr (no traceback unless ``--debug``). Domain refusals (exit 1) are shown by
the command itself (``cli.render.candidate_lines``).
"""

from __future__ import annotations

import re
from enum import Enum
from urllib.parse import urlsplit

import msgspec

from bridge.client import ConnectionFailed, ConnectionLost, ProtocolFailure, RequestTimeout
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    GlobalAction,
    MatchMode,
    ProtocolErrorCode,
    Role,
    VerificationPolicy,
)

EXIT_USAGE = 2
START_HINT = (
    "start one with `mobridge serve` (or scripts/run), or point --url / $MOBRIDGE_URL at it"
)
TOKEN_HINT = (
    "use the token `mobridge serve` printed: --token T or export MOBRIDGE_TOKEN=T "
    "(a hub started on this machine with a generated token needs neither)"
)

_ENUMS_BY_FIELD: dict[str, type[Enum]] = {
    "role": Role,
    "match": MatchMode,
    "action": ActionVerb,
    "policy": VerificationPolicy,
}
_ENUM_ERROR = re.compile(r"Invalid enum value (?P<value>.+?) - at `\$(?P<path>[^`]*)`")


class UsageError(Exception):
    """Bad usage or unreadable input: exit 2 with this one-line message."""


def check_url(url: str) -> None:
    """Refuse a hub URL that cannot be right before any connection is tried."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError as exc:
        raise UsageError(f"--url {url!r}: {exc}") from None
    if parts.scheme in ("http", "https"):
        fixed = f"{'wss' if parts.scheme == 'https' else 'ws'}://{parts.netloc}/v1"
        raise UsageError(f"--url {url}: the hub speaks websockets; use {fixed}")
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise UsageError(f"--url {url!r}: expected ws://HOST:PORT/v1 (default {_default()})")
    if parts.path.rstrip("/") != "/v1":
        fixed = f"{parts.scheme}://{parts.netloc}/v1"
        raise UsageError(f"--url {url}: the hub's websocket path is /v1; use {fixed}")


def _default() -> str:
    from bridge.client import DEFAULT_URL

    return DEFAULT_URL


def invalid_json(what: str, exc: Exception) -> UsageError:
    """An argument that does not decode: name the field and, for an enum, every allowed
    value."""
    text = str(exc)
    found = _ENUM_ERROR.search(text)
    if found:
        field = found.group("path").rsplit(".", 1)[-1].strip("[]0123456789")
        enum = _ENUMS_BY_FIELD.get(field)
        if enum is not None:
            allowed = ", ".join(str(m.value) for m in enum)
            return UsageError(
                f"invalid {what}: {field} {found.group('value')} is not one of: {allowed}"
            )
    if isinstance(exc, msgspec.DecodeError) and not isinstance(exc, msgspec.ValidationError):
        return UsageError(f"{what} is not JSON ({text}); quote it: '{{\"text\": ...}}'")
    return UsageError(f"invalid {what}: {text}")


def explain(exc: BaseException, url: str) -> tuple[int, str] | None:
    """The exit status and one line for a failure of a client command (None: not ours)."""
    match exc:
        case UsageError():
            return EXIT_USAGE, f"mobridge: {exc}"
        case ConnectionFailed():
            cause = str(exc)
            if "401" in cause:
                return EXIT_USAGE, f"mobridge: the hub at {url} refused the token; {TOKEN_HINT}"
            if "refused" in cause.lower() or "Errno 111" in cause or "Connect call failed" in cause:
                return EXIT_USAGE, f"mobridge: no hub at {url} (connection refused); {START_HINT}"
            if "HTTP 404" in cause:
                return EXIT_USAGE, f"mobridge: {url} is not a mobridge hub (HTTP 404); {START_HINT}"
            return EXIT_USAGE, f"mobridge: {cause}"
        case ProtocolFailure(code=ProtocolErrorCode.UNAUTHENTICATED):
            return EXIT_USAGE, f"mobridge: the hub at {url} refused the token; {TOKEN_HINT}"
        case ProtocolFailure(code=ProtocolErrorCode.FORBIDDEN):
            return EXIT_USAGE, (
                f"mobridge: {exc.message}; act with the controller token (--token or "
                "$MOBRIDGE_TOKEN), not an observer token"
            )
        case ProtocolFailure():
            return EXIT_USAGE, f"mobridge: the hub answered {exc.code.value}: {exc.message}"
        case RequestTimeout():
            return EXIT_USAGE, f"mobridge: {exc}; the hub is busy or the device is slow, retry"
        case ConnectionLost():
            return EXIT_USAGE, f"mobridge: {exc}; is the hub still running? {START_HINT}"
    return None


def global_action(name: str) -> GlobalAction:
    table = {
        "back": GlobalAction.BACK,
        "home": GlobalAction.HOME,
        "recents": GlobalAction.RECENTS,
        "notifications": GlobalAction.NOTIFICATION_SHADE,
    }
    try:
        return table[name.lower()]
    except KeyError:
        raise UsageError(f"press {name!r}: choose one of {', '.join(table)}") from None


def app_action(name: str) -> AppAction:
    table = {
        "open": AppAction.APP_OPEN,
        "launch": AppAction.APP_OPEN,
        "front": AppAction.APP_BRING_TO_FRONT,
        "close": AppAction.APP_CLOSE_UI,
        "url": AppAction.APP_DEEP_LINK,
    }
    try:
        return table[name.lower()]
    except KeyError:
        raise UsageError(f"app {name!r}: choose one of {', '.join(table)}") from None
