"""Conformance with the Mobile Semantic reference schemas (../shared/reference/schemas).

Every reference-typed object the strategies produce must validate with the very validators
``../shared/tools/conform.py`` builds, and every golden fixture of a reference kind must pass
``conform.py`` run as a program. Skipped when ../shared is absent.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bridge.wire.codec import encode
from bridge.wire.node import SemanticNode
from tests.conftest import requires_shared
from tests.strategies import strategy_for
from tests.wire.golden import FIXTURES, REFERENCE_KINDS
from tests.wire.schemas import CONFORM_PY, error_lines, reference_validator

pytestmark = requires_shared

CONFORMANCE = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize(("kind", "wire_type"), REFERENCE_KINDS.items(), ids=list(REFERENCE_KINDS))
@CONFORMANCE
@given(data=st.data())
def test_generated_reference_objects_validate_against_reference(
    kind: str, wire_type: type[Any], data: st.DataObject
) -> None:
    value = data.draw(strategy_for(wire_type))
    doc = json.loads(encode(value))
    assert error_lines(reference_validator(kind), doc) == []


@pytest.mark.parametrize("kind", list(REFERENCE_KINDS))
def test_reference_fixtures_pass_conform_py(kind: str) -> None:
    files = sorted((FIXTURES / "reference" / kind).glob("*.json"))
    assert files, f"no golden fixture of kind {kind}"
    proc = subprocess.run(
        [sys.executable, str(CONFORM_PY), kind, *map(str, files)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{len(files)} passed, 0 failed" in proc.stdout


def test_a_node_the_wire_accepts_always_conforms() -> None:
    """Repeated actions: the reference schema wants them unique, so the wire either refuses
    the node or drops the repeat; either way what it encodes conforms. Both branches
    assert."""
    raw = b'{"nodeId": "n1", "role": "BUTTON", "actions": ["CLICK", "CLICK"]}'
    try:
        node = msgspec.json.decode(raw, type=SemanticNode)
    except msgspec.ValidationError as refused:
        assert "actions" in str(refused)
        assert error_lines(reference_validator("node"), json.loads(raw)) != []
        return
    assert error_lines(reference_validator("node"), json.loads(encode(node))) == []
