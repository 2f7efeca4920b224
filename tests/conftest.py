"""Fixtures shared by the whole suite.

- ``anyio_backend``: async tests (``@pytest.mark.anyio``) run on asyncio.
- ``shared_dir`` / ``SHARED_DIR``: ``../shared`` next to the repository, holding the reference
  schemas and real dumps. It is not part of the project and may be absent: tests that need it
  take the ``shared_dir`` fixture or carry ``@pytest.mark.requires_shared`` (or the
  ``requires_shared`` mark object below); either way they skip when it is missing.
- Every hub the tests start (in process or as ``mobridge serve``) keeps its default journal
  in a private state directory (``XDG_STATE_HOME``), never in the user's.
- Honest runs (``tests/skips.py``): under CI (env ``CI`` set) a skipped test is reported as a
  failure with its reason; locally, when ``MOBRIDGE_SKIP_REPORT`` names a file, the session
  writes one line per skip reason there (``scripts/test`` prints them last). Skips are
  counted from ``pytest_runtest_logreport``, so a run split over pytest-xdist workers
  (``scripts/test`` runs four per core) reports them all, once.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from bridge.flows.maestro.format import install as install_maestro
from tests.skips import SHARED_ABSENT, SHARED_DIR

# Property tests assert what holds, never how fast one example runs: on a loaded 2-core machine
# one example can take 400 ms (a descheduled worker), which hypothesis's default 200 ms deadline
# reports as a flaky failure. Speed is scripts/bench's business.
settings.register_profile("mobridge", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("mobridge")

install_maestro()  # the suite is a composition root: loaders and runners read Maestro files

SHARED_ABSENT_REASON = SHARED_ABSENT
_SKIPS: Counter[str] = Counter()

requires_shared = pytest.mark.skipif(not SHARED_DIR.is_dir(), reason=SHARED_ABSENT_REASON)


LONGEST_FIRST = (
    "tests/flows/maestro/test_sim_flows.py",
    "tests/docs/test_docs_commands.py",
    "tests/wire/test_roundtrip.py",
    "tests/bench/test_hub_bench_smoke.py",
    "tests/flows/test_suite_cli.py",
    "tests/webdriver/test_appium_client.py",
    "tests/meta/test_skips_under_ci.py",
    "tests/flows/maestro/test_sim_options.py",
    "tests/cli/test_cli_client_commands.py",
    "tests/webdriver/test_appium_commands.py",
    "tests/meta/test_broken_code_is_caught.py",
    "tests/adversarial/test_small_holes_33.py",
)
"""Test files that each keep one worker busy longest (30-90 s at 3 workers on a 2-core
machine; ``--durations`` of full runs, 2026-12-03), started first: pytest-xdist hands whole
files out in collection order (``--dist loadfile``), and in alphabetical order the longest
came last, leaving one worker running them while the others had nothing left to do. Only
the order changes; a file missing from the list (renamed) just keeps its place."""


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    root = Path(__file__).resolve().parents[1]
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def key(pair: tuple[int, pytest.Item]) -> tuple[int, int]:
        where, item = pair
        try:
            name = Path(str(item.fspath)).resolve().relative_to(root).as_posix()
        except ValueError:
            name = ""
        return rank.get(name, len(rank)), where

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]


def pytest_configure(config: pytest.Config) -> None:
    import tempfile

    os.environ["XDG_STATE_HOME"] = tempfile.mkdtemp(prefix="mobridge-test-state-")


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT_REASON)
    return SHARED_DIR


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if call.when == "call" and not report.passed:
        _AFTER_A_FAILURE.append(item.nodeid)
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    if os.environ.get("CI"):
        why = _skip_reason(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"skipped under CI, where nothing may skip: {why}"


_AFTER_A_FAILURE: list[str] = []


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Collect garbage before the test that follows one that did not pass. An async test that
    skipped or failed inside a task group leaves an asyncio task whose exception nobody
    retrieved; its finalizer logs it with a traceback, and Python 3.11 formats traceback
    carets with ``ast.parse``. Run by a garbage collection that happens inside another
    ``ast.parse`` (pytest rewriting a module a later test imports), the nested parse broke
    the outer one: ``SystemError: AST constructor recursion depth mismatch`` (CPython
    gh-106905's family) failed an unrelated test in a run without ../shared. The failed
    test's own report holds the task until it is done with, so the next setup collects."""
    if _AFTER_A_FAILURE:
        _AFTER_A_FAILURE.clear()
        gc.collect()
    if item.get_closest_marker("requires_shared") and not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT_REASON)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """A module that skips itself while being collected (``pytest.skip(allow_module_level=
    True)``, ``importorskip`` at import time) is a skip like any other: a failure under CI,
    counted and named locally."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped:
        return
    if os.environ.get("CI"):
        why = _skip_reason(report.longrepr)
        report.outcome = "failed"
        report.longrepr = f"{collector.nodeid}: skipped under CI, where nothing may skip: {why}"


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Count a module's own skip where every collection report arrives (see
    ``pytest_runtest_logreport``)."""
    if report.skipped:
        _SKIPS[_skip_reason(report.longrepr)] += 1


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count skips where every report arrives: the one process, or under pytest-xdist the
    controller (its workers' reports come to it here)."""
    if report.skipped and not hasattr(report, "wasxfail"):
        _SKIPS[_skip_reason(report.longrepr)] += 1


def _skip_reason(longrepr: object) -> str:
    text = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return str(text).removeprefix("Skipped: ")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    target = os.environ.get("MOBRIDGE_SKIP_REPORT")
    if not target or hasattr(session.config, "workerinput"):  # a worker: the controller writes
        return
    lines = [f"skipped {n} test{'s' if n != 1 else ''}: {why}" for why, n in _SKIPS.most_common()]
    Path(target).write_text("".join(line + "\n" for line in lines))
