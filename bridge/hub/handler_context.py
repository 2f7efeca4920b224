"""HandlerContext: what the per-verb request handlers may use of the hub's service.

``HubService`` routes each request to a handler (``actions``, ``device_actions``,
``device_reads``, with ``observation`` and ``policy``). Those handlers receive the service typed
as this protocol, never as ``HubService``, so the import arrows run one way: ``service`` imports
the handlers, the handlers import this module, and nothing here imports ``service``. A handler
that needs more of the service adds the member here (keep it narrow: state handlers share, not
the request routing). ``HubService`` is the one implementation; mypy checks it structurally
wherever the service passes itself to a handler.

``Pending`` lives here because the idempotency table that holds it is part of the context.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from bridge.core.idempotency import IdempotencyTable
from bridge.core.objections import ObjectionBook
from bridge.hub.app_install import UploadStore
from bridge.hub.device import Capture, DeviceRuntime
from bridge.hub.intents import Intents
from bridge.hub.log_stream import LogStreams
from bridge.hub.media_sources import DeviceMedia
from bridge.hub.packages import Stager
from bridge.hub.recording import Recordings
from bridge.hub.secrets_provider import SecretsProvider
from bridge.hub.web import WebService
from bridge.wire.action import ActionResult

if TYPE_CHECKING:
    from bridge.journal.recorder import Journal


@dataclass
class Pending:
    """An idempotent action in flight or done: retries wait on ``done``. ``digest`` is the
    request's fingerprint: a key reused with another request is refused."""

    done: anyio.Event
    digest: str
    result: ActionResult | None = None
    error: Exception | None = None


class HandlerContext(Protocol):
    """The hub state a request handler reads or updates (implemented by ``HubService``)."""

    clock_ms: Callable[[], int]
    """The hub's monotonic clock in milliseconds."""
    secrets: SecretsProvider
    log: Any
    """A structlog-style logger (``info``/``warning`` with keyword fields)."""
    objections: ObjectionBook
    idempotency: IdempotencyTable[Pending]
    cancels: dict[tuple[str, object], anyio.CancelScope]
    """(session id, request id) -> the scope a ``cancel`` request cancels."""
    install_dir: Path | None
    stagers: dict[str, Stager]
    uploads: UploadStore
    log_streams: LogStreams
    recordings: Recordings
    media: dict[str, DeviceMedia]
    """Device id -> its device layer's logs, recorder and crash reports (set at linking)."""
    devices: dict[str, DeviceRuntime]
    """Packages clients streamed (``app.upload``), for ``app.install``."""
    journal: Journal | None
    """The device history on disk (keyed actions record their outcome there)."""
    intents: Intents
    """Lease priorities, intent announcements and vetoes (``bridge.hub.intents``)."""
    web: WebService
    """Devices' WebView pages: an act on a web node goes through it (``bridge.hub.web``)."""

    def current(self, device: DeviceRuntime) -> Capture:
        """The device's latest capture; raises the OFFLINE refusal when it has none."""
        ...
