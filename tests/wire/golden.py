"""The golden fixtures of protocol/fixtures/, enumerated for the tests.

Layout (see protocol/fixtures/README.md): one directory per direction holding
``<type>[--<variant>].json``, hub -> client results as ``result.<request type>[--<variant>].json``,
and ``reference/<conform kind>/*.json`` for the reference types.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from bridge.wire.action import ActionRequest, ActionResult
from bridge.wire.codec import AGENT_TO_HUB, CLIENT_TO_HUB, HUB_TO_AGENT, HUB_TO_CLIENT, Codec
from bridge.wire.diff import ScreenDiff
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot

FIXTURES = Path(__file__).resolve().parents[2] / "protocol" / "fixtures"

DIRECTIONS: dict[str, tuple[Codec[Any], str]] = {
    # fixture directory -> (codec, generated schema in protocol/schema/)
    "client-to-hub": (CLIENT_TO_HUB, "client-to-hub"),
    "hub-to-client": (HUB_TO_CLIENT, "hub-to-client"),
    "agent-link/hub-to-agent": (HUB_TO_AGENT, "hub-to-agent"),
    "agent-link/agent-to-hub": (AGENT_TO_HUB, "agent-to-hub"),
}

REFERENCE_KINDS: dict[str, type[msgspec.Struct]] = {
    # conform.py kind -> wire type
    "snapshot": ScreenSnapshot,
    "node": SemanticNode,
    "diff": ScreenDiff,
    "noderef": NodeRef,
    "query": SemanticQuery,
    "action-request": ActionRequest,
    "action-result": ActionResult,
    "error": ErrorEnvelope,
}

PROJECT_SCHEMA_OF_KIND = {
    "snapshot": "screen-snapshot",
    "node": "semantic-node",
    "diff": "screen-diff",
    "noderef": "node-ref",
    "query": "semantic-query",
    "action-request": "action-request",
    "action-result": "action-result",
    "error": "error-envelope",
}


@dataclass(frozen=True)
class Golden:
    """One message fixture."""

    direction: str
    path: Path

    @property
    def codec(self) -> Codec[Any]:
        return DIRECTIONS[self.direction][0]

    @property
    def schema(self) -> str:
        return DIRECTIONS[self.direction][1]

    @property
    def name(self) -> str:
        """The file name without ``.json`` and without a ``--variant`` suffix."""
        return self.path.name.removesuffix(".json").split("--", 1)[0]

    @property
    def message_type(self) -> str:
        """The ``type`` tag the file must hold (``result.find`` -> ``result``)."""
        return "result" if self.name.startswith("result.") else self.name

    @property
    def request_type(self) -> str | None:
        """For a result fixture, the request type whose result body it holds."""
        return self.name.removeprefix("result.") if self.name.startswith("result.") else None

    def raw(self) -> bytes:
        return self.path.read_bytes()

    def doc(self) -> Any:
        return json.loads(self.raw())

    def __str__(self) -> str:
        return f"{self.direction}/{self.path.name}"


def message_fixtures() -> list[Golden]:
    return [
        Golden(direction, path)
        for direction in DIRECTIONS
        for path in sorted((FIXTURES / direction).glob("*.json"))
    ]


def reference_fixtures() -> list[tuple[str, Path]]:
    return [
        (kind, path)
        for kind in REFERENCE_KINDS
        for path in sorted((FIXTURES / "reference" / kind).glob("*.json"))
    ]


def tag_of(message: msgspec.Struct) -> str:
    tag = type(message).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
