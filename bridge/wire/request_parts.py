"""Pieces shared by every client request: the request id, short names, objection answers.

Kept apart from ``client_protocol`` so that request types defined in other modules
(``device_control``) share them without an import cycle; ``client_protocol`` re-exports them.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.base import WireStruct

RequestId = int | Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]


class Confirm(WireStruct, frozen=True):
    """Answers the objection ``objection`` raised by an earlier refusal. ``answer`` must be
    ``approve`` or ``reject``; a blank answer closes nothing."""

    objection: Name
    answer: Annotated[str, msgspec.Meta(max_length=32)]


class Request(WireStruct, tag_field="type", frozen=True):
    """Base of every client -> hub message: tagged by ``type``, with the client's ``id``."""

    id: RequestId
