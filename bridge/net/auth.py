"""Bearer-token authentication: constant-time comparison over fixed-width digests.

Tokens are never stored or logged in clear: the table holds sha256 digests, and every
candidate is compared against every entry with ``hmac.compare_digest`` so timing does not
reveal which prefix matched.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

Role = Literal["observer", "controller"]
Scope = Literal["hub", "farm"]
"""A token's reach: ``hub`` — only the devices attached to the hub that checked it; ``farm``
— every device of the farm (the owner re-checks the scope it is sent)."""


@dataclass(frozen=True, slots=True)
class Principal:
    role: Role
    name: str
    scope: Scope = "hub"
    proof_key: bytes = field(default=b"", repr=False, compare=False)
    """For a farm-scoped token: its sha256, with which the hub signs the requests it forwards
    for this client (``bridge.farm.proof``); empty otherwise."""


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


class Authenticator:
    def __init__(self, tokens: dict[str, Principal], allow_anonymous: bool = False) -> None:
        self._table = [(_digest(t), p) for t, p in tokens.items()]
        self.allow_anonymous = allow_anonymous

    def check(self, token: str | None) -> Principal | None:
        """The principal for ``token``; an anonymous controller only when explicitly allowed."""
        if token is None:
            return Principal("controller", "anonymous") if self.allow_anonymous else None
        candidate = _digest(token)
        found: Principal | None = None
        for digest, principal in self._table:
            if hmac.compare_digest(digest, candidate):
                found = principal
        if found is not None and found.scope == "farm":
            found = dataclasses.replace(found, proof_key=candidate)
        return found

    def farm_principal(self, proves: Callable[[bytes], bool]) -> Principal | None:
        """The farm-scoped principal whose token's digest ``proves`` accepts (a forwarded
        request's proof), or None."""
        for digest, principal in self._table:
            if principal.scope == "farm" and proves(digest):
                return principal
        return None


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header value, else None."""
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
