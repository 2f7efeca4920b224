"""Keeping typed secrets out of every snapshot, whatever field they were typed into.

The hub resolves ``valueRef: secret://…`` at execution time and types the plaintext into a
field. A password field is redacted by normalization, but an ordinary field (a username, a
search box) would echo the plaintext back in the next capture, and from there into deltas,
diffs, results and the dashboard. ``SecretMasker`` remembers the secrets the hub typed (at most
``MAX_SECRETS``, least recently typed forgotten first) and rewrites each raw capture before it
is normalized, so the plaintext never enters the hub's snapshot model:

1. any text field (text, label, value, hint) equal to a typed secret is replaced by ``MASK``;
2. any text field containing a typed secret of at least ``MIN_CONTAINED`` characters is
   replaced by ``MASK``;
3. the text or value of an editable node that is a prefix of a typed secret, at least
   ``MIN_PREFIX`` characters long (or the whole secret when shorter), is replaced by ``MASK``:
   agents that type character by character show partial echoes.

A field stops being masked as soon as its content is something the hub did not type (rules
1-3 no longer hold). The caller must call ``typed`` before dispatching the text, so the first
capture that could show it is already masked; the masker holds plaintext only inside the hub.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

import msgspec

from bridge.core.secret_forms import Scrubber
from bridge.wire.raw import RawNode, RawTree

MASK: Final = "••••••••"
MAX_SECRETS: Final = 64
MIN_CONTAINED: Final = 6
MIN_PREFIX: Final = 3
_FIELDS: Final = ("text", "label", "value", "hint")


class SecretMasker:
    def __init__(self, capacity: int = MAX_SECRETS) -> None:
        self._secrets: OrderedDict[str, None] = OrderedDict()
        self._capacity = capacity
        self.version = 0
        """Grows whenever the set of secrets changes (a capture masked at the same version
        needs only its changed nodes masked again)."""
        self._scrubber: Scrubber | None = None
        self._scrubber_version = -1

    def __len__(self) -> int:
        return len(self._secrets)

    def typed(self, secret: str) -> None:
        """Remember ``secret`` (call before the text is dispatched)."""
        if not secret:
            return
        if secret not in self._secrets:
            self.version += 1
        self._secrets[secret] = None
        self._secrets.move_to_end(secret)
        while len(self._secrets) > self._capacity:
            self._secrets.popitem(last=False)
            self.version += 1

    def is_secret(self, text: str | None) -> bool:
        """True when ``text`` would be masked in an ordinary (non-editable) field."""
        return text is not None and self._hides(text, editable=False)

    def _hides(self, text: str, *, editable: bool) -> bool:
        if not text or text == MASK:
            return False
        for secret in self._secrets:
            if text == secret:
                return True
            if len(secret) >= MIN_CONTAINED and secret in text:
                return True
            if editable and len(text) >= min(MIN_PREFIX, len(secret)) and secret.startswith(text):
                return True
        return False

    def mask_text(self, text: str) -> str:
        """``text`` (free text such as a log line or a crash report) with every typed secret
        in it replaced by ``MASK``, in every form a reader could decode back to it (escaped,
        quoted, JSON-, percent-, hex- or base64-encoded, or cut at the text's edges: see
        ``bridge.core.secret_forms``); the same object when none is there. Secrets shorter
        than ``MIN_PREFIX`` are masked only when they are the whole text (a short one would
        blank common words)."""
        if not self._secrets or not text:
            return text
        if text in self._secrets:
            return MASK
        return self._scrub().scrub(text)

    def mask_text_after(self, previous: str, text: str) -> str:
        """``mask_text`` for a line of a stream whose previous line was ``previous`` (its
        unmasked text): a secret cut between the two lines is masked in both."""
        if not self._secrets or not text:
            return text
        if text in self._secrets:
            return MASK
        return self._scrub().scrub_after(previous, text)

    def _scrub(self) -> Scrubber:
        if self._scrubber is None or self._scrubber_version != self.version:
            self._scrubber = Scrubber(self._secrets, MASK)
            self._scrubber_version = self.version
        return self._scrubber

    def mask_node(self, node: RawNode) -> RawNode:
        """``node`` with every field that shows a typed secret replaced by ``MASK``."""
        updates: dict[str, str] = {}
        for name in _FIELDS:
            text = getattr(node, name)
            if text is not None and self._hides(
                text, editable=node.editable and name in ("text", "value")
            ):
                updates[name] = MASK
        return msgspec.structs.replace(node, **updates) if updates else node

    def mask(self, tree: RawTree) -> RawTree:
        """``tree`` with every field that shows a typed secret replaced by ``MASK``; the same
        object when nothing needed masking (the common case costs one scan)."""
        if not self._secrets:
            return tree
        changed = False
        nodes: list[RawNode] = []
        for node in tree.nodes:
            updates: dict[str, str] = {}
            for name in _FIELDS:
                text = getattr(node, name)
                if text is not None and self._hides(
                    text, editable=node.editable and name in ("text", "value")
                ):
                    updates[name] = MASK
            if updates:
                changed = True
                nodes.append(msgspec.structs.replace(node, **updates))
            else:
                nodes.append(node)
        return msgspec.structs.replace(tree, nodes=tuple(nodes)) if changed else tree
