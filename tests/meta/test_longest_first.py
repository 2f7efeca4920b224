"""The files ``tests/conftest.py`` starts first exist (a renamed one would silently fall back
to its alphabetical place, and the run's tail would grow again)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from tests.conftest import LONGEST_FIRST, pytest_collection_modifyitems

ROOT = Path(__file__).resolve().parents[2]


def test_every_file_started_first_exists_once() -> None:
    assert len(set(LONGEST_FIRST)) == len(LONGEST_FIRST)
    missing = [name for name in LONGEST_FIRST if not (ROOT / name).is_file()]
    assert not missing, missing


def test_collection_puts_them_first_in_the_listed_order() -> None:
    items = [
        SimpleNamespace(fspath=ROOT / name, name=f"{name}::{n}")
        for name, n in (
            ("tests/core/test_patch.py", 1),
            (LONGEST_FIRST[2], 1),
            ("tests/core/test_patch.py", 2),
            (LONGEST_FIRST[0], 1),
            (LONGEST_FIRST[2], 2),
            ("tests/somewhere/not_a_file.py", 1),
        )
    ]
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == [
        f"{LONGEST_FIRST[0]}::1",
        f"{LONGEST_FIRST[2]}::1",
        f"{LONGEST_FIRST[2]}::2",
        "tests/core/test_patch.py::1",
        "tests/core/test_patch.py::2",
        "tests/somewhere/not_a_file.py::1",
    ]
