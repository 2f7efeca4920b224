"""FarmConfig: how a hub joins a farm (the NATS URL, its name, credentials, timing)."""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bridge.wire.farm import HUB_NAME_PATTERN

HEARTBEAT_S = 1.0
"""How often a hub announces itself (and its devices)."""
OFFLINE_AFTER_S = 3.0
"""A hub not heard for this long is gone: its devices are offline everywhere. Sweeps run
every ``HEARTBEAT_S / 4``, so the documented bound is ``OFFLINE_AFTER_S + HEARTBEAT_S / 4``."""


def inbox_prefix(hub: str) -> str:
    """The reply inbox of ``hub``: its NATS user may subscribe only below it."""
    return f"_INBOX.{hub}"


class FarmConfigError(ValueError):
    """The farm options do not fit together (the CLI prints the message)."""


@dataclass(frozen=True)
class FarmConfig:
    url: str
    """``nats://HOST:PORT`` or ``tls://HOST:PORT`` (credentials may ride in the URL too:
    ``nats://user:password@HOST:PORT``)."""
    hub: str
    """This hub's name in the farm: a subject token, unique per hub (``[A-Za-z0-9_-]``)."""
    user: str | None = None
    password: str | None = None
    token: str | None = None
    tls_ca: Path | None = None
    tls_cert: Path | None = None
    tls_key: Path | None = None
    prefix: str = "mobridge.farm"
    """Subject prefix: two farms on one NATS account need different prefixes."""
    heartbeat_s: float = HEARTBEAT_S
    offline_after_s: float = OFFLINE_AFTER_S

    def __post_init__(self) -> None:
        if not re.fullmatch(HUB_NAME_PATTERN, self.hub):
            raise FarmConfigError(
                f"farm hub name {self.hub!r} must be 1-64 letters, digits, '_' or '-'"
            )
        parts = urlsplit(self.url)
        if parts.scheme not in ("nats", "tls") or not parts.hostname:
            raise FarmConfigError(f"farm URL {self.url!r} must look like nats://HOST:PORT")
        if not re.fullmatch(r"[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*", self.prefix):
            raise FarmConfigError(f"farm subject prefix {self.prefix!r} is not a subject")
        if self.token is not None and (self.user is not None or self.password is not None):
            raise FarmConfigError("give a farm token or a user and password, not both")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise FarmConfigError("a TLS client certificate needs its key (and the other way)")
        if not 0 < self.heartbeat_s < self.offline_after_s:
            raise FarmConfigError("the heartbeat must be shorter than the offline bound")

    @property
    def offline_bound_s(self) -> float:
        """The documented bound: a silent hub's devices are offline everywhere within it."""
        return self.offline_after_s + self.heartbeat_s / 4

    @property
    def inbox_prefix(self) -> str:
        """Where this hub's request replies arrive (``_INBOX.<hub>``): with per-hub NATS
        identities (``bridge.farm.identities``) only this hub may subscribe below it."""
        return inbox_prefix(self.hub)

    @property
    def wants_tls(self) -> bool:
        return urlsplit(self.url).scheme == "tls" or self.tls_ca is not None

    def ssl_context(self) -> ssl.SSLContext | None:
        """The TLS context for the NATS connection (None: plain TCP)."""
        if not self.wants_tls:
            return None
        context = ssl.create_default_context(
            cafile=str(self.tls_ca) if self.tls_ca is not None else None
        )
        if self.tls_cert is not None and self.tls_key is not None:
            context.load_cert_chain(str(self.tls_cert), str(self.tls_key))
        return context

    def redacted_url(self) -> str:
        """The URL without credentials, for logs."""
        parts = urlsplit(self.url)
        host = parts.hostname or "?"
        return f"{parts.scheme}://{host}:{parts.port or 4222}"
