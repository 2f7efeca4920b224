"""What every command handler shares: reading a body, the session's device, calling the hub
with its refusals turned into WebDriver errors, the screen as PNG."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any

from bridge.client.errors import ClientError
from bridge.webdriver.errors import WebDriverError, invalid_argument
from bridge.webdriver.session import WdSession, hub_failure


def body_object(body: Any) -> dict[str, Any]:
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise invalid_argument("the body must be a JSON object")
    return body


def device_of(session: WdSession) -> Any:
    device = session.device
    if device is None:
        raise WebDriverError("invalid session id", "the session has no device")
    return device


async def hub_call(session: WdSession, call: Awaitable[Any], *, on_element: bool = False) -> Any:
    try:
        return await call
    except ClientError as exc:
        raise hub_failure(exc, on_element=on_element) from None


async def png(session: WdSession) -> bytes:
    device = device_of(session)
    return await hub_call(session, device.fetch_screenshot())  # type: ignore[no-any-return]
