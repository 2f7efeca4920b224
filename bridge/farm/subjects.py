"""The farm's NATS subjects (one place; every name starts with the configured prefix).

- ``<p>.announce.<hub>``: heartbeats and announcements (``HubAnnounce``);
- ``<p>.discover``: a hub that (re)joined asks everyone to announce now;
- ``<p>.req.<hub>.<sender>``: request/reply to one hub (``FarmRequest`` -> ``FarmReply``);
  the last token is the sending hub, and with ``farm init`` identities NATS lets a hub
  publish only ``<p>.req.*.<itself>``, so the receiver knows who sent a request from the
  subject alone (``sender_of``) and never from the payload;
- ``<p>.events.<hub>``: device, lease and action events of the hub's devices;
- ``<p>.stream.<hub>.<stream token>.<format>``: one relayed stream in one format: the very
  bytes the owner's own subscribers of that format get.

Stream ids (``<device>:compact`` ...) may hold any character a device id may; a token is the
id itself when it is only letters, digits, ``_`` and ``-`` (with ``:`` spelled ``~``), else
``x`` and the hex of its UTF-8 bytes, so no id can inject a ``.``, ``*`` or ``>``.
"""

from __future__ import annotations

import re

_PLAIN = re.compile(r"[A-Za-z0-9_~-]+")


def stream_token(stream: str) -> str:
    plain = stream.replace(":", "~")
    if _PLAIN.fullmatch(plain) and not plain.startswith("x"):
        return plain
    return "x" + stream.encode("utf-8", "surrogatepass").hex()


class Subjects:
    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.discover = f"{prefix}.discover"
        self.any_announce = f"{prefix}.announce.*"
        self.any_events = f"{prefix}.events.*"

    def announce(self, hub: str) -> str:
        return f"{self.prefix}.announce.{hub}"

    def request(self, hub: str, sender: str) -> str:
        """The subject ``sender`` asks ``hub`` on."""
        return f"{self.prefix}.req.{hub}.{sender}"

    def requests_to(self, hub: str) -> str:
        """Every request to ``hub``, whoever sends it."""
        return f"{self.prefix}.req.{hub}.*"

    def requests_from(self, hub: str) -> str:
        """What ``hub`` may publish as requests: to anyone, as itself."""
        return f"{self.prefix}.req.*.{hub}"

    def sender_of(self, subject: str) -> str:
        """The sending hub of a request subject (its last token)."""
        return subject.rsplit(".", 1)[-1]

    def events(self, hub: str) -> str:
        return f"{self.prefix}.events.{hub}"

    def stream(self, hub: str, stream: str, fmt: str) -> str:
        return f"{self.prefix}.stream.{hub}.{stream_token(stream)}.{fmt}"

    def hub_of(self, subject: str) -> str:
        """The hub token of an announce or events subject."""
        return subject.rsplit(".", 1)[-1]
