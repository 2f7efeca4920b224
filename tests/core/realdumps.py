"""Loading the real dumps from ../shared for core tests (skips when absent)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from bridge.core.importers import ImportFailure, import_dump
from bridge.wire.raw import RawTree
from tests.conftest import SHARED_ABSENT_REASON, SHARED_DIR

DUMPS = SHARED_DIR / "data" / "real-dumps"


def dump_paths() -> list[Path]:
    if not DUMPS.is_dir():
        return []
    return sorted(p for p in DUMPS.rglob("*") if p.is_file() and p.suffix in (".xml", ".json"))


def dump_params() -> list[object]:
    paths = dump_paths()
    if not paths:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SHARED_ABSENT_REASON))]
    return [pytest.param(p, id=p.name) for p in paths]


@cache
def raw_of(path: Path) -> RawTree:
    raw = import_dump(path.read_bytes(), str(path))
    assert not isinstance(raw, ImportFailure), raw
    return raw
