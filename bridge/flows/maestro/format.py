"""Maestro's format as a ``bridge.flows.formats.Format``: detection and loading
(``bridge.flows.maestro.compile``), the test's JavaScript host and the executor of Maestro
actions (``bridge.flows.maestro.run``). ``install()`` is called by the composition roots
(the CLI, the bench, the test suite) before flows are loaded."""

from __future__ import annotations

from bridge.flows import formats
from bridge.flows.maestro.actions import MaestroAction
from bridge.flows.maestro.compile import is_maestro, load
from bridge.flows.maestro.run import execute, start_host

MAESTRO = formats.Format(
    name="maestro",
    detect=is_maestro,
    load=load,
    start=start_host,
    execute=execute,
    actions=MaestroAction,
)


def install() -> None:
    """Make Maestro files loadable and their actions runnable in this process."""
    formats.install(MAESTRO)
