"""Plain targets: the text a person types on the command line, as the wire's query (pure).

``"Sign in"`` becomes ``SemanticQuery(text=...)``, which the hub matches against the visible
text, else the label, and a field's hint, exactly as ``mobridge tap DEVICE "Sign in"`` and
MCP's plain targets do; ``"n12"`` is a handle as ``mobridge screen`` prints it (a node id,
which ``Device`` looks up on the current screen).
"""

from __future__ import annotations

import re

from bridge.wire.query import SemanticQuery, TextMatch

HANDLE = re.compile(r"^n[0-9]+$")
"""A node's handle as ``mobridge screen`` prints it (its ``nodeId``)."""


def text_query(words: str) -> SemanticQuery:
    """Plain text as the query the CLI and MCP make of it (ValueError when empty)."""
    words = words.strip()
    if not words:
        raise ValueError("an empty text matches nothing: give the words the element shows")
    return SemanticQuery(text=TextMatch(value=words))


def as_query(target: SemanticQuery | str) -> SemanticQuery:
    return text_query(target) if isinstance(target, str) else target
