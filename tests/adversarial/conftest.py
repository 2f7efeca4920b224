"""Every adversarial test is async (anyio, asyncio backend) and bounded in time."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/adversarial/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.anyio)
