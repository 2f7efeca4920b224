"""Lean tool schemas: what ``tools/list`` shows a model, small enough to read every session.

Each tool's ``inputSchema`` is generated from its argument Struct (``bridge.mcp.schemas``)
and then shrunk: titles dropped, string lengths and patterns left to the decoder,
``X | None`` shown as ``X`` (an optional field is simply not required), enums inlined, and
the hub's deep wire types (a SemanticQuery, a wait condition, an objection answer) replaced
by one short schema fragment each, defined once here (``FRAGMENTS``) and shared by every
tool that takes them. Every parameter gets its
one-line description from ``PARAM_DOCS`` (one text per parameter name, shared by every tool;
a tool's ``overrides`` may say more).

The full types still decide: arguments are decoded strictly with the Structs, so a shrunk
schema never lets through what the hub's types refuse — a mismatch is a tool error the
model reads and corrects (``INVALID_ARGUMENTS`` naming the field).

Invariant (tests/mcp/test_tool_list.py): every property of every input schema has a
description, and ``tools/list`` stays under ``TOOL_LIST_CAP`` bytes of JSON.
"""

from __future__ import annotations

from typing import Any

import msgspec

TOOL_LIST_CAP = 10 * 1024

QUERY_HELP = "text (visible, label or hint) or {role, text, label, resourceId, state, within, nth}"
FRAGMENTS: dict[str, dict[str, Any]] = {
    "target": {
        "type": ["string", "object"],
        "description": ("a handle (e7), text, a query (as find's) or a point {x, y}"),
    },
    "query": {"type": ["string", "object"], "description": QUERY_HELP},
    "condition": {
        "type": "object",
        "description": (
            "{kind: present|absent, query} | screen, name | app, appId | value, query, "
            "equals | state, query, state: {checked, ...} | stable, forMs | allOf|anyOf, "
            "conditions | not, condition; a query may be text"
        ),
    },
    "confirm": {
        "type": "object",
        "description": "{objection, answer}; use the confirm tool",
    },
    "points": {
        "type": "array",
        "items": {"type": "object"},
        "description": "2 to 64 points [{x, y}, ...] instead of direction",
    },
}
FRAGMENTS["expect"] = dict(
    FRAGMENTS["condition"],
    description="a wait condition to verify after",
)

KEEP_BOUNDS: frozenset[str] = frozenset()
"""String bounds shown to the model; every other length and pattern is left to the decoder
(a value outside them is an INVALID_ARGUMENTS tool result naming the field)."""
BOUNDS = (
    "maxLength",
    "minLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
)
HIDDEN = frozenset({"confirm", "device"})
"""Accepted but not shown: ``confirm`` repeats a call with the answer internally (the
model answers through the ``confirm`` tool); ``device`` is taken by every device tool and
said once, in the server's instructions and the ``devices`` tool's description, instead of
23 times (about 1.2 KB of every ``tools/list``)."""

PARAM_DOCS: dict[str, str] = {
    "device": "device id",
    "action": "what to do",
    "text": "what to type",
    "valueRef": "secret://<name> instead of text",
    "direction": "the finger's way",
    "idempotencyKey": "runs a retried call once",
    "allowGestureFallback": "may tap a node without the action",
    "maxTokens": "screen budget (1500)",
    "goal": "what you look for (listed first)",
    "since": "a view id (v3): only changes since",
    "timeoutMs": "give up after",
    "includeImage": "false: a link only",
    "mode": "default exclusive",
    "alerts": "answer every alert while held",
    "objection": "its id (obj_...)",
    "answer": "omit: the client asks the user",
    "limit": "how many",
    "x": "device pixels",
    "y": "device pixels",
    "kind": "default tap",
    "durationMs": "gesture length (ms)",
    "distance": "pixels (default: 30% of the screen)",
    "button": "which",
    "submit": "then press ENTER",
    "orientation": "turn to (omit to read the display)",
    "appId": "package or bundle id",
    "url": "URL or deep link",
    "package": "a file in the hub's install folder",
    "sha256": "expected SHA-256 (hex)",
    "path": "a local file",
    "seconds": "how long",
    "app": "only this appId",
    "level": "minimum level",
    "grep": "RE2",
}


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    """Resolve local ``$ref``s (enums and small structs), drop titles, and turn
    ``anyOf [X, null]`` into ``X``."""
    if isinstance(node, list):
        return [_inline(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        return _inline(defs[ref.rsplit("/", 1)[-1]], defs)
    any_of = node.get("anyOf")
    if isinstance(any_of, list):
        rest = [n for n in any_of if n != {"type": "null"}]
        if len(rest) == 1:
            merged = {k: v for k, v in node.items() if k != "anyOf"}
            merged.update(_inline(rest[0], defs))
            return merged
    return {k: _inline(v, defs) for k, v in node.items() if k not in ("title", "$defs")}


def lean_schema(kind: type[Any], overrides: dict[str, str] | None = None) -> dict[str, Any]:
    """The model-facing input schema of an argument Struct (see the module rules)."""
    raw = msgspec.json.schema(kind)
    defs: dict[str, Any] = raw.get("$defs", {})
    name = raw.get("$ref", "").rsplit("/", 1)[-1]
    top = defs[name] if name in defs else raw
    props: dict[str, Any] = {}
    for prop, body in top.get("properties", {}).items():
        if prop in HIDDEN:
            continue
        if prop in FRAGMENTS:
            shown = dict(FRAGMENTS[prop])
        else:
            shown = _inline(body, defs)
            shown.pop("default", None)
            if prop not in KEEP_BOUNDS:  # the decoder still enforces them
                for bound in BOUNDS:
                    shown.pop(bound, None)
        doc = (overrides or {}).get(prop) or PARAM_DOCS.get(prop) or shown.get("description")
        if doc is None:
            raise ValueError(f"{kind.__name__}.{prop} has no description")
        shown["description"] = doc
        props[prop] = shown
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if top.get("required"):
        schema["required"] = list(top["required"])
    return schema
