"""New-session capabilities: W3C ``alwaysMatch`` / ``firstMatch`` merged, Appium's names read.

Read (``appium:`` prefix optional for Appium's, as Appium's clients send them prefixed):
``platformName`` (Android / iOS: a device of that platform), ``udid`` (the device id),
``deviceName`` (used as the device id when it names one), ``appPackage`` / ``bundleId`` (the
app brought to the front when the session starts), ``noReset`` (false: the app is restarted
first, never cleared), ``newCommandTimeout`` (seconds; 0 = never; default 60), and mobridge's
own: ``mobridge:token``, ``mobridge:strict``, ``mobridge:firstMatch``, ``mobridge:approve``,
``mobridge:leaseWait`` (seconds, at most 600), ``mobridge:name``. Everything else is kept and
echoed back, never acted on. The token is never echoed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bridge.webdriver.errors import WebDriverError

DEFAULT_COMMAND_TIMEOUT_S = 60.0
MAX_COMMAND_TIMEOUT_S = 24 * 3600.0
MAX_LEASE_WAIT_S = 600.0
MAX_CAPABILITIES = 128


@dataclass(frozen=True)
class SessionCaps:
    platform: str | None
    """``ANDROID`` / ``IOS`` or None (any)."""
    device: str | None
    app_id: str | None
    no_reset: bool
    new_command_timeout_s: float
    token: str | None
    strict: bool
    first_match: bool
    approve: bool
    lease_wait_s: float
    name: str
    echo: dict[str, Any]
    device_name: str | None = None


def _short(name: str) -> str:
    return name.split(":", 1)[1] if name.startswith("appium:") else name


def merge(body: Any) -> dict[str, Any]:
    """The capabilities of a new-session body: ``alwaysMatch`` with the first ``firstMatch``
    entry (W3C §7.2), or the legacy ``desiredCapabilities``."""
    if not isinstance(body, dict):
        raise WebDriverError("invalid argument", "the body must be a JSON object")
    caps = body.get("capabilities")
    if isinstance(caps, dict):
        always = caps.get("alwaysMatch") or {}
        first = caps.get("firstMatch") or [{}]
        if not isinstance(always, dict) or not isinstance(first, list):
            raise WebDriverError(
                "invalid argument", "alwaysMatch must be an object, firstMatch a list"
            )
        chosen = first[0] if first else {}
        if not isinstance(chosen, dict):
            raise WebDriverError("invalid argument", "firstMatch entries must be objects")
        clash = set(always) & set(chosen)
        if clash:
            raise WebDriverError(
                "invalid argument", f"{sorted(clash)[0]} is in both alwaysMatch and firstMatch"
            )
        merged = {**always, **chosen}
    elif isinstance(body.get("desiredCapabilities"), dict):
        merged = dict(body["desiredCapabilities"])
    else:
        raise WebDriverError("invalid argument", "no capabilities in the new-session body")
    if len(merged) > MAX_CAPABILITIES:
        raise WebDriverError("invalid argument", f"more than {MAX_CAPABILITIES} capabilities")
    return merged


def _flag(caps: dict[str, Any], name: str, default: bool) -> bool:
    value = caps.get(name, default)
    if not isinstance(value, bool):
        raise WebDriverError("invalid argument", f"capability {name} must be true or false")
    return value


def _seconds(caps: dict[str, Any], name: str, default: float, cap: float) -> float:
    value = caps.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise WebDriverError("invalid argument", f"capability {name} must be a number >= 0")
    return float(min(value, cap))


def _text(caps: dict[str, Any], *names: str) -> str | None:
    for name in names:
        value = caps.get(name)
        if value is None or value == "":
            continue
        if not isinstance(value, str) or len(value) > 256:
            raise WebDriverError("invalid argument", f"capability {name} must be a short string")
        return value
    return None


def parse(body: Any) -> SessionCaps:
    """The session's capabilities, or ``WebDriverError`` (``invalid argument``) naming the
    one that does not fit."""
    raw = merge(body)
    caps = {_short(k): v for k, v in raw.items() if isinstance(k, str)}
    platform = _text(caps, "platformName")
    if platform is not None:
        upper = platform.upper()
        if upper not in ("ANDROID", "IOS"):
            raise WebDriverError(
                "session not created", f"platformName {platform!r}: mobridge drives Android or iOS"
            )
        platform = upper
    echo = {k: v for k, v in raw.items() if k != "mobridge:token"}
    return SessionCaps(
        platform=platform,
        device=_text(caps, "udid"),
        device_name=_text(caps, "deviceName"),
        app_id=_text(caps, "appPackage", "bundleId"),
        no_reset=_flag(caps, "noReset", False),
        new_command_timeout_s=_seconds(
            caps, "newCommandTimeout", DEFAULT_COMMAND_TIMEOUT_S, MAX_COMMAND_TIMEOUT_S
        ),
        token=_text(caps, "mobridge:token"),
        strict=_flag(caps, "mobridge:strict", False),
        first_match=_flag(caps, "mobridge:firstMatch", False),
        approve=_flag(caps, "mobridge:approve", False),
        lease_wait_s=_seconds(caps, "mobridge:leaseWait", 0.0, MAX_LEASE_WAIT_S),
        name=_text(caps, "mobridge:name") or "webdriver",
        echo=echo,
    )


def token_from_header(value: str | None) -> str | None:
    """The hub token an ``Authorization`` header carries: ``Bearer T``, or ``Basic`` with the
    token as the password (``http://user:TOKEN@127.0.0.1:4723`` in a client's URL)."""
    if not value:
        return None
    scheme, _, rest = value.strip().partition(" ")
    rest = rest.strip()
    if scheme.lower() == "bearer" and rest:
        return rest
    if scheme.lower() == "basic" and rest:
        import base64
        import binascii

        try:
            decoded = base64.b64decode(rest, validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return None
        _, _, password = decoded.partition(":")
        return password or None
    return None
