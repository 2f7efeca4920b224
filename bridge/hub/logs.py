"""structlog set-up: one readable line per event on a terminal (structlog's console
renderer: time, level, event, key=value), JSON lines when the output is piped or when asked
(``json_lines=True``, ``serve --log-json``); secrets redacted either way.

Every event passes ``redact``: keys that can carry secrets or typed values (token, value,
password, secret, text, authorization) are replaced by ``"[redacted]"``, and any string that
looks like a bearer token in a message is masked.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import MutableMapping
from typing import Any

# structlog's console renderer imports rich and better_exceptions when they are installed
# (rich is a dev dependency here, through import-linter) for exception formatting the hub
# never uses: ``configure`` passes ``plain_traceback``, and the JSON renderer formats no
# traceback. Hidden while structlog loads, they cost an idle hub nothing (rich, pygments
# and attrs were ~5 MB of its RSS, issue 41); a later ``import rich`` works as usual.
_HIDDEN = [name for name in ("rich", "better_exceptions") if name not in sys.modules]
for _name in _HIDDEN:
    sys.modules[_name] = None  # type: ignore[assignment]
try:
    import structlog
finally:
    for _name in _HIDDEN:
        if _name in sys.modules and sys.modules[_name] is None:
            del sys.modules[_name]

SENSITIVE_KEYS = frozenset(
    {"token", "value", "password", "secret", "text", "authorization", "value_ref", "valueref"}
)
_BEARER = re.compile(r"(?i)bearer\s+\S+")


def redact(_: Any, __: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    for key in list(event):
        if key.lower() in SENSITIVE_KEYS:
            event[key] = "[redacted]"
        elif isinstance(event[key], str):
            event[key] = _BEARER.sub("Bearer [redacted]", event[key])
    return event


def configure(
    json_lines: bool | None = None, level: int = logging.INFO, stream: Any = None
) -> None:
    out = stream or sys.stderr
    as_json = (not on_terminal(out)) if json_lines is None else json_lines
    renderer: Any
    if as_json:
        renderer = structlog.processors.JSONRenderer()
        stamp = structlog.processors.TimeStamper(fmt="iso")
    else:
        renderer = structlog.dev.ConsoleRenderer(
            colors=_isatty(out), pad_event=22, exception_formatter=structlog.dev.plain_traceback
        )
        stamp = structlog.processors.TimeStamper(fmt="%H:%M:%S", utc=False)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            stamp,
            redact,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # a closed or odd stream
        return False


def on_terminal(stream: Any) -> bool:
    """Whether a person reads ``stream``: it is a terminal, or it is stderr and stdout is
    one (``mobridge serve`` in a terminal whose stderr goes elsewhere still reads as text;
    anything piped gets JSON)."""
    return _isatty(stream) or (stream is sys.stderr and _isatty(sys.stdout))


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger("mobridge").bind(**bound)
