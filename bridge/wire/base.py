"""The one Struct base every wire type derives from, and the constrained scalar types.

Invariants every subclass inherits:
- camelCase field names on the wire (``rename="camel"``);
- fields equal to their default are omitted when encoding (``omit_defaults``), so a reader
  must apply the documented default when a field is absent — absence never means unknown;
- unknown fields are a decode error (``forbid_unknown_fields``): decoding is strict;
- instances are immutable (``frozen``); build changed copies with ``msgspec.structs.replace``.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

SNAPSHOT_ID_PATTERN = r"^s_[0-9a-zA-Z]+$"
NODE_ID_PATTERN = r"^(n[0-9]+|vision:[0-9]+)$"
HASH_PATTERN = r"^[0-9a-f]+$"
PACKAGE_PATTERN = r"^[a-zA-Z][a-zA-Z0-9_]*(\.[a-zA-Z][a-zA-Z0-9_]*)+$"
SECRET_REF_PATTERN = r"^secret://"

SnapshotId = Annotated[str, msgspec.Meta(pattern=SNAPSHOT_ID_PATTERN, max_length=64)]
NodeId = Annotated[str, msgspec.Meta(pattern=NODE_ID_PATTERN, max_length=32)]
Hash = Annotated[str, msgspec.Meta(pattern=HASH_PATTERN, max_length=128)]
DeviceId = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
PackageName = Annotated[str, msgspec.Meta(pattern=PACKAGE_PATTERN, max_length=255)]
TimestampMs = Annotated[int, msgspec.Meta(ge=0)]
Confidence = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
NonNegInt = Annotated[int, msgspec.Meta(ge=0)]
Bounds = tuple[int, int, int, int]
"""[left, top, right, bottom] in device pixels."""


class WireStruct(
    msgspec.Struct,
    frozen=True,
    kw_only=True,
    rename="camel",
    omit_defaults=True,
    forbid_unknown_fields=True,
    gc=False,
):
    """Base of every message and reference type.

    ``gc=False``: wire values are trees of immutable atoms, tuples and structs that never
    reference themselves, so the cycle collector need not track them. The hub holds hundreds
    of thousands of them (node histories); untracked, full collections stay short."""
