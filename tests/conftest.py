"""Fixtures shared by the whole suite.

- ``anyio_backend``: async tests (``@pytest.mark.anyio``) run on asyncio.
- ``shared_dir`` / ``SHARED_DIR``: ``../shared`` next to the repository, holding the reference
  schemas and real dumps. It is not part of the project and may be absent: tests that need it
  take the ``shared_dir`` fixture or carry ``@pytest.mark.requires_shared`` (or the
  ``requires_shared`` mark object below); either way they skip when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_DIR = Path(__file__).resolve().parents[1].parent / "shared"
SHARED_ABSENT_REASON = "../shared is absent (reference schemas and real dumps live there)"

requires_shared = pytest.mark.skipif(not SHARED_DIR.is_dir(), reason=SHARED_ABSENT_REASON)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT_REASON)
    return SHARED_DIR


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("requires_shared") and not SHARED_DIR.is_dir():
        pytest.skip(SHARED_ABSENT_REASON)
