"""Fixtures for the core tests.

- Under mutation testing (``scripts/mutation``; mutmut sets ``MUTANT_UNDER_TEST``), every
  ``functools`` cache of a ``bridge`` module is emptied before each test. mutmut runs the clean
  tests in its own process and then forks one child per mutant, so a cache warmed by the clean
  run is inherited by every child: a mutant inside a cached function (``AncestorSpec.parse``,
  textmatch's synonym key, ``safe_regex``'s compile, the role tables) never runs for an input the
  clean run already saw, and survives whatever the tests assert. Emptying the caches makes each
  test call the code it names; outside mutation testing nothing changes.
- Under mutation testing, Hypothesis runs without deadlines and derandomized: mutmut's tracing
  and a loaded machine make timings meaningless (a deadline would fail the clean run or "kill"
  a mutant by slowness), and the same examples every run make a kill reproducible.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

UNDER_MUTATION = "MUTANT_UNDER_TEST" in os.environ

if UNDER_MUTATION:
    settings.register_profile("mutation", deadline=None, derandomize=True)
    settings.load_profile("mutation")


def _clear_bridge_caches() -> None:
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "bridge" or name.startswith("bridge.")):
            continue
        for value in list(vars(module).values()):
            clear = getattr(value, "cache_clear", None)
            if callable(clear):
                clear()


@pytest.fixture(autouse=True)
def _fresh_caches_under_mutation() -> Iterator[None]:
    if UNDER_MUTATION and os.environ.get("MUTANT_UNDER_TEST"):
        _clear_bridge_caches()
    yield
