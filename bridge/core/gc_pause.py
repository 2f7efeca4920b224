"""``gc_paused()``: the cycle collector held off while a whole tree is built.

Importing a dump and normalizing a whole tree allocate tens of thousands of container objects
(parsed elements, per-node rule state) that live until the pass ends; the collector, started
every 700 allocations, walks them again and again for cycles they do not have (issue 41's
profile: a tenth of a 5,000-node import + normalize). Paused, the pass allocates the same
objects and the collector runs at its next trigger after the pause.

Invariants: only a pause that found the collector enabled turns it off, and that pause turns
it on again when it ends (also on an exception), so once every pause has ended the
collector is enabled if it was when any of them began; a nested pause, or one overlapping
it in another thread, changes nothing (it may run with the collector on). A process that
turns the collector off while a pause runs has it turned on at that pause's end. Pure: no
lock, clock or I/O (``bridge/core`` is sans-I/O).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    resume = gc.isenabled()
    if resume:
        gc.disable()
    try:
        yield
    finally:
        if resume:
            gc.enable()
