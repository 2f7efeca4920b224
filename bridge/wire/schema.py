"""Generates protocol/schema/ (JSON Schema 2020-12) from the wire types.

``main(["--check"])`` exits 1 when the checked-in files differ from what the types give, so CI
fails on drift. The files are derived data: edit the Structs, then run ``scripts/gen-schema``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import msgspec

from bridge.wire.action import ActionRequest, ActionResult
from bridge.wire.agent_link import AgentToHub, HubToAgent
from bridge.wire.client_protocol import RESULT_TYPES, ClientToHub, HubToClient
from bridge.wire.conditions import Condition
from bridge.wire.diff import ScreenDiff
from bridge.wire.errors import ErrorEnvelope
from bridge.wire.farm import FarmEventRelay, FarmReply, FarmRequest, HubAnnounce
from bridge.wire.node import SemanticNode
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery
from bridge.wire.raw import RawTree
from bridge.wire.snapshot import ScreenSnapshot

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "protocol" / "schema"

TYPES: dict[str, Any] = {
    "semantic-node": SemanticNode,
    "screen-snapshot": ScreenSnapshot,
    "screen-diff": ScreenDiff,
    "node-ref": NodeRef,
    "semantic-query": SemanticQuery,
    "action-request": ActionRequest,
    "action-result": ActionResult,
    "error-envelope": ErrorEnvelope,
    "wait-condition": Condition,
    "client-to-hub": ClientToHub,
    "hub-to-client": HubToClient,
    "results": tuple(dict.fromkeys(RESULT_TYPES.values())),
    "agent-to-hub": AgentToHub,
    "hub-to-agent": HubToAgent,
    "raw-tree": RawTree,
    "farm-announce": HubAnnounce,
    "farm-request": FarmRequest,
    "farm-reply": FarmReply,
    "farm-event": FarmEventRelay,
}


def render(name: str, kind: Any) -> str:
    """The schema document for one type, as stable pretty JSON text."""
    doc: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"mobridge:{name}.schema.json",
        "title": name,
    }
    if isinstance(kind, tuple):  # untagged alternatives: one $def each, chosen by context
        refs, defs = msgspec.json.schema_components(kind)
        doc.update({"anyOf": list(refs), "$defs": defs})
    else:
        doc.update(msgspec.json.schema(kind))
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def generate() -> dict[str, str]:
    return {f"{name}.schema.json": render(name, kind) for name, kind in TYPES.items()}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    wanted = generate()
    present = {p.name for p in SCHEMA_DIR.glob("*.schema.json")} if SCHEMA_DIR.exists() else set()
    if check:
        drift = sorted(
            name
            for name, text in wanted.items()
            if not (SCHEMA_DIR / name).exists()
            or (SCHEMA_DIR / name).read_text(encoding="utf-8") != text
        )
        extra = sorted(present - set(wanted))
        if drift or extra:
            print(
                "protocol/schema is out of date (run scripts/gen-schema): "
                + ", ".join(drift + [f"{e} (stale)" for e in extra]),
                file=sys.stderr,
            )
            return 1
        print(f"protocol/schema: {len(wanted)} files up to date")
        return 0
    SCHEMA_DIR.mkdir(parents=True, exist_ok=True)
    for stale in present - set(wanted):
        (SCHEMA_DIR / stale).unlink()
    for name, text in wanted.items():
        (SCHEMA_DIR / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(wanted)} schema files to {SCHEMA_DIR}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
