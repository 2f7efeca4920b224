"""Flow formats beside mobridge's own YAML (Maestro's is the one there is), given to the
loader and the runner by the composition root.

``bridge.flows.compile`` reads mobridge's format and asks the installed formats whether a
file is theirs; ``bridge.flows.runner`` hands an action no mobridge step makes to the format
whose action type it is. Neither imports a format: the CLI (``bridge.cli.flows``), the bench
and the test suite install them (``bridge.flows.maestro.format.install``) before loading
flows, so the packages depend one way only (a format depends on the loader and runner, never
the reverse). Without an installed format a file is read as mobridge's, and a foreign action
is refused at its step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Format:
    """One foreign format. The callables take the loader's and the runner's objects (typed
    ``Any`` here so this module imports neither)."""

    name: str
    detect: Callable[[Any], bool | None]
    """``(source) -> True`` (the file is this format's), ``False``, or ``None`` (cannot
    tell: the loader tries mobridge's format first, then this one)."""
    load: Callable[[Any, Any, Any, Any], Any]
    """``(loader, source, stack, call_env) -> Flow`` (raises FlowErrors)."""
    start: Callable[[Any, Any], Any]
    """``(runner, flow) -> ScriptHost``: the test's state before its first step."""
    execute: Callable[[Any, Any, Any, Any], Awaitable[None]]
    """``(runner, step, action, report)``: run one of this format's actions."""
    actions: type
    """The base class of the actions ``execute`` runs."""


_INSTALLED: dict[str, Format] = {}


def install(fmt: Format) -> None:
    """Make ``fmt`` known to every loader and runner of this process (again: no change)."""
    _INSTALLED[fmt.name] = fmt


def installed() -> tuple[Format, ...]:
    return tuple(_INSTALLED.values())


def named(name: str) -> Format | None:
    return _INSTALLED.get(name)


def executing(action: object) -> Format | None:
    """The installed format whose actions ``action`` is one of (None: no such format)."""
    for fmt in _INSTALLED.values():
        if isinstance(action, fmt.actions):
            return fmt
    return None
