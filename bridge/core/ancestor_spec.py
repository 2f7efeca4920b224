"""ROLE_LABEL_ANCESTOR's ``ancestor`` string: what it says, parsed and rendered.

Spelling: ``<scope>`` (the nearest identified ancestor ``id:<automation id>``, or the role of
the nearest container; empty for none), then, in this order and each only when needed:
- ``|text:<t>`` — for an element with look-alikes (same role, name and scope), the nearest
  other text that sets it apart (a card's title);
- ``|nth:<k>/<n>`` — the k-th of n look-alikes in document order, honoured only while there
  are still exactly n;
- ``|shown:<t>`` — the text the element showed when its label is not that text (a content
  description over a changing text); see ``bridge.core.shown_text``.

Parsing is total: a string that does not follow the spelling is a scope and nothing else.
``|shown:`` is found from the right, so a shown text containing ``|shown:`` parses short and
no longer matches the element's text: the ref refuses (STALE_NODE_REF), it never matches more.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

_SHOWN = "|shown:"
PARSED_SPECS = 256
"""Recently parsed ancestor strings kept (a bounded cache: refs come from clients)."""


@dataclass(frozen=True, slots=True)
class AncestorSpec:
    """What ROLE_LABEL_ANCESTOR's ``ancestor`` string says (spelling: module docstring)."""

    scope: str | None
    text: str | None = None
    nth: tuple[int, int] | None = None
    shown: str | None = None

    def render(self) -> str | None:
        tail = ""
        if self.text is not None:
            tail += f"|text:{self.text}"
        if self.nth is not None:
            tail += f"|nth:{self.nth[0]}/{self.nth[1]}"
        if self.shown is not None:
            tail += f"{_SHOWN}{self.shown}"
        if not tail:
            return self.scope
        return (self.scope or "") + tail

    @staticmethod
    def parse(value: str | None) -> AncestorSpec:
        """The spec ``value`` renders (the same frozen object for the same recent string:
        a ref is resolved again and again)."""
        return _parse(value)

    @staticmethod
    def _parse(value: str | None) -> AncestorSpec:
        cut = value.rfind(_SHOWN) if value is not None else -1
        if value is None or cut < 0:
            return AncestorSpec._parse_look_alikes(value)
        head = AncestorSpec._parse_look_alikes(value[:cut] or None)
        return AncestorSpec(head.scope, head.text, head.nth, value[cut + len(_SHOWN) :])

    @staticmethod
    def _parse_look_alikes(value: str | None) -> AncestorSpec:
        if value is None or "|" not in value:
            return AncestorSpec(value)
        scope, _, rest = value.partition("|")
        text: str | None = None
        nth: tuple[int, int] | None = None
        if rest.startswith("text:"):
            body = rest[5:]
            cut = body.rfind("|nth:")
            if cut >= 0 and _nth(body[cut + 5 :]) is not None:
                text, nth = body[:cut], _nth(body[cut + 5 :])
            else:
                text = body
        elif rest.startswith("nth:"):
            nth = _nth(rest[4:])
            if nth is None:
                return AncestorSpec(value)
        else:
            return AncestorSpec(value)
        return AncestorSpec(scope or None, text=text, nth=nth)


@lru_cache(maxsize=PARSED_SPECS)
def _parse(value: str | None) -> AncestorSpec:
    return AncestorSpec._parse(value)


def _nth(value: str) -> tuple[int, int] | None:
    k, _, n = value.partition("/")
    if k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n):
        return int(k), int(n)
    return None
