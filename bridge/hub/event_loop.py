"""Which event loop runs the hub: the standard library's asyncio loop, or uvloop.

uvloop is an optional extra (``mobridge[fast]``): its socket writes are implemented in C
(libuv), which is where the hub spends most of its time when many subscribers share one
change (``scripts/bench --only hub`` prints both loops side by side). Nothing else in the
hub depends on the loop; anyio runs on either.

Invariant: ``backend_options`` never falls back silently — asking for uvloop where it is not
installed raises ``LoopUnavailable`` with the command that installs it.
"""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

LOOPS = ("asyncio", "uvloop")
INSTALL_HINT = "pip install 'mobridge[fast]' (in a checkout: MOBRIDGE_EXTRAS=fast scripts/run ...)"


class LoopUnavailable(RuntimeError):
    """The loop asked for cannot run here; the message says how to get it."""


def uvloop_installed() -> bool:
    return importlib.util.find_spec("uvloop") is not None


def backend_options(loop: str) -> dict[str, Any]:
    """The ``backend_options`` for ``anyio.run`` that select ``loop`` (one of ``LOOPS``)."""
    if loop == "asyncio":
        return {}
    if loop == "uvloop":
        if not uvloop_installed():
            raise LoopUnavailable(f"--loop uvloop: uvloop is not installed; {INSTALL_HINT}")
        return {"use_uvloop": True}
    raise LoopUnavailable(f"unknown event loop {loop!r}; choose one of {', '.join(LOOPS)}")


def running_loop() -> str:
    """The package of the running event loop's class: ``asyncio`` or ``uvloop``."""
    return type(asyncio.get_running_loop()).__module__.split(".")[0]
