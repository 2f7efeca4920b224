"""Routing of the device-media requests (``bridge.wire.device_media``) to their hub parts.

``app.upload`` -> ``app_install.UploadStore`` (controller only: it leads to an install);
``logs.subscribe`` / ``logs.unsubscribe`` -> ``log_stream.LogStreams``; ``crashes.list`` ->
the device layer's ``DeviceMedia``; ``record.*`` -> ``recording.Recordings``. Logs, crash
reports and recordings are reads (an observer may ask). Starting and stopping a log stream or
a recording is announced to the device's watchers as an ``action`` event (verb ``logs`` or
``record``) and kept in its history, so observers see who reads or films the device.
"""

from __future__ import annotations

from typing import Any

import msgspec

from bridge.hub.device import DeviceRuntime
from bridge.hub.errors import BadRequest, refusal
from bridge.hub.handler_context import HandlerContext
from bridge.hub.policy import require_controller
from bridge.net.client_server import Session
from bridge.wire.client_protocol import ActionEvent
from bridge.wire.device_media import (
    AppUpload,
    CrashesList,
    CrashesListResult,
    DeviceMediaRequest,
    LogsSubscribe,
    LogsUnsubscribe,
    LogsUnsubscribeResult,
    RecordRead,
    RecordStart,
    RecordStop,
)
from bridge.wire.enums import ErrorCode, ProtocolErrorCode


def announce(
    svc: HandlerContext,
    session: Session,
    device: DeviceRuntime,
    verb: str,
    action: str,
    message: str,
) -> None:
    device.broadcast_event(
        ActionEvent(
            device=device.id,
            session=session.id,
            client=session.client_name,
            verb=verb,
            action=action,
            message=message,
        )
    )
    svc.log.info("media", device=device.id, session=session.id, action=action, reason=message)


def _device(svc: HandlerContext, device_id: str) -> DeviceRuntime:
    device = svc.devices.get(device_id)
    if device is None:
        raise BadRequest(ProtocolErrorCode.UNKNOWN_DEVICE, f"no device {device_id!r}")
    return device


async def answer_media(svc: HandlerContext, session: Session, request: DeviceMediaRequest) -> Any:
    """The result of one media request (None when the handler answered it itself)."""
    match request:
        case AppUpload(device=device_id):
            require_controller(session)
            _device(svc, device_id)
            return await svc.uploads.chunk(session.id, request)
        case LogsSubscribe(device=device_id):
            device = _device(svc, device_id)
            filters = ", ".join(
                f"{k} {v}"
                for k, v in (("app", request.app), ("level", request.level), ("grep", request.grep))
                if v is not None
            )
            announce(svc, session, device, "logs", "LOGS_SUBSCRIBE",
                     f"reads the device log{' (' + filters + ')' if filters else ''}")  # fmt: skip
            try:
                await svc.log_streams.run(
                    session, request.id, device, request, svc.media.get(device.id)
                )
            finally:
                announce(
                    svc, session, device, "logs", "LOGS_UNSUBSCRIBE", "stopped reading the log"
                )
            return None
        case LogsUnsubscribe(subscription=sub):
            if not svc.log_streams.stop(session, sub):
                raise BadRequest(
                    ProtocolErrorCode.UNKNOWN_SUBSCRIPTION, f"no log subscription {sub!r}"
                )
            return LogsUnsubscribeResult(subscription=sub)
        case CrashesList(device=device_id, app=app):
            device = _device(svc, device_id)
            media = svc.media.get(device.id)
            if media is None:
                raise refusal(
                    ErrorCode.ACTION_UNSUPPORTED,
                    f"device {device.id} keeps no crash reports the hub can read",
                    ("read crash reports with the platform's own tools",),
                )
            crashes = await media.crashes(app)
            masker = svc.log_streams.masker
            return CrashesListResult(
                device=device.id,
                crashes=tuple(
                    msgspec.structs.replace(
                        c, name=masker.mask_text(c.name), summary=masker.mask_text(c.summary)
                    )
                    for c in tuple(crashes)[:256]
                ),
            )
        case RecordStart(device=device_id):
            device = _device(svc, device_id)
            length = f"{request.seconds} s" if request.seconds else "until stopped"
            announce(svc, session, device, "record", "RECORD_START",
                     f"records the screen ({length}, {request.fps} fps)")  # fmt: skip
            try:
                await svc.recordings.run(
                    session, request.id, device, request, svc.media.get(device.id)
                )
            finally:
                announce(svc, session, device, "record", "RECORD_STOP", "stopped recording")
            return None
        case RecordStop(recording=recording):
            return await svc.recordings.stop(session, recording)
        case RecordRead():
            return svc.recordings.read(session, request)
