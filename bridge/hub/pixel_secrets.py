"""Where pictures leave the hub, the fields holding a secret are blacked out first
(``bridge.core.pixel_mask``): screenshots (``screenshot``: what clients fetch and what the
journal keeps), the frames of recordings the hub encodes, the live mirror's frames, and
device-side recordings afterwards (``bridge.core.video_mask``, run by ``bridge.hub.
recording``). The hub itself (vision) reads its own, unmasked, screenshots.

``secret_typed`` / ``secret_sent`` bracket the dispatch of a secret (``bridge.core.
secret_hold``): between them, and until a capture taken after it, ``mask_plan`` says HOLD
(send no picture); otherwise it lists the secret-holding fields of the newest capture.

``motion_begun`` is called by the agent link for every command it sends: a command that moves
the screen (an action, a gesture, a key, an app opened) on a device whose captures showed a
secret-holding field with something in it (not an empty password field) in the last
``SECRET_MEMORY_MS`` begins a ``MotionHold`` (``bridge.core.
secret_hold``): ``mask_plan`` says HOLD until a stable capture taken after it, so a field
holding a secret that comes back into view is in no picture before a capture says where it is.

``mask_picture`` takes the regions from the device's newest snapshot (the tree's units),
checks the picture's size before decoding it, and paints in a worker thread; a picture that
cannot be decoded is returned as None (the caller refuses it, never passes it on unmasked).
"""

from __future__ import annotations

from collections.abc import Callable

import anyio

from bridge.core.device_control import screen_rect
from bridge.core.pixel_mask import (
    CLEAR,
    HOLD,
    MaskPlan,
    black_out,
    scan_secrets,
)
from bridge.core.png_check import PngRefused, check_png
from bridge.core.secret_hold import SECRET_MEMORY_MS
from bridge.hub.device import DeviceRuntime
from bridge.hub.memory_bounds import display_size
from bridge.wire.agent_link import (
    AlertCommand,
    AppCommand,
    GestureCommand,
    GlobalCommand,
    KeyboardCommand,
    KeyCommand,
    MultiTouchCommand,
    NodeActionCommand,
    OrientationCommand,
    TerminateCommand,
    TextCommand,
)

MOVING = (
    NodeActionCommand,
    GestureCommand,
    GlobalCommand,
    KeyCommand,
    TextCommand,
    AppCommand,
    MultiTouchCommand,
    OrientationCommand,
    TerminateCommand,
    AlertCommand,
    KeyboardCommand,
)
"""Commands that can bring another part of the screen into view."""


async def mask_picture(
    device: DeviceRuntime, png: bytes | None, before: MaskPlan = CLEAR
) -> bytes | None:
    """``png`` with the secret-holding fields of ``device``'s screen blacked out (those of
    ``before``, the plan read before the picture was asked for, too); the same bytes when
    none shows; None when it needed masking but is not a picture the hub decodes, or when a
    secret was being typed while it was taken (``held``)."""
    if png is None:
        return png
    plan = before.union(mask_plan(device))
    if plan.hold:
        return None
    if not plan.regions:
        return png
    if isinstance(check_png(png, display_size(device)), PngRefused):
        return None
    try:
        return await anyio.to_thread.run_sync(black_out, png, plan.regions, plan.screen)
    except (OSError, ValueError, SyntaxError):  # Pillow's ways of saying "not an image"
        return None


async def hold_over(device: DeviceRuntime, timeout_s: float = 5.0) -> bool:
    """Wait (at most ``timeout_s``) until no secret is being typed on ``device``; False when
    one still is."""
    with anyio.move_on_after(timeout_s):
        while True:  # polled: typing and captures have no one event to wait on
            if not mask_plan(device).hold:
                return True
            await anyio.sleep(0.05)
    return False


def secret_typed(device: DeviceRuntime, secret: str) -> None:
    """Call before dispatching ``secret`` to ``device`` (then ``secret_sent``, however the
    dispatch ends): the masker learns it and pictures are held until a capture shows it."""
    device.masker.typed(secret)
    device.secret_hold.begin()


def secret_sent(device: DeviceRuntime) -> None:
    device.secret_hold.end(device.link, device.received_capture)


def motion_begun(device: DeviceRuntime, command: object) -> Callable[[], None] | None:
    """Begin a motion hold for ``command`` when it moves the screen of a device that showed a
    secret lately; the callable returned must be called once the command ended, however."""
    if not isinstance(command, MOVING):
        return None
    mask_plan(device)  # notes a secret-holding field on the current screen
    seen = device.secret_seen_ms
    if seen is None or device.clock_ms() - seen > SECRET_MEMORY_MS:
        return None
    device.motion_hold.begin()
    link = device.link

    def ended() -> None:
        device.motion_hold.end(link, device.received_capture, device.clock_ms())

    return ended


def mask_plan(device: DeviceRuntime) -> MaskPlan:
    """What a picture of ``device``'s screen taken now needs (``MaskPlan``): HOLD while a
    secret is being typed or an action moves a screen that showed one lately (until a stable
    capture after it), else the secret-holding fields of the newest capture."""
    cap = device.current
    capture_no = cap.capture_no if cap is not None else None
    if device.secret_hold.holding(device.link, capture_no):
        return HOLD
    if device.motion_hold.holding(device.link, capture_no, device.agent_stable, device.clock_ms()):
        return HOLD
    if cap is None:
        return CLEAR
    memo = device.mask_memo
    if memo is not None and memo[0] is cap:
        plan = memo[1]
    else:
        snapshot = cap.normalized.full
        scan = scan_secrets(snapshot.nodes, device.secret_scan)
        device.secret_scan = scan
        regions = scan.regions
        plan = MaskPlan(False, regions, screen_rect(snapshot)) if regions else CLEAR
        device.mask_memo = (cap, plan)
        device.secret_filled = bool(regions) and scan.filled
    if device.secret_filled:
        device.secret_seen_ms = device.clock_ms()
    return plan
