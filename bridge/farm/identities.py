"""Per-hub NATS identities: the nats-server configuration and one credentials file per hub.

Each hub gets its own NATS user (a random 32-byte password) whose permissions — enforced by
nats-server itself, nothing checked here — are exactly what the farm protocol needs:

- publish: its own ``announce`` / ``events`` / ``stream`` subjects, ``discover`` and the
  request subject of every hub *as itself* (``req.*.<hub>``: asking any hub is allowed, but
  the subject's last token, which the receiver takes as the sender, can only be its own
  name); replies only through ``allow_responses`` (a hub may answer a request it received,
  once, and nothing else);
- subscribe: every hub's ``announce`` / ``events`` / ``stream`` subjects (the streams its
  clients watch), ``discover``, the requests addressed to it (``req.<hub>.*``) and its own
  reply inbox ``_INBOX.<hub>.>`` (``FarmConfig.inbox_prefix``), so no hub reads another's
  replies.

So a hub cannot receive requests meant for another hub, read another's replies, send a
request as another hub, or forge another hub's announcements, events, streams or replies:
NATS refuses with a "Permissions Violation". The credentials file is JSON (mode 0600) read
by ``mobridge serve --farm-credentials FILE``; the config holds every password, so it is
mode 0600 as well.
"""

from __future__ import annotations

import json
import os
import re
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bridge.farm.config import inbox_prefix
from bridge.farm.subjects import Subjects
from bridge.wire.farm import HUB_NAME_PATTERN

MAX_HUBS = 256
CREDENTIALS_VERSION = 1


class IdentityError(ValueError):
    """Bad ``farm init`` input (the CLI prints the message and exits 2)."""


@dataclass(frozen=True)
class HubCredentials:
    hub: str
    user: str
    password: str
    url: str
    prefix: str

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": CREDENTIALS_VERSION,
                "hub": self.hub,
                "user": self.user,
                "password": self.password,
                "url": self.url,
                "prefix": self.prefix,
            },
            indent=2,
        )


def permissions(hub: str, prefix: str) -> dict[str, Any]:
    """The NATS permissions of ``hub``'s user (see the module docstring)."""
    s = Subjects(prefix)
    return {
        "publish": {
            "allow": [
                s.announce(hub),
                s.discover,
                s.events(hub),
                f"{prefix}.stream.{hub}.>",
                s.requests_from(hub),
            ]
        },
        "subscribe": {
            "allow": [
                s.any_announce,
                s.discover,
                s.any_events,
                f"{prefix}.stream.*.>",
                s.requests_to(hub),
                f"{inbox_prefix(hub)}.>",
            ]
        },
        "allow_responses": {"max": 1, "expires": "5m"},
    }


def parse_hubs(text: str) -> list[str]:
    hubs = [h.strip() for h in text.split(",") if h.strip()]
    if not hubs:
        raise IdentityError("--hubs needs at least one hub name (host-a,host-b,...)")
    if len(hubs) > MAX_HUBS:
        raise IdentityError(f"at most {MAX_HUBS} hubs in a farm, got {len(hubs)}")
    for hub in hubs:
        if not re.fullmatch(HUB_NAME_PATTERN, hub):
            raise IdentityError(f"hub name {hub!r} must be 1-64 letters, digits, '_' or '-'")
    if len(set(hubs)) != len(hubs):
        raise IdentityError("--hubs names a hub twice")
    return hubs


def _conf_value(value: Any, indent: str = "") -> str:
    """nats-server configuration syntax (JSON-like: strings quoted, maps in braces)."""
    if isinstance(value, dict):
        inner = indent + "  "
        body = "\n".join(f"{inner}{k}: {_conf_value(v, inner)}" for k, v in value.items())
        return "{\n" + body + f"\n{indent}}}"
    if isinstance(value, list):
        return "[" + ", ".join(_conf_value(v, indent) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(str(value))


def server_config(creds: list[HubCredentials], listen: str, prefix: str) -> str:
    users = [
        {"user": c.user, "password": c.password, "permissions": permissions(c.hub, prefix)}
        for c in creds
    ]
    body = "\n".join(
        "    " + _conf_value(u, "    ") + ("," if i < len(users) - 1 else "")
        for i, u in enumerate(users)
    )
    return (
        "# mobridge farm: written by `mobridge farm init`. One NATS user per hub; nats-server\n"
        "# enforces what each may publish and subscribe (see docs/farm.md). Keep it 0600.\n"
        f"listen: {json.dumps(listen)}\n"
        "max_payload: 8MB\n"
        "authorization {\n"
        "  users: [\n"
        f"{body}\n"
        "  ]\n"
        "}\n"
    )


def _write_private(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.chmod(path, 0o600)


def farm_init(
    hubs: list[str], out: Path, *, url: str, listen: str, prefix: str
) -> tuple[Path, list[Path]]:
    """Write ``nats-server.conf`` and ``<hub>.creds.json`` per hub into ``out``; returns
    their paths. Existing files are overwritten (new passwords: restart NATS and hubs)."""
    out.mkdir(parents=True, exist_ok=True)
    creds = [
        HubCredentials(
            hub=hub, user=f"hub-{hub}", password=secrets.token_urlsafe(32), url=url, prefix=prefix
        )
        for hub in hubs
    ]
    conf = out / "nats-server.conf"
    _write_private(conf, server_config(creds, listen, prefix))
    files = []
    for c in creds:
        path = out / f"{c.hub}.creds.json"
        _write_private(path, c.to_json() + "\n")
        files.append(path)
    return conf, files


def load_credentials(path: Path) -> HubCredentials:
    """A hub's credentials file; ``IdentityError`` with a one-line reason when unreadable."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise IdentityError(f"farm credentials {path}: {exc}") from exc
    fields = ("hub", "user", "password", "url", "prefix")
    if not isinstance(data, dict) or any(not isinstance(data.get(f), str) for f in fields):
        raise IdentityError(f"farm credentials {path}: not a `mobridge farm init` file")
    if data.get("version") != CREDENTIALS_VERSION:
        raise IdentityError(f"farm credentials {path}: unknown version {data.get('version')!r}")
    return HubCredentials(**{f: data[f] for f in fields})
