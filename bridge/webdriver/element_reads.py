"""Element reads: text, attributes, geometry, state, tag name and element screenshots, all
from the session's live snapshot and its Appium-shaped page source (no hub round trip but
the screenshot). An element that is gone is ``stale element reference``."""

from __future__ import annotations

import base64
import io
from typing import Any

from bridge.webdriver.calls import png
from bridge.webdriver.errors import WebDriverError
from bridge.webdriver.page_source import android_text, class_of, ios_value
from bridge.webdriver.session import WdSession
from bridge.wire.enums import Platform


def _element_xml(session: WdSession, element_id: str) -> Any:
    node = session.node(element_id)
    element = session.source().element_of(node.node_id)
    if element is None:  # pragma: no cover - every node has an element
        raise WebDriverError("stale element reference", "the element left the page source")
    return node, element


_ANDROID_ALIASES = {
    "contentDescription": "content-desc",
    "content-description": "content-desc",
    "resourceId": "resource-id",
    "className": "class",
    "longClickable": "long-clickable",
    "name": "content-desc",
}


async def element_text(session: WdSession, path: dict[str, str], _: Any) -> Any:
    node, element = _element_xml(session, path["element"])
    if session.platform is Platform.ANDROID:
        return android_text(node)
    return ios_value(node) or element.get("label") or ""


async def element_attribute(session: WdSession, path: dict[str, str], _: Any) -> Any:
    name = path["name"]
    node, element = _element_xml(session, path["element"])
    if session.platform is Platform.ANDROID:
        name = _ANDROID_ALIASES.get(name, name)
        if name == "text":
            return android_text(node)
    elif name == "rect":
        return _rect(node)
    value = element.get(name)
    if value is None and name in ("displayed", "visible"):
        return "true" if _displayed(session, node) else "false"
    return value


def _rect(node: Any) -> dict[str, int]:
    left, top, right, bottom = node.bounds or (0, 0, 0, 0)
    return {"x": left, "y": top, "width": right - left, "height": bottom - top}


async def element_rect(session: WdSession, path: dict[str, str], _: Any) -> Any:
    return _rect(session.node(path["element"]))


async def element_location(session: WdSession, path: dict[str, str], _: Any) -> Any:
    rect = _rect(session.node(path["element"]))
    return {"x": rect["x"], "y": rect["y"]}


async def element_size(session: WdSession, path: dict[str, str], _: Any) -> Any:
    rect = _rect(session.node(path["element"]))
    return {"width": rect["width"], "height": rect["height"]}


def _displayed(session: WdSession, node: Any) -> bool:
    if node.bounds is None:
        return False
    left, top, right, bottom = node.bounds
    screen = session.current().nodes[0].bounds or (0, 0, 1 << 30, 1 << 30)
    return bool(
        right > left
        and bottom > top
        and right > screen[0]
        and bottom > screen[1]
        and (left < screen[2] and top < screen[3])
    )


async def element_displayed(session: WdSession, path: dict[str, str], _: Any) -> Any:
    return _displayed(session, session.node(path["element"]))


async def element_enabled(session: WdSession, path: dict[str, str], _: Any) -> Any:
    return session.node(path["element"]).effective_state.enabled


async def element_selected(session: WdSession, path: dict[str, str], _: Any) -> Any:
    state = session.node(path["element"]).effective_state
    return bool(state.selected or state.checked)


async def element_name(session: WdSession, path: dict[str, str], _: Any) -> Any:
    return class_of(session.node(path["element"]), session.platform)


async def element_screenshot(session: WdSession, path: dict[str, str], _: Any) -> Any:
    node = session.node(path["element"])
    shot = await png(session)
    if node.bounds is None:
        raise WebDriverError("unable to capture screen", "the element has no bounds")
    from PIL import Image

    with Image.open(io.BytesIO(shot)) as image:
        left, top, right, bottom = node.bounds
        box = (max(0, left), max(0, top), min(image.width, right), min(image.height, bottom))
        if box[2] <= box[0] or box[3] <= box[1]:
            raise WebDriverError("unable to capture screen", "the element is off the screen")
        out = io.BytesIO()
        image.crop(box).save(out, format="PNG")
    return base64.b64encode(out.getvalue()).decode()
