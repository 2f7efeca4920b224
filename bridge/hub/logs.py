"""structlog set-up: JSON lines when stdout is not a TTY, with secrets redacted.

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

import structlog

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
    as_json = (not out.isatty()) if json_lines is None else json_lines
    renderer: Any = (
        structlog.processors.JSONRenderer() if as_json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso"),
            redact,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )


def get_logger(**bound: Any) -> Any:
    return structlog.get_logger("mobridge").bind(**bound)
