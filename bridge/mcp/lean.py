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

TOOL_LIST_CAP = 16 * 1024

QUERY_HELP = (
    "plain text (matches visible text, label or input hint), or a query object "
    "{role, text, label, resourceId, state, within, nth}"
)
FRAGMENTS: dict[str, dict[str, Any]] = {
    "target": {
        "type": ["string", "object"],
        "description": (
            "what to act on: a handle from the screen (e7), plain text (visible text, label "
            "or hint), a query object {role, text, resourceId, within, nth}, or a point {x, y}"
        ),
    },
    "query": {"type": ["string", "object"], "description": QUERY_HELP},
    "condition": {
        "type": "object",
        "description": (
            "{kind: present|absent, query} | {kind: screen, name} | {kind: app, appId} | "
            "{kind: value, query, equals} | {kind: state, query, state: {checked, ...}} | "
            "{kind: stable, forMs} | {kind: allOf|anyOf, conditions} | {kind: not, condition}"
            "; a query may be plain text"
        ),
    },
    "confirm": {
        "type": "object",
        "description": "an answer {objection, answer: approve|reject}; prefer the confirm tool",
    },
    "points": {
        "type": "array",
        "items": {"type": "object"},
        "description": "a path of 2 to 64 points [{x, y}, ...] instead of direction",
    },
}
FRAGMENTS["expect"] = dict(
    FRAGMENTS["condition"],
    description="a condition that must hold after the action (verified; same forms as wait)",
)

KEEP_BOUNDS = frozenset({"valueRef"})
"""String bounds shown to the model; every other length and pattern is left to the decoder
(a value outside them is an INVALID_ARGUMENTS tool result naming the field)."""
HIDDEN = frozenset({"confirm"})
"""Accepted but not shown: ``confirm`` repeats a call with the answer internally (the
model answers through the ``confirm`` tool)."""

PARAM_DOCS: dict[str, str] = {
    "device": "device id (omit when the hub has one)",
    "action": "what to do (act: default CLICK)",
    "text": "the text to type",
    "valueRef": "a secret instead of text: secret://<name> (the value never reaches you)",
    "direction": "which way the content moves (SCROLL/SWIPE), or the finger's way (swipe)",
    "idempotencyKey": "a key that makes a retried call run at most once",
    "allowGestureFallback": "may tap at the node's centre when it has no accessibility action",
    "maxTokens": "token budget of the screen part of the answer (default 1500)",
    "goal": "words of what you are looking for: matching elements are listed first",
    "since": "a view id from an earlier answer (v3): only what changed since then",
    "timeoutMs": "give up after this many milliseconds (a timeout is a result, not an error)",
    "includeImage": "false: only a link to the capture, no image",
    "mode": "exclusive (default) or shared",
    "alerts": "acquire: accept or dismiss every alert while the lease is held",
    "objection": "the objection id from a refusal (obj_...)",
    "answer": "approve or reject; omit to let the client ask the user",
    "limit": "how many recent events",
    "x": "x in device pixels (see display)",
    "y": "y in device pixels (see display)",
    "kind": "tap (default), double_tap or long_press",
    "durationMs": "how long the gesture takes, in milliseconds",
    "distance": "swipe length in pixels (default 30% of the screen)",
    "button": "a global button or key name",
    "submit": "press ENTER after typing",
    "orientation": "portrait or landscape",
    "appId": "Android package or iOS bundle id (see apps)",
    "url": "a web URL or deep link",
    "package": "a file name in the hub's install directory",
    "sha256": "the package's expected SHA-256 (hex)",
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
                for bound in ("maxLength", "minLength", "pattern"):
                    shown.pop(bound, None)
        doc = (overrides or {}).get(prop) or PARAM_DOCS.get(prop) or shown.get("description")
        if doc is None:
            raise ValueError(f"{kind.__name__}.{prop} has no description")
        shown["description"] = doc
        props[prop] = shown
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if top.get("required"):
        schema["required"] = list(top["required"])
    schema["additionalProperties"] = False
    return schema
