"""Proof that a forwarded request comes from a client holding a farm token (no I/O).

The origin hub signs each ``forward`` with its client's token: HMAC-SHA256, keyed with the
token's sha256 (what ``bridge.net.auth`` keeps instead of the token), over the sending hub,
its run, the client's session, the hub asked, and the request's id and type. The owner, which
is configured with the same farm tokens, checks the proof against each of its own farm-scoped
tokens and takes the role, name and scope from its own table — never from the payload. So a
stolen NATS identity alone (a credentials file) reaches no device: it also needs a farm
token, and a proof made for one hub, session or request is worth nothing for another.
"""

from __future__ import annotations

import hashlib
import hmac


def proof_message(
    sender: str, run: str, session: str, target: str, request_id: object, request_type: str
) -> bytes:
    return "\x1f".join(
        ("mobridge-farm-forward-1", sender, run, session, target, repr(request_id), request_type)
    ).encode("utf-8", "surrogatepass")


def sign(key: bytes, message: bytes) -> str:
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def verify(key: bytes, message: bytes, proof: str) -> bool:
    return hmac.compare_digest(sign(key, message), proof)
